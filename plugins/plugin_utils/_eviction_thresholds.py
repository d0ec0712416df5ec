# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The eviction settings as the kubelet parses them at start-up, with its own error texts.

kubernetes pkg/kubelet/eviction/helpers.go ParseThresholdConfig (read at 008b3652959ca58af8be3fb5b6ecfe9ae7638282)
reads evictionHard, evictionSoft, evictionSoftGracePeriod and evictionMinimumReclaim; cmd/kubelet/app/server.go run
parses evictionHard alone first, pkg/kubelet/kubelet.go NewMainKubelet all four (its error then reads "failed to run
Kubelet: failed to create kubelet: <text>"). The kubelet stops at the first problem of a Go map walked in random
order; every problem is reported here. parse_threshold is the one reader of a threshold: _allocatable computes the
hard-eviction memory term with it.
"""

from __future__ import annotations

import math
import re
import struct
from fractions import Fraction
from typing import Literal, TypeAlias

from ._config import KubeletConfigError, parse_quantity
from ._kubelet_defaults import parse_go_duration
from ._quantity import Quantity

# pkg/kubelet/eviction/api/types.go signals; helpers.go validSignal accepts these in every eviction map.
EVICTION_SIGNALS = (
    "memory.available",
    "nodefs.available",
    "nodefs.inodesFree",
    "imagefs.available",
    "imagefs.inodesFree",
    "containerfs.available",
    "containerfs.inodesFree",
    "allocatableMemory.available",
    "pid.available",
)
EVICTION_THRESHOLD_FIELDS = ("evictionHard", "evictionSoft")
# node_container_manager_linux.go hardEvictionReservation: the hard thresholds that reserve a node resource.
_RESERVING_SIGNALS = {"memory.available": "memory", "nodefs.available": "ephemeral-storage"}

# strconv.ParseFloat's syntax after parsePercentage trims every trailing '%': decimal, hexadecimal with a 'p'
# exponent, and the special values (a sign is allowed before "inf"/"infinity", not before "nan").
_DECIMAL_FLOAT = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_HEX_FLOAT = re.compile(r"^[+-]?0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?\d+$")
_INFINITY = re.compile(r"^[+-]?(inf|infinity)$", re.IGNORECASE)
_FLOAT32_MAX = Fraction(struct.unpack("<f", struct.pack("<I", 0x7F7FFFFF))[0])

# A threshold the kubelet acts on: a float32 share of capacity, or an absolute quantity.
Threshold: TypeAlias = tuple[Literal["percentage"], float] | tuple[Literal["quantity"], Quantity]


def _float32(value: float) -> float:
    """Round a float64 to the nearest float32, as Go's float32() conversion does."""
    return struct.unpack("<f", struct.pack("<f", value))[0]


def _exact_to_float32(exact: Fraction) -> float:
    """A rational correctly rounded once to float32 (no double rounding through float64), ties to even."""
    candidate = _float32(float(exact))
    # float(exact) rounds to float64 first; step to the float32 neighbour that is really nearest.
    bits = struct.unpack("<I", struct.pack("<f", candidate))[0]
    best = candidate
    for neighbour_bits in (bits - 1, bits + 1):
        if not 0 <= neighbour_bits < 0x7F800000:
            continue
        neighbour = struct.unpack("<f", struct.pack("<I", neighbour_bits))[0]
        distance, best_distance = abs(Fraction(neighbour) - exact), abs(Fraction(best) - exact)
        if distance < best_distance or (distance == best_distance and neighbour_bits % 2 == 0):
            best = neighbour
    return best


def _parse_float32(text: str, path: str) -> float:
    """strconv.ParseFloat(text, 32) with Go's error texts."""
    if _INFINITY.match(text):
        return -math.inf if text.startswith("-") else math.inf
    if text.lower() == "nan":
        return math.nan
    if _HEX_FLOAT.match(text):
        exact = Fraction(float.fromhex(text))
    elif _DECIMAL_FLOAT.match(text):
        exact = Fraction(text)
    else:
        raise KubeletConfigError([f'{path}: strconv.ParseFloat: parsing "{text}": invalid syntax (write a percentage like "5%")'])
    if abs(exact) > _FLOAT32_MAX:
        raise KubeletConfigError([f'{path}: strconv.ParseFloat: parsing "{text}": value out of range'])
    return _exact_to_float32(exact) if exact else 0.0


def parse_percentage(value: str, path: str) -> float:
    """helpers.go parsePercentage: float32(ParseFloat(TrimRight(value, "%"), 32)) / 100, a float32 division."""
    return _float32(_parse_float32(value.rstrip("%"), path) / 100)


def parse_threshold(signal: str, value: object, field: str = "evictionHard") -> Threshold | None:
    """One evictionHard / evictionSoft entry as helpers.go parseThresholdStatement reads it.

    Returns None for a threshold the kubelet ignores ("0%", "100%"), ("percentage", float32 share of capacity)
    or ("quantity", Quantity); raises KubeletConfigError with the kubelet's text otherwise.
    """
    path = f"{field}.{signal}"
    if signal not in EVICTION_SIGNALS:
        raise KubeletConfigError([f"{path}: unsupported eviction signal {signal}"])
    if not (isinstance(value, str) and value.endswith("%")):
        quantity = parse_quantity(value, path)
        if quantity.sign() <= 0:
            raise KubeletConfigError([f"{path}: eviction threshold {signal} must be positive: {quantity}"])
        return ("quantity", quantity)
    if value in ("0%", "100%"):
        return None
    # The range checks run on the float32 share, so "100.000001%" rounds to exactly 1 and passes, as in the kubelet.
    share = parse_percentage(value, path)
    if share < 0:
        raise KubeletConfigError([f"{path}: eviction percentage threshold {signal} must be >= 0%: {value}"])
    if share > 1:
        raise KubeletConfigError([f"{path}: eviction percentage threshold {signal} must be <= 100%: {value}"])
    return ("percentage", share)


def _minimum_reclaim_problem(signal: str, value: str) -> str | None:
    """helpers.go parseMinimumReclaims, one entry: a percentage must be above 0, a quantity not negative."""
    path = f"evictionMinimumReclaim.{signal}"
    try:
        if value.endswith("%"):
            # Go's `percentage <= 0` is false for NaN, which passes; so is Python's.
            if parse_percentage(value, path) <= 0:
                return f"{path}: eviction percentage minimum reclaim {signal} must be positive: {value}"
            return None
        if parse_quantity(value, path).sign() < 0:
            return f"{path}: negative eviction minimum reclaim specified for {signal}"
    except KubeletConfigError as exc:
        return exc.problems[0]
    return None


def _grace_period_problem(signal: str, value: str) -> str | None:
    """helpers.go parseGracePeriods, one entry: a Go duration, not negative (the kubelet prints the text as given)."""
    path = f"evictionSoftGracePeriod.{signal}"
    try:
        nanoseconds = parse_go_duration(value, path)
    except KubeletConfigError as exc:
        return exc.problems[0]
    if nanoseconds < 0:
        return f"{path}: invalid eviction grace period specified: {value}, must be a positive value"
    return None


def _string_entries(config: dict, field: str) -> dict:
    """The string-valued entries of a map field; other values and a non-map are field_type_problems' to report."""
    value = config.get(field)
    if not isinstance(value, dict):
        return {}
    return {key: item for key, item in value.items() if isinstance(key, str) and isinstance(item, str)}


def _nan_reservation_problem(signal: str, value: str) -> str:
    """A NaN share parses, then reserves int64(NaN * capacity), the most negative int64, which validateNodeAllocatable
    (pkg/kubelet/cm/node_container_manager_linux.go) refuses; the capacity it prints is the node's."""
    return (
        f'evictionHard.{signal}: invalid Node Allocatable configuration. Resource "{_RESERVING_SIGNALS[signal]}" has a reservation of '
        f"{{{{-9223372036854775808 0}} {{<nil>}}  BinarySI}} but capacity of <this node's capacity>. Expected capacity >= reservation.; "
        f"{value} is not a number: write a percentage or a quantity"
    )


def eviction_problems(config: dict) -> list[str]:
    """Every problem ParseThresholdConfig stops the kubelet with, on the effective (defaulted) config."""
    problems = []
    active_soft = []
    for field in EVICTION_THRESHOLD_FIELDS:
        for signal, value in _string_entries(config, field).items():
            try:
                threshold = parse_threshold(signal, value, field)
            except KubeletConfigError as exc:
                problems.extend(exc.problems)
                continue
            if field == "evictionSoft" and threshold is not None:
                active_soft.append(signal)
            if field == "evictionHard" and signal in _RESERVING_SIGNALS and threshold and threshold[0] == "percentage" and math.isnan(threshold[1]):
                problems.append(_nan_reservation_problem(signal, value))
    grace_periods = _string_entries(config, "evictionSoftGracePeriod")
    for field, check in (("evictionSoftGracePeriod", _grace_period_problem), ("evictionMinimumReclaim", _minimum_reclaim_problem)):
        for signal, value in _string_entries(config, field).items():
            if signal not in EVICTION_SIGNALS:
                problems.append(f"{field}.{signal}: unsupported eviction signal {signal}")
                continue
            problem = check(signal, value)
            if problem:
                problems.append(problem)
    for signal in active_soft:
        if signal not in grace_periods:
            problems.append(
                f"evictionSoft.{signal}: grace period must be specified for the soft eviction threshold {signal}; set evictionSoftGracePeriod.{signal}"
            )
    return problems


def threshold_quantity(share: float, capacity: int) -> Quantity:
    """eviction/api/types.go GetThresholdQuantity for a percentage: int64(float64(capacity) * float64(share))."""
    if math.isnan(share):
        raise KubeletConfigError([_nan_reservation_problem("memory.available", "NaN%")])
    return Quantity.from_int(int(float(capacity) * share), "BinarySI")
