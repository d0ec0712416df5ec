# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""k8s.io/utils/cpuset Parse and String, and the strconv ParseBool and Atoi that the managers' policy options go
through, each with Go's error texts (the CPU and topology manager rules: _manager_options, _topology_manager_options).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ._go_text import go_quote

GO_BOOLS = {"1": True, "t": True, "T": True, "TRUE": True, "true": True, "True": True}
GO_BOOLS.update({"0": False, "f": False, "F": False, "FALSE": False, "false": False, "False": False})
_GO_INT = re.compile(r"[+-]?[0-9]+\Z")
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def go_parse_bool(text: str) -> bool:
    """strconv.ParseBool; ValueError with Go's error text."""
    if text in GO_BOOLS:
        return GO_BOOLS[text]
    raise ValueError(f"strconv.ParseBool: parsing {go_quote(text)}: invalid syntax")


def go_atoi(text: str) -> int:
    """strconv.Atoi on a 64-bit machine; ValueError with Go's error text."""
    if not _GO_INT.match(text):
        raise ValueError(f"strconv.Atoi: parsing {go_quote(text)}: invalid syntax")
    number = int(text)
    if not _INT64_MIN <= number <= _INT64_MAX:
        raise ValueError(f"strconv.Atoi: parsing {go_quote(text)}: value out of range")
    return number


def parse_cpuset(text: str) -> list[tuple[int, int]]:
    """k8s.io/utils/cpuset Parse, as inclusive (first, last) ranges; ValueError with Go's error text."""
    if text == "":
        return []
    ranges = []
    for part in text.split(","):
        bounds = part.split("-", 1)
        first = go_atoi(bounds[0])
        last = go_atoi(bounds[1]) if len(bounds) == 2 else first
        if first > last:
            raise ValueError(f"invalid range {go_quote(part)} ({first} > {last})")
        ranges.append((first, last))
    return ranges


def cpuset_string(cpus: Iterable[int]) -> str:
    """cpuset.CPUSet String: sorted ids, runs written first-last, joined by commas."""
    runs: list[list[int]] = []
    for cpu in sorted(set(cpus)):
        if runs and cpu == runs[-1][1] + 1:
            runs[-1][1] = cpu
        else:
            runs.append([cpu, cpu])
    return ",".join(str(first) if first == last else f"{first}-{last}" for first, last in runs)
