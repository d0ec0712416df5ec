# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The node-allocatable memory reservation the kubelet compares reservedMemory against.

kubernetes pkg/kubelet/cm/container_manager_linux.go GetNodeAllocatableReservation adds, per resource,
systemReserved + kubeReserved + the hard-eviction reservation (node_container_manager_linux.go
hardEvictionReservation), in that order, starting from a zero DecimalSI quantity; Quantity.Add keeps the format
of the first non-zero term, which decides how the kubelet prints the total in its error message.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ._config import (
    MEMORY_TYPE,
    KubeletConfigError,
    bool_field,
    mapping_field,
    parse_capacity,
    reserved_resource_list,
)
from ._eviction_thresholds import parse_threshold, threshold_quantity
from ._quantity import Quantity

MEMORY_AVAILABLE = "memory.available"
# pkg/kubelet/eviction/defaults_linux.go DefaultEvictionHard, memory part.
DEFAULT_MEMORY_AVAILABLE = "100Mi"


@dataclass(frozen=True)
class Term:
    """One addend of the reservation, with where it came from, for error messages people can act on."""

    source: str
    quantity: Quantity

    def describe(self) -> str:
        return f"{self.source} {self.quantity}"


@dataclass(frozen=True)
class Reservation:
    """The node-allocatable memory reservation: its terms and their exact sum."""

    terms: tuple[Term, ...]
    total: Quantity

    def describe(self) -> str:
        if not self.terms:
            return "nothing reserved (no kubeReserved, systemReserved or hard-eviction memory)"
        return " + ".join(term.describe() for term in self.terms)


def eviction_memory_term(config: Mapping[str, Any], memory_capacity: object = None, capacity_required: bool = True) -> Term | None:
    """The hard-eviction memory.available term, or None when it is zero; raises on any invalid threshold.

    - no evictionHard in the main config: the kubelet's default applies (100Mi);
    - evictionHard without memory.available: 0, unless mergeDefaultEvictionSettings brings the default back;
    - a percentage is a share of memory capacity: eviction/api/types.go GetThresholdQuantity computes
      int64(float64(capacity) * float64(share)) on the float32 share, so 5% of 8,100,671,488 bytes is
      405,033,580, not 405,033,574;
    - capacity_required=False checks the thresholds' syntax only, leaving a percentage uncomputed when no
      memory_capacity is given (for configs whose memory reservation does not matter).
    """
    merge_defaults = bool_field(config, "mergeDefaultEvictionSettings")
    if config.get("evictionHard") is None:
        thresholds, source = {MEMORY_AVAILABLE: DEFAULT_MEMORY_AVAILABLE}, "evictionHard memory.available (kubelet default)"
    else:
        thresholds = mapping_field(config, "evictionHard")
        source = "evictionHard memory.available"
        if MEMORY_AVAILABLE not in thresholds and merge_defaults:
            thresholds = dict(thresholds, **{MEMORY_AVAILABLE: DEFAULT_MEMORY_AVAILABLE})
            source = "evictionHard memory.available (kubelet default, mergeDefaultEvictionSettings)"
    problems: list[str] = []
    parsed = {}
    for signal, value in thresholds.items():
        try:
            parsed[signal] = parse_threshold(signal, value)
        except KubeletConfigError as exc:
            problems.extend(exc.problems)
    if problems:
        raise KubeletConfigError(problems)
    memory = parsed.get(MEMORY_AVAILABLE)
    if memory is None:
        return None
    _kind, amount = memory
    if isinstance(amount, Quantity):
        return Term(source, amount)
    capacity = parse_capacity(memory_capacity)
    if capacity is None and not capacity_required:
        return None
    if capacity is None:
        raise KubeletConfigError(
            [
                "evictionHard.%s: %r is a share of the node's memory capacity, so memory_capacity (MemTotal of /proc/meminfo x 1024, "
                "numa_memory_capacity_bytes from numa.kubelet.numa_facts) is required to compute it" % (MEMORY_AVAILABLE, thresholds[MEMORY_AVAILABLE])
            ]
        )
    value = thresholds[MEMORY_AVAILABLE]
    return Term("%s %s of %d bytes" % (source, value, capacity), threshold_quantity(amount, capacity))


def memory_reservation(config: Mapping[str, Any], memory_capacity: object = None) -> Reservation:
    """The node-allocatable reservation of type "memory": systemReserved + kubeReserved + hard eviction."""
    problems: list[str] = []
    terms: list[Term] = []
    for field in ("systemReserved", "kubeReserved"):
        try:
            quantity = reserved_resource_list(config, field).get(MEMORY_TYPE)
        except KubeletConfigError as exc:
            problems.extend(exc.problems)
            continue
        if quantity is not None and not quantity.is_zero():
            terms.append(Term(f"{field}.memory", quantity))
    try:
        eviction = eviction_memory_term(config, memory_capacity)
    except KubeletConfigError as exc:
        problems.extend(exc.problems)
    else:
        if eviction is not None and not eviction.quantity.is_zero():
            terms.append(eviction)
    if problems:
        raise KubeletConfigError(problems)
    total = Quantity.from_int(0, "DecimalSI")
    for term in terms:
        total = total + term.quantity
    return Reservation(tuple(terms), total)


def memory_capacity_problems(config: Mapping[str, Any], memory_capacity: object = None) -> list[str]:
    """The container manager's validateNodeAllocatable for memory (pkg/kubelet/cm/node_container_manager_linux.go):
    systemReserved + kubeReserved + hard eviction may not exceed the node's memory capacity (MemTotal x 1024).

    Checked only when memory_capacity is given; a reservation that does not parse is reported elsewhere.
    """
    try:
        capacity = parse_capacity(memory_capacity)
        if capacity is None:
            return []
        reservation = memory_reservation(config, memory_capacity)
    except KubeletConfigError:
        return []
    capacity_quantity = Quantity.from_int(capacity, "BinarySI")
    if capacity_quantity >= reservation.total:
        return []
    return [
        (
            "systemReserved.memory + kubeReserved.memory + evictionHard.memory.available: invalid Node Allocatable configuration. "
            f'Resource "memory" has a reservation of {reservation.total.go_struct()} but capacity of {capacity_quantity.go_struct()}. '
            f"Expected capacity >= reservation. ({reservation.describe()} = {reservation.total}; this node has {capacity} bytes)"
        )
    ]
