# -*- coding: utf-8 -*-
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the kubelet's memory_manager_state must say after a good start, checked against the plan's expected_state.

Here, in module_utils, because the check runs in two places: on the node, inside the restart transaction
(numa.kubelet.restart_kubelet), and on the controller (the engine, numa.kubelet.verify, the rollout).
"""

from __future__ import annotations

import json

MEMORY_MANAGER_STATIC = "Static"


def state_problems(state_text, expected):
    """How a memory_manager_state checkpoint differs from the plan's expected_state; [] when it matches."""
    if state_text is None:
        return ["there is no memory_manager_state: the kubelet has not started its memory manager"]
    try:
        state = json.loads(state_text)
    except ValueError as exc:
        return ["memory_manager_state is not JSON: %s" % exc]
    problems = []
    if state.get("policyName") != expected["policyName"]:
        problems.append("memory_manager_state has policy %r, the plan %r" % (state.get("policyName"), expected["policyName"]))
    elif expected["policyName"] == MEMORY_MANAGER_STATIC:
        live = {}
        for node, machine in (state.get("machineState") or {}).items():
            reserved = ((machine.get("memoryMap") or {}).get("memory") or {}).get("systemReserved") or 0
            if reserved:
                live[str(node)] = int(reserved)
        if live != expected["systemReserved"]:
            problems.append("memory_manager_state reserves %s bytes per NUMA node, the plan %s" % (live, expected["systemReserved"]))
    return problems
