# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright: numa.kubelet contributors; GNU General Public License v3.0+ (see LICENSE or
# https://www.gnu.org/licenses/gpl-3.0.txt)
"""Kubelet STAND-IN: the memory_manager_state and cpu_manager_state checkpoints."""

import json
import os

from .common import StartError, go_quote, host_path
from .machine import format_cpulist


def fnv32a(data):
    """FNV-1a 32-bit hash (the stand-in's checksum; not byte-compatible with the kubelet's)."""
    value = 0x811C9DC5
    for byte in data:
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return value


def write_checkpoint(path, payload):
    """Write a checkpoint JSON file atomically, with a checksum field like the kubelet's."""
    payload = dict(payload)
    payload["checksum"] = fnv32a(json.dumps(payload, sort_keys=True).encode())
    real = host_path(path)
    os.makedirs(os.path.dirname(real), exist_ok=True)
    with open(real + ".tmp", "w", encoding="utf-8") as handle:
        json.dump(payload, handle, separators=(",", ":"))
    os.replace(real + ".tmp", real)


def read_checkpoint(path):
    """Return a checkpoint's JSON, or None when there is none."""
    try:
        with open(host_path(path), encoding="utf-8") as handle:
            return json.load(handle)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as err:
        raise StartError(f"could not restore state from checkpoint: checkpoint {path} is corrupted: {err}") from None


def expected_machine_state(machine, per_node):
    """The static policy's default machine state (memory and hugepage tables per NUMA node)."""
    state = {}
    for node_id in sorted(machine["nodes"]):
        node = machine["nodes"][node_id]
        reserved = per_node.get(node_id, {})
        memory_map = {}
        for name, total in sorted(node["hugepages"].items()):
            allocatable = (total - reserved.get(name, 0)) % 2**64
            memory_map[name] = {"total": total, "systemReserved": reserved.get(name, 0), "allocatable": allocatable, "reserved": 0, "free": allocatable}
        allocatable = (node["memory"] - reserved.get("memory", 0) - sum(node["hugepages"].values())) % 2**64
        memory_map["memory"] = {
            "total": node["memory"],
            "systemReserved": reserved.get("memory", 0),
            "allocatable": allocatable,
            "reserved": 0,
            "free": allocatable,
        }
        state[str(node_id)] = {"numberOfAssignments": 0, "memoryMap": memory_map, "cells": [node_id]}
    return state


def start_cpu_manager(root_dir, policy, machine):
    """cpuManager.Start: restore (or create) cpu_manager_state."""
    path = os.path.join(root_dir, "cpu_manager_state")
    online = format_cpulist(machine["online_cpus"])
    default_set = online if policy == "static" else ""
    checkpoint = read_checkpoint(path)
    if checkpoint is not None:
        if checkpoint.get("policyName") != policy:
            raise StartError(
                "start cpu manager error: could not restore state from checkpoint: configured policy "
                "%s differs from state checkpoint policy %s, please drain this node and delete the "
                "CPU manager checkpoint file %s before restarting Kubelet" % (go_quote(policy), go_quote(checkpoint.get("policyName")), go_quote(path))
            )
        stored = checkpoint.get("defaultCpuSet") or ""
        if policy == "static" and stored and stored != online:
            raise StartError(
                "start cpu manager error: [cpumanager] current set of available CPUs %s doesn't match "
                "with CPUs in state %s" % (go_quote(online), go_quote(stored))
            )
    write_checkpoint(path, {"policyName": policy, "defaultCpuSet": default_set})


def start_memory_manager(root_dir, policy, machine, per_node):
    """memoryManager.Start: restore (or create) memory_manager_state and compare the machine state."""
    path = os.path.join(root_dir, "memory_manager_state")
    checkpoint = read_checkpoint(path)
    expected = expected_machine_state(machine, per_node) if policy == "Static" else {}
    if checkpoint is not None:
        if checkpoint.get("policyName") != policy:
            raise StartError(
                "start memory manager error: could not restore state from checkpoint: [memorymanager] "
                "configured policy %s differs from state checkpoint policy %s, please drain this node "
                "and delete the memory manager checkpoint file %s before restarting Kubelet"
                % (go_quote(policy), go_quote(checkpoint.get("policyName")), go_quote(path))
            )
        stored = checkpoint.get("machineState") or {}
        if policy == "Static" and stored and stored != expected:
            raise StartError("start memory manager error: [memorymanager] the expected machine state is different from the real one")
    write_checkpoint(path, {"policyName": policy, "machineState": expected})
