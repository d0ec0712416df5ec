# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""k8s.io/utils/cpuset Parse and String, strconv ParseBool and Atoi, with Go's texts."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ansible_collections.numa.kubelet.plugins.plugin_utils._cpuset import cpuset_string, go_atoi, go_parse_bool, parse_cpuset
from ansible_collections.numa.kubelet.plugins.plugin_utils._go_text import go_quote


@pytest.mark.parametrize(
    ("text", "expected"),
    [("1", True), ("t", True), ("TRUE", True), ("True", True), ("0", False), ("F", False), ("false", False)],
)
def test_go_parse_bool_takes_what_strconv_takes(text, expected):
    assert go_parse_bool(text) is expected


@pytest.mark.parametrize("text", ["yes", "tRUE", "", " true", "1.0", "on"])
def test_go_parse_bool_refuses_with_strconv_text(text):
    with pytest.raises(ValueError, match=r"^strconv\.ParseBool: parsing ") as raised:
        go_parse_bool(text)
    assert str(raised.value) == f"strconv.ParseBool: parsing {go_quote(text)}: invalid syntax"


@pytest.mark.parametrize(("text", "expected"), [("8", 8), ("+9", 9), ("-3", -3), ("007", 7), ("9223372036854775807", 2**63 - 1)])
def test_go_atoi(text, expected):
    assert go_atoi(text) == expected


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("", 'strconv.Atoi: parsing "": invalid syntax'),
        (" 8", 'strconv.Atoi: parsing " 8": invalid syntax'),
        ("8_0", 'strconv.Atoi: parsing "8_0": invalid syntax'),
        ("\u0661", 'strconv.Atoi: parsing "\u0661": invalid syntax'),
        ("9223372036854775808", 'strconv.Atoi: parsing "9223372036854775808": value out of range'),
    ],
)
def test_go_atoi_refuses(text, error):
    with pytest.raises(ValueError) as raised:
        go_atoi(text)
    assert str(raised.value) == error


@given(st.sets(st.integers(min_value=0, max_value=300), max_size=40))
def test_cpuset_string_parses_back_to_the_same_cpus(cpus):
    text = cpuset_string(cpus)
    assert {cpu for first, last in parse_cpuset(text) for cpu in range(first, last + 1)} == cpus


@pytest.mark.parametrize(("cpus", "expected"), [([], ""), ([3], "3"), ([0, 1, 2, 5, 7, 8], "0-2,5,7-8"), ([1, 0], "0-1")])
def test_cpuset_string(cpus, expected):
    assert cpuset_string(cpus) == expected
