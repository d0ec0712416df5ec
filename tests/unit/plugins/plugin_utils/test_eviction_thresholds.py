# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The eviction settings as the kubelet parses them at start-up (_eviction_thresholds).

Every text is the real kubelet v1.36.2's (tests/oracle/cases/eviction_thresholds.yml holds the same cases as
single faults on the baseline config); the field path before it is ours.
"""

from __future__ import annotations

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._eviction_thresholds import eviction_problems, parse_threshold
from ansible_collections.numa.kubelet.plugins.plugin_utils._validation import check_kubelet_config

HARD_MEMORY = {"memory.available": "100Mi"}


def hard(**thresholds):
    return {"evictionHard": dict(HARD_MEMORY, **{key.replace("_", "."): value for key, value in thresholds.items()})}


@pytest.mark.parametrize(
    "value, expected",
    [
        ("0", "evictionHard.nodefs.available: eviction threshold nodefs.available must be positive: 0"),
        ("-1Gi", "evictionHard.nodefs.available: eviction threshold nodefs.available must be positive: -1Gi"),
        ("-1024Mi", "evictionHard.nodefs.available: eviction threshold nodefs.available must be positive: -1Gi"),
        ("10GB", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
        ("101%", "evictionHard.nodefs.available: eviction percentage threshold nodefs.available must be <= 100%: 101%"),
        ("100.0001%", "evictionHard.nodefs.available: eviction percentage threshold nodefs.available must be <= 100%: 100.0001%"),
        ("inf%", "evictionHard.nodefs.available: eviction percentage threshold nodefs.available must be <= 100%: inf%"),
        ("-1%", "evictionHard.nodefs.available: eviction percentage threshold nodefs.available must be >= 0%: -1%"),
        ("abc%", 'evictionHard.nodefs.available: strconv.ParseFloat: parsing "abc": invalid syntax'),
        ("1e39%", 'evictionHard.nodefs.available: strconv.ParseFloat: parsing "1e39": value out of range'),
        ("NaN%", 'evictionHard.nodefs.available: invalid Node Allocatable configuration. Resource "ephemeral-storage" has a reservation of'),
    ],
)
def test_a_hard_threshold_the_kubelet_refuses(value, expected):
    problems = eviction_problems(hard(nodefs_available=value))
    assert len(problems) == 1
    assert expected in problems[0]
    assert problems[0].startswith("evictionHard.nodefs.available: ")


@pytest.mark.parametrize("value", ["1", "0%", "100%", "100.000001%", "5%%", "0x1p3%", "10%", "0.0%"])
def test_a_hard_threshold_the_kubelet_accepts(value):
    assert eviction_problems(hard(nodefs_available=value)) == []


@pytest.mark.parametrize("signal", ["pid.available", "allocatableMemory.available", "containerfs.available", "imagefs.inodesFree"])
def test_every_signal_of_the_kubelet_is_accepted_in_every_map(signal):
    config = {
        "evictionHard": {signal: "10%"},
        "evictionSoft": {signal: "20%"},
        "evictionSoftGracePeriod": {signal: "1m"},
        "evictionMinimumReclaim": {signal: "5%"},
    }
    assert eviction_problems(config) == []


def test_an_unknown_signal_is_refused_in_each_map():
    config = {
        "evictionHard": {"memory.availible": "100Mi"},
        "evictionSoft": {"memory.free": "200Mi"},
        "evictionSoftGracePeriod": {"memory.free": "1m"},
        "evictionMinimumReclaim": {"memory.free": "1Mi"},
    }
    assert eviction_problems(config) == [
        "evictionHard.memory.availible: unsupported eviction signal memory.availible",
        "evictionSoft.memory.free: unsupported eviction signal memory.free",
        "evictionSoftGracePeriod.memory.free: unsupported eviction signal memory.free",
        "evictionMinimumReclaim.memory.free: unsupported eviction signal memory.free",
    ]


def test_a_soft_threshold_needs_a_grace_period():
    assert eviction_problems({"evictionSoft": {"memory.available": "200Mi"}}) == [
        (
            "evictionSoft.memory.available: grace period must be specified for the soft eviction threshold memory.available; "
            "set evictionSoftGracePeriod.memory.available"
        )
    ]
    assert eviction_problems({"evictionSoft": {"memory.available": "200Mi"}, "evictionSoftGracePeriod": {"memory.available": "1m30s"}}) == []


def test_an_ignored_soft_threshold_needs_no_grace_period_and_a_grace_period_needs_no_threshold():
    assert eviction_problems({"evictionSoft": {"nodefs.available": "0%", "imagefs.available": "100%"}}) == []
    assert eviction_problems({"evictionSoftGracePeriod": {"memory.available": "1m"}}) == []


@pytest.mark.parametrize(
    "value, expected",
    [
        ("-1s", "evictionSoftGracePeriod.memory.available: invalid eviction grace period specified: -1s, must be a positive value"),
        ("90", 'evictionSoftGracePeriod.memory.available: time: missing unit in duration "90"'),
        ("1 m", 'evictionSoftGracePeriod.memory.available: time: unknown unit " m" in duration "1 m"'),
        ("", 'evictionSoftGracePeriod.memory.available: time: invalid duration ""'),
    ],
)
def test_a_grace_period_the_kubelet_refuses(value, expected):
    config = {"evictionSoft": {"memory.available": "200Mi"}, "evictionSoftGracePeriod": {"memory.available": value}}
    assert eviction_problems(config) == [expected]


@pytest.mark.parametrize("value", ["0s", "0", "1m30s", "1h"])
def test_a_grace_period_the_kubelet_accepts(value):
    assert eviction_problems({"evictionSoft": {"memory.available": "200Mi"}, "evictionSoftGracePeriod": {"memory.available": value}}) == []


@pytest.mark.parametrize(
    "value, expected",
    [
        ("-1Mi", "evictionMinimumReclaim.memory.available: negative eviction minimum reclaim specified for memory.available"),
        ("0%", "evictionMinimumReclaim.memory.available: eviction percentage minimum reclaim memory.available must be positive: 0%"),
        ("-5%", "evictionMinimumReclaim.memory.available: eviction percentage minimum reclaim memory.available must be positive: -5%"),
        ("abc", "evictionMinimumReclaim.memory.available: invalid quantity 'abc': quantities must match the regular expression"),
        ("x%", 'evictionMinimumReclaim.memory.available: strconv.ParseFloat: parsing "x": invalid syntax'),
    ],
)
def test_a_minimum_reclaim_the_kubelet_refuses(value, expected):
    problems = eviction_problems({"evictionMinimumReclaim": {"memory.available": value}})
    assert len(problems) == 1
    assert problems[0].startswith(expected)


@pytest.mark.parametrize("value", ["0", "1Mi", "1%", "150%"])
def test_a_minimum_reclaim_the_kubelet_accepts(value):
    assert eviction_problems({"evictionMinimumReclaim": {"memory.available": value}}) == []


def test_values_of_the_wrong_type_are_left_to_the_decoding_check():
    assert eviction_problems({"evictionHard": {"memory.available": 100}, "evictionSoftGracePeriod": "1m"}) == []
    errors = check_kubelet_config({"evictionHard": {"memory.available": 100}}).errors
    assert any("evictionHard.memory.available" in error for error in errors)


def test_parse_threshold_reads_the_share_as_float32():
    kind, share = parse_threshold("memory.available", "5%")
    assert kind == "percentage"
    assert share == pytest.approx(0.05, abs=1e-9) and share != 0.05
    assert parse_threshold("nodefs.available", "0%") is None
    assert parse_threshold("nodefs.available", "100%", "evictionSoft") is None


def test_check_kubelet_config_reports_every_eviction_problem():
    config = {
        "evictionHard": {"memory.available": "100Mi", "nodefs.available": "-1%"},
        "evictionSoft": {"memory.available": "200Mi"},
        "evictionMinimumReclaim": {"memory.available": "-1Mi"},
    }
    errors = check_kubelet_config(config).errors
    assert "evictionHard.nodefs.available: eviction percentage threshold nodefs.available must be >= 0%: -1%" in errors
    assert "evictionMinimumReclaim.memory.available: negative eviction minimum reclaim specified for memory.available" in errors
    assert any(error.startswith("evictionSoft.memory.available: grace period must be specified") for error in errors)
