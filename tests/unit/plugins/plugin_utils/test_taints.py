# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""registerWithTaints as the kubelet's validation checks it (_taints); texts of the real kubelet v1.36.2."""

from __future__ import annotations

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._taints import register_with_taints_problems
from ansible_collections.numa.kubelet.plugins.plugin_utils._validation import check_kubelet_config


@pytest.mark.parametrize(
    "taint, kubelet_says, reason",
    [
        ({"key": "bad key", "value": "v", "effect": "NoSchedule"}, "invalid taint: {bad key v NoSchedule <nil>}", "name part must consist"),
        ({"key": "", "effect": "NoSchedule"}, "invalid taint: {  NoSchedule <nil>}", "name part must be non-empty"),
        ({"key": "/k", "effect": "NoSchedule"}, "invalid taint: {/k  NoSchedule <nil>}", "prefix part must be non-empty"),
        ({"key": "Example.com/k", "effect": "NoSchedule"}, "invalid taint: {Example.com/k  NoSchedule <nil>}", "DNS subdomain"),
        ({"key": "a/b/c", "effect": "NoSchedule"}, "invalid taint: {a/b/c  NoSchedule <nil>}", "qualified name"),
        ({"key": "k" * 64, "effect": "NoSchedule"}, "invalid taint: {%s  NoSchedule <nil>}" % ("k" * 64), "no more than 63"),
        ({"key": "k", "value": "v", "effect": "Sometimes"}, "invalid taint: {k v Sometimes <nil>}", "NoSchedule, PreferNoSchedule or NoExecute"),
        ({"key": "k", "value": "a b", "effect": "NoExecute"}, "invalid taint: {k a b NoExecute <nil>}", "the value must be"),
        ({"key": "k", "value": "a" * 64, "effect": "NoSchedule"}, "invalid taint: {k %s NoSchedule <nil>}" % ("a" * 64), "the value must be"),
    ],
)
def test_a_taint_the_kubelet_refuses(taint, kubelet_says, reason):
    problems = register_with_taints_problems({"registerWithTaints": [taint]})
    assert len(problems) == 1
    assert problems[0].startswith(f"registerWithTaints[0]: {kubelet_says}; ")
    assert reason in problems[0]


@pytest.mark.parametrize(
    "taint",
    [
        {"key": "example.com/numa", "value": "static", "effect": "NoSchedule"},
        {"key": "k", "value": "v"},
        {"key": "k", "value": "a" * 63, "effect": "PreferNoSchedule"},
        {"key": "node.kubernetes.io/Unschedulable_1", "effect": "NoExecute"},
    ],
)
def test_a_taint_the_kubelet_accepts(taint):
    assert register_with_taints_problems({"registerWithTaints": [taint]}) == []


def test_time_added_is_refused_on_its_own():
    taint = {"key": "k", "value": "v", "effect": "NoSchedule", "timeAdded": "2026-01-01T00:00:00Z"}
    assert register_with_taints_problems({"registerWithTaints": [taint]}) == [
        "registerWithTaints[0].timeAdded: invalid configuration: taint.TimeAdded is not nil; leave timeAdded out"
    ]


def test_check_kubelet_config_reports_each_taint():
    config = {"registerWithTaints": [{"key": "bad key", "effect": "NoSchedule"}, {"key": "k", "effect": "Bad"}]}
    errors = check_kubelet_config(config).errors
    assert any(error.startswith("registerWithTaints[0]: invalid taint: {bad key  NoSchedule <nil>}") for error in errors)
    assert any(error.startswith("registerWithTaints[1]: invalid taint: {k  Bad <nil>}") for error in errors)
