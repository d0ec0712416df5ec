# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet's feature gates per version: the tables, their dependencies and the version each config names."""

from __future__ import annotations

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._feature_gate_table import (
    FEATURE_GATES,
    GATE_DEPENDENCIES_V1_36,
    GateSpec,
    gate_table,
    kubelet_minor,
)


@pytest.mark.parametrize(
    "version, name, spec",
    [
        # As the real kubelets list or report them (kubelet --help, 'setting GA feature gate', 'feature is locked to').
        ("1.36", "KubeletCrashLoopBackOffMax", GateSpec("Beta", True, False)),
        ("1.36", "MemoryQoS", GateSpec("Alpha", False, False)),
        ("1.36", "NodeSwap", GateSpec("GA", True, True)),
        ("1.36", "CustomCPUCFSQuotaPeriod", GateSpec("GA", True, False)),
        ("1.36", "AllowOverwriteTerminationGracePeriodSeconds", GateSpec("Deprecated", False, True)),
        ("1.36", "AllBeta", GateSpec("Beta", False, False)),
        ("1.36", "LoggingBetaOptions", GateSpec("Beta", True, False)),
        ("1.33", "MemoryManager", GateSpec("GA", True, True)),
        ("1.33", "KubeletCrashLoopBackOffMax", GateSpec("Alpha", False, False)),
        ("1.31", "CPUManager", GateSpec("GA", True, True)),
    ],
)
def test_table_entries(version, name, spec):
    assert FEATURE_GATES[version][name] == spec


def test_removed_and_openshift_gates_are_unknown_to_v1_36():
    table = gate_table()
    for name in ("MemoryManager", "CPUManager", "TopologyManager", "RouteExternalCertificate", "MinimumKubeletVersion"):
        assert name not in table


def test_dependencies_name_known_gates():
    table = gate_table("1.36")
    for feature, dependencies in GATE_DEPENDENCIES_V1_36.items():
        assert feature in table and all(dependency in table for dependency in dependencies), feature


@pytest.mark.parametrize(
    "text, minor",
    [(None, "1.36"), ("1.33", "1.33"), ("v1.31.14", "1.31"), ("1.33.13+rke2r1", "1.33"), ("v1.36.2+k3s1", "1.36"), ("latest", None), ("1", None)],
)
def test_kubelet_minor(text, minor):
    assert kubelet_minor(text) == minor
