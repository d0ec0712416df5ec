# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""nodeadm's base config enables DynamicResourceAllocation only for a kubelet >= v1.33 (withVersionToggles)."""

from __future__ import annotations

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._platform_nodeadm import nodeadm_base_feature_gates
from ansible_collections.numa.kubelet.tests.unit.plugins.plugin_utils.test_plan_nodeadm import plan


@pytest.mark.parametrize(("version", "dra"), [("1.31", False), ("v1.32.9-eks-1", False), ("1.33", True), ("v1.33.0", True), ("1.36", True), (None, True)])
def test_dynamic_resource_allocation_from_v1_33_on(version, dra):
    gates = nodeadm_base_feature_gates(version)
    assert gates.pop("DynamicResourceAllocation", False) is dra
    assert gates == {"RotateKubeletServerCertificate": True}


@pytest.mark.parametrize(("version", "dra"), [("1.32", False), ("1.33", True)])
def test_the_base_config_the_plan_builds_follows_the_kubelet_version(version, dra):
    planned = plan({}, kubelet_numa_instance_type="m5.large", kubelet_numa_kubelet_version=version)
    gates = planned["kubelet_inputs"]["config"]["content"]["featureGates"]
    assert ("DynamicResourceAllocation" in gates) is dra
