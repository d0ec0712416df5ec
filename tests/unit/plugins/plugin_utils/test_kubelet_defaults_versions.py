# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Each checked kubelet's own defaulting (1.31, 1.33, 1.36), and a v1.36-defaulted config read as an older one."""

from __future__ import annotations

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._kubelet_defaults import apply_defaults, set_defaults
from ansible_collections.numa.kubelet.plugins.plugin_utils._kubelet_defaults_versions import as_defaulted_for
from ansible_collections.numa.kubelet.plugins.plugin_utils._kubelet_field_table import FIELDS_UNKNOWN_TO

ONLY_V1_36 = {
    "memoryReservationPolicy": "None",
    "imagePullCredentialsVerificationPolicy": "NeverVerifyPreloadedImages",
    "crashLoopBackOff": {"maxContainerRestartPeriod": "5m0s"},
}


def test_v1_36_defaults_what_older_kubelets_do_not():
    newest, v1_33, v1_31 = set_defaults({}), set_defaults({}, "1.33"), set_defaults({}, "1.31")
    assert {name: newest[name] for name in ONLY_V1_36} == ONLY_V1_36
    assert not set(ONLY_V1_36) & set(v1_33)
    assert v1_33["mergeDefaultEvictionSettings"] is False and "mergeDefaultEvictionSettings" not in v1_31
    assert (newest["failCgroupV1"], v1_33["failCgroupV1"], v1_31["failCgroupV1"]) == (True, False, False)
    # Everything else is the same defaulting.
    shared = set(newest) - set(ONLY_V1_36) - {"failCgroupV1", "mergeDefaultEvictionSettings"}
    assert {name: v1_31[name] for name in shared} == {name: newest[name] for name in shared}


@pytest.mark.parametrize("version", ["1.31", "1.33", "1.36"])
def test_no_version_defaults_a_field_it_does_not_know(version):
    assert not set(set_defaults({}, version)) & FIELDS_UNKNOWN_TO[version]


def test_a_v1_33_kubelet_with_the_gates_on_defaults_their_fields():
    gates = {"KubeletCrashLoopBackOffMax": True, "KubeletEnsureSecretPulledImages": True}
    result = set_defaults({"featureGates": gates}, "1.33")
    assert result["crashLoopBackOff"] == {"maxContainerRestartPeriod": "5m0s"}
    assert result["imagePullCredentialsVerificationPolicy"] == "NeverVerifyPreloadedImages"


def test_v1_31_ignores_merge_default_eviction_settings():
    config = {"evictionHard": {"nodefs.available": "10%"}, "mergeDefaultEvictionSettings": True}
    assert apply_defaults(config, "1.31")["evictionHard"] == {"nodefs.available": "10%"}
    assert apply_defaults(config, "1.33")["evictionHard"]["memory.available"] == "100Mi"


@pytest.mark.parametrize("version", ["1.31", "1.33"])
def test_a_v1_36_effective_config_read_as_an_older_kubelet_is_that_kubelet_s(version):
    assert as_defaulted_for(apply_defaults({}), None, version) == apply_defaults({}, version)


def test_only_values_equal_to_the_other_version_s_defaults_are_read_as_defaults():
    written = dict(apply_defaults({}), imagePullCredentialsVerificationPolicy="AlwaysVerify", failCgroupV1=False)
    result = as_defaulted_for(written, "1.36", "1.33")
    assert result["imagePullCredentialsVerificationPolicy"] == "AlwaysVerify"
    assert result["failCgroupV1"] is False and "memoryReservationPolicy" not in result and "crashLoopBackOff" not in result
    assert as_defaulted_for(written, "1.33", "v1.33.4") is written
