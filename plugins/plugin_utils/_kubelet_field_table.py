# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The top-level fields of KubeletConfiguration (kubelet.config.k8s.io/v1beta1): their Go types, and which checked
kubelet version knows which field.

KUBELET_CONFIGURATION_FIELDS lets a config be checked for misspelt keys, which the kubelet silently ignores under
lenient decoding (docs/kubelet-facts.md section 1). How a value decodes into its field: _kubelet_fields.
"""

from __future__ import annotations

import re

from ._config import API_VERSION

# Every field of the KubeletConfiguration struct (its json tag) with its Go type, plus apiVersion and kind from the
# inlined metav1.TypeMeta. Read from kubernetes/kubernetes staging/src/k8s.io/kubelet/config/v1beta1/types.go at
# commit 001332b0422071acf4860769f18e34b5e9b7c1bc, the v1.36 API: it has memoryReservationPolicy, which v1.36 added,
# and memoryThrottlingFactor still "Default: 0.9".
# https://github.com/kubernetes/kubernetes/blob/001332b0422071acf4860769f18e34b5e9b7c1bc/staging/src/k8s.io/kubelet/config/v1beta1/types.go
#
# The kubelet decodes the YAML as JSON into these types, so a value of another JSON type is refused ("json: cannot
# unmarshal number into Go struct field KubeletConfiguration.kubeReserved of type string"); a pointer type (*int32)
# takes the same values as the plain one, and null leaves any field unset. Kinds:
# - "string", "bool", "int32", "int64", "float64": the Go scalar (a JSON number for the integers, in range, no fraction;
#   float64 also takes an integer);
# - "duration": metav1.Duration, a string time.ParseDuration reads ("10s", "1m30s", "0");
# - "quantities": map[string]string whose values are resource quantities or percentages (kubeReserved, evictionHard,
#   ...); users often write bytes as YAML integers, which the kubelet refuses, so planning writes them as strings;
# - "[]string", "[]int32", "map[string]string", "map[string]bool", "map[string][]string": as in Go;
# - "object", "[]object": a struct or a list of structs (their inner fields are the kubelet's business).
FIELD_TYPES: dict[str, str] = {
    "apiVersion": "string",
    "kind": "string",
    "enableServer": "bool",
    "staticPodPath": "string",
    "podLogsDir": "string",
    "syncFrequency": "duration",
    "fileCheckFrequency": "duration",
    "httpCheckFrequency": "duration",
    "staticPodURL": "string",
    "staticPodURLHeader": "map[string][]string",
    "address": "string",
    "port": "int32",
    "readOnlyPort": "int32",
    "tlsCertFile": "string",
    "tlsPrivateKeyFile": "string",
    "tlsCipherSuites": "[]string",
    "tlsCurvePreferences": "[]int32",
    "tlsMinVersion": "string",
    "rotateCertificates": "bool",
    "serverTLSBootstrap": "bool",
    "authentication": "object",
    "authorization": "object",
    "registryPullQPS": "int32",
    "registryBurst": "int32",
    "imagePullCredentialsVerificationPolicy": "string",
    "preloadedImagesVerificationAllowlist": "[]string",
    "eventRecordQPS": "int32",
    "eventBurst": "int32",
    "enableDebuggingHandlers": "bool",
    "enableContentionProfiling": "bool",
    "healthzPort": "int32",
    "healthzBindAddress": "string",
    "oomScoreAdj": "int32",
    "clusterDomain": "string",
    "clusterDNS": "[]string",
    "streamingConnectionIdleTimeout": "duration",
    "nodeStatusUpdateFrequency": "duration",
    "nodeStatusReportFrequency": "duration",
    "nodeLeaseDurationSeconds": "int32",
    "imageMinimumGCAge": "duration",
    "imageMaximumGCAge": "duration",
    "imageGCHighThresholdPercent": "int32",
    "imageGCLowThresholdPercent": "int32",
    "volumeStatsAggPeriod": "duration",
    "kubeletCgroups": "string",
    "systemCgroups": "string",
    "cgroupRoot": "string",
    "cgroupsPerQOS": "bool",
    "cgroupDriver": "string",
    "cpuManagerPolicy": "string",
    "singleProcessOOMKill": "bool",
    "cpuManagerPolicyOptions": "map[string]string",
    "cpuManagerReconcilePeriod": "duration",
    "draManagerReconcilePeriod": "duration",
    "memoryManagerPolicy": "string",
    "topologyManagerPolicy": "string",
    "topologyManagerScope": "string",
    "topologyManagerPolicyOptions": "map[string]string",
    "qosReserved": "map[string]string",
    "runtimeRequestTimeout": "duration",
    "hairpinMode": "string",
    "maxPods": "int32",
    "podCIDR": "string",
    "podPidsLimit": "int64",
    "resolvConf": "string",
    "runOnce": "bool",
    "cpuCFSQuota": "bool",
    "cpuCFSQuotaPeriod": "duration",
    "nodeStatusMaxImages": "int32",
    "maxOpenFiles": "int64",
    "contentType": "string",
    "kubeAPIQPS": "int32",
    "kubeAPIBurst": "int32",
    "serializeImagePulls": "bool",
    "maxParallelImagePulls": "int32",
    "evictionHard": "quantities",
    "evictionSoft": "quantities",
    "evictionSoftGracePeriod": "map[string]string",
    "evictionPressureTransitionPeriod": "duration",
    "evictionMaxPodGracePeriod": "int32",
    "evictionMinimumReclaim": "quantities",
    "mergeDefaultEvictionSettings": "bool",
    "podsPerCore": "int32",
    "enableControllerAttachDetach": "bool",
    "protectKernelDefaults": "bool",
    "makeIPTablesUtilChains": "bool",
    "iptablesMasqueradeBit": "int32",
    "iptablesDropBit": "int32",
    "featureGates": "map[string]bool",
    "failSwapOn": "bool",
    "memorySwap": "object",
    "containerLogMaxSize": "string",
    "containerLogMaxFiles": "int32",
    "containerLogMaxWorkers": "int32",
    "containerLogMonitorInterval": "duration",
    "configMapAndSecretChangeDetectionStrategy": "string",
    "systemReserved": "quantities",
    "kubeReserved": "quantities",
    "reservedSystemCPUs": "string",
    "showHiddenMetricsForVersion": "string",
    "systemReservedCgroup": "string",
    "kubeReservedCgroup": "string",
    "enforceNodeAllocatable": "[]string",
    "allowedUnsafeSysctls": "[]string",
    "volumePluginDir": "string",
    "providerID": "string",
    "kernelMemcgNotification": "bool",
    "logging": "object",
    "enableSystemLogHandler": "bool",
    "enableSystemLogQuery": "bool",
    "shutdownGracePeriod": "duration",
    "shutdownGracePeriodCriticalPods": "duration",
    "shutdownGracePeriodByPodPriority": "[]object",
    "crashLoopBackOff": "object",
    "reservedMemory": "[]object",
    "enableProfilingHandler": "bool",
    "enableDebugFlagsHandler": "bool",
    "seccompDefault": "bool",
    "memoryThrottlingFactor": "float64",
    "memoryReservationPolicy": "string",
    "registerWithTaints": "[]object",
    "registerNode": "bool",
    "tracing": "object",
    "localStorageCapacityIsolation": "bool",
    "containerRuntimeEndpoint": "string",
    "imageServiceEndpoint": "string",
    "failCgroupV1": "bool",
    "userNamespaces": "object",
}

KUBELET_CONFIGURATION_FIELDS: frozenset[str] = frozenset(FIELD_TYPES)

# The one source of truth for which checked kubelet knows which field: the fields of FIELD_TYPES each checked kubelet's
# v1beta1 KubeletConfiguration lacks. Its strict decoding fails on them ("strict decoding error: unknown field ..."),
# so it logs "Using lenient decoding as strict decoding failed" at info level and starts without them, whatever their
# value or type. Verified on the real kubelets v1.31.14, v1.33.13 and v1.36.2: a config holding every field of FIELD_TYPES
# gets that line naming exactly its version's set below (tests/oracle/cases/field_versions.yml has a case per field).
# draManagerReconcilePeriod is newer than v1.36.2 (types.go at 001332b0 above has it; v1.36.2 does not).
FIELDS_UNKNOWN_TO: dict[str, frozenset[str]] = {
    "1.31": frozenset(
        {
            "crashLoopBackOff",
            "draManagerReconcilePeriod",
            "imagePullCredentialsVerificationPolicy",
            "memoryReservationPolicy",
            "mergeDefaultEvictionSettings",
            "preloadedImagesVerificationAllowlist",
            "singleProcessOOMKill",
            "tlsCurvePreferences",
            "userNamespaces",
        }
    ),
    "1.33": frozenset({"draManagerReconcilePeriod", "memoryReservationPolicy", "tlsCurvePreferences"}),
    "1.36": frozenset({"draManagerReconcilePeriod"}),
}
# The kubelet versions whose rules are exact here, newest last (the project's own kubelet, v1.36.2).
KUBELET_VERSIONS = tuple(FIELDS_UNKNOWN_TO)
_KUBELET_VERSION = re.compile(r"v?1\.(\d+)(?:\.\d+)?(?:[-+][0-9A-Za-z.+-]*)?")


def checked_minor(kubelet_version: str | None = None) -> str | None:
    """The checked version whose rules judge kubelet_version ("v1.32.5+rke2r1" -> "1.31"): its own, else the nearest
    older one, else the oldest; None -> the newest; None when kubelet_version is not a version."""
    if kubelet_version is None:
        return KUBELET_VERSIONS[-1]
    match = _KUBELET_VERSION.fullmatch(kubelet_version) if isinstance(kubelet_version, str) else None
    if match is None:
        return None
    minor = int(match.group(1))
    return ([version for version in KUBELET_VERSIONS if int(version.split(".")[1]) <= minor] or [KUBELET_VERSIONS[0]])[-1]


def fields_unknown_to(kubelet_version: str | None = None) -> frozenset[str]:
    """The fields of FIELD_TYPES that kubelet (any version string; None: 1.36) does not decode, judged as checked_minor."""
    return FIELDS_UNKNOWN_TO.get(checked_minor(kubelet_version) or "", frozenset())


def unknown_field_warning(name: str, kubelet_version: str | None = None) -> str:
    """What the kubelet does with a field its version does not know, in its own log words."""
    version = checked_minor(kubelet_version)
    return (
        f"{name}: kubelet {version} does not know this field (a newer KubeletConfiguration {API_VERSION} has it): it logs "
        f'"Using lenient decoding as strict decoding failed" (strict decoding error: unknown field "{name}") and starts without it'
    )
