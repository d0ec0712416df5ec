# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the kubelet refuses when it builds its CPU manager, with its own texts, and what the CPU and topology manager
rules share: the options' maturity levels and how a config's policy, options and gates are read. The topology
manager's rules: _topology_manager_options; the cpuset and strconv parsers: _cpuset.

Sources (kubernetes/kubernetes, read at the release tags v1.31.14, v1.33.13 and v1.36.2; docs/kubelet-facts.md):
- pkg/kubelet/cm/cpumanager/cpu_manager.go (policy names, the static policy's reservation),
  policy_none.go (no options under "none"), policy_options.go (names, maturity gates, ParseBool, pairs,
  ValidateStaticPolicyOptions), policy_static.go (the reserved CPUs must be takeable);
- pkg/kubelet/apis/config/validation/validation.go and k8s.io/utils/cpuset Parse (reservedSystemCPUs),
  cmd/kubelet/app/server.go getReservedCPUs (reserved CPUs must be online);
- pkg/kubelet/cm/node_container_manager_linux.go validateNodeAllocatable (cpu reservation within capacity).
Option names and maturity differ by kubelet version; each table below is that version's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from ._config import CPU_MANAGER_POLICIES, KubeletConfigError, lookalike_hint, reserved_resource_list
from ._cpuset import GO_BOOLS, cpuset_string, go_parse_bool, parse_cpuset
from ._feature_gates import gate_enabled
from ._go_text import go_quote
from ._quantity import DECIMAL_SI, Quantity

ALPHA, BETA, STABLE = "alpha", "beta", "stable"

FULL_PCPUS_ONLY = "full-pcpus-only"
DISTRIBUTE_CPUS_ACROSS_NUMA = "distribute-cpus-across-numa"
ALIGN_BY_SOCKET = "align-by-socket"
DISTRIBUTE_CPUS_ACROSS_CORES = "distribute-cpus-across-cores"
STRICT_CPU_RESERVATION = "strict-cpu-reservation"
PREFER_ALIGN_BY_UNCORECACHE = "prefer-align-cpus-by-uncorecache"

# cpumanager/policy_options.go alphaOptions / betaOptions / stableOptions of each version.
CPU_POLICY_OPTIONS = {
    "1.31": {
        FULL_PCPUS_ONLY: BETA,
        DISTRIBUTE_CPUS_ACROSS_NUMA: ALPHA,
        ALIGN_BY_SOCKET: ALPHA,
        DISTRIBUTE_CPUS_ACROSS_CORES: ALPHA,
        # Upstream v1.31 does not know it (KEP-4800 added it as alpha in v1.32); OpenShift's 1.31 carries it as alpha.
        PREFER_ALIGN_BY_UNCORECACHE: ALPHA,
    },
    "1.33": {
        FULL_PCPUS_ONLY: STABLE,
        DISTRIBUTE_CPUS_ACROSS_NUMA: BETA,
        ALIGN_BY_SOCKET: ALPHA,
        DISTRIBUTE_CPUS_ACROSS_CORES: ALPHA,
        STRICT_CPU_RESERVATION: BETA,
        PREFER_ALIGN_BY_UNCORECACHE: ALPHA,
    },
    "1.36": {
        FULL_PCPUS_ONLY: STABLE,
        DISTRIBUTE_CPUS_ACROSS_NUMA: BETA,
        ALIGN_BY_SOCKET: ALPHA,
        DISTRIBUTE_CPUS_ACROSS_CORES: ALPHA,
        STRICT_CPU_RESERVATION: STABLE,
        PREFER_ALIGN_BY_UNCORECACHE: STABLE,
    },
}
# NewStaticPolicyOptions: options that cannot both be true, in the order the kubelet checks them.
CPU_OPTION_CONFLICTS = (
    (FULL_PCPUS_ONLY, DISTRIBUTE_CPUS_ACROSS_CORES),
    (DISTRIBUTE_CPUS_ACROSS_NUMA, DISTRIBUTE_CPUS_ACROSS_CORES),
    (PREFER_ALIGN_BY_UNCORECACHE, DISTRIBUTE_CPUS_ACROSS_CORES),
    (PREFER_ALIGN_BY_UNCORECACHE, DISTRIBUTE_CPUS_ACROSS_NUMA),
)

_CPU_GATES = {ALPHA: "CPUManagerPolicyAlphaOptions", BETA: "CPUManagerPolicyBetaOptions"}


def option_gate_enabled(config: Mapping, gate: str, version: str) -> bool:
    # The gate as SetFromMap resolves featureGates (AllAlpha / AllBeta included); a wrong type is the decoding's error.
    return gate_enabled(config.get("featureGates"), gate, version)


def policy_options(config: Mapping, field: str) -> dict[str, str]:
    # Values of the wrong type are reported by the type check (json: cannot unmarshal); they are left out here.
    options = config.get(field)
    if not isinstance(options, Mapping):
        return {}
    return {name: value for name, value in options.items() if isinstance(name, str) and isinstance(value, str)}


def manager_policy(config: Mapping, field: str) -> str | None:
    value = config.get(field)
    if value is None or value == "":
        return "none"
    return value if isinstance(value, str) else None


def _online_cpus(nodes: Sequence | None) -> set[int] | None:
    # Known only when every NUMA node lists its CPUs.
    if not nodes or any(getattr(node, "cpus", None) is None for node in nodes):
        return None
    return {cpu for node in nodes for cpu in node.cpus}


def _cpu_option_availability(name: str, version: str, config: Mapping) -> str | None:
    """CheckPolicyOptionAvailable: None when the kubelet takes the option name."""
    version_table = CPU_POLICY_OPTIONS.get(version)
    if version_table is None:
        return None
    maturity = version_table.get(name)
    if maturity is None:
        return f"unknown CPU Manager Policy option: {go_quote(name)}"
    if maturity in _CPU_GATES and not option_gate_enabled(config, _CPU_GATES[maturity], version):
        level = "Alpha" if maturity == ALPHA else "Beta"
        return f"CPU Manager Policy {level}-level Options not enabled, but option {go_quote(name)} provided"
    return None


def _static_option_problems(config: Mapping, version: str) -> list[str]:
    """NewStaticPolicyOptions and ValidateStaticPolicyOptions, each option's problem at once."""
    known = set().union(*CPU_POLICY_OPTIONS.values())
    problems = []
    enabled = set()
    for name, value in sorted(policy_options(config, "cpuManagerPolicyOptions").items()):
        path = f"cpuManagerPolicyOptions.{name}"
        refusal = _cpu_option_availability(name, version, config)
        if refusal is not None:
            problems.append(f"{path}: new static policy error: {refusal}")
            continue
        if name not in known:
            continue
        try:
            if go_parse_bool(value):
                enabled.add(name)
        except ValueError as exc:
            problems.append(f"{path}: new static policy error: bad value for option {go_quote(name)}: {exc}")
    for first, second in CPU_OPTION_CONFLICTS:
        if first in enabled and second in enabled:
            problems.append(f"cpuManagerPolicyOptions: new static policy error: static policy options {first} and {second} can not be used at the same time")
    if ALIGN_BY_SOCKET in enabled and config.get("topologyManagerPolicy") == "single-numa-node":
        problems.append(
            f"cpuManagerPolicyOptions.{ALIGN_BY_SOCKET}: new static policy error: Topolgy manager single-numa-node policy is incompatible with "
            f"CPUManager {ALIGN_BY_SOCKET} policy option (the kubelet's text, sic)"
        )
    return problems


def _cpu_reservation(config: Mapping) -> Quantity | None:
    """kubeReserved.cpu + systemReserved.cpu as GetNodeAllocatableReservation adds them (systemReserved first)."""
    total = Quantity.from_int(0, DECIMAL_SI)
    for field in ("systemReserved", "kubeReserved"):
        try:
            cpu = reserved_resource_list(config, field).get("cpu")
        except KubeletConfigError:
            return None
        # A missing key is Go's zero Quantity, whose empty Format the next Add can take over.
        total = total + (cpu if cpu is not None else Quantity.from_int(0, ""))
    return total


def _static_reservation_problems(config: Mapping, reservation: Quantity | None, online: set[int] | None) -> list[str]:
    """cpu_manager.go NewManager and policy_static.go NewStaticPolicy: the CPUs to reserve must exist."""
    if config.get("reservedSystemCPUs"):
        return []
    if reservation is None or reservation.is_zero():
        return [
            (
                "cpuManagerPolicy: [cpumanager] unable to determine reserved CPU resources for static policy "
                "(set kubeReserved.cpu or systemReserved.cpu above zero, or reservedSystemCPUs)"
            )
        ]
    if online is None or reservation.sign() < 0:
        return []
    # MilliValue rounds up, and the policy takes the ceiling: fractional CPUs cannot be exclusive.
    wanted = math.ceil(math.ceil(reservation.exact * 1000) / 1000)
    if wanted <= len(online):
        return []
    return [
        (
            f"cpuManagerPolicy: new static policy error: [cpumanager] unable to reserve the required amount of CPUs (size of  did not equal {wanted}) "
            f"(kubeReserved.cpu + systemReserved.cpu = {reservation} needs {wanted} whole CPUs; this node has {len(online)})"
        )
    ]


def _capacity_problems(config: Mapping, reservation: Quantity | None, online: set[int] | None) -> list[str]:
    """validateNodeAllocatable for cpu: the reservation may not exceed the node's CPUs (NumCores * 1000m)."""
    if online is None or reservation is None or config.get("reservedSystemCPUs"):
        # reservedSystemCPUs replaces both cpu reservations by its own size (server.go), which is online.
        return []
    capacity = Quantity.parse(f"{len(online) * 1000}m")
    if not capacity < reservation:
        return []
    reserved_struct, capacity_struct = reservation.go_struct(), capacity.go_struct()
    if reserved_struct is None:
        detail = f"a reservation of {reservation} but capacity of {len(online)}"
    else:
        detail = f"a reservation of {reserved_struct} but capacity of {capacity_struct}"
    return [
        (
            f'kubeReserved.cpu + systemReserved.cpu: invalid Node Allocatable configuration. Resource "cpu" has {detail}. '
            f"Expected capacity >= reservation. ({reservation} reserved; this node has {len(online)} CPUs)"
        )
    ]


def cpu_manager_problems(config: Mapping, nodes: Sequence | None = None, kubelet_version: str = "1.36") -> list[str]:
    """What the kubelet refuses when it builds its CPU manager, and the CPU checks it makes against the node."""
    version = kubelet_version
    policy = manager_policy(config, "cpuManagerPolicy")
    online = _online_cpus(nodes)
    problems = _reserved_cpu_problems(config, online)
    reservation = _cpu_reservation(config)
    problems += _capacity_problems(config, reservation, online)
    if policy is None:
        return problems
    if policy not in CPU_MANAGER_POLICIES:
        hint = '; CPU manager policy names are lower case: "none" or "static"' if policy.lower() in CPU_MANAGER_POLICIES else ""
        return problems + [f'cpuManagerPolicy: unknown policy: "{policy}"{hint}{lookalike_hint(policy)}']
    options = policy_options(config, "cpuManagerPolicyOptions")
    if policy == "none":
        if options:
            shown = " ".join(f"{name}:{value}" for name, value in sorted(options.items()))
            problems.append(f"cpuManagerPolicyOptions: new none policy error: None policy: received unsupported options=map[{shown}]")
        return problems
    problems += _static_reservation_problems(config, reservation, online)
    return problems + _static_option_problems(config, version)


def _reserved_cpu_problems(config: Mapping, online: set[int] | None) -> list[str]:
    """validation.go (cpuset.Parse) and server.go getReservedCPUs (a subset of the online CPUs)."""
    text = config.get("reservedSystemCPUs")
    if not isinstance(text, str) or text == "":
        return []
    # Next to systemReservedCgroup / kubeReservedCgroup it is refused by _kubelet_validation (validation.go).
    try:
        ranges = parse_cpuset(text)
    except ValueError as exc:
        return [f"reservedSystemCPUs: invalid configuration: unable to parse reservedSystemCPUs (--reserved-cpus) {text}, error: {exc}"]
    if online is None:
        return []
    # A range longer than the online CPUs has one outside them: no need to walk it.
    if not any(last - first >= len(online) or any(cpu not in online for cpu in range(first, last + 1)) for first, last in ranges):
        return []
    return [f"reservedSystemCPUs: reserved-cpus: {text} is not a subset of online-cpus: {cpuset_string(online)}"]


def manager_option_warnings(config: Mapping, kubelet_version: str = "1.36") -> list[str]:
    """The manager rules the collection cannot decide (for this kubelet version): said, never passed in silence."""
    try:
        version = kubelet_version
    except KubeletConfigError:
        return []
    warnings = []
    cpu_options = policy_options(config, "cpuManagerPolicyOptions")
    if version == "1.31" and PREFER_ALIGN_BY_UNCORECACHE in cpu_options and option_gate_enabled(config, _CPU_GATES[ALPHA], version):
        warnings.append(
            f"cpuManagerPolicyOptions.{PREFER_ALIGN_BY_UNCORECACHE}: upstream kubelet 1.31 does not know this option "
            f'(unknown CPU Manager Policy option: "{PREFER_ALIGN_BY_UNCORECACHE}"; it came as alpha in 1.32), while some 1.31 builds '
            "(OpenShift 4.18) carry it as alpha: the collection cannot tell which kubelet this node runs"
        )
    if config.get("cpuManagerPolicy") == "static" and cpu_options.get(ALIGN_BY_SOCKET) in GO_BOOLS and GO_BOOLS[cpu_options[ALIGN_BY_SOCKET]]:
        warnings.append(
            f"cpuManagerPolicyOptions.{ALIGN_BY_SOCKET}: the kubelet also refuses it on hardware with more sockets than NUMA nodes "
            "(Align by socket is not compatible with hardware where number of sockets are more than number of NUMA); "
            "the collection does not know the node's sockets and did not check that"
        )
    return warnings
