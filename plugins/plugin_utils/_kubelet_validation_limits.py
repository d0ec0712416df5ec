# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet's plain range rules (validation.go ValidateKubeletConfiguration, in its order): ports, rates and bursts,
image garbage collection and pulls, cpuCFSQuotaPeriod. Sources and the rest of the rules: _kubelet_validation.
"""

from __future__ import annotations

from ._go_duration import MILLISECOND, SECOND, go_duration_string
from ._kubelet_view import View, go_struct_duration, in_range

_DEFAULT_CFS_QUOTA_PERIOD = 100 * MILLISECOND


def scalar_rules(view: View) -> list[str]:  # noqa: C901 - validation.go's flat list of range rules, in its order
    """The plain range rules, in validation.go's order."""
    problems: list[str] = []
    lease = view.int("nodeLeaseDurationSeconds")
    if lease is not None and lease <= 0:
        problems.append("nodeLeaseDurationSeconds: invalid configuration: nodeLeaseDurationSeconds must be greater than 0")
    if view.str("systemCgroups") and view.str("cgroupRoot") == "":
        problems.append("systemCgroups: invalid configuration: systemCgroups (--system-cgroups) was specified and cgroupRoot (--cgroup-root) was not specified")
    for name, flag in (("eventBurst", "event-burst"), ("eventRecordQPS", "event-qps")):
        value = view.int(name)
        if value is not None and value < 0:
            problems.append("%s: invalid configuration: %s (--%s) %d must not be a negative number" % (name, name, flag, value))
    healthz_port = view.int("healthzPort")
    if healthz_port and not in_range(healthz_port, 1, 65535):
        problems.append("healthzPort: invalid configuration: healthzPort (--healthz-port) %d must be between 1 and 65535, inclusive" % healthz_port)
    problems.extend(_cfs_quota_period_rules(view))
    for name, flag in (("imageGCHighThresholdPercent", "image-gc-high-threshold"), ("imageGCLowThresholdPercent", "image-gc-low-threshold")):
        value = view.int(name)
        if value is not None and not in_range(value, 0, 100):
            problems.append("%s: invalid configuration: %s (--%s) %d must be between 0 and 100, inclusive" % (name, name, flag, value))
    high, low = view.int("imageGCHighThresholdPercent"), view.int("imageGCLowThresholdPercent")
    if high is not None and low is not None and low >= high:
        problems.append(
            "imageGCLowThresholdPercent: invalid configuration: imageGCLowThresholdPercent (--image-gc-low-threshold) %d must be less than "
            "imageGCHighThresholdPercent (--image-gc-high-threshold) %d" % (low, high)
        )
    problems.extend(_image_gc_age_rules(view))
    for name, flag in (("iptablesDropBit", "iptables-drop-bit"), ("iptablesMasqueradeBit", "iptables-masquerade-bit")):
        value = view.int(name)
        if value is not None and not in_range(value, 0, 31):
            problems.append("%s: invalid configuration: %s (--%s) %d must be between 0 and 31, inclusive" % (name, name, flag, value))
    for name, flag in (("kubeAPIBurst", "kube-api-burst"), ("kubeAPIQPS", "kube-api-qps")):
        value = view.int(name)
        if value is not None and value < 0:
            problems.append("%s: invalid configuration: %s (--%s) %d must not be a negative number" % (name, name, flag, value))
    max_images = view.int("nodeStatusMaxImages")
    if max_images is not None and max_images < -1:
        problems.append("nodeStatusMaxImages: invalid configuration: nodeStatusMaxImages (--node-status-max-images) %d must be -1 or greater" % max_images)
    for name, flag in (("maxOpenFiles", "max-open-files"), ("maxPods", "max-pods")):
        value = view.int(name)
        if value is not None and value < 0:
            problems.append("%s: invalid configuration: %s (--%s) %d must not be a negative number" % (name, name, flag, value))
    oom_score_adj = view.int("oomScoreAdj")
    if oom_score_adj is not None and not in_range(oom_score_adj, -1000, 1000):
        problems.append("oomScoreAdj: invalid configuration: oomScoreAdj (--oom-score-adj) %d must be between -1000 and 1000, inclusive" % oom_score_adj)
    pods_per_core = view.int("podsPerCore")
    if pods_per_core is not None and pods_per_core < 0:
        problems.append("podsPerCore: invalid configuration: podsPerCore (--pods-per-core) %d must not be a negative number" % pods_per_core)
    port = view.int("port")
    if port is not None and not in_range(port, 1, 65535):
        problems.append("port: invalid configuration: port (--port) %d must be between 1 and 65535, inclusive" % port)
    read_only_port = view.int("readOnlyPort")
    if read_only_port and not in_range(read_only_port, 1, 65535):
        problems.append("readOnlyPort: invalid configuration: readOnlyPort (--read-only-port) %d must be between 0 and 65535, inclusive" % read_only_port)
    for name, flag in (("registryBurst", "registry-burst"), ("registryPullQPS", "registry-qps")):
        value = view.int(name)
        if value is not None and value < 0:
            problems.append("%s: invalid configuration: %s (--%s) %d must not be a negative number" % (name, name, flag, value))
    problems.extend(_image_pull_rules(view))
    return problems


def _cfs_quota_period_rules(view: View) -> list[str]:
    period = view.duration("cpuCFSQuotaPeriod")
    gate = view.enabled("CustomCPUCFSQuotaPeriod")
    if period is None or gate is None:
        return []
    shown = go_struct_duration(period)
    if not gate and period != _DEFAULT_CFS_QUOTA_PERIOD:
        return [f"cpuCFSQuotaPeriod: invalid configuration: cpuCFSQuotaPeriod (--cpu-cfs-quota-period) {shown} requires feature gate CustomCPUCFSQuotaPeriod"]
    if gate and not MILLISECOND <= period <= SECOND:
        return [f"cpuCFSQuotaPeriod: invalid configuration: cpuCFSQuotaPeriod (--cpu-cfs-quota-period) {shown} must be between 1ms and 1sec, inclusive"]
    return []


def _image_gc_age_rules(view: View) -> list[str]:
    problems: list[str] = []
    minimum, maximum = view.duration("imageMinimumGCAge"), view.duration("imageMaximumGCAge")
    if maximum and view.enabled("ImageMaximumGCAge") is False:
        problems.append(
            "imageMaximumGCAge: invalid configuration: ImageMaximumGCAge feature gate is required for Kubelet configuration option imageMaximumGCAge"
        )
    if minimum is not None and minimum < 0:
        problems.append("imageMinimumGCAge: invalid configuration: imageMinimumGCAge %s must not be negative" % go_duration_string(minimum))
    if maximum is not None and maximum < 0:
        problems.append("imageMaximumGCAge: invalid configuration: imageMaximumGCAge %s must not be negative" % go_duration_string(maximum))
    if maximum is not None and minimum is not None and maximum > 0 and maximum <= minimum:
        problems.append(
            "imageMaximumGCAge: invalid configuration: imageMaximumGCAge %s must be greater than imageMinimumGCAge %s"
            % (go_duration_string(maximum), go_duration_string(minimum))
        )
    return problems


def _image_pull_rules(view: View) -> list[str]:
    problems = []
    parallel = view.int("maxParallelImagePulls", None)
    if parallel is not None and parallel < 1:
        problems.append("maxParallelImagePulls: invalid configuration: maxParallelImagePulls %d must be a positive number" % parallel)
    if view.bool("serializeImagePulls") and parallel is not None and parallel > 1:
        problems.append(
            "maxParallelImagePulls: invalid configuration: maxParallelImagePulls cannot be larger than 1 unless SerializeImagePulls "
            "(--serialize-image-pulls) is set to false"
        )
    if view.bool("serverTLSBootstrap") and view.enabled("RotateKubeletServerCertificate") is False:
        problems.append("serverTLSBootstrap: invalid configuration: serverTLSBootstrap true requires feature gate RotateKubeletServerCertificate")
    if view.bool("runOnce"):
        problems.append("runOnce: invalid configuration: runOnce (--runOnce) true, Runonce mode has been deprecated and should not be set")
    return problems
