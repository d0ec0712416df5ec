# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the kubelet's validation rules read and print: typed reads of the defaulted KubeletConfiguration (View) and Go's
%v of the values its texts show (go_float, go_struct_duration). The rules: _kubelet_validation and the modules it runs.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Mapping

from ._config import KubeletConfigError
from ._feature_gate_table import DEFAULT_KUBELET_VERSION
from ._go_duration import go_duration_string, parse_go_duration


def go_float(value: float) -> str:
    """Go's %v of a float64 (strconv 'g', shortest): exponent form below 1e-4 or from 1e6 on ("1e+06")."""
    if value == 0:
        return "0"
    mantissa, exponent = (f"{float(value)!r}").lower().partition("e")[::2]
    digits = mantissa.lstrip("-").replace(".", "")
    point = mantissa.lstrip("-").find(".") if "." in mantissa else len(mantissa.lstrip("-"))
    decimal_exponent = point + (int(exponent) if exponent else 0)
    stripped = digits.lstrip("0")
    decimal_exponent -= len(digits) - len(stripped)
    digits = stripped.rstrip("0") or "0"
    sign = "-" if value < 0 else ""
    exp = decimal_exponent - 1
    if exp < -4 or exp >= 6:
        tail = "." + digits[1:] if len(digits) > 1 else ""
        return "%s%s%se%s%02d" % (sign, digits[0], tail, "-" if exp < 0 else "+", abs(exp))
    if decimal_exponent <= 0:
        return "%s0.%s%s" % (sign, "0" * -decimal_exponent, digits)
    if decimal_exponent >= len(digits):
        return sign + digits + "0" * (decimal_exponent - len(digits))
    return "%s%s.%s" % (sign, digits[:decimal_exponent], digits[decimal_exponent:])


def go_struct_duration(nanoseconds: int) -> str:
    """%v of a metav1.Duration: the struct's braces around the time.Duration ("{1.001s}", as the v1.36.2 kubelet prints it)."""
    return "{%s}" % go_duration_string(nanoseconds)


class View:
    """Typed reads of the defaulted config; a value of the wrong type reads as None (its decoding error is reported
    by _kubelet_fields), so the rules that need it are skipped."""

    def __init__(self, config: Mapping, enabled: Callable[[str], bool | None], minor: str = DEFAULT_KUBELET_VERSION):
        self.config = config
        self.enabled = enabled
        self.minor = minor

    def int(self, name: str, default: int | None = 0) -> int | None:
        value = self.config.get(name)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value):
            return None
        return int(value)

    def float(self, name: str) -> float | None:
        value = self.config.get(name)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        return float(value)

    def str(self, name: builtins.str, parent: Mapping | None = None) -> builtins.str | None:
        value = (self.config if parent is None else parent).get(name)
        if value is None:
            return ""
        return value if isinstance(value, str) else None

    def bool(self, name: builtins.str, default: builtins.bool = False) -> builtins.bool | None:
        value = self.config.get(name)
        if value is None:
            return default
        return value if isinstance(value, bool) else None

    def duration(self, name: builtins.str, parent: Mapping | None = None) -> builtins.int | None:
        """Nanoseconds; 0 when absent; None when not a Go duration."""
        value = (self.config if parent is None else parent).get(name)
        if value is None:
            return 0
        if not isinstance(value, str):
            return None
        try:
            return parse_go_duration(value, name)
        except KubeletConfigError:
            return None

    def mapping(self, name: builtins.str) -> Mapping:
        value = self.config.get(name)
        return value if isinstance(value, Mapping) else {}

    def strings(self, name: builtins.str) -> list | None:
        value = self.config.get(name)
        if value is None:
            return []
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            return None
        return value


def in_range(value: int | None, low: int, high: int) -> bool:
    return value is None or low <= value <= high
