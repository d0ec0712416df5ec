# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""numa_facts reads sysfs/procfs trees; fake trees stand for hosts of every shape."""

from __future__ import annotations

import pytest

from ansible_collections.numa.kubelet.plugins.module_utils._numa_topology import TopologyError, parse_cpulist, read_topology
from ansible_collections.numa.kubelet.tests.unit.plugins.modules.fake_sysfs import make_tree


def test_two_nodes_of_different_sizes(tmp_path):
    make_tree(tmp_path, {0: (1310720, "0", {2048: (4, 1)}), 1: (786432, "1", {2048: (0, 0), 1048576: (1, 1)})}, mem_total_kib=2097152)
    assert read_topology(str(tmp_path)) == {
        "numa_nodes": [
            {"id": 0, "memory_bytes": 1310720 * 1024, "cpus": [0], "hugepages": {"2Mi": {"total": 4, "free": 1}}},
            {"id": 1, "memory_bytes": 786432 * 1024, "cpus": [1], "hugepages": {"1Gi": {"total": 1, "free": 1}, "2Mi": {"total": 0, "free": 0}}},
        ],
        "numa_memory_capacity_bytes": 2097152 * 1024,
    }


def test_nodes_are_sorted_by_id_and_ids_may_have_gaps(tmp_path):
    make_tree(tmp_path, {10: (1024, "2-3", {}), 2: (1024, "0-1,4", {})})
    assert [(node["id"], node["cpus"]) for node in read_topology(str(tmp_path))["numa_nodes"]] == [(2, [0, 1, 4]), (10, [2, 3])]


def test_memoryless_node_has_zero_memory(tmp_path):
    make_tree(tmp_path, {0: (2048, "0", {}), 1: (0, "", {})})
    assert [(node["memory_bytes"], node["cpus"]) for node in read_topology(str(tmp_path))["numa_nodes"]] == [(2048 * 1024, [0]), (0, [])]


def test_no_numa_tree(tmp_path):
    with pytest.raises(
        TopologyError,
        match=r"no NUMA topology at .*/sys/devices/system/node: sysfs is not mounted there or the kernel "
        r"was built without NUMA support \(CONFIG_NUMA\)",
    ):
        read_topology(str(tmp_path))


def test_broken_meminfo(tmp_path):
    make_tree(tmp_path, {0: (1024, "0", {})})
    (tmp_path / "sys/devices/system/node/node0/meminfo").write_text("Node 0 MemFree: 12 kB\n")
    with pytest.raises(TopologyError, match=r"node0/meminfo has no 'Node 0 MemTotal: <n> kB' line"):
        read_topology(str(tmp_path))


def test_broken_hugepage_count(tmp_path):
    make_tree(tmp_path, {0: (1024, "0", {2048: (0, 0)})})
    (tmp_path / "sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages").write_text("lots\n")
    with pytest.raises(TopologyError, match=r"hugepages-2048kB/nr_hugepages: 'lots' is not a page count"):
        read_topology(str(tmp_path))


@pytest.mark.parametrize("text, expected", [("0-3,8,10-11\n", [0, 1, 2, 3, 8, 10, 11]), ("\n", []), ("5", [5])])
def test_cpulist(text, expected):
    assert parse_cpulist(text) == expected


def test_bad_cpulist():
    with pytest.raises(TopologyError, match=r"cpulist: '0-a' is not a CPU list like '0-3,8'"):
        parse_cpulist("0-a")


def test_this_machine_has_a_node_tree():
    facts = read_topology("/")
    assert facts["numa_nodes"] and all(node["cpus"] or node["memory_bytes"] == 0 for node in facts["numa_nodes"])
    assert facts["numa_memory_capacity_bytes"] > 0
