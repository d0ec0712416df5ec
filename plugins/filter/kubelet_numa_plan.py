# -*- coding: utf-8 -*-
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
name: kubelet_numa_plan
short_description: Plan a node's kubelet NUMA configuration - files, reservedMemory and the restart it needs
version_added: 0.2.0
description:
  - The planning core of the M(numa.kubelet.kubelet_numa) role and of the C(numa.kubelet.render) playbook.
  - Builds the kubelet's effective config on the node (what it already has, with this collection's file in place),
    computes C(reservedMemory) on it, validates it with the kubelet's rules and decides whether the kubelet needs a
    checkpoint reset (memory or CPU manager inputs changed, or the live checkpoint disagrees), a plain restart, or
    nothing.
  - Fails with every problem at once (C(AnsibleFilterError)); nothing is planned for a host with any problem.
author:
  - numa.kubelet developers
options:
  _input:
    description: The C(kubelet_numa_*) variables of the host (see the role's argument specification).
    type: dict
    required: true
  facts:
    description:
      - What was found on the host - C(numa_nodes) and C(numa_memory_capacity_bytes) (unless C(kubelet_numa_topology) is
        set), C(files) (absolute path to text, C(null) when missing), C(platform), C(rke2_version), C(rke2_role),
        C(instance_type), C(rke2_kubelet_arg).
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Plan an offline kubeadm node with two NUMA nodes
  ansible.builtin.set_fact:
    kubelet_numa_plan: "{{ variables | numa.kubelet.kubelet_numa_plan(facts) }}"
  vars:
    variables:
      kubelet_numa_platform: kubeadm
      kubelet_numa_config: {memoryManagerPolicy: Static, kubeReserved: {memory: 1Gi}}
      kubelet_numa_topology:
        numa_nodes: [{id: 0, memory_bytes: 68719476736, cpus: [0, 1]}, {id: 1, memory_bytes: 68719476736, cpus: [2, 3]}]
        numa_memory_capacity_bytes: 137438953472
    facts:
      files:
        /var/lib/kubelet/config.yaml: "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
"""

RETURN = r"""
_value:
  description: The plan.
  type: dict
  contains:
    platform: {description: kubeadm, rke2 or nodeadm., type: str}
    numa_nodes: {description: The NUMA node ids., type: list, elements: int}
    reserved_memory: {description: The computed reservedMemory list., type: list, elements: dict}
    kubelet_config: {description: The complete effective KubeletConfiguration the kubelet will run with., type: dict}
    kubelet_inputs: {description: "The layers: main config, drop-ins and config flags, as the kubelet reads them.", type: dict}
    files: {description: "What to write: path, mode and content (data for the platform template) or text.", type: list, elements: dict}
    restart: {description: "reset (stop, remove the checkpoints, start), restart, or none.", type: str}
    unit: {description: The systemd unit that runs the kubelet., type: str}
    expected_state: {description: The memory manager checkpoint's policy and per-NUMA systemReserved bytes after the start., type: dict}
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.numa.kubelet.plugins.plugin_utils._config import KubeletConfigError
from ansible_collections.numa.kubelet.plugins.plugin_utils._plan import plan_host, reads, state_problems


def kubelet_numa_plan(variables, facts):
    """The plan for one host."""
    try:
        return plan_host(variables, facts)
    except KubeletConfigError as exc:
        raise AnsibleFilterError("kubelet_numa_plan: %s" % exc) from exc


def kubelet_numa_reads(variables, existing=None, files=None):
    """The platform and the paths its plan reads on the host."""
    try:
        return reads(variables, existing, files)
    except KubeletConfigError as exc:
        raise AnsibleFilterError("kubelet_numa_reads: %s" % exc) from exc


def kubelet_numa_state_problems(state_text, expected_state):
    """How a memory_manager_state differs from a plan's expected_state."""
    return state_problems(state_text, expected_state)


class FilterModule:
    """Node planning."""

    def filters(self):
        return {"kubelet_numa_plan": kubelet_numa_plan, "kubelet_numa_reads": kubelet_numa_reads,
                "kubelet_numa_state_problems": kubelet_numa_state_problems}
