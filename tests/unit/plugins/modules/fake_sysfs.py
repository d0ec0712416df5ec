# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fake sysfs/procfs trees in the kernel's own file formats, for numa_facts tests."""

from __future__ import annotations


def make_tree(root, nodes, mem_total_kib=None):
    """nodes: {id: (MemTotal kB, cpulist, {page size kB: (nr_hugepages, free_hugepages)})}."""
    base = root / "sys/devices/system/node"
    base.mkdir(parents=True)
    (base / "online").write_text("%s\n" % ",".join(str(node_id) for node_id in sorted(nodes)))
    for node_id, (mem_kib, cpulist, pools) in nodes.items():
        node = base / ("node%d" % node_id)
        node.mkdir()
        (node / "meminfo").write_text("Node %d MemTotal:       %d kB\nNode %d MemFree:        %d kB\n" % (node_id, mem_kib, node_id, mem_kib // 2))
        (node / "cpulist").write_text(cpulist + "\n")
        for page_kib, (total, free) in pools.items():
            pool = node / "hugepages" / ("hugepages-%dkB" % page_kib)
            pool.mkdir(parents=True)
            (pool / "nr_hugepages").write_text("%d\n" % total)
            (pool / "free_hugepages").write_text("%d\n" % free)
    (root / "proc").mkdir()
    total = mem_total_kib if mem_total_kib is not None else sum(memory_kib for memory_kib, _cpulist, _pools in nodes.values())
    (root / "proc/meminfo").write_text("MemTotal:       %d kB\nMemFree:        %d kB\n" % (total, total // 2))
