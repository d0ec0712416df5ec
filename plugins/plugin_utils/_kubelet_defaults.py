# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet's v1beta1 defaulting of a main --config file (Kubernetes v1.36, Linux), ported rule by rule.

apply_defaults(config) returns what the kubelet holds after loading a main --config file: SetDefaults_KubeletConfiguration,
then loadConfigFile's evictionHard step (merge_default_eviction_settings, public for callers that need that step alone).
Values are written as a user writes them in YAML. The rules, where the kubelet re-runs them and what is not modelled:
docs/kubelet-facts.md section 7; the files and commits read: KUBELET_DEFAULTS_SOURCE. Go durations: _go_duration; a config
another version's defaulting made: _kubelet_defaults_versions.
"""

from __future__ import annotations

from typing import Any

from ._config import API_VERSION, KIND, KubeletConfigError
from ._feature_gate_table import FEATURE_GATES_SOURCE, gate_table
from ._feature_gates import gate_enabled
from ._go_duration import HOUR, MILLISECOND, MINUTE, SECOND, go_duration_string, parse_go_duration
from ._kubelet_field_table import KUBELET_VERSIONS, checked_minor, fields_unknown_to

KUBELET_DEFAULTS_SOURCE = (
    "kubernetes/kubernetes v1.36 (https://github.com/kubernetes/kubernetes/tree/v1.36.2): "
    "pkg/kubelet/apis/config/v1beta1/defaults.go SetDefaults_KubeletConfiguration, the version with FailCgroupV1 "
    "defaulting to true and the KubeletCrashLoopBackOffMax / KubeletEnsureSecretPulledImages blocks, compared with "
    "the versions at 030891da1212d8ad441099a56ea89ceab67e97a1 and 1c9cf914f2f951313b8e9f7c321f5bd50b5e3d9f; "
    "MemoryReservationPolicy 'None' from pkg/kubelet/apis/config/v1beta1/defaults_test.go at "
    "01120ec5f8c60a28749f3b28de32415f64b1351f (absent from those two defaults.go versions; a real kubelet v1.36.2 "
    "defaults it); "
    "cmd/kubelet/app/server.go loadConfigFile and mergeKubeletConfigurations at "
    "001332b0422071acf4860769f18e34b5e9b7c1bc; pkg/kubelet/eviction/defaults_linux.go DefaultEvictionHard at "
    "8a4d98ac2f6dfd69fc5649b7bb23de0add56be56; staging/src/k8s.io/kubelet/config/v1beta1/types.go at "
    "001332b0422071acf4860769f18e34b5e9b7c1bc; staging/src/k8s.io/component-base/logs/api/v1/options.go "
    "SetRecommendedLoggingConfiguration; the feature gates: " + FEATURE_GATES_SOURCE + " Every default checked against the /configz of a real kubelet v1.36.2."
)

# pkg/kubelet/eviction/defaults_linux.go at 8a4d98ac (the imagefs.inodesFree entry is missing from the older
# 2b02db1be88b09193d96585c4b6dd796d6b2e06c version; a real kubelet v1.36.2 has it). Before PR #110263 (v1.25) the map
# lived in pkg/kubelet/apis/config/v1beta1/defaults_linux.go and was set by SetDefaults itself.
DEFAULT_EVICTION_HARD: dict[str, str] = {
    "memory.available": "100Mi",
    "nodefs.available": "10%",
    "nodefs.inodesFree": "5%",
    "imagefs.available": "15%",
    "imagefs.inodesFree": "5%",
}

# Constants of defaults.go / its imports.
_KUBELET_PORT = 10250  # pkg/cluster/ports KubeletPort
_KUBELET_OOM_SCORE_ADJ = -999  # pkg/kubelet/qos KubeletOOMScoreAdj
_RESOLV_CONF_DEFAULT = "/etc/resolv.conf"  # pkg/kubelet/types ResolvConfDefault
_DEFAULT_IPTABLES_MASQUERADE_BIT = 14
_DEFAULT_IPTABLES_DROP_BIT = 15
_DEFAULT_VOLUME_PLUGIN_DIR = "/usr/libexec/kubernetes/kubelet-plugins/volume/exec/"
_DEFAULT_POD_LOGS_DIR = "/var/log/pods"
_DEFAULT_MEMORY_THROTTLING_FACTOR = 0.9
_MAX_CONTAINER_BACK_OFF = 300 * SECOND
_DEFAULT_NODE_ALLOCATABLE_ENFORCEMENT = ("pods",)
_LOG_FLUSH_FREQ_DEFAULT = 5 * SECOND  # component-base logs/api/v1 LogFlushFreqDefault

# How the defaulting of the older checked kubelets differs from v1.36's (pkg/kubelet/apis/config/v1beta1/defaults.go
# SetDefaults_KubeletConfiguration at the release tags, https://github.com/kubernetes/kubernetes/blob/v1.31.14/...,
# v1.33.13/..., v1.36.2/...):
# - no default for a field the version does not know (_kubelet_field_table.FIELDS_UNKNOWN_TO): memoryReservationPolicy
#   (v1.36), mergeDefaultEvictionSettings (v1.33, PR #127577), crashLoopBackOff (v1.32);
# - the gated defaults follow that version's gates: KubeletCrashLoopBackOffMax and KubeletEnsureSecretPulledImages
#   are alpha and off in v1.33, so a v1.33 kubelet defaults neither crashLoopBackOff.maxContainerRestartPeriod nor
#   imagePullCredentialsVerificationPolicy, and refuses them when written (checked on the real kubelet v1.33.13:
#   tests/oracle/cases/field_versions.yml);
# - failCgroupV1 defaults to false before v1.35 (kubernetes PR #134298, KEP-5573, made it true in v1.35).
KUBELET_DEFAULTS_BY_VERSION = ("1.31", "1.33", "1.36")
_FAIL_CGROUP_V1_DEFAULT = {"1.31": False, "1.33": False, "1.36": True}


def _copy_tree(value: Any) -> Any:
    """A deep copy of decoded YAML (mappings, lists, scalars), several times faster than copy.deepcopy on a config."""
    if isinstance(value, dict):
        return {key: _copy_tree(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy_tree(item) for item in value]
    return value


def _struct(parent: dict, field: str, path: str) -> dict:
    """A nested struct field as a dict, created when absent or null (Go keeps the zero struct)."""
    value = parent.get(field)
    if value is None:
        value = parent[field] = {}
    elif not isinstance(value, dict):
        raise KubeletConfigError([f"{path}: must be a mapping, got {type(value).__name__} {value!r}"])
    return value


def _duration_is_zero(parent: dict, field: str, path: str) -> bool:
    """A non-pointer metav1.Duration field: True when absent or zero. JSON null fails metav1.Duration's decoding."""
    if field not in parent:
        return True
    value = parent[field]
    if value is None:
        # The v1.36.2 oracle refuses `syncFrequency: null` with "failed to decode: time: invalid duration """.
        raise KubeletConfigError([f'{path}: time: invalid duration "" (a duration field cannot be null)'])
    if not isinstance(value, str):
        raise KubeletConfigError([f'{path}: a duration must be a string such as "10s", got {type(value).__name__} {value!r}'])
    return parse_go_duration(value, path) == 0


def _set_duration_if_zero(parent: dict, field: str, path: str, nanoseconds: int) -> None:
    if _duration_is_zero(parent, field, path):
        parent[field] = go_duration_string(nanoseconds)


def _int_value(parent: dict, field: str, path: str) -> int | None:
    """An integer field as Go decodes it: absent or null is 0 (or nil for a pointer, returned as None)."""
    value = parent.get(field)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise KubeletConfigError([f"{path}: must be an integer, got {type(value).__name__} {value!r}"])
    return value


def _set_int_if_zero(parent: dict, field: str, default: int) -> None:
    """if obj.X == 0 { obj.X = default } on a plain int32."""
    if not _int_value(parent, field, field):
        parent[field] = default


def _set_if_nil(parent: dict, field: str, default: object) -> None:
    """if obj.X == nil { obj.X = default } on a pointer, map or slice: only absent or null is defaulted."""
    if parent.get(field) is None:
        parent[field] = default


def _set_if_empty_string(parent: dict, field: str, default: str) -> None:
    """if obj.X == "" { obj.X = default }; JSON null leaves a Go string empty."""
    if parent.get(field) in (None, ""):
        parent[field] = default


def _bool_value(parent: dict, field: str, path: str) -> bool | None:
    value = parent.get(field)
    if value is None:
        return None
    if not isinstance(value, bool):
        raise KubeletConfigError([f"{path}: must be true or false, got {type(value).__name__} {value!r}"])
    return value


def _gate_enabled(config: dict, name: str, kubelet_version: str) -> bool:
    """localFeatureGate.Enabled(name) for that version's gates merged with the config's featureGates (_feature_gates)."""
    gates = config.get("featureGates")
    if gates is None:
        gates = {}
    if not isinstance(gates, dict):
        raise KubeletConfigError([f"featureGates: must be a mapping, got {type(gates).__name__} {gates!r}"])
    # The entries that decide this gate must decode as booleans (the kubelet's decoding refuses anything else). Every
    # checked version has a gate table, so the lookup never misses.
    stage = (gate_table(kubelet_version) or {})[name].stage
    for key in (name, "All" + stage):
        _bool_value(gates, key, f"featureGates.{key}")
    return gate_enabled(gates, name, kubelet_version)


def _set_logging_defaults(config: dict) -> None:
    """logsapi.SetRecommendedLoggingConfiguration (component-base logs/api/v1/options.go)."""
    logging = _struct(config, "logging", "logging")
    _set_if_empty_string(logging, "format", "text")
    # TimeOrMetaDuration: a quoted Go duration, or an integer of nanoseconds; null leaves it zero.
    flush = logging.get("flushFrequency")
    if flush is None:
        zero = True
    elif isinstance(flush, str):
        zero = parse_go_duration(flush, "logging.flushFrequency") == 0
    elif isinstance(flush, int) and not isinstance(flush, bool):
        zero = flush == 0
    else:
        raise KubeletConfigError([f"logging.flushFrequency: must be a duration string or nanoseconds, got {type(flush).__name__} {flush!r}"])
    if zero:
        # Duration = LogFlushFreqDefault, SerializeAsString = true: written back as a duration string.
        logging["flushFrequency"] = go_duration_string(_LOG_FLUSH_FREQ_DEFAULT)
    options = _struct(logging, "options", "logging.options")
    for fmt in ("text", "json"):
        routing = _struct(options, fmt, f"logging.options.{fmt}")
        # setRecommendedOutputRouting: an unset QuantityValue becomes resource.NewQuantity(0, DecimalSI), "0".
        # Any parsed quantity (even "0") differs from the empty struct, so only absent or null is defaulted.
        _set_if_nil(routing, "infoBufferSize", "0")


def merge_default_eviction_settings(config: dict, kubelet_version: str | None = None) -> dict:
    """server.go loadConfigFile's evictionHard step, on a NEW dict (the input is not changed).

    evictionHard absent or null: DefaultEvictionHard. Otherwise, with mergeDefaultEvictionSettings true (a field from
    kubelet 1.33 on), every default signal the map lacks is added; the user's own thresholds win. Nothing else is merged.
    """
    if not isinstance(config, dict):
        raise KubeletConfigError([f"the kubelet configuration must be a mapping, got {type(config).__name__}"])
    result = _copy_tree(config)
    hard = result.get("evictionHard")
    if hard is None:
        result["evictionHard"] = dict(DEFAULT_EVICTION_HARD)
    elif not isinstance(hard, dict):
        raise KubeletConfigError([f"evictionHard: must be a mapping, got {type(hard).__name__} {hard!r}"])
    elif "mergeDefaultEvictionSettings" not in fields_unknown_to(kubelet_version) and _bool_value(
        result, "mergeDefaultEvictionSettings", "mergeDefaultEvictionSettings"
    ):
        for signal, threshold in DEFAULT_EVICTION_HARD.items():
            hard.setdefault(signal, threshold)
    return result


def apply_defaults(config: dict, kubelet_version: str | None = None) -> dict:
    """The main --config file as the kubelet of kubelet_version (None: 1.36) holds it after decoding, v1beta1
    defaulting and loadConfigFile.

    Returns a new dict; the input is not changed. apiVersion and kind are added when missing.
    """
    return merge_default_eviction_settings(set_defaults(config, kubelet_version), kubelet_version)


def set_defaults(config: dict, kubelet_version: str | None = None) -> dict:
    """SetDefaults_KubeletConfiguration alone, on a new dict: what a kubelet without --config starts from, and what
    mergeKubeletConfigurations re-applies after the drop-ins (neither runs loadConfigFile's evictionHard step).

    kubelet_version (None: 1.36; else judged as _kubelet_field_table.checked_minor) chooses that kubelet's defaulting
    (KUBELET_DEFAULTS_BY_VERSION): its feature gates, and no default for a field it does not know. Such a field is
    left as written (the kubelet drops it when decoding; _validation warns about it).
    """
    if not isinstance(config, dict):
        raise KubeletConfigError([f"the kubelet configuration must be a mapping, got {type(config).__name__}"])
    version = checked_minor(kubelet_version) or KUBELET_VERSIONS[-1]
    unknown = fields_unknown_to(version)
    obj = _copy_tree(config)
    _set_if_nil(obj, "apiVersion", API_VERSION)
    _set_if_nil(obj, "kind", KIND)

    # Read before any defaulting, as SetDefaults builds localFeatureGate first.
    crash_loop_back_off_max = "crashLoopBackOff" not in unknown and _gate_enabled(obj, "KubeletCrashLoopBackOffMax", version)
    ensure_secret_pulled_images = "imagePullCredentialsVerificationPolicy" not in unknown and _gate_enabled(obj, "KubeletEnsureSecretPulledImages", version)

    # SetDefaults_KubeletConfiguration, in source order.
    _set_server_and_status_defaults(obj)
    _set_resource_defaults(obj, unknown)
    _set_runtime_defaults(obj, version, unknown)
    if crash_loop_back_off_max:  # KubeletCrashLoopBackOffMax: beta, on by default in v1.36; alpha, off in v1.33
        crash_loop = _struct(obj, "crashLoopBackOff", "crashLoopBackOff")
        _set_if_nil(crash_loop, "maxContainerRestartPeriod", go_duration_string(_MAX_CONTAINER_BACK_OFF))
    if ensure_secret_pulled_images:  # KubeletEnsureSecretPulledImages: beta, on by default in v1.36; alpha, off in v1.33
        _set_if_empty_string(obj, "imagePullCredentialsVerificationPolicy", "NeverVerifyPreloadedImages")

    return obj


# SetDefaults_KubeletConfiguration's steps, in source order, cut in three for length; each reads only what it defaults
# or what an earlier step has defaulted, so set_defaults runs them one after the other.
def _set_server_and_status_defaults(obj: dict) -> None:
    """The server, its authentication and authorization, the API clients' rates, and the node status frequencies."""
    _set_if_nil(obj, "enableServer", True)
    _set_duration_if_zero(obj, "syncFrequency", "syncFrequency", 1 * MINUTE)
    _set_duration_if_zero(obj, "fileCheckFrequency", "fileCheckFrequency", 20 * SECOND)
    _set_duration_if_zero(obj, "httpCheckFrequency", "httpCheckFrequency", 20 * SECOND)
    _set_if_empty_string(obj, "address", "0.0.0.0")
    _set_int_if_zero(obj, "port", _KUBELET_PORT)
    authentication = _struct(obj, "authentication", "authentication")
    anonymous = _struct(authentication, "anonymous", "authentication.anonymous")
    _set_if_nil(anonymous, "enabled", False)
    authn_webhook = _struct(authentication, "webhook", "authentication.webhook")
    _set_if_nil(authn_webhook, "enabled", True)
    _set_duration_if_zero(authn_webhook, "cacheTTL", "authentication.webhook.cacheTTL", 2 * MINUTE)
    authorization = _struct(obj, "authorization", "authorization")
    _set_if_empty_string(authorization, "mode", "Webhook")
    authz_webhook = _struct(authorization, "webhook", "authorization.webhook")
    _set_duration_if_zero(authz_webhook, "cacheAuthorizedTTL", "authorization.webhook.cacheAuthorizedTTL", 5 * MINUTE)
    _set_duration_if_zero(authz_webhook, "cacheUnauthorizedTTL", "authorization.webhook.cacheUnauthorizedTTL", 30 * SECOND)
    _set_if_nil(obj, "registryPullQPS", 5)
    _set_int_if_zero(obj, "registryBurst", 10)
    _set_if_nil(obj, "eventRecordQPS", 50)
    _set_int_if_zero(obj, "eventBurst", 100)
    _set_if_nil(obj, "enableDebuggingHandlers", True)
    _set_if_nil(obj, "healthzPort", 10248)
    _set_if_empty_string(obj, "healthzBindAddress", "127.0.0.1")
    _set_if_nil(obj, "oomScoreAdj", _KUBELET_OOM_SCORE_ADJ)
    _set_duration_if_zero(obj, "streamingConnectionIdleTimeout", "streamingConnectionIdleTimeout", 4 * HOUR)
    if _duration_is_zero(obj, "nodeStatusReportFrequency", "nodeStatusReportFrequency"):
        # For backward compatibility the report frequency follows an explicitly set update frequency.
        if _duration_is_zero(obj, "nodeStatusUpdateFrequency", "nodeStatusUpdateFrequency"):
            obj["nodeStatusReportFrequency"] = go_duration_string(5 * MINUTE)
        else:
            obj["nodeStatusReportFrequency"] = obj["nodeStatusUpdateFrequency"]
    _set_duration_if_zero(obj, "nodeStatusUpdateFrequency", "nodeStatusUpdateFrequency", 10 * SECOND)
    _set_int_if_zero(obj, "nodeLeaseDurationSeconds", 40)


def _set_resource_defaults(obj: dict, unknown: frozenset[str]) -> None:
    """Image garbage collection, the cgroup and resource managers, pod limits, CFS quota, image pulls and eviction."""
    _set_duration_if_zero(obj, "imageMinimumGCAge", "imageMinimumGCAge", 2 * MINUTE)
    _set_if_nil(obj, "imageGCHighThresholdPercent", 85)
    _set_if_nil(obj, "imageGCLowThresholdPercent", 80)
    _set_duration_if_zero(obj, "volumeStatsAggPeriod", "volumeStatsAggPeriod", 1 * MINUTE)
    _set_if_nil(obj, "cgroupsPerQOS", True)
    _set_if_empty_string(obj, "cgroupDriver", "cgroupfs")
    _set_if_empty_string(obj, "cpuManagerPolicy", "none")
    _set_duration_if_zero(obj, "cpuManagerReconcilePeriod", "cpuManagerReconcilePeriod", 10 * SECOND)
    _set_if_empty_string(obj, "memoryManagerPolicy", "None")
    _set_if_empty_string(obj, "topologyManagerPolicy", "none")
    _set_if_empty_string(obj, "topologyManagerScope", "container")
    _set_duration_if_zero(obj, "runtimeRequestTimeout", "runtimeRequestTimeout", 2 * MINUTE)
    _set_if_empty_string(obj, "hairpinMode", "promiscuous-bridge")
    _set_int_if_zero(obj, "maxPods", 110)
    # "default nil or negative value to -1 (implies node allocatable pid limit)"
    pod_pids_limit = _int_value(obj, "podPidsLimit", "podPidsLimit")
    if pod_pids_limit is None or pod_pids_limit < 0:
        obj["podPidsLimit"] = -1
    _set_if_nil(obj, "resolvConf", _RESOLV_CONF_DEFAULT)
    _set_if_nil(obj, "cpuCFSQuota", True)
    _set_if_nil(obj, "cpuCFSQuotaPeriod", go_duration_string(100 * MILLISECOND))
    _set_if_nil(obj, "nodeStatusMaxImages", 50)
    _set_int_if_zero(obj, "maxOpenFiles", 1000000)
    _set_if_empty_string(obj, "contentType", "application/vnd.kubernetes.protobuf")
    _set_if_nil(obj, "kubeAPIQPS", 50)
    _set_int_if_zero(obj, "kubeAPIBurst", 100)
    if obj.get("serializeImagePulls") is None:
        # true unless maxParallelImagePulls allows parallel pulls (>= 2).
        parallel = _int_value(obj, "maxParallelImagePulls", "maxParallelImagePulls")
        obj["serializeImagePulls"] = parallel is None or parallel < 2
    _set_duration_if_zero(obj, "evictionPressureTransitionPeriod", "evictionPressureTransitionPeriod", 5 * MINUTE)
    if "mergeDefaultEvictionSettings" not in unknown:
        _set_if_nil(obj, "mergeDefaultEvictionSettings", False)


def _set_runtime_defaults(obj: dict, version: str, unknown: frozenset[str]) -> None:
    """iptables, swap, container logs, node allocatable, logging, the handlers, cgroup v1 and the runtime endpoint."""
    _set_if_nil(obj, "enableControllerAttachDetach", True)
    _set_if_nil(obj, "makeIPTablesUtilChains", True)
    _set_if_nil(obj, "iptablesMasqueradeBit", _DEFAULT_IPTABLES_MASQUERADE_BIT)
    _set_if_nil(obj, "iptablesDropBit", _DEFAULT_IPTABLES_DROP_BIT)
    _set_if_nil(obj, "failSwapOn", True)
    _set_if_empty_string(obj, "containerLogMaxSize", "10Mi")
    _set_if_nil(obj, "containerLogMaxFiles", 5)
    _set_if_nil(obj, "containerLogMaxWorkers", 1)
    _set_if_nil(obj, "containerLogMonitorInterval", go_duration_string(10 * SECOND))
    _set_if_empty_string(obj, "configMapAndSecretChangeDetectionStrategy", "Watch")
    # A nil slice only: `enforceNodeAllocatable: []` is kept (until a --config-dir round trip, see above).
    _set_if_nil(obj, "enforceNodeAllocatable", list(_DEFAULT_NODE_ALLOCATABLE_ENFORCEMENT))
    _set_if_empty_string(obj, "volumePluginDir", _DEFAULT_VOLUME_PLUGIN_DIR)
    _set_logging_defaults(obj)
    _set_if_nil(obj, "enableSystemLogHandler", True)
    _set_if_nil(obj, "enableProfilingHandler", True)
    _set_if_nil(obj, "enableDebugFlagsHandler", True)
    _set_if_nil(obj, "seccompDefault", False)
    _set_if_nil(obj, "failCgroupV1", _FAIL_CGROUP_V1_DEFAULT[version])
    _set_if_nil(obj, "memoryThrottlingFactor", _DEFAULT_MEMORY_THROTTLING_FACTOR)  # v1.37 stops defaulting it
    # New in v1.36 and not gated (the oracle shows "None" with MemoryQoS and AllBeta off); see the module source note.
    if "memoryReservationPolicy" not in unknown:
        _set_if_empty_string(obj, "memoryReservationPolicy", "None")
    _set_if_nil(obj, "registerNode", True)
    _set_if_nil(obj, "localStorageCapacityIsolation", True)
    _set_if_empty_string(obj, "containerRuntimeEndpoint", "unix:///run/containerd/containerd.sock")
    _set_if_empty_string(obj, "podLogsDir", _DEFAULT_POD_LOGS_DIR)
