# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The eks_al2_kubelet_extra_args filter: a thin wrapper with the engine's messages."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.numa.kubelet.plugins.filter.eks_al2_kubelet_extra_args import FilterModule as Al2Filters
from ansible_collections.numa.kubelet.tests.unit.plugins.filter.test_eks_userdata import M5

eks_al2_kubelet_extra_args = Al2Filters().filters()["eks_al2_kubelet_extra_args"]


def test_eks_al2_kubelet_extra_args():
    assert eks_al2_kubelet_extra_args(M5) == "--memory-manager-policy=Static --topology-manager-policy=single-numa-node --reserved-memory=0:memory=674Mi"


@pytest.mark.parametrize(
    "name, call, message",
    [
        (
            "eks_al2_kubelet_extra_args",
            lambda: eks_al2_kubelet_extra_args(dict(M5, instance_type=None, max_pods=-3)),
            "eks_al2_kubelet_extra_args: node_classes[0] (m5): max_pods must be a positive integer",
        ),
        ("eks_al2_kubelet_extra_args", lambda: eks_al2_kubelet_extra_args("m5"), "eks_al2_kubelet_extra_args: node class: 'm5' must be a mapping"),
    ],
)
def test_errors_name_the_filter_and_the_problem(name, call, message):
    with pytest.raises(AnsibleFilterError) as caught:
        call()
    assert str(caught.value).startswith(message), (name, str(caught.value))
