# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the kubelet's memory_manager_state must say after a good start, checked against the plan's expected_state.

Here, in module_utils, because the check runs in two places: on the node, inside the restart transaction
(numa.kubelet.restart_kubelet), and on the controller (the engine, numa.kubelet.verify, the rollout).
"""

from __future__ import annotations

import json

MEMORY_MANAGER_STATIC = "Static"


def checkpoint_complete(state_text):
    """Whether the kubelet has finished writing memory_manager_state at its start.

    The memory manager first stores its policy with an empty machine state, then the machine state its Static policy
    computes (NewCheckpointState, then the policy's Start, in
    https://github.com/kubernetes/kubernetes/blob/v1.36.2/pkg/kubelet/cm/memorymanager/memory_manager.go); the None
    policy keeps it empty.
    """
    try:
        state = json.loads(state_text) if state_text is not None else None
    except ValueError:
        return False
    if not isinstance(state, dict):
        return False
    return state.get("policyName") != MEMORY_MANAGER_STATIC or bool(state.get("machineState"))


def checkpoint_problems(state_text, expected):
    """How a memory_manager_state checkpoint's text differs from the plan's expected_state; [] when it matches."""
    if state_text is None:
        return ["there is no memory_manager_state: the kubelet has not started its memory manager"]
    try:
        state = json.loads(state_text)
    except ValueError as exc:
        return ["memory_manager_state is not JSON: %s" % exc]
    if not isinstance(state, dict) or not isinstance(state.get("machineState") or {}, dict):
        return ["memory_manager_state is not a memory manager checkpoint (a JSON object with policyName and machineState)"]
    problems = []
    if state.get("policyName") != expected["policyName"]:
        problems.append("memory_manager_state has policy %r, the plan %r" % (state.get("policyName"), expected["policyName"]))
    elif expected["policyName"] == MEMORY_MANAGER_STATIC:
        live = {}
        for node, machine in (state.get("machineState") or {}).items():
            memory_map = machine.get("memoryMap") if isinstance(machine, dict) else None
            memory = memory_map.get("memory") if isinstance(memory_map, dict) else None
            reserved = memory.get("systemReserved") if isinstance(memory, dict) else None
            if isinstance(reserved, int) and not isinstance(reserved, bool) and reserved:
                live[str(node)] = reserved
        if live != expected["systemReserved"]:
            problems.append("memory_manager_state reserves %s bytes per NUMA node, the plan %s" % (live, expected["systemReserved"]))
    return problems
