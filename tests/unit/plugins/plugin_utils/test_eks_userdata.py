# -*- coding: utf-8 -*-
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""EKS node classes to user data, EC2NodeClasses and AL2 kubelet extra args (_eks_userdata)."""

from __future__ import annotations

import base64
import copy
import shlex

import pytest
import yaml

from ansible_collections.numa.kubelet.plugins.plugin_utils._allocatable import memory_reservation
from ansible_collections.numa.kubelet.plugins.plugin_utils._effective import effective_kubelet_config, merge_patch
from ansible_collections.numa.kubelet.plugins.plugin_utils._eks_userdata import (
    EksUserDataError,
    al2_kubelet_extra_args,
    nodeconfig_parts,
    render_node_classes,
)
from ansible_collections.numa.kubelet.plugins.plugin_utils._quantity import Quantity
from ansible_collections.numa.kubelet.plugins.plugin_utils._validation import check_kubelet_config

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
""" + "".join("    %s\n" % line if line else "\n" for line in M5_USER_DATA.splitlines())


def test_exact_bytes_of_a_class():
    rendered = render_node_classes([karpenter_class()], header="Ansible managed")
    assert rendered["files"] == {"m5.ec2nodeclass.yaml": M5_EC2NODECLASS, "m5.user-data.mime": M5_USER_DATA}
    assert yaml.safe_load(M5_EC2NODECLASS)["spec"]["userData"] == M5_USER_DATA


def test_same_input_same_bytes_and_input_untouched():
    classes = [node_class(), node_class(name="al2", ami_family="AL2", intent=dict(STATIC, evictionHard={"memory.available": "300Mi"}))]
    before = copy.deepcopy(classes)
    first = render_node_classes(classes, header="Ansible managed")
    assert render_node_classes(copy.deepcopy(classes), header="Ansible managed") == first
    assert classes == before


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


def _sum(reserved):
    total = Quantity.from_int(0, "DecimalSI")
    for item in reserved:
        total = total + Quantity.parse(item["limits"]["memory"])
    return total


@pytest.mark.parametrize(
    "karpenter_kubelet, intent_extra, expected",
    [
        ({}, {}, "674Mi"),
        ({}, {"kubeReserved": {"memory": "8500Mi"}}, "8600Mi"),
        # Karpenter's NodeConfig comes last: its reservations are what the kubelet sums.
        ({"kubeReserved": {"memory": "1Gi"}, "systemReserved": {"memory": "512Mi"}}, {}, "1636Mi"),
        ({"evictionHard": {"memory.available": "300Mi"}}, {"systemReserved": {"memory": "1Gi"}}, "1898Mi"),
        # key by key: the intent's memory and Karpenter's cpu both stay
        ({"kubeReserved": {"cpu": "300m"}}, {"kubeReserved": {"memory": "2Gi"}}, "2148Mi"),
    ],
)
def test_the_reservation_is_what_wins_after_karpenters_merge(karpenter_kubelet, intent_extra, expected):
    rendered = render_node_classes([karpenter_class(kubelet=karpenter_kubelet or None, intent=dict(STATIC, **intent_extra))])
    details = rendered["classes"]["m5"]
    assert details["reservation"] == expected
    assert _sum(details["reserved_memory"]) == Quantity.parse(expected)
    # The same by hand: the user data part, then Karpenter's spec.kubelet, over nodeadm's base.
    user_data = nodeconfig_parts(rendered["files"]["m5.user-data.mime"])[0]["spec"]["kubelet"]["config"]
    merged = merge_patch(user_data, karpenter_kubelet)
    effective = effective_kubelet_config(details["kubelet_inputs"]["config"]["content"], [merged])
    assert memory_reservation(effective).total == Quantity.parse(expected)
    # Karpenter is told the node's reservation (its overhead is kubeReserved + systemReserved + evictionHard memory).
    spec_kubelet = yaml.safe_load(rendered["files"]["m5.ec2nodeclass.yaml"])["spec"]["kubelet"]
    assert merge_patch(spec_kubelet, karpenter_kubelet) == spec_kubelet
    overhead = [
        spec_kubelet.get(field, {}).get(key) for field, key in (("kubeReserved", "memory"), ("systemReserved", "memory"), ("evictionHard", "memory.available"))
    ]
    assert sum((Quantity.parse(value) for value in overhead if value), Quantity.from_int(0, "DecimalSI")) == Quantity.parse(expected)
    assert details["karpenter_kubelet"] == spec_kubelet


def test_cluster_details_go_into_the_nodeconfig_and_no_ec2nodeclass_without_karpenter():
    rendered = render_node_classes([node_class()])
    assert nodeconfig_parts(rendered["files"]["m5.user-data.mime"])[0]["spec"]["cluster"] == CLUSTER
    assert list(rendered["files"]) == ["m5.user-data.mime"]
    assert rendered["classes"]["m5"]["launch"] == "launch template"


def test_pinned_kube_reserved_reaches_karpenter():
    """p4d.24xlarge with kubeReserved pinned to 8500Mi: Karpenter's own formula would give 11*737+255 = 8362Mi (+100Mi
    eviction = 8462Mi) while the node reserves 8600Mi; spec.kubelet carries the node's values so both say 8600Mi."""
    p4d = {
        "numa_nodes": [{"id": 0, "memory_bytes": 554 << 30, "cpus": list(range(48))}, {"id": 1, "memory_bytes": 554 << 30, "cpus": list(range(48, 96))}],
        "numa_memory_capacity_bytes": 1108 << 30,
    }
    rendered = render_node_classes(
        [karpenter_class(name="p4d", instance_type="p4d.24xlarge", topology=p4d, intent=dict(STATIC, kubeReserved={"memory": "8500Mi"}))]
    )
    assert rendered["classes"]["p4d"]["reservation"] == "8600Mi"
    assert yaml.safe_load(rendered["files"]["p4d.ec2nodeclass.yaml"])["spec"]["kubelet"] == {
        "kubeReserved": {"memory": "8500Mi"},
        "evictionHard": {"memory.available": "100Mi"},
    }


def test_another_part_may_supply_the_cluster():
    rendered = render_node_classes([node_class(cluster=None, cluster_in_another_part=True)])
    assert "cluster" not in nodeconfig_parts(rendered["files"]["m5.user-data.mime"])[0]["spec"]


# ------------------------------------------------------------------------------------------------ AL2
def test_al2_extra_args_carry_bootstrap_sh_keys_and_escape_percent():
    intent = dict(STATIC, kubeReserved={"memory": "1Gi"}, evictionHard={"memory.available": "300Mi"})
    rendered = render_node_classes([node_class(ami_family="AL2", intent=intent)])
    details = rendered["classes"]["m5"]
    # bootstrap.sh's cpu/ephemeral-storage and nodefs thresholds survive the map flags; 1Gi + 300Mi = 1324Mi = 662Mi x 2.
    assert details["flags"] == [
        "--memory-manager-policy=Static",
        "--topology-manager-policy=single-numa-node",
        "--kube-reserved=cpu=80m,ephemeral-storage=1Gi,memory=1Gi",
        "--eviction-hard=memory.available<300Mi,nodefs.available<10%,nodefs.inodesFree<5%",
        "--reserved-memory=0:memory=662Mi;1:memory=662Mi",
    ]
    assert details["kubelet_extra_args"] == " ".join(details["flags"]).replace("%", "%%")
    assert rendered["files"]["m5.kubelet-extra-args.sh"] == "KUBELET_EXTRA_ARGS=%s\n" % shlex.quote(details["kubelet_extra_args"])
    assert shlex.split(details["bootstrap_args"]) == ["--kubelet-extra-args", details["kubelet_extra_args"]]
    # what systemd hands the kubelet, over bootstrap.sh's kubelet-config.json
    words = details["kubelet_extra_args"].replace("%%", "%").split()
    effective = effective_kubelet_config(details["base_config"], [], words)
    assert effective == details["kubelet_config"] and check_kubelet_config(effective, [0, 1]).errors == []
    assert effective["kubeReserved"] == {"cpu": "80m", "ephemeral-storage": "1Gi", "memory": "1Gi"}


def test_al2_formula_and_filter_entry_point():
    # bootstrap.sh: kubeReserved 574Mi (maxPods 29) + evictionHard 100Mi, no systemReserved.
    assert al2_kubelet_extra_args(node_class(ami_family="AL2")) == (
        "--memory-manager-policy=Static --topology-manager-policy=single-numa-node --reserved-memory=0:memory=337Mi;1:memory=337Mi"
    )
    assert al2_kubelet_extra_args(node_class(ami_family="AL2", instance_type=None, max_pods=110, split="first")).endswith(
        "--reserved-memory=0:memory=1565Mi"
    )  # 11*110+255 = 1465Mi, + 100Mi


# ------------------------------------------------------------------------------------------------ refused
def test_every_problem_of_every_class_at_once():
    problems = problems_of(
        [
            node_class(name="a", instance_type="m9.huge"),
            node_class(name="b", instance_type=None, max_pods=0),
            node_class(name="c", instance_type=None, max_pods="29"),
            node_class(name="d", split="halves"),
            node_class(name="e", split={0: "1Gi", 1: "1Gi"}),
            karpenter_class(name="f", intent=dict(STATIC, kubeReserved={"memory": "8500Mi"}), kubelet={"kubeReserved": {"memory": "8Gi"}}),
            node_class(name="a"),
        ]
    )
    text = "\n".join(problems)
    assert "node_classes[0] (a): unknown EC2 instance type 'm9.huge': not in the EKS max-pods table (source awslabs/amazon-eks-ami" in text
    assert "node_classes[1] (b): max_pods must be a positive integer (the node's maxPods), got 0" in text
    assert "node_classes[2] (c): max_pods must be an integer (the node's maxPods), got '29' (str)" in text
    assert "node_classes[3] (d): split 'halves' is not one of even, first, proportional" in text
    assert "node_classes[4] (e): split: the explicit shares {0: '1Gi', 1: '1Gi'} sum to 2Gi, but the reservation is" in text
    assert (
        "node_classes[5] (f): intent.kubeReserved.memory is 8500Mi but karpenter.kubelet.kubeReserved.memory is 8Gi; "
        "Karpenter's NodeConfig is merged last and wins"
    ) in text
    assert "node_classes[6] (a): name 'a' is used by another node class" in text
    assert len(problems) == 7, problems


@pytest.mark.parametrize(
    "overrides, phrase",
    [
        ({"instance_type": "m5.large", "max_pods": 29}, "give instance_type (maxPods from the EKS table) or max_pods"),
        ({"instance_type": None}, "instance_type or max_pods is required"),
        ({"name": "Bad_Name"}, "name 'Bad_Name' must be a lower-case DNS label"),
        ({"intent": {}}, "intent {} must be a non-empty KubeletConfiguration fragment"),
        ({"intent": dict(STATIC, reservedMemory=[])}, "intent.reservedMemory is computed by the collection"),
        ({"intent": dict(STATIC, memoryManagerPolicy="static")}, 'memoryManagerPolicy: unknown policy: "static"'),
        (
            {"intent": dict(STATIC, maxPods=50), "karpenter": {"spec": KARPENTER_SPEC}, "cluster": None},
            "Karpenter's own NodeConfig, merged after the user data, always sets maxPods",
        ),
        (
            {"karpenter": {"kubelet": {"reservedMemory": []}, "spec": KARPENTER_SPEC}, "cluster": None},
            "EC2NodeClass spec.kubelet (karpenter.k8s.aws/v1) has no such field",
        ),
        ({"karpenter": {"spec": dict(KARPENTER_SPEC, userData="x")}, "cluster": None}, "karpenter.spec.userData: rendered by numa.kubelet"),
        ({"karpenter": {"spec": dict(KARPENTER_SPEC, amiSelectorTerms=[{"alias": "al2@latest"}])}, "cluster": None}, "read only by AL2023 (nodeadm)"),
        (
            {"karpenter": {"kubelet": {"evictionHard": {"memory.available": "5%"}}, "spec": KARPENTER_SPEC}, "cluster": None},
            "evictionHard memory.available is 5%: a percentage",
        ),
        ({"ami_family": "AL2", "karpenter": {"spec": {}}, "cluster": None}, "karpenter: only for ami_family AL2023"),
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
        # What the EC2NodeClass CRD refuses.
        ({"karpenter": {"spec": dict(KARPENTER_SPEC, instanceProfile="p")}, "cluster": None}, "give exactly one of role and instanceProfile"),
        ({"karpenter": {"spec": {k: v for k, v in KARPENTER_SPEC.items() if k != "role"}}, "cluster": None}, "it has neither"),
        (
            {"karpenter": {"spec": {k: v for k, v in KARPENTER_SPEC.items() if k != "subnetSelectorTerms"}}, "cluster": None},
            "karpenter.spec.subnetSelectorTerms: None must be a non-empty list of selector terms",
        ),
        (
            {"karpenter": {"spec": dict(KARPENTER_SPEC, securityGroupSelectorTerms=[])}, "cluster": None},
            "karpenter.spec.securityGroupSelectorTerms: [] must be a non-empty list",
        ),
        ({"karpenter": {"spec": dict(KARPENTER_SPEC, amiSelectorTerms=[{"id": "ami-1"}])}, "cluster": None}, "so amiFamily is required"),
        ({"ami_family": "Bottlerocket"}, "ami_family 'Bottlerocket' is not one of AL2023, AL2"),
        ({"topology": None}, "topology None must be {numa_nodes"),
        ({"ami_family": "AL2", "intent": dict(STATIC, systemReserved={"memory": "1 Gi"})}, "cannot be written in a kubelet flag"),
        ({"intent": dict(STATIC, kubeReserved={"memory": "20Gi"}), "split": "first"}, "reservedMemory for NUMA node 0 is 20580Mi but that node has only 8Gi"),
    ],
)
def test_refused_with_one_clear_message(overrides, phrase):
    problems = problems_of([node_class(**overrides)])
    assert any(phrase in problem for problem in problems), problems


def test_not_a_list():
    assert problems_of({"name": "m5"}) == ["node_classes: {'name': 'm5'} must be a non-empty list of node classes"]


@pytest.mark.parametrize("family", ["AL2023", "AL2"])
def test_the_classes_kubelet_version_chooses_the_rules(family):
    classes = render_node_classes([node_class(ami_family=family, kubelet_version="1.34"), node_class(name="m5-136", ami_family=family)])["classes"]
    version_warnings = {name: [w.split(" (")[0] for w in details["warnings"] if w.startswith("kubelet_version: ")] for name, details in classes.items()}
    assert version_warnings == {"m5": ["kubelet_version: 1.34 is checked with the rules of kubelet 1.33"], "m5-136": []}
    problems = problems_of([node_class(ami_family=family, kubelet_version=1.33)])
    assert [problem for problem in problems if "kubelet_version" in problem] == [
        'node_classes[0] (m5): kubelet_version: 1.33 is not a kubelet version such as "1.33" (a quoted string: YAML reads 1.30 as the number 1.3)'
    ]
