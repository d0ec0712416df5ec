# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The eks_userdata filter: a thin wrapper with the engine's messages (M5 also serves test_eks_al2_kubelet_extra_args.py)."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.numa.kubelet.plugins.filter.eks_userdata import FilterModule as UserDataFilters

M5 = {
    "name": "m5",
    "instance_type": "m5.large",
    "intent": {"memoryManagerPolicy": "Static", "topologyManagerPolicy": "single-numa-node"},
    "topology": {"numa_nodes": [{"id": 0, "memory_bytes": 8 << 30, "cpus": [0, 1]}], "numa_memory_capacity_bytes": 8 << 30},
}
KARPENTER = {
    "spec": {
        "role": "KarpenterNodeRole",
        "amiSelectorTerms": [{"alias": "al2023@latest"}],
        "subnetSelectorTerms": [{"id": "subnet-1"}],
        "securityGroupSelectorTerms": [{"id": "sg-1"}],
    }
}
M5_KARPENTER = dict(M5, karpenter=KARPENTER)
eks_userdata = UserDataFilters().filters()["eks_userdata"]


def test_eks_userdata_files_and_header():
    result = eks_userdata([M5_KARPENTER], header="Ansible managed")
    assert sorted(result["files"]) == ["m5.ec2nodeclass.yaml", "m5.user-data.mime"]
    assert result["files"]["m5.ec2nodeclass.yaml"].startswith("# Ansible managed\napiVersion: karpenter.k8s.aws/v1\n")
    assert result["classes"]["m5"]["reservation"] == "674Mi"


@pytest.mark.parametrize(
    "name, call, message",
    [
        (
            "eks_userdata",
            lambda: eks_userdata([dict(M5_KARPENTER, instance_type="m9.huge")]),
            "eks_userdata: node_classes[0] (m5): unknown EC2 instance type 'm9.huge'",
        ),
        (
            "eks_userdata",
            lambda: eks_userdata([M5_KARPENTER, dict(M5_KARPENTER, split="halves")]),
            "eks_userdata: node_classes[1] (m5): name 'm5' is used by another",
        ),
    ],
)
def test_errors_name_the_filter_and_the_problem(name, call, message):
    with pytest.raises(AnsibleFilterError) as caught:
        call()
    assert str(caught.value).startswith(message), (name, str(caught.value))
