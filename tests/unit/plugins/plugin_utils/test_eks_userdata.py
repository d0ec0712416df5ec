# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every node class checked, then rendered by its AMI family's module; all problems at once (_eks_userdata)."""

from __future__ import annotations

import copy

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._eks_userdata import render_node_classes
from ansible_collections.numa.kubelet.tests.unit.plugins.plugin_utils.eks_node_classes import STATIC, karpenter_class, node_class, problems_of


def test_same_input_same_bytes_and_input_untouched():
    classes = [node_class(), node_class(name="al2", ami_family="AL2", intent=dict(STATIC, evictionHard={"memory.available": "300Mi"}))]
    before = copy.deepcopy(classes)
    first = render_node_classes(classes, header="Ansible managed")
    assert render_node_classes(copy.deepcopy(classes), header="Ansible managed") == first
    assert classes == before


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


IMAGE_POLICY_REFUSED = (
    "imagePullCredentialsVerificationPolicy: invalid configuration: `imagePullCredentialsVerificationPolicy` must not be set if "
    "KubeletEnsureSecretPulledImages feature gate is not enabled"
)


def test_a_value_equal_to_a_newer_kubelets_default_is_refused_by_the_classes_kubelet():
    intent = dict(STATIC, imagePullCredentialsVerificationPolicy="NeverVerifyPreloadedImages")
    assert problems_of([node_class(intent=intent, kubelet_version="1.33")]) == [f"node_classes[0] (m5): {IMAGE_POLICY_REFUSED}"]
    accepted = render_node_classes([node_class(intent=intent, kubelet_version="1.36")])["classes"]["m5"]["kubelet_config"]
    assert accepted["imagePullCredentialsVerificationPolicy"] == "NeverVerifyPreloadedImages"
