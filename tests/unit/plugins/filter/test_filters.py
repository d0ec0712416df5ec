# -*- coding: utf-8 -*-
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The filters are thin: engine results pass through, engine errors become AnsibleFilterError naming the filter."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.numa.kubelet.plugins.filter.bytes_to_quantity import FilterModule as BytesToQuantity
from ansible_collections.numa.kubelet.plugins.filter.eks_kube_reserved import FilterModule as EksKubeReserved
from ansible_collections.numa.kubelet.plugins.filter.kubelet_flags import FilterModule as KubeletFlags
from ansible_collections.numa.kubelet.plugins.filter.quantity_to_bytes import FilterModule as QuantityToBytes
from ansible_collections.numa.kubelet.plugins.filter.reserved_memory import FilterModule as ReservedMemory
from ansible_collections.numa.kubelet.plugins.filter.validate_kubelet_config import FilterModule as ValidateKubeletConfig

FILTERS = {}
for module in (BytesToQuantity, EksKubeReserved, KubeletFlags, QuantityToBytes, ReservedMemory, ValidateKubeletConfig):
    FILTERS.update(module().filters())

P4D = {
    "memoryManagerPolicy": "Static",
    "topologyManagerPolicy": "single-numa-node",
    "kubeReserved": {"memory": "8500Mi"},
    "evictionHard": {"memory.available": "100Mi"},
}


def test_every_documented_filter_is_registered():
    assert sorted(FILTERS) == ["bytes_to_quantity", "eks_kube_reserved", "kubelet_flags", "quantity_to_bytes", "reserved_memory", "validate_kubelet_config"]


@pytest.mark.parametrize("value, expected", [("4300Mi", 4508876800), ("1.5Gi", 1610612736), ("0.5", 1), (1024, 1024), ("5.47356672G", 5473566720)])
def test_quantity_to_bytes(value, expected):
    assert FILTERS["quantity_to_bytes"](value) == expected


@pytest.mark.parametrize("value, expected", [(9017753600, "8600Mi"), (1073741824, "1Gi"), ("4508876800", "4300Mi"), (405033580, "405033580"), (0, "0")])
def test_bytes_to_quantity(value, expected):
    assert FILTERS["bytes_to_quantity"](value) == expected


@pytest.mark.parametrize(
    "name, args, message",
    [
        ("quantity_to_bytes", ("1GB",), "quantity_to_bytes: invalid quantity '1GB': "),
        ("quantity_to_bytes", (True,), "quantity_to_bytes: True (bool) is not a Kubernetes quantity"),
        ("bytes_to_quantity", (1.5,), "bytes_to_quantity: 1.5 (float) is not a whole number of bytes within int64"),
        ("bytes_to_quantity", (2**63,), "bytes_to_quantity: 9223372036854775808 (integer) is not a whole number of bytes within int64"),
        ("reserved_memory", (P4D, [0, 1], "halves"), "reserved_memory: split: 'halves' is not a strategy"),
        ("kubelet_flags", ({"mergeDefaultEvictionSettings": True},), "kubelet_flags: mergeDefaultEvictionSettings: has no kubelet flag form"),
        ("eks_kube_reserved", ("p9.huge",), "eks_kube_reserved: unknown EC2 instance type 'p9.huge'"),
        ("eks_kube_reserved", ("p4d.24xlarge",), "eks_kube_reserved: vcpus= is required"),
    ],
)
def test_errors_name_the_filter_value_and_rule(name, args, message):
    with pytest.raises(AnsibleFilterError) as error:
        FILTERS[name](*args)
    assert message in str(error.value)


def test_reserved_memory_p4d():
    assert FILTERS["reserved_memory"](P4D, [0, 1]) == [{"numaNode": 0, "limits": {"memory": "4300Mi"}}, {"numaNode": 1, "limits": {"memory": "4300Mi"}}]


def test_validate_returns_the_config_unchanged():
    config = dict(P4D, reservedMemory=FILTERS["reserved_memory"](P4D, [0, 1]))
    assert FILTERS["validate_kubelet_config"](config, [0, 1]) is config


def test_validate_lists_every_problem():
    broken = dict(P4D, memoryManagerPolicy="static", reservedMemroy=[])
    with pytest.raises(AnsibleFilterError) as error:
        FILTERS["validate_kubelet_config"](broken, [0, 1])
    assert str(error.value).splitlines()[0] == "validate_kubelet_config: the kubelet would refuse this config:"
    assert '- memoryManagerPolicy: unknown policy: "static"' in str(error.value)
    assert "- reservedMemroy: unknown KubeletConfiguration" in str(error.value)


def test_eks_kube_reserved():
    assert FILTERS["eks_kube_reserved"]("p4d.24xlarge", vcpus=96) == {"cpu": "310m", "ephemeral-storage": "1Gi", "memory": "8362Mi"}
    assert FILTERS["eks_kube_reserved"](None, max_pods=29, vcpus=2) == {"cpu": "70m", "ephemeral-storage": "1Gi", "memory": "574Mi"}
