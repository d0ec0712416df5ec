# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The two forms of a resource.Quantity's value and their exact arithmetic (_quantity builds Quantity on them).

amount.go int64Amount {value, scale} (value * 10**scale) and gopkg.in/inf.v0 Dec (unscaled * 10**-scale), with the
math.go helpers, ParseQuantity's path past its int64 fast path (parse_dec) and the rounding AsCanonicalBytes and Value
do, ported from k8s.io/apimachinery/pkg/api/resource (the kubernetes/apimachinery staging mirror, commit 357557a6) and
gopkg.in/inf.v0 (dec.go, rounder.go). Go's int32 exponent arithmetic wraps silently; wrap_int32 reproduces it where a
parsed string can reach it.
"""

from __future__ import annotations

from decimal import Decimal
from typing import NamedTuple

# quantity.go Format: how a Quantity prints.
DECIMAL_EXPONENT = "DecimalExponent"
BINARY_SI = "BinarySI"
DECIMAL_SI = "DecimalSI"

MOST_POSITIVE = (1 << 63) - 1  # math.go mostPositive
MOST_NEGATIVE = -(1 << 63)  # math.go mostNegative
MAX_INT64_FACTORS = 18  # math.go maxInt64Factors: decimal digits the int64 fast path accepts
NANO = -9  # amount.go Nano: parsing keeps nothing finer
LOG10_MAX_INT64 = 19  # 10**19 is the first power of ten above mostPositive


class Int64Amount(NamedTuple):
    """amount.go int64Amount: value * 10**scale, with value an int64 and scale an int32."""

    value: int
    scale: int


class InfDec(NamedTuple):
    """gopkg.in/inf.v0 Dec: unscaled * 10**-scale (inf.Scale counts digits after the point)."""

    unscaled: int
    scale: int


ZERO = Int64Amount(0, 0)


def wrap_int32(number: int) -> int:
    """Go's int32 arithmetic: Scale and inf.Scale wrap around silently."""
    return (number + (1 << 31)) % (1 << 32) - (1 << 31)


def fits_int64(number: int) -> bool:
    return MOST_NEGATIVE <= number <= MOST_POSITIVE


def digit_count(magnitude: int) -> int:
    """Decimal digits of a positive int; goes through Decimal because str() refuses ints over 4300 digits."""
    return Decimal(magnitude).adjusted() + 1


def to_decimal(unscaled: int, exponent: int) -> Decimal:
    """The exact value unscaled * 10**exponent; a tuple-built Decimal is never rounded by a context."""
    sign, digits, _exponent = Decimal(unscaled).as_tuple()
    return Decimal((sign, digits, exponent))


def positive_scale_int64(base: int, scale: int) -> int | None:
    """math.go positiveScaleInt64: base * 10**scale, or None where Go reports int64 overflow.

    A negative scale, reachable only through the int32 wrap in int64Amount.Add, skips Go's multiplication loop and
    returns base unchanged, as Go does.
    """
    if scale <= 0 or base == 0:
        return base
    if scale >= LOG10_MAX_INT64:
        return None
    result = base * 10**scale
    return result if fits_int64(result) else None


def int64_amount_add(left: Int64Amount, right: Int64Amount) -> Int64Amount | None:
    """amount.go int64Amount.Add: the sum at the smaller scale, or None on int64 overflow (Go then uses inf.Dec)."""
    if right.value == 0:
        return left
    if left.value == 0:
        return right
    if left.scale == right.scale:
        total, scale = left.value + right.value, left.scale
    elif left.scale > right.scale:
        scaled = positive_scale_int64(left.value, wrap_int32(left.scale - right.scale))
        if scaled is None:
            return None
        total, scale = scaled + right.value, right.scale
    else:
        scaled = positive_scale_int64(right.value, wrap_int32(right.scale - left.scale))
        if scaled is None:
            return None
        total, scale = left.value + scaled, left.scale
    # math.go int64Add reports exactly the sums outside int64.
    return Int64Amount(total, scale) if fits_int64(total) else None


def dec_add(left: InfDec, right: InfDec) -> InfDec:
    """inf.v0 Dec.Add: both operands brought to the larger scale, then added."""
    scale = max(left.scale, right.scale)
    return InfDec(left.unscaled * 10 ** (scale - left.scale) + right.unscaled * 10 ** (scale - right.scale), scale)


def remove_factors(magnitude: int, factor: int) -> tuple[int, int]:
    """math.go removeInt64Factors / removeBigIntFactors on a positive value: magnitude == result * factor**times."""
    times = 0
    while magnitude and magnitude % factor == 0:
        magnitude //= factor
        times += 1
    return magnitude, times


def go_rem3(exponent: int) -> int:
    """Go's exponent % 3, which takes the sign of the dividend."""
    remainder = abs(exponent) % 3
    return -remainder if exponent < 0 else remainder


def canonical_base10(unscaled: int, exponent: int, int64_backed: bool) -> tuple[str, int]:
    """amount.go AsCanonicalBytes: digits and a base-10 exponent that is a multiple of 3, no fractional digits.

    Both backends strip the factors of ten into the exponent, then lower the exponent to a multiple of three. The
    int64 backend does that in one step (x10 or x100); inf.Dec (and the int64 backend when that step overflows)
    loops one digit at a time. The two differ only where the int32 exponent wraps, so both are kept.
    """
    magnitude, times = remove_factors(abs(unscaled), 10)
    exponent = wrap_int32(exponent + times)
    remainder = go_rem3(exponent)
    steps = {1: 1, -2: 1, 2: 2, -1: 2}.get(remainder, 0)
    if int64_backed and fits_int64(magnitude * 10**steps):
        magnitude, exponent = magnitude * 10**steps, wrap_int32(exponent - steps)
    else:
        while go_rem3(exponent) != 0:
            magnitude, exponent = magnitude * 10, wrap_int32(exponent - 1)
    return str(Decimal(-magnitude if unscaled < 0 else magnitude)), exponent


def round_up_to_nano(magnitude: int, scale: int) -> InfDec:
    """quantity.go ParseQuantity: amount.Round(amount, Nano.infScale(), inf.RoundUp) on a positive amount.

    Rounds away from zero to a whole number of nanos. An amount that already is one keeps its representation (Go
    only rescales it to 9 digits after the point, which no accessor can observe). An amount far below 1n becomes
    1n without building the power of ten Go divides by.
    """
    if scale <= -NANO:
        return InfDec(magnitude, scale)
    shift = scale + NANO
    if shift > digit_count(magnitude):
        return InfDec(1, -NANO)
    quotient, remainder = divmod(magnitude, 10**shift)
    return InfDec(quotient + (remainder != 0), -NANO)


def whole_value(unscaled: int, exponent: int) -> int | None:
    """unscaled * 10**exponent as an int, or None when it has a fractional part."""
    if exponent >= 0:
        return unscaled * 10**exponent
    if unscaled and -exponent > digit_count(abs(unscaled)):
        return None
    quotient, remainder = divmod(unscaled, 10**-exponent)
    return None if remainder else quotient


def scaled_value(unscaled: int, exponent: int) -> int:
    """quantity.go Value (ScaledValue(0)): unscaled * 10**exponent rounded away from zero to an integer.

    Both backends round the magnitude up (amount.go AsScaledInt64 via negativeScaleInt64, scale_int.go scaledValue
    in current upstream; releases before that fix rounded a negative inf.Dec toward +inf). Outside int64 upstream
    documents the result as undefined and releases differ (0, wrapped bits); this port saturates at the int64 bounds
    as the latest upstream does.
    """
    if unscaled == 0:
        return 0
    magnitude = abs(unscaled)
    if exponent >= LOG10_MAX_INT64:
        magnitude = MOST_POSITIVE + 1
    elif exponent >= 0:
        magnitude *= 10**exponent
    elif -exponent > digit_count(magnitude):
        magnitude = 1
    else:
        quotient, remainder = divmod(magnitude, 10**-exponent)
        magnitude = quotient + (remainder != 0)
    if unscaled < 0:
        return max(-magnitude, MOST_NEGATIVE)
    return min(magnitude, MOST_POSITIVE)


def _set_string(value: str) -> InfDec | None:
    """inf.v0 Dec.SetString on the number parseQuantityString returned: sign, digits, '.', digits.

    The scale is the count of digits after the point; a number without any digit ("." or "-.") is refused.
    """
    negative = value[:1] == "-"
    whole, _point, fraction = value.lstrip("+-").partition(".")
    digits = whole + fraction
    if not digits:
        return None
    unscaled = int(Decimal(digits))
    return InfDec(-unscaled if negative else unscaled, len(fraction))


def parse_dec(value: str, base: int, exponent: int, fmt: str) -> tuple[InfDec, str] | None:
    """quantity.go ParseQuantity past the int64 fast path: (exact amount, Format), or None for ErrNumeric.

    The suffix is multiplied in, the magnitude rounded up to a whole number of nanos, BinarySI capped at the
    largest int64 (silently: "9Ei" parses as 9223372036854775807) and turned into DecimalSI below 1.
    """
    amount = _set_string(value)
    if amount is None:
        return None
    if base == 10:
        amount = InfDec(amount.unscaled, wrap_int32(amount.scale + wrap_int32(-exponent)))
    else:
        amount = InfDec(amount.unscaled << exponent, amount.scale)

    negative = amount.unscaled < 0
    magnitude = abs(amount.unscaled)
    amount = round_up_to_nano(magnitude, amount.scale) if magnitude else InfDec(0, amount.scale)
    exact = to_decimal(amount.unscaled, -amount.scale)
    if fmt == BINARY_SI and exact > MOST_POSITIVE:
        amount = InfDec(MOST_POSITIVE, 0)
    elif fmt == BINARY_SI and 0 < exact < 1:
        fmt = DECIMAL_SI
    if negative:
        amount = InfDec(-amount.unscaled, amount.scale)
    return amount, fmt
