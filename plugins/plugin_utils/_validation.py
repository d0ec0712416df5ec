# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Would the kubelet start with this KubeletConfiguration as its main config file? All problems at once.

The kubelet's own checks, with its own texts (it stops at the first; we report every one):
- pkg/kubelet/apis/config/validation/validation_reserved_memory.go (limit types, zero, duplicates);
- pkg/kubelet/cm/memorymanager/memory_manager.go (policy names, NUMA ids, the sum per memory type, int64);
- pkg/kubelet/cm/memorymanager/policy_static.go (a Static policy needs some reserved memory);
- pkg/kubelet/cm/cpumanager and topologymanager (policy names and options, CPU reservation: _manager_options.py);
- component-base featuregate (featureGates: locked, unknown and dependent gates: _feature_gates.py);
- pkg/kubelet/apis/config/validation/validation.go ValidateKubeletConfiguration (_kubelet_validation.py).
And the checks the kubelet lacks: a node's reservation must fit in that node's memory, reservedMemory only with the
Static policy, hugepages refused with the reason, unknown top-level fields (which the kubelet silently ignores).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ._allocatable import Reservation, memory_capacity_problems, memory_reservation
from ._config import (
    API_VERSION,
    HUGEPAGES_PREFIX,
    KIND,
    MEMORY_MANAGER_NONE,
    MEMORY_MANAGER_STATIC,
    MEMORY_MANAGER_WINDOWS_ONLY,
    MEMORY_TYPE,
    NUMA_ALIGNING_TOPOLOGY_POLICIES,
    KubeletConfigError,
    is_memory_type,
    lookalike_hint,
    parse_quantity,
    reserved_resource_list,
    string_field,
)
from ._eviction_thresholds import eviction_problems
from ._feature_gates import feature_gate_problems, feature_gate_warnings
from ._kubelet_defaults import apply_defaults
from ._kubelet_defaults_versions import as_defaulted_for
from ._kubelet_field_table import KUBELET_CONFIGURATION_FIELDS, KUBELET_VERSIONS, checked_minor, fields_unknown_to, unknown_field_warning
from ._kubelet_fields import field_type_problems
from ._kubelet_validation import kubelet_validation_problems, kubelet_validation_warnings
from ._logging_config import logging_problems
from ._manager_options import cpu_manager_problems, manager_option_warnings
from ._quantity import Quantity
from ._split import NumaNode, node_fit_problems, numa_nodes_from
from ._startup_parsing import (
    allowed_unsafe_sysctls_problems,
    container_log_max_size_problems,
    qos_reserved_problems,
    runtime_request_timeout_problems,
    tls_problems,
)
from ._taints import register_with_taints_problems
from ._topology_manager_options import topology_manager_problems

_INT32_MAX = 2**31 - 1
_T = TypeVar("_T")

# KUBELET_VERSIONS: the kubelet versions whose rules are exact here (fields, policy options, their maturity, feature
# gates, defaults), newest last; DEFAULT_KUBELET_VERSION is the one the project checks against (the real kubelet v1.36.2).
DEFAULT_KUBELET_VERSION = KUBELET_VERSIONS[-1]


@dataclass
class Report:
    """Errors make the kubelet refuse the config; warnings are accepted configs that likely miss their aim."""

    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def collect(self, check: Callable[..., _T], *args: Any) -> _T | None:
        """check(*args)'s result, or None when it raises KubeletConfigError, whose problems become this report's errors."""
        try:
            return check(*args)
        except KubeletConfigError as exc:
            self.errors.extend(exc.problems)
            return None

    def add(self, other: Report | None) -> None:
        """Another check's report, errors and warnings, after this one's."""
        if other is not None:
            self.errors.extend(other.errors)
            self.warnings.extend(other.warnings)


@dataclass(frozen=True)
class MemoryReservationEntry:
    """One reservedMemory item, parsed."""

    numa_node: int
    limits: dict[str, Quantity]


# The kubelet's decoder knows one version and kind (pkg/kubelet/apis/config/scheme/scheme.go, whose line 33 makes the
# scheme; apimachinery runtime.NewNotRegisteredErrForKind words it); the same text from the kubelets 1.31, 1.33, 1.36.
_NOT_REGISTERED = 'no kind "%s" is registered for version "%s" in scheme "pkg/kubelet/apis/config/scheme/scheme.go:33"'


def _check_type_and_kind(config: Mapping[str, Any]) -> None:
    problems = []
    for key, expected in (("apiVersion", API_VERSION), ("kind", KIND)):
        if key in config and config[key] != expected:
            if isinstance(config.get("apiVersion"), str) and isinstance(config.get("kind"), str):
                kubelet_words = _NOT_REGISTERED % (config["kind"], config["apiVersion"])
                problems.append(f"{key}: {kubelet_words}; the kubelet only reads {API_VERSION} {KIND} here ({config[key]!r} is not {expected!r})")
            else:
                problems.append(f"{key}: {config[key]!r} is not {expected!r}; the kubelet only reads {API_VERSION} {KIND} here")
    if problems:
        raise KubeletConfigError(problems)


def _check_unknown_fields(config: Mapping[str, Any]) -> None:
    problems = []
    for name in config:
        if name in KUBELET_CONFIGURATION_FIELDS:
            continue
        guess = difflib.get_close_matches(str(name), sorted(KUBELET_CONFIGURATION_FIELDS), n=1, cutoff=0.6)
        hint = f'; did you mean "{guess[0]}"?' if guess else ""
        problems.append(f"{name}: unknown KubeletConfiguration ({API_VERSION}) field; the kubelet ignores it silently and starts without it{hint}")
    if problems:
        raise KubeletConfigError(problems)


def _parse_reserved_memory(config: Mapping[str, Any]) -> list[MemoryReservationEntry]:
    """reservedMemory items with the kubelet's configuration validation (validation_reserved_memory.go), in its order."""
    items = config.get("reservedMemory")
    if items is None:
        return []
    if not isinstance(items, list):
        raise KubeletConfigError([f"reservedMemory: must be a list of {{numaNode, limits}}, got {type(items).__name__} {items!r}"])
    problems: list[str] = []
    entries = []
    seen: set[tuple[int, object]] = set()
    for index, item in enumerate(items):
        entry, item_problems = _reserved_memory_item(f"reservedMemory[{index}]", item, seen)
        problems.extend(item_problems)
        if entry is not None:
            entries.append(entry)
    if problems:
        raise KubeletConfigError(problems)
    return entries


def _reserved_memory_item(path: str, item: object, seen: set[tuple[int, object]]) -> tuple[MemoryReservationEntry | None, list[str]]:
    """One reservedMemory item: its entry (None when its numaNode or limits cannot be read) and its problems. seen holds
    the (NUMA node, resource) pairs of the items before it, and gets this item's."""
    if not isinstance(item, dict):
        return None, [f"{path}: must be a mapping {{numaNode: <id>, limits: {{memory: <quantity>}}}}, got {item!r}"]
    problems = []
    unknown = sorted(set(item) - {"numaNode", "limits"}, key=str)
    if unknown:
        problems.append(f"{path}: unknown keys {unknown}; each item has only numaNode and limits")
    numa_node = item.get("numaNode")
    if isinstance(numa_node, bool) or not isinstance(numa_node, int) or not 0 <= numa_node <= _INT32_MAX:
        return None, problems + [f"{path}.numaNode: {numa_node!r} must be a NUMA node id (a non-negative integer)"]
    limits = item.get("limits")
    if not isinstance(limits, dict) or not limits:
        return None, problems + [f"{path}.limits: must be a non-empty mapping such as {{memory: 1Gi}}, got {limits!r}"]
    parsed = {}
    for resource_name, text in limits.items():
        quantity, limit_problems = _reserved_limit(f"{path}.limits.{resource_name}", numa_node, resource_name, text, seen)
        problems.extend(limit_problems)
        if quantity is not None:
            parsed[resource_name] = quantity
    return MemoryReservationEntry(numa_node, parsed), problems


def _reserved_limit(path: str, numa_node: int, resource_name: object, text: object, seen: set[tuple[int, object]]) -> tuple[Quantity | None, list[str]]:
    """One limit of a reservedMemory item: its quantity (None when it does not parse) and its problems."""
    problems = []
    if not isinstance(resource_name, str) or not is_memory_type(resource_name):
        problems.append(
            '%s: invalid configuration: the limit type "%s" for NUMA node %d is not supported, only [%s %s<HugePageSize>] is accepted'
            % (path, resource_name, numa_node, MEMORY_TYPE, HUGEPAGES_PREFIX)
        )
    try:
        quantity: Quantity = parse_quantity(text, path)
    except KubeletConfigError as exc:
        return None, problems + exc.problems
    if quantity.is_zero():
        problems.append('%s: invalid configuration: reserved memory may not be zero for NUMA node %d and resource "%s"' % (path, numa_node, resource_name))
    elif quantity.sign() < 0:
        # The kubelet does not check the sign; a negative limit wraps around when it converts to uint64.
        problems.append(f"{path}: {text} is negative; a reservation must be a positive amount of memory")
    elif quantity.as_int64() is None:
        problems.append(
            f"{path}: {text}: could not covert a variable of type Quantity to int64 (the kubelet's text, sic; "
            "write whole bytes or a unit that keeps the value an integer, e.g. 5220Mi)"
        )
    if (numa_node, resource_name) in seen:
        problems.append(
            '%s: invalid configuration: the reserved memory has a duplicate value for NUMA node %d and resource "%s"' % (path, numa_node, resource_name)
        )
    seen.add((numa_node, resource_name))
    if isinstance(resource_name, str) and resource_name.startswith(HUGEPAGES_PREFIX):
        problems.append(
            '%s: hugepages cannot be reserved here: kubeReserved/systemReserved cannot hold hugepages (cannot reserve "%s" resource), '
            'so the kubelet compares this with 0 and refuses it (the total amount "%s" of type "%s" is not equal to the value "0" '
            "determined by Node Allocatable feature); reserve only memory" % (path, resource_name, quantity, resource_name)
        )
    return quantity, problems


def _check_memory_manager(
    config: Mapping[str, Any], entries: list[MemoryReservationEntry] | None, nodes: Sequence[NumaNode] | None, memory_capacity: int | None
) -> Report:
    report = Report()
    policy = string_field(config, "memoryManagerPolicy") or MEMORY_MANAGER_NONE
    if policy == MEMORY_MANAGER_WINDOWS_ONLY:
        raise KubeletConfigError([f'memoryManagerPolicy: policy "{policy}" is not available for platform "linux"'])
    if policy not in (MEMORY_MANAGER_NONE, MEMORY_MANAGER_STATIC):
        hint = ""
        if policy.lower() in (MEMORY_MANAGER_NONE.lower(), MEMORY_MANAGER_STATIC.lower()):
            hint = f'; memory manager policy names are case-sensitive: "{MEMORY_MANAGER_NONE}" or "{MEMORY_MANAGER_STATIC}"'
        raise KubeletConfigError([f'memoryManagerPolicy: unknown policy: "{policy}"{hint}{lookalike_hint(policy)}'])
    if policy != MEMORY_MANAGER_STATIC:
        if config.get("reservedMemory"):
            raise KubeletConfigError(
                [f'reservedMemory: set without memoryManagerPolicy "{MEMORY_MANAGER_STATIC}"; the kubelet ignores it under policy "{policy}"']
            )
        return report
    topology_policy = config.get("topologyManagerPolicy") or "none"
    if topology_policy not in NUMA_ALIGNING_TOPOLOGY_POLICIES:
        report.warnings.append(
            f'topologyManagerPolicy "{topology_policy}" with memoryManagerPolicy "Static": pods are admitted even when their memory cannot be kept '
            'on one NUMA node; use "single-numa-node" or "restricted"'
        )
    if entries is None:
        return report
    if nodes:
        known = {node.id for node in nodes}
        missing = sorted({entry.numa_node for entry in entries if entry.numa_node not in known})
        for numa_node in missing:
            report.errors.append("reservedMemory: the reserved memory configuration references a NUMA node %d that does not exist on this machine" % numa_node)
        shares: dict[int, int] = {}
        for entry in entries:
            memory = entry.limits[MEMORY_TYPE].as_int64() if MEMORY_TYPE in entry.limits else None
            if memory is not None:
                shares[entry.numa_node] = shares.get(entry.numa_node, 0) + memory
        report.errors.extend(f"reservedMemory: {problem}" for problem in node_fit_problems(shares, nodes))
    reservation = report.collect(memory_reservation, config, memory_capacity)
    if reservation is not None:
        report.errors.extend(_sum_problems(entries, reservation))
    return report


def _sum_problems(entries: list[MemoryReservationEntry], reservation: Reservation) -> list[str]:
    """memory_manager.go validateReservedMemory and policy_static.go NewPolicyStatic, every memory type."""
    problems = []
    totals: dict[str, Quantity] = {}
    for entry in entries:
        for resource_name, quantity in entry.limits.items():
            # Go: q.Add(total), so the newest item's format leads, as in the kubelet's message.
            totals[resource_name] = quantity + totals[resource_name] if resource_name in totals else quantity
    allocatable = {MEMORY_TYPE: reservation.total} if not reservation.total.is_zero() else {}
    for resource_name in sorted(set(totals) | set(allocatable)):
        reserved = Quantity.from_int(0, "DecimalSI") + totals.get(resource_name, Quantity.from_int(0, "DecimalSI"))
        expected = Quantity.from_int(0, "DecimalSI") + allocatable.get(resource_name, Quantity.from_int(0, "DecimalSI"))
        if reserved != expected:
            origin = reservation.describe() if resource_name == MEMORY_TYPE else "kubeReserved/systemReserved cannot hold %s" % resource_name
            problems.append(
                'reservedMemory: the total amount "%s" of type "%s" is not equal to the value "%s" determined by Node Allocatable feature (%s)'
                % (reserved, resource_name, expected, origin)
            )
    if reservation.total.is_zero() and not totals.get(MEMORY_TYPE):
        problems.append(
            "memoryManagerPolicy: [memorymanager] you should specify the system reserved memory "
            "(kubeReserved.memory + systemReserved.memory + hard-eviction memory.available is 0)"
        )
    return problems


def checked_kubelet_version(kubelet_version: str | None) -> tuple[str, list[str]]:
    """The version whose rules judge a kubelet of kubelet_version, and the warning when they are not its own.

    kubelet_version: None (the project's kubelet, 1.36) or a Kubernetes version string ("1.33", "v1.32.5+rke2r1").
    Between checked versions the older one's rules judge (refusing what that version lacks rather than passing it);
    outside them the nearest. Raises KubeletConfigError when kubelet_version is not a version.
    """
    if kubelet_version is None:
        return DEFAULT_KUBELET_VERSION, []
    version = checked_minor(kubelet_version)
    if version is None:
        raise KubeletConfigError(
            [f'kubelet_version: {kubelet_version!r} is not a kubelet version such as "1.33" (a quoted string: YAML reads 1.30 as the number 1.3)']
        )
    match = re.match(r"v?1\.(\d+)", kubelet_version)
    minor = int(match.group(1)) if match else None  # checked_minor read a version, so it matches
    if match is None or version == f"1.{minor}":
        return version, []
    warning = (
        f"kubelet_version: {kubelet_version} is checked with the rules of kubelet {version} (numa.kubelet has exact rules for "
        f"{', '.join(KUBELET_VERSIONS)}); a policy option or feature gate that differs in 1.{minor} is judged as {version} judges it"
    )
    return version, [warning]


def check_main_config_file(config: object, numa_nodes: object = None, memory_capacity: int | None = None, kubelet_version: str | None = None) -> Report:
    """check_kubelet_config on what the kubelet holds when config is its main --config file: that kubelet version's
    defaults applied (_kubelet_defaults.apply_defaults), as the kubelet validates. Fields that do not decode are judged
    as written, since the defaults need them decoded; the kubelet refuses such a file before it validates anything else.
    """
    try:
        version = checked_kubelet_version(kubelet_version)[0]
    except KubeletConfigError:
        return check_kubelet_config(config, numa_nodes, memory_capacity, kubelet_version)
    if not isinstance(config, dict) or field_type_problems(config, kubelet_version=version):
        return check_kubelet_config(config, numa_nodes, memory_capacity, kubelet_version, defaulted_by=kubelet_version)
    try:
        effective = apply_defaults(config, version)
    except KubeletConfigError as exc:
        report = check_kubelet_config(config, numa_nodes, memory_capacity, kubelet_version, defaulted_by=kubelet_version)
        report.errors = list(dict.fromkeys(exc.problems + report.errors))
        return report
    return check_kubelet_config(effective, numa_nodes, memory_capacity, kubelet_version, defaulted_by=kubelet_version)


def _fields_of_the_version(config: dict[str, Any], kubelet_version: str) -> tuple[dict[str, Any], list[str]]:
    """config without the fields kubelet_version does not know, which the kubelet drops at decoding whatever their
    value, and a warning naming each one."""
    unknown = fields_unknown_to(kubelet_version)
    warnings = [unknown_field_warning(name, kubelet_version) for name, value in config.items() if name in unknown and value is not None]
    return {name: value for name, value in config.items() if name not in unknown}, warnings


def check_kubelet_config(
    config: object, numa_nodes: object = None, memory_capacity: int | None = None, kubelet_version: str | None = None, defaulted_by: str | None = None
) -> Report:
    """Every problem that would stop the kubelet (errors) or defeat NUMA alignment (warnings) in a main config file.

    numa_nodes (ids or numa.kubelet.numa_facts nodes) enables the NUMA-id, per-node fit and CPU checks;
    memory_capacity (bytes) is needed when evictionHard memory.available is a percentage;
    kubelet_version (None: 1.36, or "1.31", "1.33", "v1.32.5+k3s1", ...) chooses the version's rules (checked_kubelet_version);
    defaulted_by: the kubelet version whose defaults config may carry (None: 1.36, what effective_kubelet_config adds
    unless given kubelet_version); they are read as kubelet_version's own (_kubelet_defaults.as_defaulted_for), so pass
    kubelet_version here when config is raw or was defaulted for it. Fields kubelet_version does not know are warned
    about and not judged, as that kubelet ignores them (_kubelet_field_table.FIELDS_UNKNOWN_TO).
    """
    report = Report()
    try:
        kubelet_version, report.warnings = checked_kubelet_version(kubelet_version)
    except KubeletConfigError as exc:
        report.errors.extend(exc.problems)
        return report
    if not isinstance(config, dict):
        report.errors.append(f"kubelet config: must be a mapping of KubeletConfiguration fields, got {type(config).__name__} {config!r}")
        return report
    config, unknown_field_warnings = _fields_of_the_version(as_defaulted_for(config, defaulted_by, kubelet_version), kubelet_version)
    report.warnings.extend(unknown_field_warnings)
    report.collect(_check_type_and_kind, config)
    report.collect(_check_unknown_fields, config)
    report.errors.extend(field_type_problems(config, kubelet_version=kubelet_version))
    for resource_field in ("kubeReserved", "systemReserved"):
        report.collect(reserved_resource_list, config, resource_field)
    # Invalid numa_nodes are reported; the checks that need them are then skipped.
    nodes = report.collect(numa_nodes_from, numa_nodes) if numa_nodes is not None else None
    report.errors.extend(feature_gate_problems(config, kubelet_version))
    report.warnings.extend(feature_gate_warnings(config, kubelet_version))
    report.errors.extend(kubelet_validation_problems(config, kubelet_version))
    report.warnings.extend(kubelet_validation_warnings(config))
    report.errors.extend(eviction_problems(config))
    report.errors.extend(qos_reserved_problems(config))
    report.errors.extend(tls_problems(config, kubelet_version))
    report.errors.extend(container_log_max_size_problems(config))
    report.errors.extend(allowed_unsafe_sysctls_problems(config))
    report.errors.extend(runtime_request_timeout_problems(config))
    report.errors.extend(logging_problems(config, kubelet_version))
    report.errors.extend(register_with_taints_problems(config))
    report.errors.extend(memory_capacity_problems(config, memory_capacity))
    entries = report.collect(_parse_reserved_memory, config)
    report.add(report.collect(_check_memory_manager, config, entries, nodes, memory_capacity))
    report.errors.extend(cpu_manager_problems(config, nodes, kubelet_version))
    report.errors.extend(topology_manager_problems(config, nodes, kubelet_version))
    report.warnings.extend(manager_option_warnings(config, kubelet_version))
    # Several checks read kubeReserved/systemReserved/evictionHard; report each problem once.
    report.errors = list(dict.fromkeys(report.errors))
    return report
