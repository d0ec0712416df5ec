# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The split of the memory reservation over NUMA nodes (_split): each strategy, its errors, and that every split sums
exactly to the reservation and validates.

Cases come from the Kubernetes memory manager documentation (4Gi + 1Gi + 100Mi reserved as 3Gi + 2148Mi) and
docs/kubelet-facts.md sections 1, 2 and 5.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.numa.kubelet.plugins.plugin_utils._allocatable import memory_reservation
from ansible_collections.numa.kubelet.plugins.plugin_utils._config import KubeletConfigError
from ansible_collections.numa.kubelet.plugins.plugin_utils._quantity import Quantity
from ansible_collections.numa.kubelet.plugins.plugin_utils._split import reserved_memory
from ansible_collections.numa.kubelet.plugins.plugin_utils._validation import check_kubelet_config

GI = 1 << 30
MI = 1 << 20


def static(**fields):
    return dict({"memoryManagerPolicy": "Static"}, **fields)


def limits(result):
    return [(item["numaNode"], item["limits"]["memory"]) for item in result]


@pytest.mark.parametrize(
    "config, nodes, split, expected",
    [
        (static(kubeReserved={"memory": "8500Mi"}, evictionHard={"memory.available": "100Mi"}), [0, 1], "even", [(0, "4300Mi"), (1, "4300Mi")]),
        (static(kubeReserved={"memory": "8362Mi"}, evictionHard={"memory.available": "100Mi"}), [0, 1], "even", [(0, "4231Mi"), (1, "4231Mi")]),
        (static(systemReserved={"memory": "16Gi"}), [0, 1], "even", [(0, "8242Mi"), (1, "8242Mi")]),
        (static(kubeReserved={"memory": "1Gi"}, systemReserved={"memory": "16484Mi"}), [0, 1], "even", [(0, "8804Mi"), (1, "8804Mi")]),
        (static(kubeReserved={"memory": "20Gi"}, systemReserved={"memory": "412Mi"}), [0, 1], "even", [(0, "10496Mi"), (1, "10496Mi")]),
        # 1Gi over two nodes: each share in the coarsest unit that keeps the shares equal.
        (static(kubeReserved={"memory": "924Mi"}), [0, 1], "even", [(0, "512Mi"), (1, "512Mi")]),
        # An odd number of Mi: equal shares in Ki.
        (static(kubeReserved={"memory": "5121Mi"}, evictionHard={"nodefs.available": "5%"}), [0, 1], "even", [(0, "2621952Ki"), (1, "2621952Ki")]),
        # No equal split in whole bytes: shares differ by one byte, the extra byte on the lowest id.
        (
            static(kubeReserved={"memory": "4Gi"}, evictionHard={"nodefs.available": "5%"}),
            [0, 1, 2],
            "even",
            [(0, "1431655766"), (1, "1431655765"), (2, "1431655765")],
        ),
        (static(kubeReserved={"memory": "8500Mi"}), [1, 0], "first", [(0, "8600Mi")]),
        # Fewer units than nodes: zero shares are left out, the kubelet refuses a zero limit.
        (static(kubeReserved={"memory": "1"}, evictionHard={"nodefs.available": "5%"}), [0, 1], "even", [(0, "1")]),
        (
            static(kubeReserved={"memory": "3Gi"}, evictionHard={"nodefs.available": "5%"}),
            [{"id": 0, "memory_bytes": 3 * GI}, {"id": 1, "memory_bytes": GI}],
            "proportional",
            [(0, "2304Mi"), (1, "768Mi")],
        ),
        (static(kubeReserved={"memory": "4Gi"}, systemReserved={"memory": "1Gi"}), [0, 1], {0: "3Gi", 1: "2148Mi"}, [(0, "3Gi"), (1, "2148Mi")]),
        (static(kubeReserved={"memory": "4Gi"}, systemReserved={"memory": "1Gi"}), [0, 1], {"1": "5220Mi"}, [(1, "5220Mi")]),
    ],
)
def test_splits(config, nodes, split, expected):
    result = reserved_memory(config, nodes, split)
    assert limits(result) == expected
    assert check_kubelet_config(dict(config, reservedMemory=result, topologyManagerPolicy="single-numa-node"), nodes).errors == []


def test_percentage_total_is_split_in_bytes():
    config = static(kubeReserved={"memory": "1Gi"}, evictionHard={"memory.available": "5%"})
    result = reserved_memory(config, [0, 1], memory_capacity=7910812 * 1024)
    assert limits(result) == [(0, "739387702"), (1, "739387702")]
    assert sum(Quantity.parse(share).value() for _node, share in limits(result)) == GI + 405033580


@pytest.mark.parametrize(
    "split, nodes, message",
    [
        (
            {0: "3Gi", 1: "2Gi"},
            [0, 1],
            (
                "split: the explicit shares {0: '3Gi', 1: '2Gi'} sum to 5Gi, but the reservation is systemReserved.memory 1Gi + kubeReserved.memory 4Gi + "
                "evictionHard memory.available (kubelet default) 100Mi = 5220Mi; the kubelet refuses any other total"
            ),
        ),
        ({0: "5220Mi", 2: "0"}, [0, 1], "split: NUMA nodes [2] do not exist on this machine (it has [0, 1])"),
        ({0: "6Gi", 1: "-868Mi"}, [0, 1], "split[1]: -868Mi is negative; a NUMA node cannot give memory back"),
        ({0: "5.09765625Gi", 1: "-0.0009765625Gi"}, [0, 1], "split[0]: 5.09765625Gi: could not covert a variable of type Quantity to int64"),
        ("evenly", [0, 1], "split: 'evenly' is not a strategy: use one of even, first, proportional or a mapping {numa_id: quantity}"),
        ("proportional", [0, 1], "split 'proportional' needs each node's memory: NUMA nodes [0, 1] have no memory_bytes"),
        (
            "first",
            [{"id": 0, "memory_bytes": 4 * GI}, {"id": 1, "memory_bytes": 4 * GI}],
            "reservedMemory for NUMA node 0 is 5220Mi but that node has only 4Gi of memory (node MemTotal)",
        ),
        ("even", [], "numa_nodes: the list is empty; the node needs at least NUMA node 0"),
        ("even", [0, 0], "numa_nodes: NUMA node ids [0] appear more than once"),
        ("even", [-1], "numa_nodes[0]: NUMA node id -1 must be a non-negative integer"),
        ("even", "0,1", "numa_nodes: '0,1' must be a list of NUMA node ids"),
    ],
)
def test_split_errors_name_the_value_and_the_rule(split, nodes, message):
    config = static(kubeReserved={"memory": "4Gi"}, systemReserved={"memory": "1Gi"})
    with pytest.raises(KubeletConfigError) as error:
        reserved_memory(config, nodes, split)
    assert message in str(error.value)


def test_nothing_to_reserve():
    with pytest.raises(KubeletConfigError, match=r"you should specify the system reserved memory"):
        reserved_memory(static(evictionHard={"nodefs.available": "5%"}), [0, 1])


def test_fractional_bytes_cannot_be_split():
    with pytest.raises(KubeletConfigError, match=r"is not a whole number of bytes"):
        reserved_memory(static(kubeReserved={"memory": "1500m"}), [0])


@pytest.mark.parametrize(
    "config, message",
    [
        (
            static(kubeReserved={"memory": "1GB"}),
            'kubeReserved.memory: --kube-reserved value failed to parse: failed to parse quantity "1GB" for "memory" resource: quantities',
        ),
        (static(kubeReserved={"memory": 1.5}), "kubeReserved.memory: 1.5 (float) is not a Kubernetes quantity"),
        (
            static(kubeReserved={"memory": "-1Gi"}),
            'kubeReserved.memory: --kube-reserved value failed to parse: resource quantity for "memory" cannot be negative: -1Gi',
        ),
        (
            static(systemReserved={"hugepages-2Mi": "1Gi"}),
            'systemReserved.hugepages-2Mi: --system-reserved value failed to parse: cannot reserve "hugepages-2Mi" resource',
        ),
        (static(kubeReserved="1Gi"), "kubeReserved: must be a mapping, got str '1Gi'"),
    ],
)
def test_reserved_resource_errors(config, message):
    with pytest.raises(KubeletConfigError) as error:
        reserved_memory(config, [0])
    assert message in str(error.value)


memory_quantities = st.one_of(
    st.integers(min_value=1, max_value=1 << 40).map(str),
    st.integers(min_value=1, max_value=1 << 20).map(lambda mebibytes: "%dMi" % mebibytes),
    st.integers(min_value=1, max_value=1 << 10).map(lambda gibibytes: "%dGi" % gibibytes),
    st.integers(min_value=1, max_value=1 << 30).map(lambda kilobytes: "%dk" % kilobytes),
)


@settings(max_examples=300, deadline=None)
@given(
    kube=memory_quantities,
    system=memory_quantities,
    eviction=st.one_of(st.none(), memory_quantities),
    node_count=st.integers(min_value=1, max_value=8),
    strategy=st.sampled_from(["even", "first", "proportional"]),
    node_memory=st.lists(st.integers(min_value=1 << 42, max_value=1 << 45), min_size=8, max_size=8),
)
def test_every_split_sums_exactly_and_validates(kube, system, eviction, node_count, strategy, node_memory):
    config = static(kubeReserved={"memory": kube}, systemReserved={"memory": system}, topologyManagerPolicy="single-numa-node")
    if eviction is not None:
        config["evictionHard"] = {"memory.available": eviction}
    nodes = [{"id": node_id, "memory_bytes": 1 << 50} for node_id in range(node_count)]
    if strategy == "proportional":
        nodes = [{"id": node_id, "memory_bytes": node_memory[node_id]} for node_id in range(node_count)]
    result = reserved_memory(config, nodes, strategy)
    total = memory_reservation(config).total
    assert sum(Quantity.parse(item["limits"]["memory"]).as_int64() for item in result) == total.value()
    assert check_kubelet_config(dict(config, reservedMemory=result), [{"id": n["id"]} for n in nodes]).errors == []
    if strategy == "even":
        shares = [Quantity.parse(item["limits"]["memory"]).value() for item in result]
        assert shares == sorted(shares, reverse=True)
