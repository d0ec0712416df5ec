# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The resource.Quantity port, checked against Kubernetes' own test tables.

Tables come from k8s.io/apimachinery/pkg/api/resource as published in the kubernetes/apimachinery staging mirror
(commit 357557a6, quantity_test.go), from amount_test.go and quantity_example_test.go, and the Value and String
columns of quantity_overflow_test.go; each keeps the name of its upstream test function. Upstream rows that need
API this port leaves out (ToDec/AsDec, Sub, Neg, Mul, RoundUp, MilliValue, ScaledValue, NewMilliQuantity,
NewScaledQuantity, JSON/CBOR, floats, DeepCopy) are skipped, not rewritten. Go builds int64Amount and inf.Dec
values directly; here they come from ParseQuantity, which yields exactly int64Amount{value, scale} for
"<value>e<scale>" when value has at most 18 digits and scale >= -9, and an exact inf.Dec otherwise.
"""

from __future__ import annotations

from decimal import Decimal, Inexact, localcontext

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ansible_collections.numa.kubelet.plugins.plugin_utils._quantity import Quantity, QuantityError, _parse_quantity_string, canonical_bytes

MOST_POSITIVE = (1 << 63) - 1
MOST_NEGATIVE = -(1 << 63)
KI, MI, GI, TI, PI, EI = (1 << shift for shift in (10, 20, 30, 40, 50, 60))
DSI, BSI, DEXP = "DecimalSI", "BinarySI", "DecimalExponent"

FORMAT_WRONG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
NUMERIC = "unable to parse numeric part of quantity"
SUFFIX = "unable to parse quantity's suffix"


def dec(unscaled, exponent=0):
    """The exact value of Go's decQuantity(unscaled, exponent, ...): unscaled * 10**exponent."""
    return Decimal(f"{unscaled}e{exponent}")


def with_format(value, fmt):
    """A quantity of exact value `value` carrying `fmt`, like Go's decQuantity(..., fmt).

    quantity.go Add keeps a non-zero receiver's Format, so 1 in `fmt` plus (value - 1) has both.
    """
    with localcontext() as context:
        context.traps[Inexact] = True
        rest = Decimal(value) - 1
    return Quantity.from_int(1, fmt) + Quantity.parse(format(rest, "f"))


def exact_sum(*values):
    """The sum of Decimals without rounding (the default context keeps only 28 digits)."""
    with localcontext() as context:
        context.prec = 400
        context.traps[Inexact] = True
        return sum(values, Decimal(0))


def uncached(quantity):
    """The same quantity without the text ParseQuantity cached: Add clears it (quantity.go Add: q.s = "")."""
    return quantity + Quantity.parse("0")


def amount(value, scale):
    """int64Amount{value, scale} through ParseQuantity's fast path (see the module docstring)."""
    return Quantity.parse(f"{value}e{scale}")


def test_quantity_parse_zero():
    # TestQuantityParseZero
    assert str(Quantity.parse("0")) == "0"


def test_quantity_parse_non_numeric():
    # TestQuantityParseNonNumericPanic: MustParse panics, ParseQuantity returns ErrFormatWrong.
    with pytest.raises(QuantityError) as raised:
        Quantity.parse("Non-Numeric")
    assert raised.value.kubernetes_error == FORMAT_WRONG


@pytest.mark.parametrize("text", ["100m", "1Gi"])
def test_quantity_add_zero_preserves_suffix(text):
    # TestQuantityAddZeroPreservesSuffix
    zero = Quantity.parse("0")
    assert str(Quantity.parse(text) + zero) == text
    assert str(zero + Quantity.parse(text)) == text


def test_quantity_canonicalize_zero():
    # TestQuantityCanocicalizeZero: 1000m minus 1 is int64Amount{0, -3}, printed "0", not "0m" (Sub done as Add).
    zero = Quantity.parse("1000m") + Quantity.parse("-1")
    assert zero.is_zero()
    assert str(zero) == "0"


# TestQuantityCmp (the first table; the second one tests nil inf.Dec pointers, which do not exist here).
@pytest.mark.parametrize(
    "left, right, expected",
    [
        ("0", "0", 0),
        ("100m", "50m", 1),
        ("50m", "100m", -1),
        ("10000T", "100Gi", 1),
    ],
)
def test_quantity_cmp(left, right, expected):
    first, second = Quantity.parse(left), Quantity.parse(right)
    assert ((first > second) - (first < second)) == expected
    assert (first == second) is (expected == 0)


# TestParseQuantityString (parseQuantityString is package-private in Go too).
@pytest.mark.parametrize(
    "text, positive, value, num, denom, suffix",
    [
        ("0.025Ti", True, "0.025", "0", "025", "Ti"),
        ("1.025Ti", True, "1.025", "1", "025", "Ti"),
        ("-1.025Ti", False, "-1.025", "1", "025", "Ti"),
        (".", True, ".", "0", "", ""),
        ("-.", False, "-.", "0", "", ""),
        ("1E-3", True, "1", "1", "", "E-3"),
    ],
)
def test_parse_quantity_string(text, positive, value, num, denom, suffix):
    assert _parse_quantity_string(text) == (positive, value, num, denom, suffix)


# TestQuantityParse: the valid table, as (input, exact value, Format).
QUANTITY_PARSE = [
    ("0", dec(0), DSI),
    ("0n", dec(0), DSI),
    ("0u", dec(0), DSI),
    ("0m", dec(0), DSI),
    ("0Ki", dec(0), BSI),
    ("0k", dec(0), DSI),
    ("0Mi", dec(0), BSI),
    ("0M", dec(0), DSI),
    ("0Gi", dec(0), BSI),
    ("0G", dec(0), DSI),
    ("0Ti", dec(0), BSI),
    ("0T", dec(0), DSI),
    # Quantity less numbers are allowed
    ("1", dec(1), DSI),
    # Binary suffixes
    ("1Ki", dec(KI), BSI),
    ("8Ki", dec(8 * KI), BSI),
    ("7Mi", dec(7 * MI), BSI),
    ("6Gi", dec(6 * GI), BSI),
    ("5Ti", dec(5 * TI), BSI),
    ("4Pi", dec(4 * PI), BSI),
    ("3Ei", dec(3 * EI), BSI),
    ("10Ti", dec(10 * TI), BSI),
    ("100Ti", dec(100 * TI), BSI),
    # Decimal suffixes
    ("5n", dec(5, -9), DSI),
    ("4u", dec(4, -6), DSI),
    ("3m", dec(3, -3), DSI),
    ("9", dec(9, 0), DSI),
    ("8k", dec(8, 3), DSI),
    ("50k", dec(5, 4), DSI),
    ("7M", dec(7, 6), DSI),
    ("6G", dec(6, 9), DSI),
    ("5T", dec(5, 12), DSI),
    ("40T", dec(4, 13), DSI),
    ("300T", dec(3, 14), DSI),
    ("2P", dec(2, 15), DSI),
    ("1E", dec(1, 18), DSI),
    # Decimal exponents
    ("1E-3", dec(1, -3), DEXP),
    ("1e3", dec(1, 3), DEXP),
    ("1E6", dec(1, 6), DEXP),
    ("1e9", dec(1, 9), DEXP),
    ("1E12", dec(1, 12), DEXP),
    ("1e15", dec(1, 15), DEXP),
    ("1E18", dec(1, 18), DEXP),
    # Nonstandard but still parsable
    ("1e14", dec(1, 14), DEXP),
    ("1e13", dec(1, 13), DEXP),
    ("1e3", dec(1, 3), DEXP),
    ("100.035k", dec(100035, 0), DSI),
    # Things that look like floating point
    ("0.001", dec(1, -3), DSI),
    ("0.0005k", dec(5, -1), DSI),
    ("0.005", dec(5, -3), DSI),
    ("0.05", dec(5, -2), DSI),
    ("0.5", dec(5, -1), DSI),
    ("0.00050k", dec(5, -1), DSI),
    ("0.00500", dec(5, -3), DSI),
    ("0.05000", dec(5, -2), DSI),
    ("0.50000", dec(5, -1), DSI),
    ("0.5e0", dec(5, -1), DEXP),
    ("0.5e-1", dec(5, -2), DEXP),
    ("0.5e-2", dec(5, -3), DEXP),
    ("0.5e0", dec(5, -1), DEXP),
    ("10.035M", dec(10035, 3), DSI),
    ("1.2e3", dec(12, 2), DEXP),
    ("1.3E+6", dec(13, 5), DEXP),
    ("1.40e9", dec(14, 8), DEXP),
    ("1.53E12", dec(153, 10), DEXP),
    ("1.6e15", dec(16, 14), DEXP),
    ("1.7E18", dec(17, 17), DEXP),
    ("9.01", dec(901, -2), DSI),
    ("8.1k", dec(81, 2), DSI),
    ("7.123456M", dec(7123456, 0), DSI),
    ("6.987654321G", dec(6987654321, 0), DSI),
    ("5.444T", dec(5444, 9), DSI),
    ("40.1T", dec(401, 11), DSI),
    ("300.2T", dec(3002, 11), DSI),
    ("2.5P", dec(25, 14), DSI),
    ("1.01E", dec(101, 16), DSI),
    # Things that saturate/round
    ("3.001n", dec(4, -9), DSI),
    ("1.1E-9", dec(2, -9), DEXP),
    ("0.0000000001", dec(1, -9), DSI),
    ("0.0000000005", dec(1, -9), DSI),
    ("0.00000000050", dec(1, -9), DSI),
    ("0.5e-9", dec(1, -9), DEXP),
    ("0.9n", dec(1, -9), DSI),
    ("0.00000012345", dec(124, -9), DSI),
    ("0.00000012354", dec(124, -9), DSI),
    ("9Ei", dec(MOST_POSITIVE), BSI),
    ("9223372036854775807Ki", dec(MOST_POSITIVE), BSI),
    ("12E", dec(12, 18), DSI),
    # We'll accept fractional binary stuff, too.
    ("100.035Ki", dec(10243584, -2), BSI),
    ("0.5Mi", dec(MI // 2), BSI),
    ("0.05Gi", dec(536870912, -1), BSI),
    ("0.025Ti", dec(274877906944, -1), BSI),
    # Things written by trolls
    ("0.000000000001Ki", dec(2, -9), DSI),  # rounds up, changes format
    (".001", dec(1, -3), DSI),
    (".0001k", dec(100, -3), DSI),
    ("1.", dec(1, 0), DSI),
    ("1.G", dec(1, 9), DSI),
]


@pytest.mark.parametrize("text, value, fmt", QUANTITY_PARSE)
def test_quantity_parse(text, value, fmt):
    quantity = Quantity.parse(text)
    assert quantity.exact == value
    assert quantity.format == fmt

    # Try the negative version of everything, and everything with an explicit +.
    negated = Quantity.parse("-" + text)
    assert negated.exact == -value
    assert negated.format == fmt
    signed = Quantity.parse("+" + text)
    assert signed.exact == value
    assert signed.format == fmt


@pytest.mark.parametrize("text", [row[0] for row in QUANTITY_PARSE])
def test_quantity_parse_decomposes(text):
    # TestQuantityParse: rebuilding the input from parseQuantityString's parts parses to the same quantity.
    positive, _value, num, denom, suffix = _parse_quantity_string(text)
    assert positive is (Quantity.parse(text).sign() >= 0)
    rebuilt = ("" if positive else "-") + num + ("." + denom if denom else "") + suffix
    assert Quantity.parse(rebuilt) == Quantity.parse(text)


# TestQuantityParse: the invalid list. Upstream only checks that an error is returned; which of the three errors
# it is follows from parseQuantityString and suffixHandler.interpret.
@pytest.mark.parametrize(
    "text, kubernetes_error",
    [
        ("1.1.M", FORMAT_WRONG),
        ("1+1.0M", FORMAT_WRONG),
        ("0.1mi", SUFFIX),
        ("0.1am", FORMAT_WRONG),
        ("aoeu", FORMAT_WRONG),
        (".5i", SUFFIX),
        ("1i", SUFFIX),
        ("-3.01i", SUFFIX),
        ("-3.01e-", SUFFIX),
        # trailing whitespace is forbidden
        (" 1", FORMAT_WRONG),
        ("1 ", FORMAT_WRONG),
        # TestQuantityParse: "expected empty string to return error"
        ("", FORMAT_WRONG),
    ],
)
def test_quantity_parse_invalid(text, kubernetes_error):
    with pytest.raises(QuantityError) as raised:
        Quantity.parse(text)
    assert raised.value.kubernetes_error == kubernetes_error
    assert raised.value.text == text
    assert str(raised.value) == f"invalid quantity '{text}': {kubernetes_error}"


# TestQuantityCmpInt64AndDec, as int64Amount {value, scale} pairs. Skipped rows hold values finer than 1n, which
# no parsed or constructed quantity can: {mostPositive, -16}, {mostNegative, -18}, {mostNegative, -19},
# {10**18 + 1, -17} and {10**18 - 1, -17}.
@pytest.mark.parametrize(
    "left, right, expected",
    [
        ((901, -2), (901, -2), 0),
        ((90, -1), (901, -2), -1),
        ((901, -2), (900, -2), 1),
        ((0, 0), (0, 0), 0),
        ((0, 1), (0, -1), 0),
        ((0, -1), (0, 1), 0),
        ((800, -3), (1, 0), -1),
        ((800, -3), (79, -2), 1),
        ((MOST_POSITIVE, 0), (1, -1), 1),
        ((MOST_POSITIVE, 1), (1, 0), 1),
        ((MOST_POSITIVE, 1), (1, 1), 1),
        ((MOST_POSITIVE, 1), (0, 1), 1),
        ((MOST_NEGATIVE, 0), (0, 0), -1),
        ((10**18, -17), (1, 1), 0),
        ((10**18, -17), (-10, 0), 1),
        ((-(10**18), -17), (-10, 0), 0),
        ((10**18, -17), (1, 0), 1),
    ],
)
def test_quantity_cmp_int64_and_dec(left, right, expected):
    first, second = amount(*left), amount(*right)
    assert ((first > second) - (first < second)) == expected
    assert ((second > first) - (second < first)) == -expected


# TestQuantityString: (value, Format, canonical string, an alternate spelling of it or "").
QUANTITY_STRING = [
    (dec(GI), BSI, "1Gi", "1024Mi"),
    (dec(300 * MI), BSI, "300Mi", "307200Ki"),
    (dec(6 * KI), BSI, "6Ki", ""),
    (dec(1001 * GI), BSI, "1001Gi", "1025024Mi"),
    (dec(TI), BSI, "1Ti", "1024Gi"),
    (dec(5), BSI, "5", "5000m"),
    (dec(500, -3), BSI, "500m", "0.5"),
    (dec(1, 9), DSI, "1G", "1000M"),
    (dec(1000, 6), DSI, "1G", "0.001T"),
    (dec(1000000, 3), DSI, "1G", ""),
    (dec(1000000000, 0), DSI, "1G", ""),
    (dec(1, -3), DSI, "1m", "1000u"),
    (dec(80, -3), DSI, "80m", ""),
    (dec(1080, -3), DSI, "1080m", "1.08"),
    (dec(108, -2), DSI, "1080m", "1080000000n"),
    (dec(10800, -4), DSI, "1080m", ""),
    (dec(300, 6), DSI, "300M", ""),
    (dec(1, 12), DSI, "1T", ""),
    # DecimalSI has no suffix beyond "E" (10^18): larger exponents fall back to exponent notation.
    (dec(1, 18), DSI, "1E", ""),
    (dec(1, 21), DSI, "1e21", "1000E"),
    (dec(5, 21), DSI, "5e21", "5000E"),
    (dec(1, 24), DSI, "1e24", "1000000E"),
    (dec(1234567, 6), DSI, "1234567M", ""),
    (dec(1234567, -3), BSI, "1234567m", ""),
    (dec(3, 3), DSI, "3k", ""),
    (dec(1025, 0), BSI, "1025", ""),
    (dec(0, 0), DSI, "0", ""),
    (dec(0, 0), BSI, "0", ""),
    (dec(1, 9), DEXP, "1e9", ".001e12"),
    (dec(1, -3), DEXP, "1e-3", "0.001e0"),
    (dec(1, -9), DEXP, "1e-9", "1000e-12"),
    (dec(80, -3), DEXP, "80e-3", ""),
    (dec(300, 6), DEXP, "300e6", ""),
    (dec(1, 12), DEXP, "1e12", ""),
    (dec(1, 3), DEXP, "1e3", ""),
    (dec(3, 3), DEXP, "3e3", ""),
    (dec(3, 3), DSI, "3k", ""),
    (dec(0, 0), DEXP, "0", "00"),
    (dec(1, -9), DSI, "1n", ""),
    (dec(80, -9), DSI, "80n", ""),
    (dec(1080, -9), DSI, "1080n", ""),
    (dec(108, -8), DSI, "1080n", ""),
    (dec(10800, -10), DSI, "1080n", ""),
    (dec(1, -6), DSI, "1u", ""),
    (dec(80, -6), DSI, "80u", ""),
    (dec(1080, -6), DSI, "1080u", ""),
]


@pytest.mark.parametrize("value, fmt, canonical, alternate", QUANTITY_STRING)
def test_quantity_string(value, fmt, canonical, alternate):
    quantity = with_format(value, fmt)
    assert (quantity.exact, quantity.format) == (value, fmt)
    assert str(quantity) == canonical
    # ParseQuantity keeps a canonical input as its string form ...
    assert str(Quantity.parse(canonical)) == canonical
    # ... and an alternate spelling prints canonically.
    if alternate:
        assert str(Quantity.parse(alternate)) == canonical
    if value:
        assert str(with_format(-value, fmt)) == "-" + canonical


# TestQuantityParseEmit
@pytest.mark.parametrize(
    "text, expected",
    [
        ("1Ki", "1Ki"),
        ("1Mi", "1Mi"),
        ("1Gi", "1Gi"),
        ("1024Mi", "1Gi"),
        ("1000M", "1G"),
        (".001Ki", "1024m"),
        (".000001Ki", "1024u"),
        (".000000001Ki", "1024n"),
        (".000000000001Ki", "2n"),
    ],
)
def test_quantity_parse_emit(text, expected):
    assert str(Quantity.parse(text)) == expected
    assert str(Quantity.parse("-" + text)) == "-" + expected


# TestNewSet (NewQuantity; Set and ToDec are not ported).
@pytest.mark.parametrize(
    "value, fmt, expected",
    [
        (1, DSI, "1"),
        (1000, DSI, "1k"),
        (1234000, DSI, "1234k"),
        (1024, BSI, "1Ki"),
        (1000000, "invalidFormatDefaultsToExponent", "1e6"),
        (1024 * 1024, BSI, "1Mi"),
    ],
)
def test_new_set(value, fmt, expected):
    quantity = Quantity.from_int(value, fmt)
    assert str(quantity) == expected
    assert Quantity.parse(str(quantity)).value() == value


# TestAdd: (receiver, argument, sum); Quantity{Format: DecimalSI} is a zero DecimalSI quantity.
@pytest.mark.parametrize(
    "left, right, expected",
    [
        ((dec(10), DSI), (dec(1, 1), DSI), dec(20)),
        ((dec(10), DSI), (dec(1), BSI), dec(11)),
        ((dec(10), BSI), (dec(1), DSI), dec(11)),
        ((dec(0), DSI), (dec(50), DSI), dec(50)),
        ((dec(50), DSI), (dec(0), DSI), dec(50)),
        ((dec(0), DSI), (dec(0), DSI), dec(0)),
    ],
)
def test_add(left, right, expected):
    receiver = Quantity.from_int(0, left[1]) if not left[0] else with_format(*left)
    argument = Quantity.from_int(0, right[1]) if not right[0] else with_format(*right)
    assert (receiver + argument).exact == expected


# TestParseQuantity: (input, AsInt64 or None, exact value, canonical string when it differs from the input).
# Upstream marks the 19-digit rows "should be wantAsInt64: <value>": they parse to inf.Dec today.
PARSE_QUANTITY = [
    # min/max 18 digits
    ("-999999999999999999", -999999999999999999, "-999999999999999999", None),
    ("999999999999999999", 999999999999999999, "999999999999999999", None),
    ("-999999999999999999.0", None, "-999999999999999999", "-999999999999999999"),
    ("999999999999999999.0", None, "999999999999999999", "999999999999999999"),
    ("-999999999999999999.1", None, "-999999999999999999.1", "-999999999999999999100m"),
    ("999999999999999999.1", None, "999999999999999999.1", "999999999999999999100m"),
    # min/max 19 digits
    ("-9999999999999999999", None, "-9999999999999999999", None),
    ("9999999999999999999", None, "9999999999999999999", None),
    ("-1E", -1000000000000000000, "-1000000000000000000", None),
    ("1E", 1000000000000000000, "1000000000000000000", None),
    ("-1000000000000000000", None, "-1000000000000000000", "-1E"),
    ("1000000000000000000", None, "1000000000000000000", "1E"),
    ("-9999999999999999999.0", None, "-9999999999999999999", "-9999999999999999999"),
    ("9999999999999999999.0", None, "9999999999999999999", "9999999999999999999"),
    ("-1.0E", -1000000000000000000, "-1000000000000000000", "-1E"),
    ("1.0E", 1000000000000000000, "1000000000000000000", "1E"),
    ("-1000000000000000000.0", None, "-1000000000000000000", "-1E"),
    ("1000000000000000000.0", None, "1000000000000000000", "1E"),
    ("-9999999999999999999000m", None, "-9999999999999999999", "-9999999999999999999"),
    ("9999999999999999999000m", None, "9999999999999999999", "9999999999999999999"),
    ("-9999999999999999999.1", None, "-9999999999999999999.1", "-9999999999999999999100m"),
    ("9999999999999999999.1", None, "9999999999999999999.1", "9999999999999999999100m"),
    ("-1.0000000000000000001E", None, "-1000000000000000000.1", "-1000000000000000000100m"),
    ("1.0000000000000000001E", None, "1000000000000000000.1", "1000000000000000000100m"),
    ("-1000000000000000000.1", None, "-1000000000000000000.1", "-1000000000000000000100m"),
    ("1000000000000000000.1", None, "1000000000000000000.1", "1000000000000000000100m"),
    ("-1.000000000000000001E", None, "-1000000000000000001", "-1000000000000000001"),
    ("1.000000000000000001E", None, "1000000000000000001", "1000000000000000001"),
    ("-1000000000000000001", None, "-1000000000000000001", None),
    ("1000000000000000001", None, "1000000000000000001", None),
    # min/max 20 digits
    ("-10E", None, "-10000000000000000000", None),
    ("10E", None, "10000000000000000000", None),
    ("-10000000000000000000", None, "-10000000000000000000", "-10E"),
    ("10000000000000000000", None, "10000000000000000000", "10E"),
    ("-10.0E", None, "-10000000000000000000", "-10E"),
    ("10.0E", None, "10000000000000000000", "10E"),
    ("-10000000000000000000.0", None, "-10000000000000000000", "-10E"),
    ("10000000000000000000.0", None, "10000000000000000000", "10E"),
    ("-10000000000000000000000m", None, "-10000000000000000000", "-10E"),
    ("10000000000000000000000m", None, "10000000000000000000", "10E"),
    ("-10.0000000000000000001E", None, "-10000000000000000000.1", "-10000000000000000000100m"),
    ("10.0000000000000000001E", None, "10000000000000000000.1", "10000000000000000000100m"),
    ("-10000000000000000000.1", None, "-10000000000000000000.1", "-10000000000000000000100m"),
    ("10000000000000000000.1", None, "10000000000000000000.1", "10000000000000000000100m"),
    ("-10.000000000000000001E", None, "-10000000000000000001", "-10000000000000000001"),
    ("10.000000000000000001E", None, "10000000000000000001", "10000000000000000001"),
    ("-10000000000000000001", None, "-10000000000000000001", None),
    ("10000000000000000001", None, "10000000000000000001", None),
    # min/max int64 - 1
    ("-9223372036854775809", None, "-9223372036854775809", None),
    ("9223372036854775806", None, "9223372036854775806", None),
    ("-9223372036854775809.0", None, "-9223372036854775809", "-9223372036854775809"),
    ("9223372036854775806.0", None, "9223372036854775806", "9223372036854775806"),
    ("-9223372036854775809000m", None, "-9223372036854775809", "-9223372036854775809"),
    ("9223372036854775806000m", None, "9223372036854775806", "9223372036854775806"),
    ("-9223372036854775809.1", None, "-9223372036854775809.1", "-9223372036854775809100m"),
    ("9223372036854775806.1", None, "9223372036854775806.1", "9223372036854775806100m"),
    # min/max int64
    ("-9223372036854775808", None, "-9223372036854775808", None),
    ("9223372036854775807", None, "9223372036854775807", None),
    ("-9223372036854775808.0", None, "-9223372036854775808", "-9223372036854775808"),
    ("9223372036854775807.0", None, "9223372036854775807", "9223372036854775807"),
    ("-9223372036854775808000m", None, "-9223372036854775808", "-9223372036854775808"),
    ("9223372036854775807000m", None, "9223372036854775807", "9223372036854775807"),
    ("-9223372036854775808.1", None, "-9223372036854775808.1", "-9223372036854775808100m"),
    ("9223372036854775807.1", None, "9223372036854775807.1", "9223372036854775807100m"),
    # min/max int64 + 1
    ("-9223372036854775807", None, "-9223372036854775807", None),
    ("9223372036854775808", None, "9223372036854775808", None),
    ("-9223372036854775807.0", None, "-9223372036854775807", "-9223372036854775807"),
    ("9223372036854775808.0", None, "9223372036854775808", "9223372036854775808"),
    ("-9223372036854775807000m", None, "-9223372036854775807", "-9223372036854775807"),
    ("9223372036854775808000m", None, "9223372036854775808", "9223372036854775808"),
    ("-9223372036854775807.1", None, "-9223372036854775807.1", "-9223372036854775807100m"),
    ("9223372036854775808.1", None, "9223372036854775808.1", "9223372036854775808100m"),
]


@pytest.mark.parametrize("text, as_int64, value, canonical", PARSE_QUANTITY)
def test_parse_quantity(text, as_int64, value, canonical):
    quantity = Quantity.parse(text)
    assert quantity.as_int64() == as_int64
    assert quantity.exact == Decimal(value)
    assert str(quantity) == (canonical or text)


def test_quantity_ptr_equal():
    # TestQuantityPtrEqual, the two non-nil cases.
    assert Quantity.parse("100m") == Quantity.parse("100m")
    assert Quantity.parse("100m") != Quantity.parse("200m")


def test_quantity_value_set():
    # TestQuantityValueSet: QuantityValue.Set is ParseQuantity.
    with pytest.raises(QuantityError):
        Quantity.parse("invalid")
    quantity = Quantity.parse("1Mi")
    assert quantity.value() == MI
    assert str(quantity) == "1Mi"


# amount_test.go TestInt64AmountAsInt64
@pytest.mark.parametrize(
    "value, scale, expected",
    [
        (100, 0, 100),
        (100, 1, 1000),
        (100, -5, None),
        (100, 100, None),
    ],
)
def test_int64_amount_as_int64(value, scale, expected):
    assert amount(value, scale).as_int64() == expected


# amount_test.go TestInt64AmountAdd: (a, b, c, ok); when int64Amount.Add overflows, Quantity.Add falls back to an
# exact inf.Dec, which AsInt64 refuses. Skipped: the rows built on {mostPositive, -1}, which no parse yields.
@pytest.mark.parametrize(
    "left, right, total, fits",
    [
        ((100, 1), (10, 2), (200, 1), True),
        ((100, 1), (1, 2), (110, 1), True),
        ((100, 1), (1, 100), None, False),
        ((-5, 2), (50, 1), (0, 1), True),
        ((-5, 2), (5, 2), (0, 2), True),
        ((MOST_POSITIVE // 10, 1), (10, 0), None, False),
    ],
)
def test_int64_amount_add(left, right, total, fits):
    exact = exact_sum(dec(*left), dec(*right))
    for first, second in ((left, right), (right, left)):  # addition is commutative
        result = amount(*first) + amount(*second)
        assert result.exact == exact
        if fits:
            assert result.exact == dec(*total)
            assert result.as_int64() == int(exact)
        else:
            assert result.as_int64() is None


# amount_test.go TestInt64AsCanonicalString, read through String() in DecimalExponent.
@pytest.mark.parametrize(
    "value, scale, expected",
    [
        (100, 0, "100"),
        (100, 1, "1e3"),
        (100, -1, "10"),
        (10800, -10, "1080e-9"),
    ],
)
def test_int64_as_canonical_string(value, scale, expected):
    assert str(uncached(amount(value, scale))) == expected


# amount_test.go TestAmountSign
@pytest.mark.parametrize(
    "value, scale, expected",
    [
        (-50, 1, -1),
        (0, 1, 0),
        (300, 1, 1),
        (-50, -8, -1),
        (50, -8, 1),
        (0, -8, 0),
        (-50, 0, -1),
        (50, 0, 1),
        (0, 0, 0),
    ],
)
def test_amount_sign(value, scale, expected):
    assert amount(value, scale).sign() == expected
    assert amount(value, scale).is_zero() is (expected == 0)


# amount_test.go TestInt64AmountAsScaledInt64, the rows at scale 0 (Value); the others need ScaledValue.
@pytest.mark.parametrize(
    "value, scale, expected",
    [
        (93, -1, 10),
        (100, -1, 10),
    ],
)
def test_int64_amount_as_scaled_int64(value, scale, expected):
    assert amount(value, scale).value() == expected


# quantity_example_test.go ExampleFormat (NewQuantity) and ExampleMustParse (Value and Format).
def test_examples():
    assert str(Quantity.from_int(5 * GI, BSI)) == "5Gi"
    assert str(Quantity.from_int(5 * 1000 * 1000 * 1000, DSI)) == "5G"
    assert (Quantity.parse("5Gi").value(), Quantity.parse("5Gi").format) == (5368709120, BSI)
    assert (Quantity.parse("5G").value(), Quantity.parse("5G").format) == (5000000000, DSI)


# quantity_overflow_test.go quantityAccessorCases, the Sign, Value and String columns (that file pins a later
# upstream, whose parser takes 19 digits on the int64 path; AsInt64 there differs and is covered above).
@pytest.mark.parametrize(
    "text, sign, value, string",
    [
        ("9223372036854775807", 1, MOST_POSITIVE, "9223372036854775807"),
        ("1E", 1, 10**18, "1E"),
        ("8Ei", 1, MOST_POSITIVE, "9223372036854775807"),
        ("-8Ei", -1, -MOST_POSITIVE, "-9223372036854775807"),
        ("20Ei", 1, MOST_POSITIVE, "9223372036854775807"),
        ("-20Ei", -1, -MOST_POSITIVE, "-9223372036854775807"),
        ("9223372036854775808", 1, MOST_POSITIVE, "9223372036854775808"),
        ("18446744073709551616", 1, MOST_POSITIVE, "18446744073709551616"),
        ("100E", 1, MOST_POSITIVE, "100E"),
        ("1000E", 1, MOST_POSITIVE, "1e21"),
        ("5000E", 1, MOST_POSITIVE, "5e21"),
        ("1e100", 1, MOST_POSITIVE, "10e99"),
        ("-9223372036854775808", -1, MOST_NEGATIVE, "-9223372036854775808"),
        ("-9223372036854775807", -1, MOST_NEGATIVE + 1, "-9223372036854775807"),
        ("-1e30", -1, MOST_NEGATIVE, "-1e30"),
        ("-100E", -1, MOST_NEGATIVE, "-100E"),
        ("-1000E", -1, MOST_NEGATIVE, "-1e21"),
        ("-9.5Gi", -1, -10200547328, "-9728Mi"),
        ("-9.5000000001Gi", -1, -10200547329, "-10200547328107374183n"),
    ],
)
def test_quantity_accessors(text, sign, value, string):
    quantity = Quantity.parse(text)
    assert (quantity.sign(), quantity.value(), str(quantity)) == (sign, value, string)


def test_quantity_accessors_constructed():
    # quantity_overflow_test.go: int64-max-constructed, int64-min-constructed and max-plus-max.
    assert (Quantity.from_int(MOST_POSITIVE, DSI).value(), str(Quantity.from_int(MOST_POSITIVE, DSI))) == (MOST_POSITIVE, "9223372036854775807")
    assert (Quantity.from_int(MOST_NEGATIVE, DSI).value(), str(Quantity.from_int(MOST_NEGATIVE, DSI))) == (MOST_NEGATIVE, "-9223372036854775808")
    doubled = Quantity.from_int(MOST_POSITIVE, DSI) + Quantity.from_int(MOST_POSITIVE, DSI)
    assert (doubled.sign(), doubled.value(), doubled.as_int64(), str(doubled)) == (1, MOST_POSITIVE, None, "18446744073709551614")


# The project's own cases (docs/kubelet-facts.md section 1).
def test_equal_by_exact_value():
    assert Quantity.parse("1Gi") == Quantity.parse("1024Mi")
    assert hash(Quantity.parse("1Gi")) == hash(Quantity.parse("1024Mi"))
    assert Quantity.parse("1G") != Quantity.parse("1Gi")
    assert Quantity.parse("1Gi") > Quantity.parse("1G")


def test_as_int64_depends_on_the_representation():
    # The kubelet refuses 5.09765625Gi (an inf.Dec) and accepts 5.47356672G (int64Amount{547356672, 1}).
    refused = Quantity.parse("5.09765625Gi")
    assert refused.as_int64() is None
    assert refused.value() == 5473566720
    assert str(refused) == "5220Mi"
    assert Quantity.parse("5.47356672G").as_int64() == 5473566720
    assert refused == Quantity.parse("5.47356672G")


@pytest.mark.parametrize(
    "count, expected",
    [
        (1073741824, "1Gi"),
        (9017753600, "8600Mi"),
        (405033580, "405033580"),
        (0, "0"),
        (536870912, "512Mi"),
        (1023, "1023"),
        (-GI, "-1Gi"),
    ],
)
def test_canonical_bytes(count, expected):
    assert canonical_bytes(count) == expected


def test_string_of_a_canonical_input():
    assert str(Quantity.parse("512Mi")) == "512Mi"


def test_reservation_sum():
    # The memory manager documentation's example: 4Gi kube + 1Gi system + 100Mi eviction, split as 3Gi + 2148Mi.
    total = Quantity.parse("4Gi") + Quantity.parse("1Gi") + Quantity.parse("100Mi")
    split = Quantity.parse("3Gi") + Quantity.parse("2148Mi")
    assert total == split == Quantity.parse("5220Mi")
    assert str(total) == str(split) == "5220Mi"
    assert total.as_int64() == 5220 * MI


# Quirks of ParseQuantity that follow from the Go code (no upstream table holds them).
@pytest.mark.parametrize(
    "text, value, fmt, string, as_int64",
    [
        # The scanner wants no digit at all: a bare sign, a bare point or a bare suffix is zero.
        ("-", dec(0), DSI, "0", 0),
        (".", dec(0), DSI, "0", 0),
        ("Ki", dec(0), BSI, "0", 0),
        ("e5", dec(0), DEXP, "0", 0),
        # An input judged canonical is kept as written, however odd.
        ("1.G", dec(1, 9), DSI, "1.G", 10**9),
        ("+1Ki", dec(KI), BSI, "+1Ki", KI),
        ("01Ki", dec(KI), BSI, "01Ki", KI),
        ("1.500G", dec(15, 8), DSI, "1.500G", 15 * 10**8),
        # The decimal exponent is read as int64 and truncated to int32: 4294967297 is 1.
        ("1e4294967297", dec(1, 1), DEXP, "10", 10),
        # AsInt64 refuses a negative scale even for a whole value, and binary suffixes past the int64 fast path.
        ("0m", dec(0), DSI, "0", None),
        ("1000m", dec(1), DSI, "1", None),
        ("1.0", dec(1), DSI, "1", None),
        ("1024.0Mi", dec(GI), BSI, "1Gi", None),
        ("99999999999Ki", dec(99999999999 * KI), BSI, "99999999999Ki", 99999999999 * KI),
        ("100000000001Ki", dec(100000000001 * KI), BSI, "100000000001Ki", None),
        ("99Ti", dec(99 * TI), BSI, "99Ti", 99 * TI),
        ("100Ti", dec(100 * TI), BSI, "100Ti", None),
        ("1Pi", dec(PI), BSI, "1Pi", None),
        # Only BinarySI is capped at the largest int64.
        ("8Ei", dec(MOST_POSITIVE), BSI, "9223372036854775807", None),
        ("10E", dec(10, 18), DSI, "10E", None),
    ],
)
def test_parse_quirks(text, value, fmt, string, as_int64):
    quantity = Quantity.parse(text)
    assert (quantity.exact, quantity.format, str(quantity), quantity.as_int64()) == (value, fmt, string, as_int64)


def test_int32_exponent_wraps():
    # Scale is an int32: the exponent gap in int64Amount.Add and the canonical exponent wrap as in Go (checked
    # against the Go code).
    assert str(Quantity.parse("1e2147483647") + Quantity.parse("5e-5")) == "60e-6"
    assert str(Quantity.parse("1000e2147483647")) == "1e-2147483646"
    assert Quantity.parse("1000e2147483647").exact == Decimal("1e2147483650")


@pytest.mark.parametrize(
    "text, kubernetes_error",
    [
        # Any character outside the suffix alphabet ends the scan with the regexp error, not ErrSuffix.
        ("5Zi", FORMAT_WRONG),
        ("1KiB", FORMAT_WRONG),
        ("1,5Gi", FORMAT_WRONG),
        ("1Gi\n", FORMAT_WRONG),
        # Letters from the alphabet that name no suffix.
        ("5Mii", SUFFIX),
        ("1kK", SUFFIX),
        ("1e", SUFFIX),
        ("1e99999999999999999999", SUFFIX),
        # A number without a digit, on the inf.Dec path (an exponent below -9).
        (".e-10", NUMERIC),
        ("e-10", NUMERIC),
    ],
)
def test_parse_error_texts(text, kubernetes_error):
    with pytest.raises(QuantityError) as raised:
        Quantity.parse(text)
    assert (raised.value.text, raised.value.kubernetes_error) == (text, kubernetes_error)
    assert str(raised.value) == f"invalid quantity '{text}': {kubernetes_error}"


def test_parse_refuses_non_strings():
    with pytest.raises(QuantityError) as raised:
        Quantity.parse(1024)
    assert raised.value.text == 1024
    assert str(raised.value) == "invalid quantity '1024': quantities must be strings, not int"


def test_add_keeps_the_receivers_format():
    assert (Quantity.parse("1Gi") + Quantity.parse("1G")).format == BSI
    assert (Quantity.parse("1G") + Quantity.parse("1Gi")).format == DSI
    assert (Quantity.from_int(0, DSI) + Quantity.parse("1Gi")).format == BSI
    assert str(Quantity.from_int(0, DSI) + Quantity.parse("1Gi") + Quantity.parse("1G")) == "2073741824"
    # The cached text is dropped: 1.G + 0 prints canonically.
    assert str(Quantity.parse("1.G") + Quantity.parse("0")) == "1G"
    # A zero inf.Dec receiver takes the other's format too.
    assert (Quantity.parse("0.0000000000e-10") + Quantity.parse("1Gi")).format == BSI


def test_add_promotes_to_inf_dec():
    assert (Quantity.parse("1Gi") + Quantity.parse("1Mi")).as_int64() == GI + MI
    assert (Quantity.parse("5.09765625Gi") + Quantity.parse("0")).as_int64() is None
    overflow = Quantity.from_int(MOST_POSITIVE) + Quantity.from_int(1)
    assert overflow.as_int64() is None
    assert str(overflow) == "8Ei"
    assert overflow.exact == MOST_POSITIVE + 1


def test_value_rounds_away_from_zero():
    assert Quantity.parse("1.5").value() == 2
    assert Quantity.parse("-1.5").value() == -2
    assert Quantity.parse("1n").value() == 1
    assert Quantity.parse("-0.1Ki").value() == -103


def test_from_int_takes_an_int64():
    with pytest.raises(ValueError):
        Quantity.from_int(MOST_POSITIVE + 1)
    with pytest.raises(TypeError):
        Quantity.from_int(True)
    with pytest.raises(TypeError):
        Quantity.from_int(1.0)


def test_quantity_is_immutable():
    quantity = Quantity.parse("1Gi")
    with pytest.raises(AttributeError):
        quantity.format = DSI
    assert str(quantity) == "1Gi"


def fits_int64_fast_path(text):
    """Whether ParseQuantity takes the int64 path for a canonical byte count: the digit limits its precision
    formula gives (18 digits; 11, 8, 5 and 2 before Ki, Mi, Gi and Ti; never before Pi or Ei)."""
    limits = {"Ki": 11, "Mi": 8, "Gi": 5, "Ti": 2, "Pi": -1, "Ei": -1}
    mantissa, limit = (text[:-2], limits[text[-2:]]) if text[-2:] in limits else (text, 18)
    return len(mantissa.lstrip("-")) <= limit


def test_canonical_bytes_of_the_smallest_int64_does_not_round_trip():
    # -2**63 prints as -8Ei, and ParseQuantity caps BinarySI at 2**63 - 1 in magnitude (upstream #140674).
    assert canonical_bytes(MOST_NEGATIVE) == "-8Ei"
    assert Quantity.parse("-8Ei").exact == -MOST_POSITIVE


@given(st.integers(MOST_NEGATIVE + 1, MOST_POSITIVE))
def test_canonical_bytes_round_trip(count):
    text = canonical_bytes(count)
    parsed = Quantity.parse(text)
    assert parsed == Quantity.from_int(count)
    assert parsed.exact == count
    assert parsed.value() == count
    assert parsed.as_int64() == (count if fits_int64_fast_path(text) else None)


@given(st.integers(0, 1 << 46))
def test_canonical_bytes_of_memory_sizes_convert_to_int64(count):
    assert Quantity.parse(canonical_bytes(count)).as_int64() == count


SUFFIXES = ["", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]
quantity_texts = st.builds(
    lambda sign, whole, fraction, suffix: sign + whole + fraction + suffix,
    st.sampled_from(["", "+", "-"]),
    st.text("0123456789", max_size=22),
    st.one_of(st.just(""), st.text("0123456789", max_size=12).map(lambda digits: "." + digits)),
    st.one_of(
        st.sampled_from(SUFFIXES),
        st.builds(lambda letter, sign, exponent: f"{letter}{sign}{exponent}", st.sampled_from("eE"), st.sampled_from(["", "+", "-"]), st.integers(0, 30)),
    ),
)


def parses(text):
    try:
        Quantity.parse(text)
    except QuantityError:
        return False
    return True


valid_quantity_texts = quantity_texts.filter(parses)


@given(valid_quantity_texts)
def test_string_round_trip(text):
    quantity = Quantity.parse(text)
    again = Quantity.parse(str(quantity))
    assert again == quantity
    assert hash(again) == hash(quantity)
    assert str(again) == str(quantity)


@given(valid_quantity_texts, valid_quantity_texts)
def test_add_is_exact(left_text, right_text):
    left, right = Quantity.parse(left_text), Quantity.parse(right_text)
    total = left + right
    assert total.exact == exact_sum(left.exact, right.exact)
    assert total.format == (right.format if left.is_zero() else left.format)
    # A sum can leave the range ParseQuantity caps BinarySI to: its printed form then parses as 2**63 - 1.
    if total.format != BSI or abs(total.exact) <= MOST_POSITIVE:
        assert Quantity.parse(str(total)) == total
