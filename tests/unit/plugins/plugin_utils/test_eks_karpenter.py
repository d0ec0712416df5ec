# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Karpenter classes: the EC2NodeClass around the user data, its spec.kubelet and what its CRD refuses (_eks_karpenter)."""

from __future__ import annotations

import pytest
import yaml

from ansible_collections.numa.kubelet.plugins.plugin_utils._allocatable import memory_reservation
from ansible_collections.numa.kubelet.plugins.plugin_utils._effective import effective_kubelet_config, merge_patch
from ansible_collections.numa.kubelet.plugins.plugin_utils._eks_al2023 import nodeconfig_parts
from ansible_collections.numa.kubelet.plugins.plugin_utils._eks_userdata import render_node_classes
from ansible_collections.numa.kubelet.plugins.plugin_utils._quantity import Quantity
from ansible_collections.numa.kubelet.tests.unit.plugins.plugin_utils.eks_node_classes import KARPENTER_SPEC, STATIC, karpenter_class, node_class, problems_of


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


@pytest.mark.parametrize(
    "overrides, phrase",
    [
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
    ],
)
def test_refused_with_one_clear_message(overrides, phrase):
    problems = problems_of([node_class(**overrides)])
    assert any(phrase in problem for problem in problems), problems
