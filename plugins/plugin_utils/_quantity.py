# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""An exact port of the Kubernetes resource.Quantity the kubelet uses to check reservedMemory.

Ported from k8s.io/apimachinery/pkg/api/resource as published in the kubernetes/apimachinery staging mirror
(commit 357557a6: quantity.go and quantity_test.go, with maxInt64Factors = 18 in math.go), plus the parts of
gopkg.in/inf.v0 (dec.go, rounder.go) that ParseQuantity calls. Comments name the Go file and function that each
rule comes from.

Like Go, a Quantity holds either an int64Amount {value, scale} (value * 10**scale) or, when that fast path does
not apply, an exact inf.Dec (unscaled * 10**-scale). The representation is observable: AsInt64 answers only for
an int64Amount (so "5.47356672G" converts to int64 but "5.09765625Gi" does not), and String prints the original
text when ParseQuantity judged it canonical. Values are compared, hashed and exposed exactly as
decimal.Decimal built from integer digits, never through floats or a rounding context.

Go does its exponent arithmetic on int32 (Scale, inf.Scale) and silently wraps; that is reproduced where the
wrap is reachable from a parsed string, e.g. "1e4294967297" parses as 10. Where Go would build a power of ten
with billions of digits (rounding "1e-2000000000" up to 1n), the same result is computed without it.

The value's two forms and their exact arithmetic live in _quantity_amount; here are the text, its suffixes and Quantity.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from functools import total_ordering

from ._quantity_amount import (
    BINARY_SI,
    DECIMAL_EXPONENT,
    DECIMAL_SI,
    LOG10_MAX_INT64,
    MAX_INT64_FACTORS,
    NANO,
    ZERO,
    InfDec,
    Int64Amount,
    canonical_base10,
    dec_add,
    fits_int64,
    int64_amount_add,
    parse_dec,
    positive_scale_int64,
    remove_factors,
    scaled_value,
    to_decimal,
    whole_value,
    wrap_int32,
)

# quantity.go: splitREString and the three parse errors, verbatim.
_SPLIT_RE_STRING = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"
_ERR_FORMAT_WRONG = "quantities must match the regular expression '" + _SPLIT_RE_STRING + "'"
_ERR_NUMERIC = "unable to parse numeric part of quantity"
_ERR_SUFFIX = "unable to parse quantity's suffix"

_DIGITS = "0123456789"
_SUFFIX_LETTERS = "eEinumkKMGTP"  # quantity.go parseQuantityString: characters a suffix may start with

# suffix.go newSuffixer: decimal and binary suffixes and their exponents (base 10 and base 2).
_DECIMAL_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL_SUFFIX_FOR = {exponent: text for text, exponent in _DECIMAL_SUFFIXES.items()}
_BINARY_SUFFIX_FOR = {exponent: text for text, exponent in _BINARY_SUFFIXES.items()}

# suffix.go suffixHandler.interpret: strconv.ParseInt(s[1:], 10, 64) syntax. Leading zeros are split off so that
# Python's limit on int() of very long digit strings never refuses what Go accepts.
_EXPONENT_SYNTAX = re.compile(r"([+-]?)0*([0-9]+)")


class QuantityError(ValueError):
    """A string the kubelet would refuse as a resource quantity.

    `text` is the refused input and `kubernetes_error` the bare Go error text (ErrFormatWrong, ErrNumeric or
    ErrSuffix from quantity.go). Input that is not a str, which Go's type system rules out, gets a text of its own.
    """

    def __init__(self, text: object, kubernetes_error: str) -> None:
        super().__init__(f"invalid quantity '{text}': {kubernetes_error}")
        self.text = text
        self.kubernetes_error = kubernetes_error


def _parse_quantity_string(text: str) -> tuple[bool, str, str, str, str]:
    """quantity.go parseQuantityString: (positive, value, num, denom, suffix), a scanner laxer than its regexp.

    Leading zeros are dropped from num, an empty numerator reads as "0", "1." is allowed, and a sign is only looked
    for at the start and right after the suffix letters. Raises QuantityError(ErrFormatWrong) when a character
    follows the suffix digits.
    """
    positive = True
    pos = 0
    end = len(text)
    if pos < end and text[0] in "+-":
        positive = text[0] == "+"
        pos += 1

    while pos < end and text[pos] == "0":
        pos += 1
    if pos >= end:
        return positive, "0", "0", "", ""

    start = pos
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos >= end:
        return positive, text, text[start:], "", ""
    num = text[start:pos] or "0"

    denom = ""
    if text[pos] == ".":
        pos += 1
        start = pos
        while pos < end and text[pos] in _DIGITS:
            pos += 1
        denom = text[start:pos]
        if pos >= end:
            return positive, text, num, denom, ""
    value = text[:pos]

    suffix_start = pos
    while pos < end and text[pos] in _SUFFIX_LETTERS:
        pos += 1
    if pos < end and text[pos] in "+-":
        pos += 1
    while pos < end and text[pos] in _DIGITS:
        pos += 1
    if pos < end:
        raise QuantityError(text, _ERR_FORMAT_WRONG)
    return positive, value, num, denom, text[suffix_start:]


def _interpret_suffix(suffix: str) -> tuple[int, int, str] | None:
    """suffix.go fastLookup.interpret / suffixHandler.interpret: (base, exponent, format), or None if unknown.

    A decimal exponent is any int64 after "e" or "E", then truncated to int32 as Go does (int32(parsed)).
    """
    if suffix in _DECIMAL_SUFFIXES:
        return 10, _DECIMAL_SUFFIXES[suffix], DECIMAL_SI
    if suffix in _BINARY_SUFFIXES:
        return 2, _BINARY_SUFFIXES[suffix], BINARY_SI
    if len(suffix) > 1 and suffix[0] in "eE":
        match = _EXPONENT_SYNTAX.fullmatch(suffix[1:])
        if match is None or len(match.group(2)) > LOG10_MAX_INT64:
            return None
        parsed = int(match.group(1) + match.group(2))
        if not fits_int64(parsed):
            return None
        return 10, wrap_int32(parsed), DECIMAL_EXPONENT
    return None


@total_ordering
@dataclass(frozen=True, eq=False, repr=False)
class Quantity:
    """resource.Quantity: immutable, compared, hashed and added by exact value like Go's Cmp, Equal and Add.

    Build one with Quantity.parse (resource.ParseQuantity) or Quantity.from_int (resource.NewQuantity). The fields
    are Go's: i (used while d is nil), d, Format and the cached string s.
    """

    _i: Int64Amount
    _d: InfDec | None
    _format: str
    _s: str = ""

    @classmethod
    def parse(cls, text: object) -> Quantity:
        """quantity.go ParseQuantity, including its quirks: "-", "." and "Ki" parse as 0, "1.G" as 1G."""
        if not isinstance(text, str):
            raise QuantityError(text, f"quantities must be strings, not {type(text).__name__}")
        if not text:
            raise QuantityError(text, _ERR_FORMAT_WRONG)
        if text == "0":
            return cls(ZERO, None, DECIMAL_SI, text)

        positive, value, num, denom, suffix = _parse_quantity_string(text)
        interpreted = _interpret_suffix(suffix)
        if interpreted is None:
            raise QuantityError(text, _ERR_SUFFIX)
        base, exponent, fmt = interpreted

        # The int64 fast path: DecimalSI and DecimalExponent up to 18 digits; BinarySI whole numbers whose digit
        # count leaves room for the suffix, which rules out Pi and Ei. Go estimates that room as
        # int32(float32(exponent)*3/10); for the exponents 10..60 it is exactly exponent * 3 // 10.
        mantissa = 1
        scale = 0
        if fmt == BINARY_SI:
            if denom:
                precision = -1
            else:
                mantissa = 1 << exponent
                precision = 15 - len(num) - exponent * 3 // 10 - 1
        else:
            scale = exponent
            precision = MAX_INT64_FACTORS - (len(num) + len(denom))

        if precision >= 0:
            scale = wrap_int32(scale - len(denom))
            if scale >= NANO:
                shifted = num + denom
                # At most 18 digits, times at most 2**40 for the binary suffixes the precision lets through: Go's
                # ParseInt and int64Multiply overflow checks cannot fire here.
                digits = int(shifted)
                result = digits * mantissa if positive else -digits * mantissa
                # Go keeps the original text as the string form when it judges it canonical, so "1.G" and
                # "+1Ki" print as written.
                if fmt == BINARY_SI:
                    canonical = exponent % 10 == 0 and digits & 0x07 != 0
                else:
                    canonical = scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"
                return cls(Int64Amount(result, scale), None, fmt, text if canonical else "")

        parsed = parse_dec(value, base, exponent, fmt)
        if parsed is None:
            raise QuantityError(text, _ERR_NUMERIC)
        amount, fmt = parsed
        return cls(ZERO, amount, fmt)

    @classmethod
    def from_int(cls, value: int, fmt: str = BINARY_SI) -> Quantity:
        """quantity.go NewQuantity(value, format). Go takes any Format string and prints unknown ones as exponents."""
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"NewQuantity takes an int64, not {type(value).__name__}")
        if not fits_int64(value):
            raise ValueError(f"{value} is outside int64, the type of NewQuantity's value")
        if not isinstance(fmt, str):
            raise TypeError(f"a Quantity format is a str, not {type(fmt).__name__}")
        return cls(Int64Amount(value, 0), None, fmt)

    @property
    def format(self) -> str:
        """The Format Go keeps: "DecimalExponent", "BinarySI" or "DecimalSI" for parsed quantities."""
        return self._format

    def _unscaled_exponent(self) -> tuple[int, int]:
        """The value as unscaled * 10**exponent, whichever backend holds it."""
        if self._d is not None:
            return self._d.unscaled, -self._d.scale
        return self._i.value, self._i.scale

    def _as_dec(self) -> InfDec:
        """quantity.go AsDec / amount.go int64Amount.AsDec: inf.Scale is the negated Scale, on int32."""
        if self._d is not None:
            return self._d
        return InfDec(self._i.value, wrap_int32(-self._i.scale))

    @property
    def exact(self) -> Decimal:
        """The exact value as a decimal.Decimal built from the integer digits: no context, no rounding.

        Not normalized: 5.09765625Gi is Decimal('5473566720.00000000'); equal values compare and hash equal.
        """
        return to_decimal(*self._unscaled_exponent())

    def sign(self) -> int:
        """quantity.go Sign: -1, 0 or 1."""
        unscaled = self._unscaled_exponent()[0]
        return (unscaled > 0) - (unscaled < 0)

    def is_zero(self) -> bool:
        """quantity.go IsZero."""
        return self.sign() == 0

    def value(self) -> int:
        """quantity.go Value: the value rounded away from zero to an integer, saturated at the int64 bounds."""
        return scaled_value(*self._unscaled_exponent())

    def as_int64(self) -> int | None:
        """quantity.go AsInt64: the int64 value if it converts without the inf.Dec form, else None.

        None for an inf.Dec ("5.09765625Gi", any 19-digit number, fractions of a binary suffix), for a negative
        scale even when the value is whole ("1000m", "1.0", "0m"), and on int64 overflow (amount.go AsInt64).
        """
        if self._d is not None:
            return None
        value, scale = self._i
        if scale < 0:
            return None
        return positive_scale_int64(value, scale)

    def go_struct(self) -> str | None:
        """Go's %v of the Quantity value ({i d s Format}), as validateNodeAllocatable prints it; None when d holds it.

        The inf.Dec form prints through a pointer, which the collection does not reproduce.
        """
        if self._d is not None:
            return None
        return f"{{{{{self._i.value} {self._i.scale}}} {{<nil>}} {self._s} {self._format}}}"

    def __add__(self, other: object) -> Quantity:
        """quantity.go Add: the sum, with the receiver's Format, or the other's when the receiver is zero.

        Two int64Amounts stay one unless the sum overflows int64; otherwise the sum is an exact inf.Dec. The cached
        string is not carried over.
        """
        if not isinstance(other, Quantity):
            return NotImplemented
        fmt = self._format
        if self._d is None and other._d is None:
            if self._i.value == 0:
                fmt = other._format
            total = int64_amount_add(self._i, other._i)
            if total is not None:
                return Quantity(total, None, fmt)
        elif self.is_zero():
            fmt = other._format
        return Quantity(ZERO, dec_add(self._as_dec(), other._as_dec()), fmt)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self.exact == other.exact

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self.exact < other.exact

    def __hash__(self) -> int:
        return hash(self.exact)

    def __str__(self) -> str:
        """quantity.go String: the cached original text, else CanonicalizeBytes."""
        if self._s:
            return self._s
        return "".join(self._canonicalize())

    def __repr__(self) -> str:
        return f"Quantity({str(self)!r}, format={self._format!r})"

    def _canonicalize(self) -> tuple[str, str]:
        """quantity.go CanonicalizeBytes: (number, suffix) in canonical form.

        BinarySI prints as DecimalSI below 1024 in magnitude or when the value is not whole; an unknown Format
        prints as DecimalExponent; DecimalSI beyond "E" (10**18) falls back to an exponent ("1000E" -> "1e21").
        """
        if self.is_zero():
            return "0", ""
        fmt = self._format
        unscaled, exponent = self._unscaled_exponent()
        whole = None
        if fmt == BINARY_SI:
            # AsScale(0) is exact only for a whole value.
            whole = whole_value(unscaled, exponent)
            if -1024 < self.exact < 1024 or whole is None:
                fmt = DECIMAL_SI
        elif fmt != DECIMAL_SI:
            fmt = DECIMAL_EXPONENT

        if fmt == BINARY_SI and whole is not None:
            # amount.go AsCanonicalBase1024Bytes on the whole value: factors of 1024 go into the suffix. Go ignores
            # a missing suffix (beyond Ei, reachable only by Add), and so prints the bare mantissa.
            magnitude, times = remove_factors(abs(whole), 1024)
            number = str(Decimal(-magnitude if whole < 0 else magnitude))
            return number, _BINARY_SUFFIX_FOR.get(times * 10, "")

        if self._d is not None:
            number, exponent = canonical_base10(unscaled, wrap_int32(-self._d.scale), int64_backed=False)
        else:
            number, exponent = canonical_base10(unscaled, exponent, int64_backed=True)
        if fmt == DECIMAL_SI and exponent in _DECIMAL_SUFFIX_FOR:
            return number, _DECIMAL_SUFFIX_FOR[exponent]
        return number, f"e{exponent}" if exponent else ""


def canonical_bytes(count: int) -> str:
    """A byte count in Kubernetes' canonical form: str(resource.NewQuantity(count, resource.BinarySI))."""
    return str(Quantity.from_int(count, BINARY_SI))
