# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Node classes for the tests of the EKS modules (_eks_userdata and the AMI families' modules), and the nodeadm tier."""

from __future__ import annotations

import base64
import copy

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._eks_userdata import EksUserDataError, render_node_classes

TWO_NODES = {
    "numa_nodes": [{"id": 0, "memory_bytes": 8 << 30, "cpus": [0, 1]}, {"id": 1, "memory_bytes": 8 << 30, "cpus": [2, 3]}],
    "numa_memory_capacity_bytes": 16 << 30,
}
STATIC = {"memoryManagerPolicy": "Static", "topologyManagerPolicy": "single-numa-node"}
# base64 of a PEM certificate, as nodeadm wants certificateAuthority (the body is not a real certificate: nothing here dials).
CA = base64.b64encode(b"-----BEGIN CERTIFICATE-----\nTUlJQm51bWEta3ViZWxldA==\n-----END CERTIFICATE-----\n").decode()
CLUSTER = {"name": "my-cluster", "apiServerEndpoint": "https://example.com", "certificateAuthority": CA, "cidr": "10.100.0.0/16"}
KARPENTER_SPEC = {
    "role": "KarpenterNodeRole",
    "amiSelectorTerms": [{"alias": "al2023@latest"}],
    "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "my-cluster"}}],
    "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "my-cluster"}}],
}


def node_class(**overrides):
    """A launch-template class (its user data carries the whole cluster); AL2 takes the cluster as bootstrap.sh arguments."""
    base = {"name": "m5", "instance_type": "m5.large", "topology": copy.deepcopy(TWO_NODES), "intent": dict(STATIC)}
    if overrides.get("ami_family") != "AL2":
        base["cluster"] = dict(CLUSTER)
    return dict(base, **overrides)


def karpenter_class(kubelet=None, spec=None, **overrides):
    """A Karpenter class: Karpenter's own NodeConfig supplies the cluster."""
    karpenter = {"spec": copy.deepcopy(KARPENTER_SPEC) if spec is None else spec}
    if kubelet is not None:
        karpenter["kubelet"] = kubelet
    return {key: value for key, value in dict(node_class(karpenter=karpenter), **overrides).items() if key != "cluster"}


def problems_of(classes):
    with pytest.raises(EksUserDataError) as caught:
        render_node_classes(classes)
    return caught.value.problems
