#!/usr/bin/python
# -*- coding: utf-8 -*-
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

import os
import re

from ansible.module_utils.basic import AnsibleModule

_NODE_DIR = re.compile(r"^node(\d+)$")
_HUGEPAGES_DIR = re.compile(r"^hugepages-(\d+)kB$")
_BINARY_SUFFIXES = ((1 << 30, "Gi"), (1 << 20, "Mi"), (1 << 10, "Ki"))


class TopologyError(Exception):
    """The host's sysfs/procfs does not describe a NUMA topology that can be read."""


def _read(path):
    try:
        with open(path, encoding="ascii") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise TopologyError("cannot read %s: %s" % (path, exc)) from exc


def _read_count(path):
    text = _read(path).strip()
    if not text.isdigit():
        raise TopologyError("%s: %r is not a page count" % (path, text))
    return int(text)


def _meminfo_kib(path, prefix):
    """The MemTotal line of a meminfo file ('MemTotal: N kB' or 'Node 0 MemTotal: N kB'), in KiB."""
    for line in _read(path).splitlines():
        match = re.match(r"^%sMemTotal:\s+(\d+) kB$" % re.escape(prefix), line)
        if match:
            return int(match.group(1))
    raise TopologyError("%s has no '%sMemTotal: <n> kB' line" % (path, prefix))


def parse_cpulist(text, path="cpulist"):
    """Expand a kernel CPU list such as '0-3,8,10-11' into [0, 1, 2, 3, 8, 10, 11]."""
    cpus = []
    for part in text.strip().split(","):
        if not part:
            continue
        match = re.match(r"^(\d+)(?:-(\d+))?$", part)
        if not match:
            raise TopologyError("%s: %r is not a CPU list like '0-3,8'" % (path, text.strip()))
        first, last = int(match.group(1)), int(match.group(2) or match.group(1))
        cpus.extend(range(first, last + 1))
    return sorted(set(cpus))


def _page_size_name(kib):
    size = kib * 1024
    for unit, suffix in _BINARY_SUFFIXES:
        if size % unit == 0:
            return "%d%s" % (size // unit, suffix)
    return str(size)


def _hugepages(node_path):
    pools = {}
    hugepages_path = os.path.join(node_path, "hugepages")
    if not os.path.isdir(hugepages_path):
        return pools
    for entry in sorted(os.listdir(hugepages_path)):
        match = _HUGEPAGES_DIR.match(entry)
        if not match:
            continue
        pool_path = os.path.join(hugepages_path, entry)
        pools[_page_size_name(int(match.group(1)))] = {
            "total": _read_count(os.path.join(pool_path, "nr_hugepages")),
            "free": _read_count(os.path.join(pool_path, "free_hugepages")),
        }
    return pools


def read_topology(root):
    """The numa_nodes and numa_memory_capacity_bytes facts of the tree under root."""
    nodes_path = os.path.join(root, "sys/devices/system/node")
    if not os.path.isdir(nodes_path):
        raise TopologyError(
            "no NUMA topology at %s: sysfs is not mounted there or the kernel was built without NUMA support (CONFIG_NUMA)" % nodes_path)
    nodes = []
    for entry in os.listdir(nodes_path):
        match = _NODE_DIR.match(entry)
        if not match:
            continue
        node_id = int(match.group(1))
        node_path = os.path.join(nodes_path, entry)
        nodes.append({
            "id": node_id,
            "memory_bytes": _meminfo_kib(os.path.join(node_path, "meminfo"), "Node %d " % node_id) * 1024,
            "cpus": parse_cpulist(_read(os.path.join(node_path, "cpulist")), os.path.join(node_path, "cpulist")),
            "hugepages": _hugepages(node_path),
        })
    if not nodes:
        raise TopologyError("%s has no node<N> directories" % nodes_path)
    return {
        "numa_nodes": sorted(nodes, key=lambda node: node["id"]),
        "numa_memory_capacity_bytes": _meminfo_kib(os.path.join(root, "proc/meminfo"), "") * 1024,
    }


def main():
    module = AnsibleModule(argument_spec={"root": {"type": "path", "default": "/"}}, supports_check_mode=True)
    try:
        facts = read_topology(module.params["root"])
    except TopologyError as exc:
        module.fail_json(msg="numa_facts: %s" % exc)
    module.exit_json(changed=False, ansible_facts=facts)


if __name__ == "__main__":
    main()
