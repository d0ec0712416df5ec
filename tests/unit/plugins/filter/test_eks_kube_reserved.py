# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""eks_kube_reserved: the kubeReserved EKS nodeadm (AL2023) computes for a node (its errors: test_filter.py)."""

from __future__ import annotations

from ansible_collections.numa.kubelet.plugins.filter.eks_kube_reserved import FilterModule

eks_kube_reserved = FilterModule().filters()["eks_kube_reserved"]


def test_eks_kube_reserved():
    assert eks_kube_reserved("p4d.24xlarge", vcpus=96) == {"cpu": "310m", "ephemeral-storage": "1Gi", "memory": "8362Mi"}
    assert eks_kube_reserved(None, max_pods=29, vcpus=2) == {"cpu": "70m", "ephemeral-storage": "1Gi", "memory": "574Mi"}
