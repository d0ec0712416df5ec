# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Go's time.ParseDuration and Duration.String, on Go's own examples and round trips."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.numa.kubelet.plugins.plugin_utils._config import KubeletConfigError
from ansible_collections.numa.kubelet.plugins.plugin_utils._go_duration import go_duration_error, go_duration_string, parse_go_duration


@pytest.mark.parametrize(
    "nanoseconds, text",
    [
        (0, "0s"),
        (1, "1ns"),
        (1500, "1.5\u00b5s"),
        (100 * 10**6, "100ms"),
        (1100 * 10**3, "1.1ms"),
        (10**9, "1s"),
        (1500 * 10**6, "1.5s"),
        (20 * 10**9, "20s"),
        (60 * 10**9, "1m0s"),
        (120 * 10**9, "2m0s"),
        (300 * 10**9, "5m0s"),
        (3600 * 10**9, "1h0m0s"),
        (4 * 3600 * 10**9, "4h0m0s"),
        (-90 * 10**9, "-1m30s"),
        ((1 << 63) - 1, "2562047h47m16.854775807s"),
    ],
)
def test_go_duration_string(nanoseconds, text):
    assert go_duration_string(nanoseconds) == text


@pytest.mark.parametrize(
    "text, nanoseconds",
    [
        ("0", 0),
        ("-0", 0),
        ("+0", 0),
        ("0s", 0),
        ("1m", 60 * 10**9),
        ("1h30m", 5400 * 10**9),
        ("1.5s", 1500 * 10**6),
        (".5s", 500 * 10**6),
        ("1.s", 10**9),
        ("100ms", 10**8),
        ("3us", 3000),
        ("3\u00b5s", 3000),
        ("3\u03bcs", 3000),
        ("-1m30s", -90 * 10**9),
        ("1.0000000001s", 10**9),
        ("2562047h47m16.854775807s", (1 << 63) - 1),
    ],
)
def test_parse_go_duration(text, nanoseconds):
    assert parse_go_duration(text, "f") == nanoseconds


@pytest.mark.parametrize("text", ["", "-", "s", ".s", "1", "1x", "1m1", "2562047h47m16.854775808s", "1 s"])
def test_parse_go_duration_rejects(text):
    with pytest.raises(KubeletConfigError):
        parse_go_duration(text, "f")


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=-(1 << 63) + 1, max_value=(1 << 63) - 1))
def test_duration_string_parses_back(nanoseconds):
    assert parse_go_duration(go_duration_string(nanoseconds), "f") == nanoseconds


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
