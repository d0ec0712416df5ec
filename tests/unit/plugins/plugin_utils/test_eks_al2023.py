# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""AL2023 node classes: NodeConfig user data for nodeadm, and the cluster it carries (_eks_al2023)."""

from __future__ import annotations

import base64

import pytest
import yaml

from ansible_collections.numa.kubelet.plugins.plugin_utils._effective import effective_kubelet_config
from ansible_collections.numa.kubelet.plugins.plugin_utils._eks_al2023 import nodeconfig_parts
from ansible_collections.numa.kubelet.plugins.plugin_utils._eks_userdata import render_node_classes
from ansible_collections.numa.kubelet.plugins.plugin_utils._validation import check_kubelet_config
from ansible_collections.numa.kubelet.tests.unit.plugins.plugin_utils.eks_node_classes import (
    CA,
    CLUSTER,
    KARPENTER_SPEC,
    STATIC,
    karpenter_class,
    node_class,
    problems_of,
)

# m5.large: maxPods 29, kubeReserved 11*29+255 = 574Mi, + 100Mi eviction = 674Mi = 337Mi per NUMA node. Written by hand.
M5_USER_DATA = """MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="==NUMA-KUBELET-BOUNDARY=="

# Ansible managed

--==NUMA-KUBELET-BOUNDARY==
Content-Type: application/node.eks.aws

---
apiVersion: node.eks.aws/v1alpha1
kind: NodeConfig
spec:
  kubelet:
    config:
      memoryManagerPolicy: Static
      topologyManagerPolicy: single-numa-node
      reservedMemory:
      - numaNode: 0
        limits:
          memory: 337Mi
      - numaNode: 1
        limits:
          memory: 337Mi
--==NUMA-KUBELET-BOUNDARY==--
"""

M5_EC2NODECLASS = """# Ansible managed
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: m5
spec:
  role: KarpenterNodeRole
  amiSelectorTerms:
  - alias: al2023@latest
  subnetSelectorTerms:
  - tags:
      karpenter.sh/discovery: my-cluster
  securityGroupSelectorTerms:
  - tags:
      karpenter.sh/discovery: my-cluster
  kubelet:
    kubeReserved:
      memory: 574Mi
    evictionHard:
      memory.available: 100Mi
  userData: |
""" + "".join(f"    {line}\n" if line else "\n" for line in M5_USER_DATA.splitlines())


def test_exact_bytes_of_a_class():
    rendered = render_node_classes([karpenter_class()], header="Ansible managed")
    assert rendered["files"] == {"m5.ec2nodeclass.yaml": M5_EC2NODECLASS, "m5.user-data.mime": M5_USER_DATA}
    assert yaml.safe_load(M5_EC2NODECLASS)["spec"]["userData"] == M5_USER_DATA


def test_the_nodeconfig_part_parsed_back_is_the_plan():
    rendered = render_node_classes([node_class()])
    details = rendered["classes"]["m5"]
    parts = nodeconfig_parts(rendered["files"]["m5.user-data.mime"])
    assert parts == [details["nodeconfig"]]
    config = parts[0]["spec"]["kubelet"]["config"]
    assert config["reservedMemory"] == details["reserved_memory"] == details["kubelet_config"]["reservedMemory"]
    # nodeadm: base config.json (its formula) + the merged user data as drop-in; the kubelet accepts the result.
    base = details["kubelet_inputs"]["config"]["content"]
    assert base["kubeReserved"] == {"cpu": "80m", "ephemeral-storage": "1Gi", "memory": "574Mi"}
    effective = effective_kubelet_config(base, [dict(config, apiVersion="kubelet.config.k8s.io/v1beta1", kind="KubeletConfiguration")])
    assert effective == details["kubelet_config"]
    assert check_kubelet_config(effective, [0, 1]).errors == []


def test_cluster_details_go_into_the_nodeconfig_and_no_ec2nodeclass_without_karpenter():
    rendered = render_node_classes([node_class()])
    assert nodeconfig_parts(rendered["files"]["m5.user-data.mime"])[0]["spec"]["cluster"] == CLUSTER
    assert list(rendered["files"]) == ["m5.user-data.mime"]
    assert rendered["classes"]["m5"]["launch"] == "launch template"


def test_another_part_may_supply_the_cluster():
    rendered = render_node_classes([node_class(cluster=None, cluster_in_another_part=True)])
    assert "cluster" not in nodeconfig_parts(rendered["files"]["m5.user-data.mime"])[0]["spec"]


@pytest.mark.parametrize(
    "overrides, phrase",
    [
        ({"intent": dict(STATIC, memoryManagerPolicy="static")}, 'memoryManagerPolicy: unknown policy: "static"'),
        (
            {"karpenter": {"kubelet": {"evictionHard": {"memory.available": "5%"}}, "spec": KARPENTER_SPEC}, "cluster": None},
            "evictionHard memory.available is 5%: a percentage",
        ),
        # What nodeadm would drop, fail on, or skip the whole user data for.
        ({"cluster": dict(CLUSTER, apiserverEndpoint="https://x")}, "cluster.apiserverEndpoint: NodeConfig spec.cluster has no such field"),
        ({"cluster": dict(CLUSTER, certificateAuthority=base64.b64decode(CA).decode())}, "cluster.certificateAuthority is a PEM; nodeadm wants it base64"),
        ({"cluster": dict(CLUSTER, certificateAuthority="bm90IGEgUEVN")}, "cluster.certificateAuthority is base64, but not of a PEM certificate"),
        ({"cluster": dict(CLUSTER, certificateAuthority="not base64!")}, "cluster.certificateAuthority is not base64"),
        ({"cluster": None}, "cluster: required for a launch template without Karpenter"),
        ({"cluster": {"name": "my-cluster", "certificateAuthority": CA}}, "cluster: apiServerEndpoint, cidr missing; nodeadm refuses"),
        (
            {"cluster_in_another_part": True, "cluster": None, "karpenter": {"spec": KARPENTER_SPEC}},
            "cluster_in_another_part: only for a launch template without Karpenter",
        ),
        ({"intent": dict(STATIC, kubeReserved={"memory": "20Gi"}), "split": "first"}, "reservedMemory for NUMA node 0 is 20580Mi but that node has only 8Gi"),
    ],
)
def test_refused_with_one_clear_message(overrides, phrase):
    problems = problems_of([node_class(**overrides)])
    assert any(phrase in problem for problem in problems), problems
