# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet's ValidateKubeletConfiguration, ported rule by rule, with its texts.

kubelet_validation_problems(config) runs the rules of pkg/kubelet/apis/config/validation/validation.go and
validation_linux.go on the config as the kubelet holds it when it validates (defaulted: SetDefaults_KubeletConfiguration
runs first, so `port: 0` is the default 10250 by then) and with the feature gates the config resolves to
(_feature_gates). Each problem is "<field>: <the kubelet's text>". The kubelet reports them all in one message,
"failed to validate kubelet configuration, error: [...]", and exits.

Checked elsewhere, once: featureGates themselves (_feature_gates), reservedMemory (validation_reserved_memory.go,
_validation), topologyManagerPolicy / topologyManagerScope and reservedSystemCPUs' cpuset syntax (_manager_options),
registerWithTaints, logging and the TLS fields (their parsers). validation_linux.go depends on the host's cgroup version, which is known only on the node:
singleProcessOOMKill false is a warning (kubelet_validation_warnings).

The plain range rules live in _kubelet_validation_limits, hairpinMode and the image pull credential rules in
_kubelet_validation_images, the typed reads of the defaulted config they share in _kubelet_view.

Source: kubernetes/kubernetes pkg/kubelet/apis/config/validation/validation.go at
001332b0422071acf4860769f18e34b5e9b7c1bc (the v1.36 rules: it has memoryReservationPolicy; its draManagerReconcilePeriod
rule is newer than v1.36.2, whose v1beta1 has no such field, so it is left out), validation_linux.go at
0428b0fd07fedac134c97b3c802733c02ec06adb, component-base tracing/api/v1/config.go at
6732d913237bd282d81fe99df860938c5d60480a, component-base metrics ValidateShowHiddenMetricsVersionForKubeletBackwardCompatOnly, and
pkg/kubelet/images/pullmanager ValidateAllowlistImagesPatterns; every rule's text confirmed on the real kubelet v1.36.2
(tests/oracle/cases/kubelet_validation.yml).
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping

from ._config import KubeletConfigError
from ._feature_gate_table import DEFAULT_KUBELET_VERSION, kubelet_minor
from ._feature_gates import resolve_feature_gates
from ._go_duration import MILLISECOND, SECOND
from ._go_text import go_quote
from ._kubelet_defaults import set_defaults
from ._kubelet_validation_images import hairpin_and_image_credential_rules
from ._kubelet_validation_limits import scalar_rules
from ._kubelet_view import View, go_float, go_struct_duration

SWAP_BEHAVIORS = ("", "LimitedSwap", "NoSwap")
MEMORY_RESERVATION_POLICIES = ("None", "TieredReservation")
# pkg/kubelet/types constants, in validation.go's order.
ENFORCE_PODS, ENFORCE_NONE = "pods", "none"
ENFORCE_SYSTEM, ENFORCE_SYSTEM_COMPRESSIBLE = "system-reserved", "system-reserved-compressible"
ENFORCE_KUBE, ENFORCE_KUBE_COMPRESSIBLE = "kube-reserved", "kube-reserved-compressible"
ENFORCEMENT_OPTIONS = (ENFORCE_PODS, ENFORCE_SYSTEM, ENFORCE_SYSTEM_COMPRESSIBLE, ENFORCE_KUBE, ENFORCE_KUBE_COMPRESSIBLE, ENFORCE_NONE)


def _shutdown_rules(view: View) -> list[str]:
    problems: list[str] = []
    period, critical = view.duration("shutdownGracePeriod"), view.duration("shutdownGracePeriodCriticalPods")
    if period is None or critical is None:
        return []
    by_priority = view.config.get("shutdownGracePeriodByPodPriority")
    graceful, by_priority_gate = view.enabled("GracefulNodeShutdown"), view.enabled("GracefulNodeShutdownBasedOnPodPriority")
    if graceful:
        if critical > period:
            problems.append(
                "shutdownGracePeriodCriticalPods: invalid configuration: shutdownGracePeriodCriticalPods %s must be <= shutdownGracePeriod %s"
                % (go_struct_duration(critical), go_struct_duration(period))
            )
        for name, value in (("shutdownGracePeriod", period), ("shutdownGracePeriodCriticalPods", critical)):
            if value < 0 or 0 < value < SECOND:
                problems.append("%s: invalid configuration: %s %s must be either zero or otherwise >= 1 sec" % (name, name, go_struct_duration(value)))
    if (period > 0 or critical > 0) and graceful is False:
        problems.append(
            "shutdownGracePeriod: invalid configuration: specifying shutdownGracePeriod or shutdownGracePeriodCriticalPods requires feature gate "
            "GracefulNodeShutdown"
        )
    if by_priority_gate and by_priority and (period > 0 or critical > 0):
        problems.append(
            "shutdownGracePeriodByPodPriority: invalid configuration: Cannot specify both shutdownGracePeriodByPodPriority and shutdownGracePeriod "
            "at the same time"
        )
    if by_priority_gate is False and by_priority:
        problems.append(
            "shutdownGracePeriodByPodPriority: invalid configuration: Specifying shutdownGracePeriodByPodPriority requires feature gate "
            "GracefulNodeShutdownBasedOnPodPriority"
        )
    return problems


def _swap_and_back_off_rules(view: View) -> list[str]:
    problems = []
    swap = view.mapping("memorySwap")
    behavior = view.str("swapBehavior", swap)
    node_swap = view.enabled("NodeSwap")
    if node_swap and behavior is not None and behavior not in SWAP_BEHAVIORS:
        problems.append(
            f'memorySwap.swapBehavior: invalid configuration: memorySwap.swapBehavior {go_quote(behavior)} must be one of: "", "LimitedSwap" or "NoSwap"'
        )
    if node_swap is False and behavior:
        problems.append("memorySwap.swapBehavior: invalid configuration: memorySwap.swapBehavior cannot be set when NodeSwap feature flag is disabled")
    back_off = view.mapping("crashLoopBackOff")
    restart_period = back_off.get("maxContainerRestartPeriod")
    back_off_max = view.enabled("KubeletCrashLoopBackOffMax")
    path = "crashLoopBackOff.maxContainerRestartPeriod"
    if back_off_max:
        if restart_period is None:
            problems.append(
                "%s: invalid configuration: FeatureGate KubeletCrashLoopBackOffMax is enabled, CrashLoopBackOff.MaxContainerRestartPeriod must be set" % path
            )
        else:
            nanoseconds = view.duration("maxContainerRestartPeriod", back_off)
            # Duration.Milliseconds() truncates toward zero.
            if nanoseconds is not None and not 1000 <= int(nanoseconds / MILLISECOND) <= 300000:
                problems.append(
                    "%s: invalid configuration: CrashLoopBackOff.MaxContainerRestartPeriod (got: %s seconds) must be set between 1s and 300s"
                    % (path, go_float(nanoseconds / SECOND))
                )
    elif back_off_max is False and restart_period is not None:
        problems.append(
            "%s: invalid configuration: FeatureGate KubeletCrashLoopBackOffMax not enabled, CrashLoopBackOff.MaxContainerRestartPeriod must not be set" % path
        )
    return problems


def _enforce_node_allocatable_rules(view: View) -> list[str]:
    enforcements = view.strings("enforceNodeAllocatable")
    if enforcements is None:
        return []
    problems = []
    field = "enforceNodeAllocatable"
    flag = "enforceNodeAllocatable (--enforce-node-allocatable)"
    present = set(enforcements)
    options: tuple[str, ...] = ENFORCEMENT_OPTIONS
    valid = "%s or %s" % (", ".join(go_quote(option) for option in ENFORCEMENT_OPTIONS[:-1]), go_quote(ENFORCE_NONE))
    if view.minor == "1.31":
        # No -compressible enforcements yet (v1.32 added them); the v1.31.14 kubelet's wording.
        options = (ENFORCE_PODS, ENFORCE_SYSTEM, ENFORCE_KUBE, ENFORCE_NONE)
        valid = '"pods", "system-reserved", "kube-reserved", or "none"'
        present = set()
    for plain, compressible in ((ENFORCE_SYSTEM, ENFORCE_SYSTEM_COMPRESSIBLE), (ENFORCE_KUBE, ENFORCE_KUBE_COMPRESSIBLE)):
        if plain in present and compressible in present:
            problems.append(
                "%s: invalid configuration: both %s and %s cannot be specified together in %s" % (field, go_quote(plain), go_quote(compressible), flag)
            )
    seen = set()
    for value in enforcements:
        if value in seen:
            problems.append("%s: invalid configuration: duplicated enforcements %s in %s" % (field, go_quote(value), flag))
            continue
        seen.add(value)
        if value not in options:
            problems.append("%s: invalid configuration: option %s specified for %s. Valid options are %s" % (field, go_quote(value), flag, valid))
            continue
        if value in (ENFORCE_SYSTEM, ENFORCE_SYSTEM_COMPRESSIBLE) and not view.str("systemReservedCgroup"):
            problems.append(
                "%s: invalid configuration: systemReservedCgroup (--system-reserved-cgroup) must be specified when %s or %s included in %s"
                % (field, go_quote(ENFORCE_SYSTEM), go_quote(ENFORCE_SYSTEM_COMPRESSIBLE), flag)
            )
        elif value in (ENFORCE_KUBE, ENFORCE_KUBE_COMPRESSIBLE) and not view.str("kubeReservedCgroup"):
            problems.append(
                "%s: invalid configuration: kubeReservedCgroup (--kube-reserved-cgroup) must be specified when %s or %s included in %s"
                % (field, go_quote(ENFORCE_KUBE), go_quote(ENFORCE_KUBE_COMPRESSIBLE), flag)
            )
        elif value == ENFORCE_NONE:
            if len(enforcements) > 1:
                problems.append(
                    "%s: invalid configuration: %s may not contain additional enforcements when %s is specified" % (field, flag, go_quote(ENFORCE_NONE))
                )
            continue
        if view.bool("cgroupsPerQOS", True) is False:
            problems.append(
                "cgroupsPerQOS: invalid configuration: cgroupsPerQOS (--cgroups-per-qos) must be set to true when %s contained in %s" % (go_quote(value), flag)
            )
    return problems


def _cpu_and_memory_rules(view: View) -> list[str]:
    problems = []
    cgroups = [name for name in ("systemReservedCgroup", "kubeReservedCgroup") if view.str(name)]
    if view.str("reservedSystemCPUs") and cgroups:
        # Upstream refuses the pair; the OpenShift kubelets accept it. nodeadm (EKS) sets both cgroups.
        problems.append(
            "reservedSystemCPUs: invalid configuration: can't use reservedSystemCPUs (--reserved-cpus) with systemReservedCgroup "
            f'(--system-reserved-cgroup) or kubeReservedCgroup (--kube-reserved-cgroup); set {" and ".join(cgroups)} to "" '
            "(on EKS nodeadm sets systemReservedCgroup /system and kubeReservedCgroup /runtime)"
        )
    memory_qos = view.enabled("MemoryQoS")
    factor = view.float("memoryThrottlingFactor")
    if memory_qos and view.config.get("memoryThrottlingFactor") is None:
        problems.append("memoryThrottlingFactor: invalid configuration: memoryThrottlingFactor is required when MemoryQoS feature flag is enabled")
    if factor is not None and not 0 < factor <= 1.0:
        problems.append(
            "memoryThrottlingFactor: invalid configuration: memoryThrottlingFactor %s must be greater than 0 and less than or equal to 1.0" % go_float(factor)
        )
    policy = view.str("memoryReservationPolicy")
    if policy is not None and "memoryReservationPolicy" in view.config:
        if memory_qos is False and policy == "TieredReservation":
            problems.append(
                "memoryReservationPolicy: invalid configuration: memoryReservationPolicy %s requires MemoryQoS feature gate to be enabled" % go_quote(policy)
            )
        if policy not in MEMORY_RESERVATION_POLICIES:
            problems.append(
                "memoryReservationPolicy: invalid configuration: option %s specified for memoryReservationPolicy. Valid options are %s or %s"
                % (go_quote(policy), *(go_quote(name) for name in MEMORY_RESERVATION_POLICIES))
            )
    return problems


def _tracing_rules(view: View) -> list[str]:
    tracing = view.config.get("tracing")
    if not isinstance(tracing, Mapping):
        return []
    problems = []
    rate = tracing.get("samplingRatePerMillion")
    if isinstance(rate, int) and not isinstance(rate, bool):
        if rate < 0:
            problems.append("tracing.samplingRatePerMillion: Invalid value: %d: sampling rate must be positive" % rate)
        if rate > 1_000_000:
            problems.append("tracing.samplingRatePerMillion: Invalid value: %d: sampling rate per million must be less than or equal to one million" % rate)
    endpoint = tracing.get("endpoint")
    if isinstance(endpoint, str):
        if "//" not in endpoint:
            endpoint = "dns://" + endpoint
        scheme = _url_scheme(endpoint)
        if scheme not in ("dns", "unix", "unix-abstract"):
            problems.append(
                f"tracing.endpoint: Invalid value: {go_quote(endpoint)}: unsupported scheme: {scheme}.  Options are none, dns, unix, or unix-abstract.  "
                "See https://github.com/grpc/grpc/blob/master/doc/naming.md"
            )
    return problems


def _url_scheme(url: str) -> str:
    """net/url getScheme, lower-cased as url.Parse stores it ("" when the text has no scheme)."""
    for index, ch in enumerate(url):
        if ch.isascii() and ch.isalpha():
            continue
        if index > 0 and (ch.isdigit() or ch in "+-."):
            continue
        return url[:index].lower() if ch == ":" and index > 0 else ""
    return ""


def _user_namespace_rules(view: View) -> list[str]:
    """validation_linux.go validateKubeletOSConfiguration (at 0428b0fd07fedac134c97b3c802733c02ec06adb): idsPerPod in
    units of 65536 (userNsUnitLength), at most MaxUint32; it reports the first broken rule. The kubelet 1.31 has no
    userNamespaces field (it drops it as unknown, checked on the real kubelet v1.31)."""
    if view.minor == "1.31":
        return []
    user_namespaces = view.config.get("userNamespaces")
    ids = user_namespaces.get("idsPerPod") if isinstance(user_namespaces, Mapping) else None
    if isinstance(ids, bool) or not isinstance(ids, int):
        return []
    if ids < 65536:
        broken = "must not be less than 65536"
    elif ids % 65536:
        broken = "must be a multiple of 65536"
    elif ids > 2**32 - 1:
        broken = "must not be more than 4294967295"
    else:
        return []
    return [f"userNamespaces.idsPerPod: invalid configuration: userNamespaces.idsPerPod {broken}"]


def _system_rules(view: View, minor: str) -> list[str]:
    problems = []
    hidden = view.str("showHiddenMetricsForVersion")
    if hidden:
        major, _dot, minor_number = minor.partition(".")
        previous = "%s.%d" % (major, int(minor_number) - 1)
        if hidden != previous:
            # component-base metrics ValidateShowHiddenMetricsVersionForKubeletBackwardCompatOnly, as v1.36.2 words it.
            problems.append(
                f"showHiddenMetricsForVersion: invalid showHiddenMetricsForVersion: showHiddenMetricsForVersion: Invalid value: {go_quote(hidden)}: "
                f"must be omitted or have the value '{previous}'; only the previous minor version is allowed"
            )
    if view.str("containerRuntimeEndpoint") == "":
        problems.append("containerRuntimeEndpoint: invalid configuration: the containerRuntimeEndpoint was not specified or empty")
    if view.bool("enableSystemLogQuery"):
        if view.enabled("NodeLogQuery") is False:
            problems.append("enableSystemLogQuery: invalid configuration: NodeLogQuery feature gate is required for enableSystemLogQuery")
        if view.bool("enableSystemLogHandler", True) is False:
            problems.append("enableSystemLogQuery: invalid configuration: enableSystemLogHandler is required for enableSystemLogQuery")
    workers = view.int("containerLogMaxWorkers")
    if workers is not None and workers < 1:
        problems.append("containerLogMaxWorkers: invalid configuration: containerLogMaxWorkers must be greater than or equal to 1")
    interval = view.duration("containerLogMonitorInterval")
    if interval is not None and interval < 3 * SECOND:
        problems.append(
            "containerLogMonitorInterval: invalid configuration: containerLogMonitorInterval must be a positive time duration greater than or equal to 3s"
        )
    max_files = view.int("containerLogMaxFiles")
    if max_files is not None and max_files <= 1:
        problems.append("containerLogMaxFiles: invalid configuration: containerLogMaxFiles must be greater than 1")
    problems.extend(_pod_logs_dir_rules(view.str("podLogsDir")))
    return problems


def _pod_logs_dir_rules(path: str | None) -> list[str]:
    if path is None:
        return []
    problems = []
    if path == "":
        problems.append("podLogsDir: invalid configuration: podLogsDir was not specified")
    if not path.startswith("/"):
        problems.append(f"podLogsDir: invalid configuration: pod logs path {go_quote(path)} must be absolute path")
    # utilfs.IsPathClean: filepath.Clean leaves it unchanged (Go's Clean("") is ".").
    if (posixpath.normpath(path) if path else ".") != path or path.startswith("//"):
        problems.append(f"podLogsDir: invalid configuration: pod logs path {go_quote(path)} must be normalized")
    if any(ord(ch) > 127 for ch in path):
        problems.append(f"podLogsDir: invalid configuration: pod logs path {go_quote(path)} mut contains ASCII characters only")
    return problems


def _defaulted(config: Mapping, minor: str) -> dict | None:
    """The config after that version's SetDefaults_KubeletConfiguration (idempotent on a config it defaulted); None when a
    field does not even decode (that problem is reported by _kubelet_fields and the kubelet stops there)."""
    try:
        return set_defaults(dict(config), minor)
    except KubeletConfigError:
        return None


def kubelet_validation_problems(config: Mapping, kubelet_version: str | None = None) -> list[str]:
    """Every problem ValidateKubeletConfiguration reports for this config, with the kubelet's texts.

    The rules are v1.36.2's; for an older kubelet_version (1.33, 1.31) they run with that version's gates and
    defaults, and a rule behind a gate that version does not know is skipped. config holds no field that version does
    not know (check_kubelet_config drops them) and no other version's defaults.
    """
    if not isinstance(config, Mapping):
        return []
    minor = kubelet_minor(kubelet_version) or DEFAULT_KUBELET_VERSION
    defaulted = _defaulted(config, minor)
    if defaulted is None:
        return []
    view = View(defaulted, resolve_feature_gates(defaulted.get("featureGates"), kubelet_version).enabled, minor)
    problems = []
    for rules in (scalar_rules, _shutdown_rules, _swap_and_back_off_rules, _enforce_node_allocatable_rules):
        problems.extend(rules(view))
    problems.extend(hairpin_and_image_credential_rules(view))
    problems.extend(_cpu_and_memory_rules(view))
    problems.extend(_system_rules(view, minor))
    problems.extend(_user_namespace_rules(view))
    problems.extend(_tracing_rules(view))
    return problems


def kubelet_validation_warnings(config: Mapping) -> list[str]:
    """validation_linux.go's rules that depend on the node's cgroup version, which the config does not tell."""
    if isinstance(config, Mapping) and config.get("singleProcessOOMKill") is False:
        warning = (
            "singleProcessOOMKill: false is refused on a cgroup v1 host (invalid configuration: singleProcessOOMKill must not be "
            "explicitly set to false when using cgroup v1); it is accepted on cgroup v2"
        )
        return [warning]
    return []
