# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright: numa.kubelet contributors; GNU General Public License v3.0+ (see LICENSE or
# https://www.gnu.org/licenses/gpl-3.0.txt)
"""Kubelet STAND-IN: the machine as cadvisor reports it (NUMA nodes, memory, CPUs, hugepages)."""

import os
import re

from .common import StartError, host_path
from .quantity import Quantity


# ----------------------------------------------------------------------------------------------- machine
def read_kib(path, key):
    """Return the kB value of `key` in a meminfo file, in bytes."""
    with open(host_path(path), encoding="utf-8") as handle:
        for line in handle:
            fields = line.replace(":", " ").split()
            if key in fields:
                return int(fields[fields.index(key) + 1]) * 1024
    raise StartError(f"no {key} in {path}")


def parse_cpulist(text):
    """Parse a Linux cpulist such as 0-3,8."""
    cpus = []
    for part in text.strip().split(","):
        if not part:
            continue
        if "-" in part:
            low, high = part.split("-")
            cpus.extend(range(int(low), int(high) + 1))
        else:
            cpus.append(int(part))
    return cpus


def format_cpulist(cpus):
    """Format CPU ids as a Linux cpulist (ranges collapsed)."""
    cpus = sorted(set(cpus))
    parts, start = [], None
    for index, cpu in enumerate(cpus):
        if start is None:
            start = cpu
        if index + 1 == len(cpus) or cpus[index + 1] != cpu + 1:
            parts.append(str(start) if start == cpu else "%d-%d" % (start, cpu))
            start = None
    return ",".join(parts)


def machine_info():
    """Read NUMA nodes (memory, CPUs, hugepages), memory capacity and online CPUs like cadvisor."""
    capacity = read_kib("/proc/meminfo", "MemTotal")
    online_path = host_path("/sys/devices/system/cpu/online")
    online = []
    if os.path.exists(online_path):
        with open(online_path, encoding="utf-8") as handle:
            online = parse_cpulist(handle.read())
    nodes = {}
    node_dir = host_path("/sys/devices/system/node")
    if os.path.isdir(node_dir):
        for name in os.listdir(node_dir):
            match = re.match(r"^node(\d+)$", name)
            if not match:
                continue
            node_id = int(match.group(1))
            base = "/sys/devices/system/node/" + name
            hugepages = {}
            hp_dir = host_path(base + "/hugepages")
            if os.path.isdir(hp_dir):
                for hp_name in os.listdir(hp_dir):
                    hp_match = re.match(r"^hugepages-(\d+)kB$", hp_name)
                    if not hp_match:
                        continue
                    with open(os.path.join(hp_dir, hp_name, "nr_hugepages"), encoding="utf-8") as handle:
                        pages = int(handle.read().strip() or 0)
                    size_bytes = int(hp_match.group(1)) * 1024
                    hugepages["hugepages-" + str(Quantity(size_bytes, "BinarySI"))] = pages * size_bytes
            cpus = []
            cpulist = host_path(base + "/cpulist")
            if os.path.exists(cpulist):
                with open(cpulist, encoding="utf-8") as handle:
                    cpus = parse_cpulist(handle.read())
            nodes[node_id] = {
                "memory": read_kib(base + "/meminfo", "MemTotal"),
                "cpus": cpus,
                "hugepages": hugepages,
            }
    if not nodes:  # a kernel without NUMA support: cadvisor reports one node 0
        nodes[0] = {"memory": capacity, "cpus": online, "hugepages": {}}
    return {"capacity": capacity, "nodes": nodes, "online_cpus": online}
