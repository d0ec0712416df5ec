# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Go's time.Duration as the kubelet's config carries it: time.ParseDuration (parse_go_duration, metav1.Duration's JSON
form) and Duration.String (go_duration_string), in nanoseconds, as Go's time package has them.
"""

from __future__ import annotations

import re
from fractions import Fraction

from ._config import KubeletConfigError

NANOSECOND = 1
MICROSECOND = 1000 * NANOSECOND
MILLISECOND = 1000 * MICROSECOND
SECOND = 1000 * MILLISECOND
MINUTE = 60 * SECOND
HOUR = 60 * MINUTE

# Go's time.ParseDuration unit table: micro sign U+00B5 and Greek mu U+03BC both spell microseconds.
_DURATION_UNITS = {
    "ns": NANOSECOND,
    "us": MICROSECOND,
    "\u00b5s": MICROSECOND,
    "\u03bcs": MICROSECOND,
    "ms": MILLISECOND,
    "s": SECOND,
    "m": MINUTE,
    "h": HOUR,
}
_DURATION_NUMBER = re.compile(r"([0-9]*)(?:\.([0-9]*))?")
_MAX_INT64 = (1 << 63) - 1


def go_duration_string(nanoseconds: int) -> str:
    """time.Duration.String(): "0s", "100ms", "1.5\u00b5s" (micro sign), "20s", "1m0s", "4h0m0s"."""
    if nanoseconds == 0:
        return "0s"
    sign = "-" if nanoseconds < 0 else ""
    magnitude = abs(nanoseconds)

    def fraction(value: int, digits: int) -> str:
        return "" if value == 0 else "." + str(value).zfill(digits).rstrip("0")

    if magnitude < SECOND:
        if magnitude < MICROSECOND:
            return "%s%dns" % (sign, magnitude)
        if magnitude < MILLISECOND:
            whole, rest = divmod(magnitude, MICROSECOND)
            return "%s%d%s\u00b5s" % (sign, whole, fraction(rest, 3))
        whole, rest = divmod(magnitude, MILLISECOND)
        return "%s%d%sms" % (sign, whole, fraction(rest, 6))
    seconds, rest = divmod(magnitude, SECOND)
    text = "%d%ss" % (seconds % 60, fraction(rest, 9))
    minutes = seconds // 60
    if minutes:
        text = "%dm%s" % (minutes % 60, text)
        hours = minutes // 60
        if hours:
            text = "%dh%s" % (hours, text)
    return sign + text


def parse_go_duration(text: str, path: str) -> int:  # noqa: C901 - Go's time.ParseDuration branch for branch, to compare with it
    """time.ParseDuration in nanoseconds (metav1.Duration's JSON form); raises KubeletConfigError on bad input."""

    def invalid(reason: str = "invalid duration") -> KubeletConfigError:
        return KubeletConfigError([f'{path}: time: {reason} "{text}"'])

    rest = text
    negative = False
    if rest and rest[0] in "+-":
        negative = rest[0] == "-"
        rest = rest[1:]
    if rest == "0":
        return 0
    if rest == "":
        raise invalid()
    total = 0
    while rest:
        if rest[0] not in ".0123456789":
            raise invalid()
        match = _DURATION_NUMBER.match(rest)
        if match is None:  # the pattern matches the empty string, so only a type checker asks
            raise invalid()
        whole, frac = match.group(1), match.group(2)
        if whole == "" and not frac:
            raise invalid()
        rest = rest[match.end() :]
        end = 0
        while end < len(rest) and rest[end] not in ".0123456789":
            end += 1
        unit_text, rest = rest[:end], rest[end:]
        if unit_text == "":
            raise invalid("missing unit in duration")
        unit = _DURATION_UNITS.get(unit_text)
        if unit is None:
            raise invalid(f'unknown unit "{unit_text}" in duration')
        # Go adds whole*unit and the truncated fractional nanoseconds of each component.
        total += int(whole or "0") * unit
        if frac:
            total += int(Fraction(int(frac), 10 ** len(frac)) * unit)
        if total > (1 << 63):
            raise invalid()
    if negative:
        total = -total
    if total > _MAX_INT64 or total < -(1 << 63):
        raise invalid()
    return total


_DIGITS = re.compile(r"[0-9]*")
_UNIT = re.compile(r"[^0-9.]*")


def _leading(pattern: re.Pattern[str], text: str) -> str:
    """The start of text that pattern (which also matches the empty string) takes."""
    match = pattern.match(text)
    return match.group(0) if match else ""


def go_duration_error(text: str) -> str | None:
    """The error Go's time.ParseDuration gives for text, or None when it parses (overflow aside).

    A port of the grammar and error texts of ParseDuration in Go's src/time/format.go
    (https://github.com/golang/go/blob/master/src/time/format.go); the unknown-unit text was checked against the
    real kubelet v1.36.2 (tests/oracle).
    """
    invalid = f'time: invalid duration "{text}"'
    rest = text[1:] if text[:1] in ("-", "+") else text
    if rest == "0":
        return None
    if rest == "":
        return invalid
    while rest:
        if not (rest[0] == "." or "0" <= rest[0] <= "9"):
            return invalid
        number = _leading(_DIGITS, rest)
        rest = rest[len(number) :]
        fraction = ""
        if rest[:1] == ".":
            fraction = _leading(_DIGITS, rest[1:])
            rest = rest[1 + len(fraction) :]
        if not number and not fraction:
            return invalid
        unit = _leading(_UNIT, rest)
        if not unit:
            return f'time: missing unit in duration "{text}"'
        if unit not in _DURATION_UNITS:
            return f'time: unknown unit "{unit}" in duration "{text}"'
        rest = rest[len(unit) :]
    return None
