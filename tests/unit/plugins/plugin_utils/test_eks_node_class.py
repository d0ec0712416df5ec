# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What every node class is checked for whatever its AMI family (_eks_node_class)."""

from __future__ import annotations

import pytest

from ansible_collections.numa.kubelet.tests.unit.plugins.plugin_utils.eks_node_classes import STATIC, node_class, problems_of


@pytest.mark.parametrize(
    "overrides, phrase",
    [
        ({"instance_type": "m5.large", "max_pods": 29}, "give instance_type (maxPods from the EKS table) or max_pods"),
        ({"instance_type": None}, "instance_type or max_pods is required"),
        ({"name": "Bad_Name"}, "name 'Bad_Name' must be a lower-case DNS label"),
        ({"intent": {}}, "intent {} must be a non-empty KubeletConfiguration fragment"),
        ({"intent": dict(STATIC, reservedMemory=[])}, "intent.reservedMemory is computed by the collection"),
        ({"ami_family": "bottlerocket"}, "ami_family 'bottlerocket' is not one of AL2023, AL2, Bottlerocket"),
        ({"topology": None}, "topology None must be {numa_nodes"),
    ],
)
def test_refused_with_one_clear_message(overrides, phrase):
    problems = problems_of([node_class(**overrides)])
    assert any(phrase in problem for problem in problems), problems
