# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A host's NUMA topology as the kubelet sees it (sysfs node tree, MemTotal of /proc/meminfo), read without running
any command. Shared by the modules numa_facts, node_files and container_numa, so that discovery reads the topology in
the same round trip as the kubelet's files."""

from __future__ import annotations

import os
import re

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
        raise TopologyError(f"cannot read {path}: {exc}") from exc


def _read_count(path):
    text = _read(path).strip()
    if not text.isdigit():
        raise TopologyError(f"{path}: {text!r} is not a page count")
    return int(text)


def _meminfo_kib(path, prefix):
    """The MemTotal line of a meminfo file ('MemTotal: N kB' or 'Node 0 MemTotal: N kB'), in KiB."""
    for line in _read(path).splitlines():
        match = re.match(rf"^{re.escape(prefix)}MemTotal:\s+(\d+) kB$", line)
        if match:
            return int(match.group(1))
    raise TopologyError(f"{path} has no '{prefix}MemTotal: <n> kB' line")


def parse_cpulist(text, path="cpulist"):
    """Expand a kernel CPU list such as '0-3,8,10-11' into [0, 1, 2, 3, 8, 10, 11]."""
    cpus = []
    for part in text.strip().split(","):
        if not part:
            continue
        match = re.match(r"^(\d+)(?:-(\d+))?$", part)
        if not match:
            raise TopologyError(f"{path}: {text.strip()!r} is not a CPU list like '0-3,8'")
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
        raise TopologyError(f"no NUMA topology at {nodes_path}: sysfs is not mounted there or the kernel was built without NUMA support (CONFIG_NUMA)")
    nodes = []
    for entry in os.listdir(nodes_path):
        match = _NODE_DIR.match(entry)
        if not match:
            continue
        node_id = int(match.group(1))
        node_path = os.path.join(nodes_path, entry)
        nodes.append(
            {
                "id": node_id,
                "memory_bytes": _meminfo_kib(os.path.join(node_path, "meminfo"), "Node %d " % node_id) * 1024,
                "cpus": parse_cpulist(_read(os.path.join(node_path, "cpulist")), os.path.join(node_path, "cpulist")),
                "hugepages": _hugepages(node_path),
            }
        )
    if not nodes:
        raise TopologyError(f"{nodes_path} has no node<N> directories")
    return {
        "numa_nodes": sorted(nodes, key=lambda node: node["id"]),
        "numa_memory_capacity_bytes": _meminfo_kib(os.path.join(root, "proc/meminfo"), "") * 1024,
    }
