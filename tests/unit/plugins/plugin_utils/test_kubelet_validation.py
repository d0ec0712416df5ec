# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ValidateKubeletConfiguration's rules, each with the kubelet's exact text (tests/oracle/cases/kubelet_validation.yml has the
real kubelet's verdicts)."""

from __future__ import annotations

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._kubelet_defaults import apply_defaults
from ansible_collections.numa.kubelet.plugins.plugin_utils._kubelet_validation import (
    kubelet_validation_problems,
    kubelet_validation_warnings,
)
from ansible_collections.numa.kubelet.plugins.plugin_utils._validation import check_kubelet_config
from ansible_collections.numa.kubelet.tests.unit.plugins.plugin_utils.oracle_baseline import BASE

INVALID = "invalid configuration: "
ENFORCE = "enforceNodeAllocatable (--enforce-node-allocatable)"


def problems(**fields):
    return kubelet_validation_problems(dict(BASE, **fields))


def test_baseline_and_its_effective_config_have_no_problems():
    assert problems() == []
    assert kubelet_validation_problems(apply_defaults(BASE)) == []


@pytest.mark.parametrize(
    "fields, expected",
    [
        ({"nodeLeaseDurationSeconds": -1}, "nodeLeaseDurationSeconds: invalid configuration: nodeLeaseDurationSeconds must be greater than 0"),
        (
            {"systemCgroups": "/system.slice"},
            "systemCgroups: invalid configuration: systemCgroups (--system-cgroups) was specified and cgroupRoot (--cgroup-root) was not specified",
        ),
        ({"eventBurst": -1}, "eventBurst: invalid configuration: eventBurst (--event-burst) -1 must not be a negative number"),
        ({"eventRecordQPS": -1}, "eventRecordQPS: invalid configuration: eventRecordQPS (--event-qps) -1 must not be a negative number"),
        ({"healthzPort": 65536}, "healthzPort: invalid configuration: healthzPort (--healthz-port) 65536 must be between 1 and 65535, inclusive"),
        (
            {"cpuCFSQuotaPeriod": "1001ms"},
            "cpuCFSQuotaPeriod: invalid configuration: cpuCFSQuotaPeriod (--cpu-cfs-quota-period) {1.001s} must be between 1ms and 1sec, inclusive",
        ),
        (
            {"cpuCFSQuotaPeriod": "999us"},
            "cpuCFSQuotaPeriod: invalid configuration: cpuCFSQuotaPeriod (--cpu-cfs-quota-period) {999\u00b5s} must be between 1ms and 1sec, inclusive",
        ),
        (
            {"cpuCFSQuotaPeriod": "50ms", "featureGates": {"CustomCPUCFSQuotaPeriod": False}},
            "cpuCFSQuotaPeriod: invalid configuration: cpuCFSQuotaPeriod (--cpu-cfs-quota-period) {50ms} requires feature gate CustomCPUCFSQuotaPeriod",
        ),
        (
            {"imageGCHighThresholdPercent": 101},
            (
                "imageGCHighThresholdPercent: invalid configuration: imageGCHighThresholdPercent (--image-gc-high-threshold) 101 must be between 0 and 100, "
                "inclusive"
            ),
        ),
        (
            {"imageGCLowThresholdPercent": 90, "imageGCHighThresholdPercent": 85},
            (
                "imageGCLowThresholdPercent: invalid configuration: imageGCLowThresholdPercent (--image-gc-low-threshold) 90 must be less than "
                "imageGCHighThresholdPercent (--image-gc-high-threshold) 85"
            ),
        ),
        ({"imageMinimumGCAge": "-1m"}, "imageMinimumGCAge: invalid configuration: imageMinimumGCAge -1m0s must not be negative"),
        (
            {"imageMaximumGCAge": "2m"},
            "imageMaximumGCAge: invalid configuration: imageMaximumGCAge 2m0s must be greater than imageMinimumGCAge 2m0s",
        ),
        ({"iptablesDropBit": 32}, "iptablesDropBit: invalid configuration: iptablesDropBit (--iptables-drop-bit) 32 must be between 0 and 31, inclusive"),
        (
            {"iptablesMasqueradeBit": -1},
            "iptablesMasqueradeBit: invalid configuration: iptablesMasqueradeBit (--iptables-masquerade-bit) -1 must be between 0 and 31, inclusive",
        ),
        ({"kubeAPIBurst": -1}, "kubeAPIBurst: invalid configuration: kubeAPIBurst (--kube-api-burst) -1 must not be a negative number"),
        ({"kubeAPIQPS": -1}, "kubeAPIQPS: invalid configuration: kubeAPIQPS (--kube-api-qps) -1 must not be a negative number"),
        (
            {"nodeStatusMaxImages": -2},
            "nodeStatusMaxImages: invalid configuration: nodeStatusMaxImages (--node-status-max-images) -2 must be -1 or greater",
        ),
        ({"maxOpenFiles": -1}, "maxOpenFiles: invalid configuration: maxOpenFiles (--max-open-files) -1 must not be a negative number"),
        ({"maxPods": -1}, "maxPods: invalid configuration: maxPods (--max-pods) -1 must not be a negative number"),
        ({"oomScoreAdj": 1001}, "oomScoreAdj: invalid configuration: oomScoreAdj (--oom-score-adj) 1001 must be between -1000 and 1000, inclusive"),
        ({"podsPerCore": -1}, "podsPerCore: invalid configuration: podsPerCore (--pods-per-core) -1 must not be a negative number"),
        ({"port": 65536}, "port: invalid configuration: port (--port) 65536 must be between 1 and 65535, inclusive"),
        ({"readOnlyPort": -1}, "readOnlyPort: invalid configuration: readOnlyPort (--read-only-port) -1 must be between 0 and 65535, inclusive"),
        ({"registryBurst": -1}, "registryBurst: invalid configuration: registryBurst (--registry-burst) -1 must not be a negative number"),
        ({"registryPullQPS": -1}, "registryPullQPS: invalid configuration: registryPullQPS (--registry-qps) -1 must not be a negative number"),
        ({"maxParallelImagePulls": 0}, "maxParallelImagePulls: invalid configuration: maxParallelImagePulls 0 must be a positive number"),
        (
            {"serializeImagePulls": True, "maxParallelImagePulls": 5},
            (
                "maxParallelImagePulls: invalid configuration: maxParallelImagePulls cannot be larger than 1 unless SerializeImagePulls "
                "(--serialize-image-pulls) is set to false"
            ),
        ),
        (
            {"serverTLSBootstrap": True, "featureGates": {"RotateKubeletServerCertificate": False}},
            "serverTLSBootstrap: invalid configuration: serverTLSBootstrap true requires feature gate RotateKubeletServerCertificate",
        ),
        ({"runOnce": True}, "runOnce: invalid configuration: runOnce (--runOnce) true, Runonce mode has been deprecated and should not be set"),
        (
            {"memorySwap": {"swapBehavior": "UnlimitedSwap"}},
            'memorySwap.swapBehavior: invalid configuration: memorySwap.swapBehavior "UnlimitedSwap" must be one of: "", "LimitedSwap" or "NoSwap"',
        ),
        (
            {"crashLoopBackOff": {"maxContainerRestartPeriod": "500s"}},
            (
                "crashLoopBackOff.maxContainerRestartPeriod: invalid configuration: CrashLoopBackOff.MaxContainerRestartPeriod (got: 500 seconds) must be set "
                "between 1s and 300s"
            ),
        ),
        (
            {"crashLoopBackOff": {"maxContainerRestartPeriod": "999ms"}},
            (
                "crashLoopBackOff.maxContainerRestartPeriod: invalid configuration: CrashLoopBackOff.MaxContainerRestartPeriod (got: 0.999 seconds) must be "
                "set between 1s and 300s"
            ),
        ),
        (
            {"crashLoopBackOff": {"maxContainerRestartPeriod": "10s"}, "featureGates": {"KubeletCrashLoopBackOffMax": False}},
            (
                "crashLoopBackOff.maxContainerRestartPeriod: invalid configuration: FeatureGate KubeletCrashLoopBackOffMax not enabled, "
                "CrashLoopBackOff.MaxContainerRestartPeriod must not be set"
            ),
        ),
        (
            {"enforceNodeAllocatable": ["pods", "foo"]},
            (
                f'enforceNodeAllocatable: invalid configuration: option "foo" specified for {ENFORCE}. Valid options are "pods", "system-reserved", '
                '"system-reserved-compressible", "kube-reserved", "kube-reserved-compressible" or "none"'
            ),
        ),
        ({"enforceNodeAllocatable": ["pods", "pods"]}, f'enforceNodeAllocatable: invalid configuration: duplicated enforcements "pods" in {ENFORCE}'),
        (
            {"enforceNodeAllocatable": ["none", "pods"]},
            f'enforceNodeAllocatable: invalid configuration: {ENFORCE} may not contain additional enforcements when "none" is specified',
        ),
        (
            {"cgroupsPerQOS": False},
            f'cgroupsPerQOS: invalid configuration: cgroupsPerQOS (--cgroups-per-qos) must be set to true when "pods" contained in {ENFORCE}',
        ),
        (
            {"enforceNodeAllocatable": ["pods", "system-reserved"], "systemReservedCgroup": ""},
            (
                "enforceNodeAllocatable: invalid configuration: systemReservedCgroup (--system-reserved-cgroup) must be specified when "
                f'"system-reserved" or "system-reserved-compressible" included in {ENFORCE}'
            ),
        ),
        (
            {"hairpinMode": "bridge"},
            (
                'hairpinMode: invalid configuration: option "bridge" specified for hairpinMode (--hairpin-mode). Valid options are "none", "hairpin-veth" or '
                '"promiscuous-bridge"'
            ),
        ),
        (
            {"imagePullCredentialsVerificationPolicy": "Sometimes"},
            (
                'imagePullCredentialsVerificationPolicy: invalid configuration: option "Sometimes" specified for imagePullCredentialsVerificationPolicy. '
                'Valid options are "NeverVerify", "NeverVerifyPreloadedImages", "NeverVerifyAllowlistedImages" or "AlwaysVerify"'
            ),
        ),
        (
            {"preloadedImagesVerificationAllowlist": ["registry.k8s.io/*"]},
            (
                "preloadedImagesVerificationAllowlist: invalid configuration: can't set `preloadedImagesVerificationAllowlist` if "
                '`imagePullCredentialsVertificationPolicy` is not "NeverVerifyAllowlistedImages"'
            ),
        ),
        (
            {"imagePullCredentialsVerificationPolicy": "NeverVerifyAllowlistedImages", "preloadedImagesVerificationAllowlist": ["registry.k8s.io/pause:3.10"]},
            (
                "preloadedImagesVerificationAllowlist: invalid configuration: invalid image pattern in `preloadedImagesVerificationAllowlist`: "
                "neither tag nor digest is accepted in an image reference: registry.k8s.io/pause:3.10"
            ),
        ),
        (
            {"imagePullCredentialsVerificationPolicy": "AlwaysVerify", "featureGates": {"KubeletEnsureSecretPulledImages": False}},
            (
                "imagePullCredentialsVerificationPolicy: invalid configuration: `imagePullCredentialsVerificationPolicy` must not be set if "
                "KubeletEnsureSecretPulledImages feature gate is not enabled"
            ),
        ),
        (
            {"memoryThrottlingFactor": 1.5},
            "memoryThrottlingFactor: invalid configuration: memoryThrottlingFactor 1.5 must be greater than 0 and less than or equal to 1.0",
        ),
        (
            {"memoryThrottlingFactor": 0},
            "memoryThrottlingFactor: invalid configuration: memoryThrottlingFactor 0 must be greater than 0 and less than or equal to 1.0",
        ),
        (
            {"memoryReservationPolicy": "TieredReservation"},
            'memoryReservationPolicy: invalid configuration: memoryReservationPolicy "TieredReservation" requires MemoryQoS feature gate to be enabled',
        ),
        (
            {"memoryReservationPolicy": "Tiered"},
            (
                'memoryReservationPolicy: invalid configuration: option "Tiered" specified for memoryReservationPolicy. Valid options are "None" or '
                '"TieredReservation"'
            ),
        ),
        (
            {"enableSystemLogQuery": True, "enableSystemLogHandler": False},
            "enableSystemLogQuery: invalid configuration: enableSystemLogHandler is required for enableSystemLogQuery",
        ),
        ({"containerLogMaxWorkers": 0}, "containerLogMaxWorkers: invalid configuration: containerLogMaxWorkers must be greater than or equal to 1"),
        (
            {"containerLogMonitorInterval": "2999ms"},
            "containerLogMonitorInterval: invalid configuration: containerLogMonitorInterval must be a positive time duration greater than or equal to 3s",
        ),
        ({"containerLogMaxFiles": 1}, "containerLogMaxFiles: invalid configuration: containerLogMaxFiles must be greater than 1"),
        (
            {"showHiddenMetricsForVersion": "1.34"},
            (
                'showHiddenMetricsForVersion: invalid showHiddenMetricsForVersion: showHiddenMetricsForVersion: Invalid value: "1.34": must be '
                "omitted or have the value '1.35'; only the previous minor version is allowed"
            ),
        ),
        (
            {"tracing": {"samplingRatePerMillion": 1000001}},
            "tracing.samplingRatePerMillion: Invalid value: 1000001: sampling rate per million must be less than or equal to one million",
        ),
        (
            {"tracing": {"endpoint": "http://collector:4317"}},
            (
                'tracing.endpoint: Invalid value: "http://collector:4317": unsupported scheme: http.  Options are none, dns, unix, or unix-abstract.  '
                "See https://github.com/grpc/grpc/blob/master/doc/naming.md"
            ),
        ),
    ],
)
def test_each_rule_has_the_kubelets_text(fields, expected):
    assert problems(**fields) == [expected]


@pytest.mark.parametrize(
    "path, expected",
    [
        ("var/log/pods", ['podLogsDir: invalid configuration: pod logs path "var/log/pods" must be absolute path']),
        ("/var/log/pods/", ['podLogsDir: invalid configuration: pod logs path "/var/log/pods/" must be normalized']),
        ("/var/log/p\u00f6ds", ['podLogsDir: invalid configuration: pod logs path "/var/log/p\u00f6ds" mut contains ASCII characters only']),
    ],
)
def test_pod_logs_dir(path, expected):
    assert problems(podLogsDir=path) == expected


@pytest.mark.parametrize(
    "pattern, expected",
    [
        ("busybox", "neither tag nor digest is accepted in an image reference: busybox"),
        ("registry.k8s.io/*/pause", "not a valid wildcard pattern, only patterns ending with '/*' are allowed: registry.k8s.io/*/pause"),
        ("/*", "at least registry hostname is required"),
        (" registry.k8s.io/pause", "leading/trailing spaces are not allowed:  registry.k8s.io/pause"),
        ("registry.k8s.io/pause@sha256:" + "0" * 64, "neither tag nor digest is accepted in an image reference: registry.k8s.io/pause@sha256:" + "0" * 64),
    ],
)
def test_allowlist_patterns(pattern, expected):
    found = problems(imagePullCredentialsVerificationPolicy="NeverVerifyAllowlistedImages", preloadedImagesVerificationAllowlist=[pattern])
    assert found == [
        "preloadedImagesVerificationAllowlist: invalid configuration: invalid image pattern in `preloadedImagesVerificationAllowlist`: " + expected
    ]


@pytest.mark.parametrize(
    "fields",
    [
        # The other side of each boundary, and zeros the kubelet's defaulting replaces before it validates.
        {"nodeLeaseDurationSeconds": 0, "port": 0, "eventBurst": 0, "healthzPort": 0, "readOnlyPort": 0},
        {"cpuCFSQuotaPeriod": "1s"},
        {"cpuCFSQuotaPeriod": "1ms"},
        {"cpuCFSQuotaPeriod": "100ms", "featureGates": {"CustomCPUCFSQuotaPeriod": False}},
        {"imageGCHighThresholdPercent": 100, "imageGCLowThresholdPercent": 0},
        {"imageGCLowThresholdPercent": 84},
        {"imageMaximumGCAge": "2m1s"},
        {"iptablesDropBit": 31, "iptablesMasqueradeBit": 0, "oomScoreAdj": -1000, "nodeStatusMaxImages": -1, "port": 65535},
        {"maxParallelImagePulls": 5},
        {"maxParallelImagePulls": 1, "serializeImagePulls": True},
        {"hairpinMode": "hairpin-veth", "memorySwap": {"swapBehavior": "NoSwap"}},
        {"crashLoopBackOff": {"maxContainerRestartPeriod": "1s"}},
        {"featureGates": {"KubeletCrashLoopBackOffMax": False}},
        {"featureGates": {"AllBeta": False, "KubeletCrashLoopBackOffMax": True}, "crashLoopBackOff": {"maxContainerRestartPeriod": "10s"}},
        {"enforceNodeAllocatable": ["none"], "cgroupsPerQOS": False},
        {"enforceNodeAllocatable": []},
        {
            "imagePullCredentialsVerificationPolicy": "NeverVerifyAllowlistedImages",
            "preloadedImagesVerificationAllowlist": ["registry.k8s.io/*", "docker.io/library/busybox"],
        },
        {"featureGates": {"KubeletEnsureSecretPulledImages": False}},
        {"memoryThrottlingFactor": 1.0, "memoryReservationPolicy": "None"},
        {"memoryReservationPolicy": "TieredReservation", "featureGates": {"MemoryQoS": True}},
        {"enableSystemLogQuery": True},
        {"containerLogMaxWorkers": 1, "containerLogMonitorInterval": "3s", "containerLogMaxFiles": 2},
        {"showHiddenMetricsForVersion": "1.35"},
        {"tracing": {"samplingRatePerMillion": 1000000, "endpoint": "collector:4317"}},
        {"tracing": {"endpoint": "unix:///run/otel.sock"}},
    ],
)
def test_accepted_side_of_each_boundary(fields):
    assert problems(**fields) == []


def test_gate_off_rules():
    assert problems(featureGates={"GracefulNodeShutdown": False}, shutdownGracePeriod="30s") == [
        (
            "shutdownGracePeriod: invalid configuration: specifying shutdownGracePeriod or shutdownGracePeriodCriticalPods requires feature gate "
            "GracefulNodeShutdown"
        )
    ]
    assert problems(shutdownGracePeriod="10s", shutdownGracePeriodCriticalPods="20s") == [
        "shutdownGracePeriodCriticalPods: invalid configuration: shutdownGracePeriodCriticalPods {20s} must be <= shutdownGracePeriod {10s}"
    ]
    assert problems(shutdownGracePeriod="500ms") == [
        "shutdownGracePeriod: invalid configuration: shutdownGracePeriod {500ms} must be either zero or otherwise >= 1 sec"
    ]
    by_priority = [{"priority": 0, "shutdownGracePeriodSeconds": 10}]
    assert problems(shutdownGracePeriodByPodPriority=by_priority, shutdownGracePeriod="10s") == [
        "shutdownGracePeriodByPodPriority: invalid configuration: Cannot specify both shutdownGracePeriodByPodPriority and shutdownGracePeriod at the same time"
    ]
    assert problems(shutdownGracePeriodByPodPriority=by_priority, featureGates={"GracefulNodeShutdownBasedOnPodPriority": False}) == [
        (
            "shutdownGracePeriodByPodPriority: invalid configuration: Specifying shutdownGracePeriodByPodPriority requires feature gate "
            "GracefulNodeShutdownBasedOnPodPriority"
        )
    ]


def test_every_problem_is_reported():
    found = problems(imageGCLowThresholdPercent=90, maxPods=-1, hairpinMode="bridge", enforceNodeAllocatable=["pods", "foo"])
    assert [problem.split(":")[0] for problem in found] == ["imageGCLowThresholdPercent", "maxPods", "enforceNodeAllocatable", "hairpinMode"]


def test_a_v1_33_kubelet_judges_its_own_defaults_and_refuses_what_v1_36_would_default():
    # v1.33 has KubeletCrashLoopBackOffMax and KubeletEnsureSecretPulledImages alpha and off: it defaults neither field.
    assert kubelet_validation_problems(apply_defaults(BASE, "1.33"), "1.33") == []
    written = dict(BASE, crashLoopBackOff={"maxContainerRestartPeriod": "5m0s"}, imagePullCredentialsVerificationPolicy="NeverVerifyPreloadedImages")
    assert kubelet_validation_problems(apply_defaults(written, "1.33"), "1.33") == [
        (
            "crashLoopBackOff.maxContainerRestartPeriod: invalid configuration: FeatureGate KubeletCrashLoopBackOffMax not enabled, "
            "CrashLoopBackOff.MaxContainerRestartPeriod must not be set"
        ),
        (
            "imagePullCredentialsVerificationPolicy: invalid configuration: `imagePullCredentialsVerificationPolicy` must not be set if "
            "KubeletEnsureSecretPulledImages feature gate is not enabled"
        ),
    ]


def test_v1_31_has_no_compressible_enforcements():
    config = dict(BASE, enforceNodeAllocatable=["pods", "system-reserved-compressible"])
    assert kubelet_validation_problems(config, "1.31") == [
        (
            'enforceNodeAllocatable: invalid configuration: option "system-reserved-compressible" specified for enforceNodeAllocatable '
            '(--enforce-node-allocatable). Valid options are "pods", "system-reserved", "kube-reserved", or "none"'
        )
    ]
    assert kubelet_validation_problems(dict(BASE, enforceNodeAllocatable=["pods", "pods"]), "1.31") == [
        'enforceNodeAllocatable: invalid configuration: duplicated enforcements "pods" in enforceNodeAllocatable (--enforce-node-allocatable)'
    ]


def test_undecodable_config_is_left_to_the_type_checks():
    assert kubelet_validation_problems(dict(BASE, syncFrequency=None, maxPods=-1)) == []
    assert kubelet_validation_problems(dict(BASE, maxPods="-1")) == []


def test_check_kubelet_config_reports_validation_once():
    report = check_kubelet_config(dict(BASE, maxPods=-1, topologyManagerPolicy="single-numa"), [0, 1])
    assert [error for error in report.errors if error.startswith(("maxPods", "topologyManagerPolicy"))] == [
        "maxPods: invalid configuration: maxPods (--max-pods) -1 must not be a negative number",
        (
            'topologyManagerPolicy: invalid configuration: topologyManagerPolicy (--topology-manager-policy) "single-numa" must be one of: '
            '["none" "best-effort" "restricted" "single-numa-node"]'
        ),
    ]


def test_single_process_oom_kill_false_is_a_warning():
    assert kubelet_validation_warnings(dict(BASE, singleProcessOOMKill=False)) == [
        (
            "singleProcessOOMKill: false is refused on a cgroup v1 host (invalid configuration: singleProcessOOMKill must not be explicitly set to false "
            "when using cgroup v1); it is accepted on cgroup v2"
        )
    ]
    assert kubelet_validation_warnings(dict(BASE, singleProcessOOMKill=True)) == []


@pytest.mark.parametrize(
    "cgroups, named",
    [
        ({"systemReservedCgroup": "/system"}, "systemReservedCgroup"),
        ({"kubeReservedCgroup": "/runtime"}, "kubeReservedCgroup"),
        ({"systemReservedCgroup": "/system", "kubeReservedCgroup": "/runtime"}, "systemReservedCgroup and kubeReservedCgroup"),
    ],
)
def test_reserved_cpus_next_to_a_reserved_cgroup_is_refused_with_the_cgroups_to_empty(cgroups, named):
    found = problems(reservedSystemCPUs="0", **cgroups)
    text = (
        "reservedSystemCPUs: invalid configuration: can't use reservedSystemCPUs (--reserved-cpus) with systemReservedCgroup "
        "(--system-reserved-cgroup) or kubeReservedCgroup (--kube-reserved-cgroup)"
    )
    hint = f'; set {named} to "" (on EKS nodeadm sets systemReservedCgroup /system and kubeReservedCgroup /runtime)'
    assert [problem for problem in found if problem.startswith(text)] == [text + hint]


def test_reserved_cpus_with_both_reserved_cgroups_empty_is_accepted():
    assert problems(reservedSystemCPUs="0", systemReservedCgroup="", kubeReservedCgroup="") == []


@pytest.mark.parametrize(
    ("ids_per_pod", "expected"),
    [
        (1, ["userNamespaces.idsPerPod: invalid configuration: userNamespaces.idsPerPod must not be less than 65536"]),
        (65537, ["userNamespaces.idsPerPod: invalid configuration: userNamespaces.idsPerPod must be a multiple of 65536"]),
        (65536 * 65537, ["userNamespaces.idsPerPod: invalid configuration: userNamespaces.idsPerPod must not be more than 4294967295"]),
        (65536, []),
        (65536 * 65535, []),
    ],
)
def test_user_namespaces_ids_per_pod(ids_per_pod, expected):
    assert kubelet_validation_problems({"userNamespaces": {"idsPerPod": ids_per_pod}}) == expected
    assert kubelet_validation_problems({"userNamespaces": {"idsPerPod": ids_per_pod}}, "1.31") == []  # no such field in 1.31
