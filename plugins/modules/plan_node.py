#!/usr/bin/python
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: plan_node
short_description: Discover a node and plan its kubelet NUMA configuration in one task
version_added: 0.1.0
description:
  - The first step of the P(numa.kubelet.kubelet_numa#role) role, also run by the C(numa.kubelet.rollout),
    C(numa.kubelet.verify) and C(numa.kubelet.render) playbooks. Read-only on the node.
  - Reads what the plan needs, and nothing that a variable already gives. The platform's marker files when
    C(kubelet_numa_platform) is unset; then, in one M(numa.kubelet.node_files) call, every file the kubelet of that
    platform reads (main config, drop-ins, flag files, checkpoints) with the NUMA topology; on kubeadm, a drop-in
    directory that only a C(--config-dir) flag in those files names; on RKE2 C(rke2 --version) and which of
    C(rke2-server) or C(rke2-agent) is enabled (M(ansible.builtin.systemd_service)); on k3s C(k3s --version) and which
    of C(k3s) (server) or C(k3s-agent) is enabled; on nodeadm, when neither
    C(kubelet_numa_instance_type), C(kubelet_numa_max_pods) nor the base config gives kubeReserved, the instance type
    from the instance metadata (IMDSv2, M(ansible.builtin.uri)).
  - With C(kubelet_numa_node_files) set, no file is read on the node; with C(kubelet_numa_topology) set, no topology.
    Both are inputs for the C(numa.kubelet.render) playbook and check mode; with O(plan=true) outside check mode the task
    fails, naming the host and the variables to remove, before anything is read.
  - Then plans the node with the same planning core as P(numa.kubelet.plan#filter) (the effective
    kubelet config with the change in place, C(reservedMemory) and every check). A problem fails the task with one
    line per problem and nothing on the node changes. The plan's warnings are shown as task warnings.
author:
  - numa.kubelet developers (!UNKNOWN)
options:
  variables:
    description: The host's C(kubelet_numa_*) variables, with the role's defaults (see the role's argument spec).
    type: dict
    required: true
  also_read:
    description: Absolute paths read with the kubelet's files, for the C(files) of RV(discovered) and for RV(attributes).
    type: list
    elements: path
    default: []
  also_units:
    description:
      - systemd units whose state is read with the files (C(unit_states) of RV(discovered)); the plan starts its unit
        when that one does not run, even if nothing else changes.
    type: list
    elements: str
    default: []
  lablabs:
    description:
      - What lablabs.rke2 knows of the host, for the hand-over (O(variables) with C(kubelet_numa_rke2_write_files=false)).
      - "Keys: C(rke2_type), C(rke2_version), C(servers_group), C(agents_group), C(in_servers_group), C(in_agents_group),
        C(rke2_server_options), C(rke2_agent_options), C(rke2_kubelet_arg), C(rke2_kubelet_config) (null or absent: unset)."
      - C(rke2_type) or the group decides the RKE2 role, C(rke2_version) the version, when the C(kubelet_numa_rke2_*) variables are empty.
      - The plan merges numa.kubelet's settings into the user's own values and returns them in RV(plan) as C(rke2.lablabs).
    type: dict
    default: {}
  plan:
    description: Plan after discovering; V(false) discovers only.
    type: bool
    default: true
  pending:
    description:
      - Also decide what applying the plan changes, for the P(numa.kubelet.kubelet_numa#role) role, which sets it;
        every directory and file the role writes (the plan's files and the checkpoint guard's, the role's templates
        rendered as the role renders them, so the task must run in the role), and which of them differ from the node.
      - Reads, with the kubelet's files, the state and the checkpoint guard's files of every systemd unit a plan of the
        node may restart (those of C(kubelet_numa_platform), or of every platform when it is detected) and of every
        unit in O(also_units).
      - Needs C(kubelet_numa_reboot_reset) (a boolean) in O(variables). The answer is C(apply) in RV(plan).
    type: bool
    default: false
    version_added: 0.2.0
attributes:
  action:
    support: full
    description: Plans on the controller; reads the node through the task's connection.
  check_mode:
    support: full
    description: Reads only; the same result in check mode.
  diff_mode:
    support: none
    description: Changes nothing.
"""

EXAMPLES = r"""
# The role passes every kubelet_numa_* variable (its defaults included). Here the topology and the node's files are
# given, so nothing is read on the node; leave kubelet_numa_topology and kubelet_numa_node_files out on a real node.
- name: Discover and plan a kubeadm node (read-only)
  numa.kubelet.plan_node:
    variables:
      kubelet_numa_platform: kubeadm
      kubelet_numa_config: {memoryManagerPolicy: Static, kubeReserved: {memory: 1Gi}}
      kubelet_numa_reserved_memory_split: even
      kubelet_numa_topology:
        numa_nodes: [{id: 0, memory_bytes: 68719476736, cpus: [0, 1]}, {id: 1, memory_bytes: 68719476736, cpus: [2, 3]}]
        numa_memory_capacity_bytes: 137438953472
      kubelet_numa_node_files:
        /var/lib/kubelet/config.yaml: "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
      kubelet_numa_kubelet_root_dir: /var/lib/kubelet
      kubelet_numa_dropin_name: 50-numa-kubelet
      kubelet_numa_kubeadm_config_file: /var/lib/kubelet/config.yaml
      kubelet_numa_kubeadm_flags_file: /var/lib/kubelet/kubeadm-flags.env
      kubelet_numa_kubeadm_extra_args_file: /etc/default/kubelet
      kubelet_numa_kubeadm_config_dir: /etc/kubernetes/kubelet.conf.d
  register: node

- name: 1Gi + the kubelet's default 100Mi, split evenly
  ansible.builtin.debug:
    msg: "{{ node.plan.reserved_memory }}"
  # [{"numaNode": 0, "limits": {"memory": "562Mi"}}, {"numaNode": 1, "limits": {"memory": "562Mi"}}]
"""

RETURN = r"""
discovered:
  description:
    - What the plan was made from, the input of P(numa.kubelet.plan#filter)
      (C(numa_nodes), C(numa_memory_capacity_bytes), C(platform), C(files) by absolute path with C(null) for a missing
      file, C(rke2_version), C(rke2_role), C(k3s_version), C(k3s_role), C(instance_type), C(lablabs)).
  returned: always
  type: dict
attributes:
  description: Mode, owner and group of every path read that exists, as M(numa.kubelet.node_files) returns them.
  returned: always
  type: dict
plan:
  description:
    - The plan, as P(numa.kubelet.plan#filter) returns it.
    - "With the lablabs.rke2 hand-over, C(rke2.lablabs) holds lablabs' variables for this host, the user's values with
      numa.kubelet's merged in: C(rke2_server_options), C(rke2_agent_options), C(rke2_kubelet_config), C(rke2_kubelet_arg)
      (absent when nothing is to be rendered), the C(form) used (V(options), V(kubelet_arg), V(kubelet_config)), and
      C(not_carried): why config.yaml does not give the kubelet the plan yet (empty once it does)."
    - "With O(pending=true), C(apply): C(directories) and C(writes) (each C(path), C(mode), C(content), and
      C(only_if_absent) for a file kept where it exists), everything the role hands M(numa.kubelet.restart_kubelet);
      C(guard), the checkpoint guard's part alone (C(directories), C(writes), C(seed_started), C(reset_marker));
      C(pending_directories) and C(pending_writes), the paths of those that differ from the node (missing, or another
      text, mode, owner or group); and C(pending), true when any differs or the plan's C(restart) is not V(none)."
  returned: when O(plan=true)
  type: dict
role_facts:
  description:
    - What the P(numa.kubelet.kubelet_numa#role) role keeps as facts besides RV(discovered) and RV(plan), ready for its
      C(set_fact) (each fact that does not apply is absent).
    - C(kubelet_numa_healed), the node's self-heal report (C(healed) of C(apply) in RV(plan)) when it has one.
    - With an RKE2 plan, C(kubelet_numa_rke2_kubelet_args) and C(kubelet_numa_rke2_options) (C(kubelet_args) and
      C(options) of C(rke2) in RV(plan)), and C(kubelet_numa_<name>) for each of C(rke2_server_options),
      C(rke2_agent_options), C(rke2_kubelet_arg) and C(rke2_kubelet_config) that C(rke2.lablabs) holds.
  returned: when O(pending=true)
  type: dict
  version_added: 0.2.0
problems:
  description: One line per reason the node cannot be planned.
  returned: failure
  type: list
  elements: str
"""
