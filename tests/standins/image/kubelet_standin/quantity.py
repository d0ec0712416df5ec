# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright: numa.kubelet contributors; GNU General Public License v3.0+ (see LICENSE or
# https://www.gnu.org/licenses/gpl-3.0.txt)
"""Kubelet STAND-IN: an exact Kubernetes resource.Quantity and float32 rounding."""

import fractions
import re
import struct

# ----------------------------------------------------------------------------------------------- quantities
QUANTITY_RE = re.compile(r"^([+-]?)([0-9]*)(?:\.([0-9]*))?([a-zA-Z]*|[eE][+-]?[0-9]+)$")
BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
DECIMAL_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
INT64_MAX = 2**63 - 1
QUANTITY_FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


class Quantity:
    """An exact Kubernetes resource.Quantity: value as a Fraction, its format, and int64 convertibility."""

    def __init__(self, value, fmt="DecimalSI", int64_ok=True):
        self.value = fractions.Fraction(value)
        self.fmt = fmt
        self.int64_ok = int64_ok

    @classmethod
    def parse(cls, text):
        """Parse like resource.ParseQuantity; int64_ok follows Quantity.AsInt64 on the parsed value."""
        if isinstance(text, bool) or not isinstance(text, (str, int, float)):
            raise ValueError(QUANTITY_FORMAT_ERROR)
        text = str(text).strip()
        match = QUANTITY_RE.match(text)
        if not match or not (match.group(2) or match.group(3)):
            raise ValueError(QUANTITY_FORMAT_ERROR)
        sign, num, denom, suffix = match.group(1), match.group(2), match.group(3) or "", match.group(4)
        num_stripped = num.lstrip("0")
        digits = fractions.Fraction(int(num or "0")) + (fractions.Fraction(int(denom), 10 ** len(denom)) if denom else 0)
        if suffix in BINARY_SUFFIXES:
            exponent = BINARY_SUFFIXES[suffix]
            fmt = "BinarySI"
            value = digits * 2**exponent
            # Fast (int64) path only for whole binary numbers with enough precision, else an inf.Dec.
            precision = 15 - len(num_stripped) - int(exponent * 3 / 10) - 1
            int64_ok = not denom and precision >= 0
        elif suffix in DECIMAL_SUFFIXES or re.match(r"^[eE][+-]?[0-9]+$", suffix):
            if suffix in DECIMAL_SUFFIXES:
                exponent, fmt = DECIMAL_SUFFIXES[suffix], "DecimalSI"
            else:
                exponent, fmt = int(suffix[1:]), "DecimalExponent"
            value = digits * fractions.Fraction(10) ** exponent
            precision = 18 - (len(num_stripped) + len(denom))
            scale = exponent - len(denom)
            int64_ok = precision >= 0 and scale >= 0 and abs(value) <= INT64_MAX
        else:
            raise ValueError(QUANTITY_FORMAT_ERROR)
        if sign == "-":
            value = -value
        if abs(value) > INT64_MAX:
            int64_ok = False
        return cls(value, fmt, int64_ok)

    def add(self, other):
        """Quantity.Add: a zero receiver takes the format of what is added."""
        fmt = other.fmt if self.value == 0 else self.fmt
        return Quantity(self.value + other.value, fmt, self.int64_ok and other.int64_ok)

    def __str__(self):
        """Kubernetes' canonical string form."""
        value, fmt = self.value, self.fmt
        if fmt == "BinarySI":
            if -1024 < value < 1024 or value.denominator != 1:
                fmt = "DecimalSI"
            else:
                number, exp = int(value), 0
                while exp < 60 and number % 1024 == 0:
                    number //= 1024
                    exp += 10
                suffix = {v: k for k, v in BINARY_SUFFIXES.items()}.get(exp, "")
                return "%d%s" % (number, suffix)
        nanos = value * 10**9
        number = -((-nanos.numerator) // nanos.denominator)  # round up to nano precision
        if number == 0:
            return "0"
        exp = -9
        while exp < 18 and number % 1000 == 0:
            number //= 1000
            exp += 3
        if fmt == "DecimalExponent":
            return "%d%s" % (number, "" if exp == 0 else "e%d" % exp)
        return "%d%s" % (number, {v: k for k, v in DECIMAL_SUFFIXES.items()}[exp])


def float32(value):
    """Round a Python float to the nearest IEEE float32."""
    return struct.unpack("f", struct.pack("f", value))[0]
