#!/usr/bin/python
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: numa_facts
short_description: Read a host's NUMA topology the way the kubelet sees it
version_added: 0.1.0
description:
  - Reads NUMA nodes, their memory, CPUs and hugepage pools from sysfs, and the memory capacity the kubelet uses
    (MemTotal of C(/proc/meminfo)) from procfs, without running the full C(setup) module and without running any command.
  - The result feeds the C(numa.kubelet.reserved_memory) and C(numa.kubelet.validate_kubelet_config) filters.
  - Fails when the host has no sysfs NUMA tree (C(/sys/devices/system/node)); a kernel that shows a single node
    gives a single node.
author:
  - numa.kubelet developers (!UNKNOWN)
options:
  root:
    description:
      - Directory that holds the C(sys) and C(proc) trees to read, for reading a copied or fake tree in tests.
    type: path
    default: /
attributes:
  check_mode:
    description: Reads only, so check mode returns the same facts.
    support: full
  diff_mode:
    description: Changes nothing, so there is nothing to diff.
    support: none
  facts:
    description: Returns C(ansible_facts) that become host variables.
    support: full
"""

EXAMPLES = r"""
- name: Read the NUMA topology
  numa.kubelet.numa_facts:

- name: Compute reservedMemory for this host
  ansible.builtin.set_fact:
    reserved_memory: "{{ kubelet_config | numa.kubelet.reserved_memory(numa_nodes, memory_capacity=numa_memory_capacity_bytes) }}"
"""

RETURN = r"""
ansible_facts:
  description: The NUMA facts.
  returned: always
  type: dict
  contains:
    numa_nodes:
      description:
        - One item per NUMA node, sorted by id.
        - C(memory_bytes) is the node's MemTotal (C(/sys/devices/system/node/nodeN/meminfo)) in bytes.
        - C(cpus) is the node's CPU list (C(cpulist)) expanded; C(hugepages) maps a page size in Kubernetes'
          notation (C(2Mi), C(1Gi)) to the node's C(total) and C(free) pages.
      returned: always
      type: list
      elements: dict
      sample:
        - id: 0
          memory_bytes: 1339027456
          cpus: [0]
          hugepages: {"2Mi": {"total": 0, "free": 0}}
        - id: 1
          memory_bytes: 788131840
          cpus: [1]
          hugepages: {"2Mi": {"total": 0, "free": 0}}
    numa_memory_capacity_bytes:
      description: MemTotal of C(/proc/meminfo) in bytes, the memory capacity the kubelet computes percentages of.
      returned: always
      type: int
      sample: 2127159296
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.numa.kubelet.plugins.module_utils._numa_topology import TopologyError, read_topology


def main():
    module = AnsibleModule(argument_spec={"root": {"type": "path", "default": "/"}}, supports_check_mode=True)
    try:
        facts = read_topology(module.params["root"])
    except TopologyError as exc:
        module.fail_json(msg=f"numa_facts: {exc}")
    module.exit_json(changed=False, ansible_facts=facts)


if __name__ == "__main__":
    main()
