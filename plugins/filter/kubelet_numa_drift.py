# -*- coding: utf-8 -*-
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
name: kubelet_numa_drift
short_description: How a node differs from a fresh plan - the files numa.kubelet writes and the memory manager checkpoint
version_added: 0.3.0
description:
  - For every file of the plan, compares what is on the node (the plan's C(previous)) with what the plan writes, field
    by field for YAML files (comments and the C(ansible_managed) header are not compared) and as text for flag files.
  - Then compares the live C(memory_manager_state) with the plan's C(expected_state) (policy and per-NUMA
    C(systemReserved) bytes), as M(numa.kubelet.kubelet_numa_state_problems) does.
  - Used by the C(numa.kubelet.verify) and C(numa.kubelet.rollout) playbooks.
author:
  - numa.kubelet developers
options:
  _input:
    description: A M(numa.kubelet.kubelet_numa_plan) result planned on the node's current files.
    type: dict
    required: true
  state_text:
    description: The text of the node's C(memory_manager_state), or C(none) when it is missing.
    type: raw
    required: true
"""

EXAMPLES = r"""
- name: Fail on drift
  ansible.builtin.assert:
    that: __drift | length == 0
    fail_msg: "{{ __drift }}"
  vars:
    __drift: "{{ kubelet_numa_plan | numa.kubelet.kubelet_numa_drift(kubelet_numa_discovered.files['/var/lib/kubelet/memory_manager_state']) }}"
"""

RETURN = r"""
_value:
  description: One sentence per difference, naming the file and field (or the checkpoint); empty when nothing drifted.
  type: list
  elements: str
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.numa.kubelet.plugins.plugin_utils._rollout import drift, intent_conflicts, serial_problems


def kubelet_numa_drift(plan, state_text):
    """Differences between the node and the plan."""
    if not isinstance(plan, dict) or "expected_state" not in plan:
        raise AnsibleFilterError("kubelet_numa_drift: the input must be a kubelet_numa_plan result, got %r (%s)"
                                 % (plan, type(plan).__name__))
    return drift(plan, state_text)


def kubelet_numa_rollout_problems(serial, inventory=None, hosts=None):
    """What numa.kubelet.rollout refuses before the first drain, beyond the per-host plans."""
    return serial_problems(serial) + intent_conflicts(inventory or {}, hosts or [])


class FilterModule:
    """Fleet rollout and verification."""

    def filters(self):
        return {"kubelet_numa_drift": kubelet_numa_drift, "kubelet_numa_rollout_problems": kubelet_numa_rollout_problems}
