# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Spot checks of the KubeletConfiguration field catalogue (kubelet v1beta1 types.go)."""

from __future__ import annotations

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._kubelet_field_table import FIELD_TYPES, KUBELET_CONFIGURATION_FIELDS

# The number of json tags extracted from types.go at 001332b0422071acf4860769f18e34b5e9b7c1bc (126) plus apiVersion and kind.
FIELD_COUNT = 128


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
