# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Spot checks of the KubeletConfiguration field catalogue and the flag forms (kubelet v1beta1 types.go, options.go)."""

from __future__ import annotations

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._kubelet_fields import (
    FIELD_TYPES,
    FLAG_FORMS,
    KUBELET_CONFIGURATION_FIELDS,
    field_type_problems,
    go_duration_error,
)

# The number of json tags extracted from types.go at 001332b0422071acf4860769f18e34b5e9b7c1bc (126) plus apiVersion and kind.
FIELD_COUNT = 128
VALUE_KINDS = {"scalar", "map_comma_equals", "map_comma_lt", "map_repeat_equals", "reserved_memory", "feature_gates", "list_comma"}


def test_field_count():
    assert len(KUBELET_CONFIGURATION_FIELDS) == FIELD_COUNT
    assert isinstance(KUBELET_CONFIGURATION_FIELDS, frozenset)


@pytest.mark.parametrize(
    "field",
    [
        "apiVersion",
        "kind",
        "reservedMemory",
        "memoryManagerPolicy",
        "evictionHard",
        "mergeDefaultEvictionSettings",
        "kubeReserved",
        "systemReserved",
        "reservedSystemCPUs",
        "topologyManagerPolicyOptions",
        "cpuManagerPolicyOptions",
        "resolvConf",
        "memoryReservationPolicy",
        "tlsCurvePreferences",
        "containerRuntimeEndpoint",
        "userNamespaces",
    ],
)
def test_present(field):
    assert field in KUBELET_CONFIGURATION_FIELDS


@pytest.mark.parametrize(
    "name",
    [
        "reservedMemroy",  # the misspelling the kubelet silently ignores (docs/kubelet-facts.md section 1)
        "ReservedMemory",  # the Go field name, not the json tag
        "resolverConfig",  # Go field ResolverConfig, json tag resolvConf
        "numaNode",
        "limits",  # MemoryReservation's fields, not top-level
        "swapBehavior",  # MemorySwapConfiguration's field
        "TypeMeta",
        "metadata",
    ],
)
def test_absent(name):
    assert name not in KUBELET_CONFIGURATION_FIELDS


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


def test_the_type_table_covers_every_field_and_only_known_kinds():
    assert set(FIELD_TYPES) == KUBELET_CONFIGURATION_FIELDS and len(FIELD_TYPES) == 128
    assert set(FIELD_TYPES.values()) <= {
        "string",
        "bool",
        "int32",
        "int64",
        "float64",
        "duration",
        "quantities",
        "[]string",
        "[]int32",
        "map[string]string",
        "map[string]bool",
        "map[string][]string",
        "object",
        "[]object",
    }


@pytest.mark.parametrize(
    "text, error",
    [
        ("10s", None),
        ("1m30s", None),
        ("0", None),
        ("-1.5h", None),
        ("300ms", None),
        ("1\u00b5s", None),
        ("1", 'time: missing unit in duration "1"'),
        ("", 'time: invalid duration ""'),
        ("abc", 'time: invalid duration "abc"'),
        ("1x", 'time: unknown unit "x" in duration "1x"'),
        (".s", 'time: invalid duration ".s"'),
    ],
)
def test_durations_as_go_parses_them(text, error):
    assert go_duration_error(text) == error


def test_a_field_the_kubelet_v1_36_does_not_decode_is_not_type_checked():
    # The kubelet v1.36.2 drops draManagerReconcilePeriod (lenient decoding) whatever its value.
    assert field_type_problems({"draManagerReconcilePeriod": "10"}) == []
    assert field_type_problems({"nodeStatusReportFrequency": 10}) != []
