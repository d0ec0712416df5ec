# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How a config's featureGates resolve (SetFromMap), with the kubelet's texts; the tables: test_feature_gate_table.py."""

from __future__ import annotations

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._feature_gates import (
    feature_gate_problems,
    feature_gate_warnings,
    gate_enabled,
    resolve_feature_gates,
)
from ansible_collections.numa.kubelet.plugins.plugin_utils._validation import check_kubelet_config

BASE = {
    "apiVersion": "kubelet.config.k8s.io/v1beta1",
    "kind": "KubeletConfiguration",
    "memoryManagerPolicy": "Static",
    "topologyManagerPolicy": "single-numa-node",
    "kubeReserved": {"memory": "512Mi"},
    "systemReserved": {"memory": "412Mi"},
    "reservedMemory": [{"numaNode": 0, "limits": {"memory": "1Gi"}}],
}


@pytest.mark.parametrize(
    "gates, name, enabled",
    [
        ({}, "KubeletCrashLoopBackOffMax", True),
        ({"AllBeta": False}, "KubeletCrashLoopBackOffMax", False),
        ({"AllBeta": False, "KubeletCrashLoopBackOffMax": True}, "KubeletCrashLoopBackOffMax", True),
        ({"AllAlpha": False}, "KubeletCrashLoopBackOffMax", True),  # AllAlpha leaves beta gates alone
        ({"AllAlpha": True}, "MemoryQoS", True),
        ({"AllAlpha": True, "MemoryQoS": False}, "MemoryQoS", False),
        ({"AllBeta": False}, "NodeSwap", True),  # GA gates ignore AllBeta
        ({"NodeSwap": False}, "NodeSwap", True),  # locked: the kubelet refuses the value, the gate stays on
        ({"MemoryQoS": "true"}, "MemoryQoS", False),  # not a bool: a decoding error elsewhere, unset here
        ({}, "NoSuchGate", False),
    ],
)
def test_gate_enabled_resolves_as_set_from_map(gates, name, enabled):
    assert gate_enabled(gates, name) is enabled


def test_locked_gate_has_the_kubelets_text():
    assert feature_gate_problems({"featureGates": {"NodeSwap": False}}) == [
        (
            "featureGates.NodeSwap: cannot set feature gate NodeSwap to false, feature is locked to true; the kubelet stops at start "
            "(v1.36 panics while defaulting its config)"
        )
    ]
    assert feature_gate_problems({"featureGates": {"GitRepoVolumeDriver": True}}) == [
        (
            "featureGates.GitRepoVolumeDriver: cannot set feature gate GitRepoVolumeDriver to true, feature is locked to false; the kubelet stops at "
            "start (v1.36 panics while defaulting its config)"
        )
    ]
    # Setting a locked gate to its own value is accepted.
    assert feature_gate_problems({"featureGates": {"NodeSwap": True}}) == []


def test_locked_gate_of_an_older_kubelet():
    assert feature_gate_problems({"featureGates": {"CPUManager": False}}, "1.31") == [
        "featureGates.CPUManager: cannot set feature gate CPUManager to false, feature is locked to true; the kubelet stops at start (v1.31 refuses it)"
    ]
    assert feature_gate_problems({"featureGates": {"CPUManager": False}}, "1.36") == [
        "featureGates.CPUManager: unrecognized feature gate: CPUManager (not a gate of kubelet v1.36)"
    ]


def test_unknown_gate_is_refused_for_v1_36_with_a_suggestion():
    assert feature_gate_problems({"featureGates": {"MemoryQos": True}}) == [
        'featureGates.MemoryQos: unrecognized feature gate: MemoryQos (not a gate of kubelet v1.36); did you mean "MemoryQoS"?'
    ]


def test_unknown_gate_of_an_older_kubelet_is_a_warning():
    config = {"featureGates": {"PodLevelResourceManagers": True}}
    assert feature_gate_problems(config, "1.31") == []
    assert feature_gate_warnings(config, "1.31") == [
        (
            "featureGates.PodLevelResourceManagers: not in the collection's table of kubelet v1.31 gates, so it cannot be checked for that "
            "version; a kubelet refuses a gate it does not know (unrecognized feature gate: PodLevelResourceManagers)"
        )
    ]


def test_version_without_a_table_is_a_warning():
    assert feature_gate_warnings({"featureGates": {"MemoryQoS": True}}, "1.34") == [
        "featureGates: the collection has no feature-gate table for kubelet 1.34 (it knows 1.31, 1.33, 1.36); these gates are not checked"
    ]
    assert feature_gate_warnings({}, "1.34") == []


def test_dependency_on_a_disabled_gate():
    # The v1.36.2 kubelet's panic names both (in map order): [WindowsGracefulNodeShutdown is enabled, but depends on features that
    # are disabled: [GracefulNodeShutdown], GracefulNodeShutdownBasedOnPodPriority is enabled, ...].
    assert sorted(feature_gate_problems({"featureGates": {"GracefulNodeShutdown": False}})) == [
        "featureGates: GracefulNodeShutdownBasedOnPodPriority is enabled, but depends on features that are disabled: [GracefulNodeShutdown]",
        "featureGates: WindowsGracefulNodeShutdown is enabled, but depends on features that are disabled: [GracefulNodeShutdown]",
    ]
    # Only the disabled dependencies are named.
    assert feature_gate_problems({"featureGates": {"PodLevelResources": False}}) == [
        "featureGates: InPlacePodLevelResourcesVerticalScaling is enabled, but depends on features that are disabled: [PodLevelResources]"
    ]
    off = {"GracefulNodeShutdown": False, "GracefulNodeShutdownBasedOnPodPriority": False, "WindowsGracefulNodeShutdown": False}
    assert feature_gate_problems({"featureGates": off}) == []
    # kubelets before v1.35 have no dependencies.
    assert feature_gate_problems({"featureGates": {"GracefulNodeShutdown": False}}, "1.33") == []


def test_dependencies_are_checked_only_when_every_gate_was_set():
    problems = resolve_feature_gates({"GracefulNodeShutdown": False, "NodeSwap": False}).errors
    assert len(problems) == 1 and "locked to true" in problems[0]


def test_all_alpha_and_all_beta_are_accepted():
    for gates in ({"AllAlpha": True}, {"AllBeta": False}, {"AllAlpha": True, "AllBeta": True}):
        assert feature_gate_problems({"featureGates": gates}) == [], gates


def test_check_kubelet_config_reports_gates_and_takes_the_version():
    report = check_kubelet_config(dict(BASE, featureGates={"MemoryManager": False}), [0, 1])
    assert report.errors == ["featureGates.MemoryManager: unrecognized feature gate: MemoryManager (not a gate of kubelet v1.36)"]
    report = check_kubelet_config(dict(BASE, featureGates={"MemoryManager": False}), [0, 1], kubelet_version="1.33")
    assert report.errors == [
        (
            "featureGates.MemoryManager: cannot set feature gate MemoryManager to false, feature is locked to true; the kubelet stops at start "
            "(v1.33 panics while defaulting its config)"
        )
    ]
