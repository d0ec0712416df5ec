# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright: numa.kubelet contributors; GNU General Public License v3.0+ (see LICENSE or
# https://www.gnu.org/licenses/gpl-3.0.txt)
"""Kubelet STAND-IN: the start-up checks of the Memory, CPU and Topology Managers and of healthz."""

import json

from .common import StartError, go_quote
from .quantity import Quantity, float32

RESERVABLE = ("cpu", "memory", "ephemeral-storage", "pid")
EVICTION_SIGNALS = {
    "memory.available",
    "allocatableMemory.available",
    "nodefs.available",
    "nodefs.inodesFree",
    "imagefs.available",
    "imagefs.inodesFree",
    "containerfs.available",
    "containerfs.inodesFree",
    "pid.available",
}


def parse_reservation(config, key, flag):
    """Parse kubeReserved / systemReserved like the kubelet's parseResourceList."""
    result = {}
    for name, value in sorted((config.get(key) or {}).items()):
        if name not in RESERVABLE:
            raise StartError(f"--{flag} value failed to parse: cannot reserve {go_quote(name)} resource")
        try:
            quantity = Quantity.parse(value)
        except ValueError as err:
            raise StartError(f"--{flag} value failed to parse: {err}") from None
        if quantity.value < 0:
            raise StartError(f"--{flag} value failed to parse: resource quantity for {go_quote(name)} cannot be negative: {quantity}")
        result[name] = quantity
    return result


def eviction_memory(config, capacity):
    """Return the evictionHard memory.available reservation as a Quantity (the kubelet's arithmetic)."""
    thresholds = config.get("evictionHard") or {}
    for signal_name in thresholds:
        if signal_name not in EVICTION_SIGNALS:
            raise StartError(f"failed to parse eviction thresholds: unsupported eviction signal {signal_name}")
    value = thresholds.get("memory.available")
    if value is None:
        return Quantity(0)
    value = str(value).strip()
    if value.endswith("%"):
        try:
            percentage = float32(float(value[:-1]))
        except ValueError:
            raise StartError(f"failed to parse eviction thresholds: invalid percentage {value}") from None
        if percentage < 0:
            raise StartError(f"eviction percentage threshold memory.available must be >= 0%: {value}")
        if percentage > 100:
            raise StartError(f"eviction percentage threshold memory.available must be <= 100%: {value}")
        if percentage in (0, 100):
            return Quantity(0)
        share = float32(percentage / 100)
        return Quantity(int(float(capacity) * share), "BinarySI")
    try:
        quantity = Quantity.parse(value)
    except ValueError as err:
        raise StartError(f"failed to parse eviction thresholds: {err}") from None
    if quantity.value < 0:
        raise StartError(f"eviction threshold memory.available must be positive: {quantity}")
    return quantity


def validate_reserved_memory(reserved):
    """validation_reserved_memory.go: limit types, zero values, duplicates; all errors joined."""
    errors = []
    seen = {}
    for entry in reserved:
        node = entry["numaNode"]
        seen.setdefault(node, set())
        for name in sorted(entry["limits"]):
            quantity = entry["limits"][name]
            if name != "memory" and not name.startswith("hugepages-"):
                errors.append(
                    "invalid configuration: the limit type %s for NUMA node %d is not supported, only "
                    "[memory hugepages-<HugePageSize>] is accepted" % (go_quote(name), node)
                )
            if quantity.value == 0:
                errors.append("invalid configuration: reserved memory may not be zero for NUMA node %d and resource %s" % (node, go_quote(name)))
            if name in seen[node]:
                errors.append("invalid configuration: the reserved memory has a duplicate value for NUMA node %d and resource %s" % (node, go_quote(name)))
            seen[node].add(name)
    if errors:
        joined = errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"
        raise StartError(f"failed to validate kubelet configuration, error: {joined}")


def parse_reserved_memory_config(config):
    """Turn the config's reservedMemory list into entries with parsed Quantities."""
    reserved = []
    for index, entry in enumerate(config.get("reservedMemory") or []):
        if not isinstance(entry, dict) or not isinstance(entry.get("numaNode"), int) or isinstance(entry.get("numaNode"), bool):
            raise StartError("failed to load kubelet config: reservedMemory[%d] needs an integer numaNode, got %s" % (index, json.dumps(entry)))
        limits = {}
        for name, value in (entry.get("limits") or {}).items():
            try:
                limits[name] = Quantity.parse(value)
            except ValueError as err:
                raise StartError("failed to load kubelet config: reservedMemory[%d].limits[%s]: %s" % (index, go_quote(name), err)) from None
        reserved.append({"numaNode": entry["numaNode"], "limits": limits})
    return reserved


def memory_manager(config, machine):  # noqa: C901 - memorymanager.NewManager's checks, in the kubelet's order
    """memorymanager.NewManager: return {node: {type: bytes}} for Static, None for policy None."""
    policy = config.get("memoryManagerPolicy")
    reserved = parse_reserved_memory_config(config)
    validate_reserved_memory(reserved)
    kube = parse_reservation(config, "kubeReserved", "kube-reserved")
    system = parse_reservation(config, "systemReserved", "system-reserved")
    eviction = eviction_memory(config, machine["capacity"])
    if policy == "None":
        return None, kube, system
    if policy != "Static":
        raise StartError(f"unknown policy: {go_quote(policy)}")
    # Node allocatable reservation: kube + system + hard eviction, per resource, zero values dropped.
    allocatable = {}
    for name in sorted(set(kube) | set(system) | {"memory"}):
        total = Quantity(0)
        if name in kube:
            total = total.add(kube[name])
        if name in system:
            total = total.add(system[name])
        if name == "memory":
            total = total.add(eviction)
        if total.value != 0:
            allocatable[name] = total
    totals = {}
    for entry in reserved:
        if entry["numaNode"] not in machine["nodes"]:
            raise StartError("the reserved memory configuration references a NUMA node %d that does not exist on this machine" % entry["numaNode"])
        for name, quantity in entry["limits"].items():
            totals[name] = quantity.add(totals[name]) if name in totals else quantity
    types = set(totals) | {n for n in allocatable if n == "memory" or n.startswith("hugepages-")}
    for name in sorted(types):
        expected = Quantity(0).add(allocatable[name]) if name in allocatable else Quantity(0)
        actual = Quantity(0).add(totals[name]) if name in totals else Quantity(0)
        if expected.value != actual.value:
            raise StartError(
                f"the total amount {go_quote(actual)} of type {go_quote(name)} is not equal to the value {go_quote(expected)} determined by Node "
                "Allocatable feature"
            )
    per_node = {node: {} for node in machine["nodes"]}
    for entry in reserved:
        for name, quantity in entry["limits"].items():
            if not quantity.int64_ok:
                raise StartError("could not covert a variable of type Quantity to int64")
            per_node[entry["numaNode"]][name] = int(quantity.value)
    if sum(v.get("memory", 0) for v in per_node.values()) <= 0:
        raise StartError("[memorymanager] you should specify the system reserved memory")
    return per_node, kube, system


def cpu_manager(config, kube, system):
    """cpumanager.NewManager: policy names and the static policy's reserved CPUs."""
    policy = config.get("cpuManagerPolicy")
    if policy not in ("none", "static"):
        raise StartError(f"unknown policy: {go_quote(policy)}")
    if policy == "static" and not config.get("reservedSystemCPUs"):
        total = Quantity(0)
        for reservation in (kube, system):
            if "cpu" in reservation:
                total = total.add(reservation["cpu"])
        if total.value == 0:
            raise StartError("[cpumanager] unable to determine reserved CPU resources for static policy")
    return policy


def validate_healthz(config):
    """healthzPort must be a port number or 0 (disabled), as the kubelet's config validation says."""
    port = config.get("healthzPort")
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise StartError(
            "failed to validate kubelet configuration, error: invalid configuration: healthzPort "
            f"(--healthz-port) {port} must be between 1 and 65535, inclusive"
        )


def validate_topology(config):
    """Topology manager policy and scope names (the kubelet's config validation)."""
    policy = config.get("topologyManagerPolicy")
    if policy not in ("none", "best-effort", "restricted", "single-numa-node"):
        raise StartError(
            "failed to validate kubelet configuration, error: invalid configuration: "
            f"topologyManagerPolicy (--topology-manager-policy) {go_quote(policy)} must be one of: "
            '["best-effort" "none" "restricted" "single-numa-node"]'
        )
    scope = config.get("topologyManagerScope")
    if scope not in ("container", "pod"):
        raise StartError(
            "failed to validate kubelet configuration, error: invalid configuration: "
            f"topologyManagerScope (--topology-manager-scope) {go_quote(scope)} must be one of: "
            '"container", or "pod"'
        )


# ----------------------------------------------------------------------------------------------- checkpoints
