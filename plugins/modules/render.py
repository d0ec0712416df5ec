#!/usr/bin/python
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: render
short_description: Render what the kubelet_numa role would write, for many hosts at once, on the controller
version_added: 0.1.0
description:
  - Plans every host with the same planning core as the P(numa.kubelet.kubelet_numa#role) role (its defaults, the host's
    C(kubelet_numa_*) variables) and renders the role's own templates, in one task on the controller.
  - "Writes C(<dest>/<host>/<absolute path on the node>) for each file the role would write, and C(<dest>/<host>/plan.json)
    with C(platform), C(numa_nodes), C(reserved_memory), C(kubelet_config) (the complete effective KubeletConfiguration,
    defaults included), C(kubelet_inputs), C(files), C(unit), C(restart) and C(warnings)."
  - A host is planned from C(kubelet_numa_topology) and C(kubelet_numa_node_files), or from C(kubelet_numa_discovered)
    when the role's discovery ran on it; a host with neither is returned in C(needs_discovery).
  - A host whose plan fails, whose variables cannot be templated, or whose files cannot be written safely gets no files (what
    an earlier render wrote for it is removed) and is returned in C(failed_hosts) with every problem, naming the variable or
    file, the value and the rule; the task itself does not fail, so that the other hosts are rendered. Used by the
    playbook of the same name, C(numa.kubelet.render) (Ansible looks playbooks and modules up apart).
  - Called C(numa.kubelet.kubelet_numa_render) in 0.1.0; that name still works, with a deprecation warning, until 0.3.0.
author:
  - numa.kubelet developers (!UNKNOWN)
options:
  hosts:
    description: Inventory host names to render.
    type: list
    elements: str
    required: true
  dest:
    description:
      - Absolute directory on the controller. Each host's files go to C(<dest>/<host>), which must be a directory of its own
        (not a symlink); the host name must be a plain file name.
      - A manifest C(<dest>/<host>/.numa-kubelet-render.json) lists what the render wrote; only those files, unchanged since, are
        ever replaced or removed. Any other file in the way is refused by name, and nothing outside C(<dest>/<host>) is touched.
    type: path
    required: true
  inventory:
    description:
      - What C(ansible-inventory --list --export) prints for the inventory. When given, a host whose C(kubelet_numa_config),
        C(kubelet_numa_reserved_memory_split) or C(kubelet_numa_platform) is set differently by two unrelated groups (a host in
        both a kubeadm and an rke2 group, say) fails, naming the groups, instead of being rendered as whichever Ansible picks.
    type: dict
attributes:
  action:
    support: full
    description: Runs on the controller only.
  check_mode:
    support: full
    description: Plans and renders but writes nothing.
  diff_mode:
    support: none
    description: Use the role with C(--check --diff) to see the same content against a live host.
"""

EXAMPLES = r"""
- name: Render every host of the inventory
  numa.kubelet.render:
    hosts: "{{ query('inventory_hostnames', 'all') }}"
    dest: /tmp/numa-render
  register: render
"""

RETURN = r"""
rendered:
  description: Host name to the paths written under C(<dest>/<host>).
  returned: always
  type: dict
failed_hosts:
  description: Host name to its planning problems.
  returned: always
  type: dict
needs_discovery:
  description: Hosts without C(kubelet_numa_topology) whose discovery has not run.
  returned: always
  type: list
  elements: str
unconfigured_hosts:
  description: Hosts with an empty C(kubelet_numa_config) (nothing to do).
  returned: always
  type: list
  elements: str
"""
