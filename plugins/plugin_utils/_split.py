# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Spreading the node-allocatable memory reservation over NUMA nodes as a reservedMemory list.

The kubelet only checks the sum (memory_manager.go validateReservedMemory); how it is spread is free. Every
strategy here returns shares of whole bytes that sum exactly to the reservation and that the kubelet can convert
to int64 (memory_manager.go convertReserved rejects what Quantity.AsInt64 cannot convert).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ._allocatable import Reservation, memory_reservation
from ._config import MEMORY_TYPE, KubeletConfigError, parse_quantity
from ._quantity import Quantity, canonical_bytes

SPLIT_STRATEGIES = ("even", "first", "proportional")
# Coarsest first: a share is counted in the coarsest of these that divides the total exactly.
_BINARY_UNITS = (1 << 30, 1 << 20, 1 << 10, 1)
_INT64_MAX = (1 << 63) - 1  # math.go mostPositive
_INT32_MAX = (1 << 31) - 1
# The keys of a NUMA node as numa.kubelet.numa_facts reports it (plugins/module_utils/_numa_topology.py).
NUMA_NODE_KEYS = ("id", "memory_bytes", "cpus", "hugepages")


@dataclass(frozen=True)
class NumaNode:
    """A NUMA node as the engine needs it: its id and, when known, its memory (node MemTotal in bytes) and CPU ids."""

    id: int
    memory_bytes: int | None = None
    cpus: tuple[int, ...] | None = None


def numa_nodes_from(value: object) -> list[NumaNode]:
    """Accept a list of ids or the node list of numa.kubelet.numa_facts; return NumaNodes sorted by id."""
    if isinstance(value, (str, bytes, dict)) or not isinstance(value, Iterable):
        raise KubeletConfigError([f"numa_nodes: {value!r} must be a list of NUMA node ids or the numa_nodes list from numa.kubelet.numa_facts"])
    nodes = []
    for index, item in enumerate(value):
        memory = cpus = None
        if isinstance(item, dict):
            unknown = sorted(str(key) for key in item if key not in NUMA_NODE_KEYS)
            if unknown:
                guesses = [
                    f"{key} (did you mean {difflib.get_close_matches(key, NUMA_NODE_KEYS, 1, 0.6)[0]}?)"
                    if difflib.get_close_matches(key, NUMA_NODE_KEYS, 1, 0.6)
                    else key
                    for key in unknown
                ]
                raise KubeletConfigError(
                    [
                        "numa_nodes[%d]: unknown keys %s; a NUMA node has only %s (as numa.kubelet.numa_facts reports it)"
                        % (index, ", ".join(guesses), ", ".join(NUMA_NODE_KEYS))
                    ]
                )
            node_id, memory = item.get("id"), item.get("memory_bytes")
            # 0 is a memoryless NUMA node (CPUs only): numa_facts reports it so, and no share may land on it.
            if memory is not None and (isinstance(memory, bool) or not isinstance(memory, int) or memory < 0):
                raise KubeletConfigError(["numa_nodes[%d].memory_bytes: %r must be a non-negative integer number of bytes" % (index, memory)])
            cpus = item.get("cpus")
            if cpus is not None and (not isinstance(cpus, list) or any(isinstance(cpu, bool) or not isinstance(cpu, int) or cpu < 0 for cpu in cpus)):
                raise KubeletConfigError(
                    [
                        "numa_nodes[%d].cpus: %r must be a list of CPU ids (non-negative integers, e.g. [0, 1, 2]; "
                        'not a cpulist string such as "0-63")' % (index, cpus)
                    ]
                )
        else:
            node_id = item
        if isinstance(node_id, bool) or not isinstance(node_id, int) or not 0 <= node_id <= _INT32_MAX:
            raise KubeletConfigError(
                [
                    "numa_nodes[%d]: NUMA node id %r must be a non-negative integer no larger than %d "
                    "(the kubelet's reservedMemory numaNode is an int32)" % (index, node_id, _INT32_MAX)
                ]
            )
        nodes.append(NumaNode(node_id, memory, None if cpus is None else tuple(cpus)))
    if not nodes:
        raise KubeletConfigError(["numa_nodes: the list is empty; the node needs at least NUMA node 0"])
    ids = [node.id for node in nodes]
    duplicates = sorted({node_id for node_id in ids if ids.count(node_id) > 1})
    if duplicates:
        raise KubeletConfigError([f"numa_nodes: NUMA node ids {duplicates} appear more than once"])
    return sorted(nodes, key=lambda node: node.id)


def share_text(share_bytes: int) -> str:
    """The written form of a share: canonical binary-SI when the kubelet can convert it to int64, else plain bytes."""
    text = canonical_bytes(share_bytes)
    if Quantity.parse(text).as_int64() is None:
        # Large binary-suffixed values leave the parser's int64 fast path and AsInt64 then refuses them.
        text = str(share_bytes)
    return text


def _whole_bytes(total: Quantity, reservation: Reservation) -> int:
    """The total as an int number of bytes, or a named refusal when no reservedMemory list can sum to it.

    Only the total's value matters: Kubernetes may hold it as an inf.Dec (1.5Gi + 0.5Gi + 100Mi), which AsInt64
    refuses, yet the kubelet compares the sum by value and converts only each limit as written (convertReserved);
    the shares are written by share_text in a form it converts.
    """
    if total.exact > _INT64_MAX:
        raise KubeletConfigError(
            [
                "the memory reservation %s = %s exceeds the int64 maximum (%d bytes), so no reservedMemory can match it "
                "(the kubelet converts every reservedMemory limit to an int64 number of bytes; Kubernetes clamps a larger "
                "binary quantity such as 9Ei to that maximum)" % (reservation.describe(), total, _INT64_MAX)
            ]
        )
    value = total.value()
    if total.exact != value:
        raise KubeletConfigError(
            [
                (
                    f"the memory reservation {reservation.describe()} = {total} is not a whole number of bytes, so no reservedMemory can match it exactly "
                    "(the kubelet converts every reservedMemory limit to an int64 number of bytes)"
                )
            ]
        )
    return value


def _even(total_bytes: int, nodes: Sequence[NumaNode]) -> dict[int, int]:
    # The coarsest unit that gives every node exactly the same share; failing that, bytes with the remainder on the lowest ids.
    unit = next((unit for unit in _BINARY_UNITS if total_bytes % (unit * len(nodes)) == 0), 1)
    base, remainder = divmod(total_bytes // unit, len(nodes))
    return {node.id: (base + (1 if index < remainder else 0)) * unit for index, node in enumerate(nodes)}


def _proportional(total_bytes: int, nodes: Sequence[NumaNode]) -> dict[int, int]:
    memory = {node.id: node.memory_bytes for node in nodes if node.memory_bytes is not None}
    unknown = [node.id for node in nodes if node.id not in memory]
    if unknown:
        raise KubeletConfigError(
            [
                (
                    f"split 'proportional' needs each node's memory: NUMA nodes {unknown} have no memory_bytes (pass the numa_nodes list "
                    "from numa.kubelet.numa_facts, not bare ids)"
                )
            ]
        )
    node_memory = sum(memory.values())
    # The coarsest unit in which every exact share is whole; failing that, bytes with the largest remainders rounded up.
    unit = next((unit for unit in _BINARY_UNITS if all(total_bytes * node_bytes % (node_memory * unit) == 0 for node_bytes in memory.values())), 1)
    units = total_bytes // unit
    floors = {node_id: units * node_bytes // node_memory for node_id, node_bytes in memory.items()}
    # Largest remainder first; on a tie the lower id gets the extra unit.
    by_remainder = sorted(memory, key=lambda node_id: (-(units * memory[node_id] % node_memory), node_id))
    for node_id in by_remainder[: units - sum(floors.values())]:
        floors[node_id] += 1
    return {node_id: count * unit for node_id, count in floors.items()}


def _explicit(split: dict[Any, Any], total: Quantity, reservation: Reservation, nodes: Sequence[NumaNode]) -> list[dict[str, Any]]:
    shares: dict[int, Quantity] = {}
    problems: list[str] = []
    for key, value in split.items():
        node_id = _split_key(key)
        if node_id is None:
            problems.append('split: key %r must be a NUMA node id (a non-negative integer such as 0 or "1")' % (key,))
            continue
        if node_id in shares:
            problems.append("split: key %r must be a distinct non-negative NUMA node id" % (key,))
            continue
        try:
            share = parse_quantity(value, "split[%s]" % key)
        except KubeletConfigError as exc:
            problems.extend(exc.problems)
            continue
        if share.sign() < 0:
            problems.append("split[%s]: %s is negative; a NUMA node cannot give memory back" % (key, value))
        elif not share.is_zero() and share.as_int64() is None:
            problems.append(
                "split[%s]: %s: could not covert a variable of type Quantity to int64 (the kubelet's words: "
                "write the share as whole bytes or in a unit that keeps it an integer, e.g. Mi)" % (key, value)
            )
        shares[node_id] = share
    if problems:
        raise KubeletConfigError(problems)
    known = {node.id for node in nodes}
    missing = sorted(set(shares) - known)
    if missing:
        problems.append("split: NUMA nodes %s do not exist on this machine (it has %s)" % (missing, sorted(known)))
    written = Quantity.from_int(0, "DecimalSI")
    for node_id in sorted(shares):
        written = written + shares[node_id]
    if written != total:
        problems.append(
            "split: the explicit shares %s sum to %s, but the reservation is %s = %s; the kubelet refuses any other total"
            % ({node_id: str(shares[node_id]) for node_id in sorted(shares)}, written, reservation.describe(), total)
        )
    problems.extend(node_fit_problems({node_id: share.as_int64() for node_id, share in shares.items()}, nodes))
    if problems:
        raise KubeletConfigError(problems)
    return [{"numaNode": node_id, "limits": {MEMORY_TYPE: str(split[_key_for(split, node_id)])}} for node_id in sorted(shares) if not shares[node_id].is_zero()]


def _split_key(key: object) -> int | None:
    """The NUMA node id a split key names: an integer, or a string of digits; None otherwise (1.5, "1.5", " 1", "1_0", true)."""
    if isinstance(key, bool):
        return None
    if isinstance(key, int):
        return key if 0 <= key <= _INT32_MAX else None
    if isinstance(key, str) and re.fullmatch(r"[0-9]+", key) and int(key) <= _INT32_MAX:
        return int(key)
    return None


def _key_for(split: Mapping[object, object], node_id: int) -> object:
    return next(key for key in split if _split_key(key) == node_id)


def node_fit_problems(shares: Mapping[int, int | None], nodes: Sequence[NumaNode]) -> list[str]:
    """A share larger than its node's memory: the kubelet does not check it (it subtracts on uint64), we do."""
    memory = {node.id: node.memory_bytes for node in nodes if node.memory_bytes is not None}
    return [
        "reservedMemory for NUMA node %d is %s but that node has only %s of memory (node MemTotal)"
        % (node_id, canonical_bytes(share), canonical_bytes(memory[node_id]))
        for node_id, share in sorted(shares.items())
        if node_id in memory and share is not None and share > memory[node_id]
    ]


def reserved_memory(config: object, numa_nodes: object, split: object = "even", memory_capacity: object = None) -> list[dict[str, Any]]:
    """The reservedMemory list for a kubelet config: the node-allocatable memory reservation spread over the nodes.

    split: "even" (equal shares in the coarsest binary unit that allows it; when even bytes cannot be equal, shares
    differ by one byte, the extra bytes on the lowest ids), "first" (all on the lowest id), "proportional" (by each node's memory, largest
    remainders first) or an explicit {numa_id: quantity} mapping whose sum must equal the reservation exactly.
    Nodes whose share is zero are left out: the kubelet refuses a zero limit.
    """
    if not isinstance(config, dict):
        raise KubeletConfigError([f"kubelet config: must be a mapping of KubeletConfiguration fields, got {type(config).__name__}"])
    nodes = numa_nodes_from(numa_nodes)
    return split_reservation(memory_reservation(config, memory_capacity), nodes, split)


def split_reservation(reservation: Reservation, nodes: Sequence[NumaNode], split: object = "even") -> list[dict[str, Any]]:
    """reserved_memory's spreading of a computed reservation over NumaNodes sorted by id (numa_nodes_from).

    The boot-time program (_boot_split) calls this very function on the node, so a node decides what the engine decides.
    """
    total = reservation.total
    if isinstance(split, dict):
        return _explicit(split, total, reservation, nodes)
    if split not in SPLIT_STRATEGIES:
        raise KubeletConfigError(["split: %r is not a strategy: use one of %s or a mapping {numa_id: quantity}" % (split, ", ".join(SPLIT_STRATEGIES))])
    if total.is_zero():
        raise KubeletConfigError(
            [
                (
                    "nothing to reserve: kubeReserved.memory + systemReserved.memory + hard-eviction memory.available is 0, "
                    "and the Static memory manager refuses that ([memorymanager] you should specify the system reserved memory)"
                )
            ]
        )
    total_bytes = _whole_bytes(total, reservation)
    if split == "first":
        shares = {nodes[0].id: total_bytes}
    elif split == "even":
        shares = _even(total_bytes, nodes)
    else:
        shares = _proportional(total_bytes, nodes)
    problems = node_fit_problems(shares, nodes)
    if problems:
        raise KubeletConfigError(problems)
    return [{"numaNode": node_id, "limits": {MEMORY_TYPE: share_text(share)}} for node_id, share in sorted(shares.items()) if share]
