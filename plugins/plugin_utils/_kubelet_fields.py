# -*- coding: utf-8 -*-
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The top-level fields of KubeletConfiguration (kubelet.config.k8s.io/v1beta1) and the command-line form of some.

KUBELET_CONFIGURATION_FIELDS lets a config be checked for misspelt keys, which the kubelet silently ignores under
lenient decoding (docs/kubelet-facts.md section 1). FLAG_FORMS says how the fields the engine renders are written as
kubelet flags, for platforms that pass settings as flags (RKE2 kubelet-arg, nodeadm spec.kubelet.flags).
"""

from __future__ import annotations

# Every json tag of the KubeletConfiguration struct, plus apiVersion and kind from the inlined metav1.TypeMeta.
# Extracted from the json tags of kubernetes/kubernetes staging/src/k8s.io/kubelet/config/v1beta1/types.go at
# commit 001332b0422071acf4860769f18e34b5e9b7c1bc (read 2026-11-22), the newest version in the index: it has
# memoryReservationPolicy, which third-party v1.36 notes say v1.36 added, and memoryThrottlingFactor still
# "Default: 0.9", which the same notes say v1.37 changes; so it is the v1.36 API. The index gives no tag or date
# for the commit. 128 names.
KUBELET_CONFIGURATION_FIELDS: frozenset[str] = frozenset({
    "address", "allowedUnsafeSysctls", "apiVersion", "authentication", "authorization", "cgroupDriver", "cgroupRoot", "cgroupsPerQOS", "clusterDNS",
    "clusterDomain", "configMapAndSecretChangeDetectionStrategy", "containerLogMaxFiles", "containerLogMaxSize", "containerLogMaxWorkers",
    "containerLogMonitorInterval", "containerRuntimeEndpoint", "contentType", "cpuCFSQuota", "cpuCFSQuotaPeriod", "cpuManagerPolicy",
    "cpuManagerPolicyOptions", "cpuManagerReconcilePeriod", "crashLoopBackOff", "draManagerReconcilePeriod", "enableContentionProfiling",
    "enableControllerAttachDetach", "enableDebugFlagsHandler", "enableDebuggingHandlers", "enableProfilingHandler", "enableServer",
    "enableSystemLogHandler", "enableSystemLogQuery", "enforceNodeAllocatable", "eventBurst", "eventRecordQPS", "evictionHard",
    "evictionMaxPodGracePeriod", "evictionMinimumReclaim", "evictionPressureTransitionPeriod", "evictionSoft", "evictionSoftGracePeriod",
    "failCgroupV1", "failSwapOn", "featureGates", "fileCheckFrequency", "hairpinMode", "healthzBindAddress", "healthzPort", "httpCheckFrequency",
    "imageGCHighThresholdPercent", "imageGCLowThresholdPercent", "imageMaximumGCAge", "imageMinimumGCAge", "imagePullCredentialsVerificationPolicy",
    "imageServiceEndpoint", "iptablesDropBit", "iptablesMasqueradeBit", "kernelMemcgNotification", "kind", "kubeAPIBurst", "kubeAPIQPS",
    "kubeletCgroups", "kubeReserved", "kubeReservedCgroup", "localStorageCapacityIsolation", "logging", "makeIPTablesUtilChains", "maxOpenFiles",
    "maxParallelImagePulls", "maxPods", "memoryManagerPolicy", "memoryReservationPolicy", "memorySwap", "memoryThrottlingFactor",
    "mergeDefaultEvictionSettings", "nodeLeaseDurationSeconds", "nodeStatusMaxImages", "nodeStatusReportFrequency", "nodeStatusUpdateFrequency",
    "oomScoreAdj", "podCIDR", "podLogsDir", "podPidsLimit", "podsPerCore", "port", "preloadedImagesVerificationAllowlist", "protectKernelDefaults",
    "providerID", "qosReserved", "readOnlyPort", "registerNode", "registerWithTaints", "registryBurst", "registryPullQPS", "reservedMemory",
    "reservedSystemCPUs", "resolvConf", "rotateCertificates", "runOnce", "runtimeRequestTimeout", "seccompDefault", "serializeImagePulls",
    "serverTLSBootstrap", "showHiddenMetricsForVersion", "shutdownGracePeriod", "shutdownGracePeriodByPodPriority", "shutdownGracePeriodCriticalPods",
    "singleProcessOOMKill", "staticPodPath", "staticPodURL", "staticPodURLHeader", "streamingConnectionIdleTimeout", "syncFrequency", "systemCgroups",
    "systemReserved", "systemReservedCgroup", "tlsCertFile", "tlsCipherSuites", "tlsCurvePreferences", "tlsMinVersion", "tlsPrivateKeyFile",
    "topologyManagerPolicy", "topologyManagerPolicyOptions", "topologyManagerScope", "tracing", "userNamespaces", "volumePluginDir",
    "volumeStatsAggPeriod",
})

# Kubelet flags for KubeletConfiguration fields: field -> (flag name without dashes, value kind).
# Flags verified in kubernetes/kubernetes cmd/kubelet/app/options/options.go AddKubeletConfigFlags at commit
# 6785e9ed401a526cfb4ae33d498b088e27237ad1 ("options.go" below) and in the generated flag reference
# kubernetes/website content/en/docs/reference/command-line-tools-reference/kubelet.md at commit
# 00cce4136eb6507551a29d29715ff10b463cc5ad (a v1.34-era build, "reference" below). Every one of these flags is
# marked deprecated in favour of the config file, but all still work.
#
# Value kinds, from the flag value types' Set/String (a later flag overrides the config file's value):
# - "scalar": one value (string, int32 or duration).
# - "map_comma_equals": "k=v,k=v" (cliflag.MapStringString, component-base/cli/flag/map_string_string.go at
#   e42a342439c18c70a7ed58f32edec834de9a1365). The first flag replaces the whole map (file value or default);
#   repeated flags add keys. Pairs split on ",", then on the first "="; spaces around keys and values are trimmed.
#   String() sorts the "k=v" pairs.
# - "map_comma_lt": "k<v,k<v" (cliflag.LangleSeparatedMapStringString; behaviour as in its test,
#   component-base/cli/flag/langle_separated_map_string_string_test.go at f77451e4e879907a21acdc62346dc4af0b875561):
#   same replace-then-accumulate rule, split on "," then on the first "<"; String() sorts the pairs.
# - "map_repeat_equals": one "k=v" per flag occurrence (cliflag.NewMapStringStringNoSplit: the value is not split
#   on commas, so "a=1,b=2" sets key "a" to "1,b=2"); repeat the flag for several options. The reference's
#   "<comma-separated 'key=value' pairs>" label is misleading for these flags.
# - "reserved_memory": "N:type=q[,type=q...][;N:type=q...]" (utilflag.ReservedMemoryVar, kubernetes
#   pkg/util/flag/flags.go at ddd467a0e8b7a211671e5ecef9fc892391e478c6): Set splits on ";" between NUMA nodes,
#   on ":" after the node id, on "," between limits and on "=" inside a limit; types are memory or
#   hugepages-<size>. The first flag replaces the list, repeated flags append. String() sorts limits and nodes
#   but joins nodes with ",", so it cannot be parsed back for more than one node. An older flags.go
#   (08694c0e844b9afad34a06b7ddc40c25ffc40181) took one node per flag and no ";".
# - "feature_gates": "Name=true,Name=false" (cliflag.MapStringBool, component-base/cli/flag/map_string_bool.go at
#   3971407c854bd4ccdd16b97d1913f711521c20ae): like map_comma_equals, values parsed by strconv.ParseBool.
# - "list_comma": "a,b" (pflag StringSlice, spf13/pflag string_slice.go at 04093e593fccaff6de4391cff719996a363213fd):
#   parsed as one CSV record; the first flag replaces the default, repeated flags append.
#
# Config-file only, hence absent here:
# - mergeDefaultEvictionSettings: no flag in options.go nor in the reference (whose flag list is alphabetical: nothing
#   between --memory-manager-policy and --minimum-container-ttl-duration). It came with kubernetes/kubernetes
#   PR #127577 (merged 2025-02), whose reviewed diff touches types.go and cmd/kubelet/app/server.go loadConfigFile;
#   a search of the index for "merge-default-eviction" finds no kubernetes source.
FLAG_FORMS: dict[str, tuple[str, str]] = {
    # options.go: fs.Var(cliflag.NewMapStringString(&c.KubeReserved), "kube-reserved", ...); reference: --kube-reserved
    "kubeReserved": ("kube-reserved", "map_comma_equals"),
    # options.go: fs.Var(cliflag.NewMapStringString(&c.SystemReserved), "system-reserved", ...); reference: --system-reserved
    "systemReserved": ("system-reserved", "map_comma_equals"),
    # options.go: fs.Var(cliflag.NewLangleSeparatedMapStringString(&c.EvictionHard), "eviction-hard", ...); reference: --eviction-hard
    "evictionHard": ("eviction-hard", "map_comma_lt"),
    # options.go: fs.Var(cliflag.NewLangleSeparatedMapStringString(&c.EvictionSoft), "eviction-soft", ...); reference: --eviction-soft
    "evictionSoft": ("eviction-soft", "map_comma_lt"),
    # options.go: fs.Var(cliflag.NewMapStringString(&c.EvictionSoftGracePeriod), "eviction-soft-grace-period", ...), e.g. memory.available=1m30s
    "evictionSoftGracePeriod": ("eviction-soft-grace-period", "map_comma_equals"),
    # options.go: fs.Var(cliflag.NewMapStringString(&c.EvictionMinimumReclaim), "eviction-minimum-reclaim", ...), e.g. imagefs.available=2Gi
    "evictionMinimumReclaim": ("eviction-minimum-reclaim", "map_comma_equals"),
    # options.go: fs.Var(&utilflag.ReservedMemoryVar{Value: &c.ReservedMemory}, "reserved-memory", ...); reference: --reserved-memory
    "reservedMemory": ("reserved-memory", "reserved_memory"),
    # options.go: fs.StringVar(&c.MemoryManagerPolicy, "memory-manager-policy", ...) ('None', 'Static')
    "memoryManagerPolicy": ("memory-manager-policy", "scalar"),
    # options.go: fs.StringVar(&c.CPUManagerPolicy, "cpu-manager-policy", ...) ('none', 'static')
    "cpuManagerPolicy": ("cpu-manager-policy", "scalar"),
    # options.go: fs.Var(cliflag.NewMapStringStringNoSplit(&c.CPUManagerPolicyOptions), "cpu-manager-policy-options", ...)
    "cpuManagerPolicyOptions": ("cpu-manager-policy-options", "map_repeat_equals"),
    # options.go: fs.DurationVar(&c.CPUManagerReconcilePeriod.Duration, "cpu-manager-reconcile-period", ...) (a Go duration, e.g. 10s)
    "cpuManagerReconcilePeriod": ("cpu-manager-reconcile-period", "scalar"),
    # options.go: fs.StringVar(&c.TopologyManagerPolicy, "topology-manager-policy", ...)
    "topologyManagerPolicy": ("topology-manager-policy", "scalar"),
    # options.go: fs.StringVar(&c.TopologyManagerScope, "topology-manager-scope", ...) ('container', 'pod')
    "topologyManagerScope": ("topology-manager-scope", "scalar"),
    # options.go: fs.Var(cliflag.NewMapStringStringNoSplit(&c.TopologyManagerPolicyOptions), "topology-manager-policy-options", ...)
    "topologyManagerPolicyOptions": ("topology-manager-policy-options", "map_repeat_equals"),
    # options.go: fs.StringVar(&c.ReservedSystemCPUs, "reserved-cpus", ...): the flag name differs from the field's; a cpuset list
    # such as "0-1,32-33" passed as one string
    "reservedSystemCPUs": ("reserved-cpus", "scalar"),
    # options.go: fs.Int32Var(&c.MaxPods, "max-pods", ...)
    "maxPods": ("max-pods", "scalar"),
    # options.go: fs.Var(cliflag.NewMapStringBool(&c.FeatureGates), "feature-gates", ...)
    "featureGates": ("feature-gates", "feature_gates"),
    # options.go: fs.StringSliceVar(&c.EnforceNodeAllocatable, "enforce-node-allocatable", ...)
    "enforceNodeAllocatable": ("enforce-node-allocatable", "list_comma"),
    # options.go: fs.StringVar(&c.KubeReservedCgroup, "kube-reserved-cgroup", ...)
    "kubeReservedCgroup": ("kube-reserved-cgroup", "scalar"),
    # options.go: fs.StringVar(&c.SystemReservedCgroup, "system-reserved-cgroup", ...)
    "systemReservedCgroup": ("system-reserved-cgroup", "scalar"),
}
