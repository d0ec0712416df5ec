# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The flag forms of KubeletConfiguration fields (kubelet options.go) and the type checks of their values."""

from __future__ import annotations

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._kubelet_field_table import KUBELET_CONFIGURATION_FIELDS
from ansible_collections.numa.kubelet.plugins.plugin_utils._kubelet_fields import FLAG_FORMS, field_type_problems

VALUE_KINDS = {"scalar", "map_comma_equals", "map_comma_lt", "map_repeat_equals", "reserved_memory", "feature_gates", "list_comma"}


def test_flag_forms_cover_config_fields_only():
    assert set(FLAG_FORMS) <= KUBELET_CONFIGURATION_FIELDS
    assert {kind for _flag, kind in FLAG_FORMS.values()} <= VALUE_KINDS
    for flag, _kind in FLAG_FORMS.values():
        assert flag == flag.lower() and not flag.startswith("-")


def test_config_file_only_field_has_no_flag():
    assert "mergeDefaultEvictionSettings" not in FLAG_FORMS


@pytest.mark.parametrize(
    "field, form",
    [
        ("reservedMemory", ("reserved-memory", "reserved_memory")),
        ("evictionHard", ("eviction-hard", "map_comma_lt")),
        ("evictionSoft", ("eviction-soft", "map_comma_lt")),
        ("evictionSoftGracePeriod", ("eviction-soft-grace-period", "map_comma_equals")),
        ("kubeReserved", ("kube-reserved", "map_comma_equals")),
        ("reservedSystemCPUs", ("reserved-cpus", "scalar")),
        ("cpuManagerPolicyOptions", ("cpu-manager-policy-options", "map_repeat_equals")),
        ("topologyManagerPolicyOptions", ("topology-manager-policy-options", "map_repeat_equals")),
        ("featureGates", ("feature-gates", "feature_gates")),
        ("enforceNodeAllocatable", ("enforce-node-allocatable", "list_comma")),
    ],
)
def test_flag_form(field, form):
    assert FLAG_FORMS[field] == form


def test_a_field_the_kubelet_v1_36_does_not_decode_is_not_type_checked():
    # The kubelet v1.36.2 drops draManagerReconcilePeriod (lenient decoding) whatever its value.
    assert field_type_problems({"draManagerReconcilePeriod": "10"}) == []
    assert field_type_problems({"nodeStatusReportFrequency": 10}) != []
