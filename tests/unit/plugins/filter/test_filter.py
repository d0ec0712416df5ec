# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the filter plugins share: each is thin (engine results pass through, engine errors become AnsibleFilterError
naming the filter, the value and the rule) and registers the name it documents. The tests of one filter are in the file
of its module (test_quantity_to_bytes.py, ...)."""

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
