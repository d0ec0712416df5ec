# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Reservations written with fractions (1.5Gi, 0.75Gi, 3.6G, 2.5Mi) whose total is a whole number of bytes.

Such a total is held by Kubernetes as an inf.Dec, which Quantity.AsInt64 refuses, but the kubelet only converts
each reservedMemory limit *as written* to int64 (memory_manager.go convertReserved); the total is compared by value.
Verified on a real kubelet v1.36.2: kubeReserved 1.5Gi + systemReserved 0.5Gi + evictionHard 100Mi is accepted
with 1074Mi on each of two NUMA nodes. Only totals that are not whole bytes, or that exceed int64, are refused.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.numa.kubelet.plugins.plugin_utils._allocatable import memory_reservation
from ansible_collections.numa.kubelet.plugins.plugin_utils._config import KubeletConfigError
from ansible_collections.numa.kubelet.plugins.plugin_utils._quantity import Quantity
from ansible_collections.numa.kubelet.plugins.plugin_utils._split import reserved_memory
from ansible_collections.numa.kubelet.plugins.plugin_utils._validation import check_kubelet_config

GI = 1 << 30
MI = 1 << 20
INT64_MAX = (1 << 63) - 1


def static(**fields):
    return dict({"memoryManagerPolicy": "Static", "topologyManagerPolicy": "single-numa-node"}, **fields)


def limits(result):
    return [(item["numaNode"], item["limits"]["memory"]) for item in result]


@pytest.mark.parametrize(
    "config, expected",
    [
        # The reported case: 1536Mi + 512Mi + 100Mi = 2148Mi, accepted by a real kubelet as 1074Mi per node.
        (
            static(kubeReserved={"memory": "1.5Gi"}, systemReserved={"memory": "0.5Gi"}, evictionHard={"memory.available": "100Mi"}),
            [(0, "1074Mi"), (1, "1074Mi")],
        ),
        # 768Mi + 100Mi default eviction.
        (static(kubeReserved={"memory": "0.75Gi"}), [(0, "434Mi"), (1, "434Mi")]),
        # 1152Mi + 100Mi.
        (static(kubeReserved={"memory": "1.125Gi"}), [(0, "626Mi"), (1, "626Mi")]),
        # 2560Ki + 102400Ki = 104960Ki: 52480Ki each, not a whole number of Mi.
        (static(kubeReserved={"memory": "2.5Mi"}), [(0, "52480Ki"), (1, "52480Ki")]),
        # Decimal fractions stay int64Amounts on their own (3600000000 + 104857600 bytes) ...
        (static(kubeReserved={"memory": "3.6G"}), [(0, "1852428800"), (1, "1852428800")]),
        (static(kubeReserved={"memory": "0.3G"}), [(0, "202428800"), (1, "202428800")]),
        # ... and become an inf.Dec once a binary fraction joins them: 3600000000 + 536870912 + 104857600 bytes.
        (static(kubeReserved={"memory": "3.6G"}, systemReserved={"memory": "0.5Gi"}), [(0, "2120864256"), (1, "2120864256")]),
        # 300000000 + 805306368 + 104857600 bytes.
        (static(kubeReserved={"memory": "0.3G"}, systemReserved={"memory": "0.75Gi"}), [(0, "605081984"), (1, "605081984")]),
        # Two fractions that are not whole bytes on their own but are together: 107374182.4 + 429496729.6 + 100Mi = 612Mi.
        (static(kubeReserved={"memory": "0.1Gi"}, systemReserved={"memory": "0.4Gi"}), [(0, "306Mi"), (1, "306Mi")]),
    ],
)
def test_fractional_reservations_whose_total_is_whole_bytes_are_split(config, expected):
    result = reserved_memory(config, [0, 1])
    assert limits(result) == expected
    total = memory_reservation(config).total
    assert sum(Quantity.parse(share).as_int64() for _node, share in limits(result)) == total.exact
    assert check_kubelet_config(dict(config, reservedMemory=result), [0, 1]).errors == []


@pytest.mark.parametrize(
    "split, expected",
    [
        ("first", [(0, "2148Mi")]),
        ("proportional", [(0, "1611Mi"), (1, "537Mi")]),
        ({0: "2Gi", 1: "100Mi"}, [(0, "2Gi"), (1, "100Mi")]),
    ],
)
def test_fractional_reservation_with_every_strategy(split, expected):
    config = static(kubeReserved={"memory": "1.5Gi"}, systemReserved={"memory": "0.5Gi"}, evictionHard={"memory.available": "100Mi"})
    nodes = [{"id": 0, "memory_bytes": 48 * GI}, {"id": 1, "memory_bytes": 16 * GI}]
    result = reserved_memory(config, nodes, split)
    assert limits(result) == expected
    assert check_kubelet_config(dict(config, reservedMemory=result), nodes).errors == []


def test_a_total_that_is_not_whole_bytes_is_refused():
    # 0.1Gi is 107374182.4 bytes: no list of int64 limits can sum to it.
    with pytest.raises(KubeletConfigError) as error:
        reserved_memory(static(kubeReserved={"memory": "0.1Gi"}), [0, 1])
    assert str(error.value) == (
        "the memory reservation kubeReserved.memory 107374182400m + evictionHard memory.available (kubelet default) 100Mi "
        "= 212231782400m is not a whole number of bytes, so no reservedMemory can match it exactly "
        "(the kubelet converts every reservedMemory limit to an int64 number of bytes)"
    )


@pytest.mark.parametrize(
    "config, shown",
    [
        # Kubernetes clamps 9Ei to the int64 maximum; the 100Mi default eviction then pushes the total past it.
        (
            static(kubeReserved={"memory": "9Ei"}),
            "kubeReserved.memory 9223372036854775807 + evictionHard memory.available (kubelet default) 100Mi = 9223372036959633407",
        ),
        (
            static(kubeReserved={"memory": "5Ei"}, systemReserved={"memory": "5Ei"}, evictionHard={"nodefs.available": "5%"}),
            "systemReserved.memory 5Ei + kubeReserved.memory 5Ei = 10Ei",
        ),
    ],
)
def test_a_total_beyond_int64_is_refused_as_such(config, shown):
    with pytest.raises(KubeletConfigError) as error:
        reserved_memory(config, [0, 1])
    assert str(error.value) == (
        f"the memory reservation {shown} exceeds the int64 maximum (9223372036854775807 bytes), so no reservedMemory can match it "
        "(the kubelet converts every reservedMemory limit to an int64 number of bytes; Kubernetes clamps a larger "
        "binary quantity such as 9Ei to that maximum)"
    )
    assert "whole number" not in str(error.value)


# Units a reservation may be written in, and the decimal text of an exact fraction in one of them.
UNITS = (("", 1), ("k", 10**3), ("M", 10**6), ("G", 10**9), ("Ki", 1 << 10), ("Mi", 1 << 20), ("Gi", 1 << 30))


def decimal_text(value):
    """The exact decimal digits of a Fraction whose denominator has only the factors 2 and 5."""
    places = 0
    while (value * 10**places).denominator != 1:
        places += 1
    digits = str(int(value * 10**places)).rjust(places + 1, "0")
    return digits if not places else f"{digits[:-places]}.{digits[-places:]}"


@st.composite
def fractional_reservations(draw):
    """(kube text, system text, exact bytes of their sum): each written with a fraction, the sum whole bytes."""
    kube_suffix, kube_unit = draw(st.sampled_from(UNITS))
    places = draw(st.integers(min_value=1, max_value=4))
    mantissa = draw(st.integers(min_value=1, max_value=10**5))
    kube = Fraction(mantissa, 10**places)
    kube_bytes = kube * kube_unit
    whole = -(-kube_bytes.numerator // kube_bytes.denominator)  # ceil: the smallest whole total above kube alone
    total = whole + draw(st.integers(min_value=0 if whole > kube_bytes else 1, max_value=1 << 40))
    system_suffix, system_unit = draw(st.sampled_from(UNITS))
    system = (total - kube_bytes) / system_unit
    return decimal_text(kube) + kube_suffix, decimal_text(system) + system_suffix, total


eviction_settings = st.sampled_from(
    [
        (None, 100 * MI),
        ({"memory.available": "100Mi"}, 100 * MI),
        ({"memory.available": "0.5Gi"}, GI // 2),
        ({"memory.available": "1.5G"}, 1500 * 10**6),
        ({"nodefs.available": "5%"}, 0),
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    reservation=fractional_reservations(),
    eviction=eviction_settings,
    node_count=st.integers(min_value=1, max_value=8),
    strategy=st.sampled_from(["even", "first", "proportional"]),
    node_memory=st.lists(st.integers(min_value=1 << 45, max_value=1 << 48), min_size=8, max_size=8),
)
def test_fractional_reservations_with_a_whole_total_validate(reservation, eviction, node_count, strategy, node_memory):
    kube, system, reserved_bytes = reservation
    eviction_hard, eviction_bytes = eviction
    config = static(kubeReserved={"memory": kube}, systemReserved={"memory": system})
    if eviction_hard is not None:
        config["evictionHard"] = eviction_hard
    assert memory_reservation(config).total.exact == reserved_bytes + eviction_bytes
    nodes = [{"id": node_id, "memory_bytes": node_memory[node_id]} for node_id in range(node_count)]
    result = reserved_memory(config, nodes, strategy)
    assert sum(Quantity.parse(item["limits"]["memory"]).as_int64() for item in result) == reserved_bytes + eviction_bytes
    assert check_kubelet_config(dict(config, reservedMemory=result), nodes).errors == []


@settings(max_examples=200, deadline=None)
@given(
    mantissa=st.integers(min_value=1, max_value=10**5),
    places=st.integers(min_value=1, max_value=4),
    unit=st.sampled_from(UNITS),
    node_count=st.integers(min_value=1, max_value=4),
)
def test_a_fraction_of_a_byte_is_always_refused(mantissa, places, unit, node_count):
    suffix, size = unit
    kube = Fraction(mantissa, 10**places)
    config = static(kubeReserved={"memory": decimal_text(kube) + suffix}, evictionHard={"nodefs.available": "5%"})
    if (kube * size).denominator == 1:
        assert sum(Quantity.parse(item["limits"]["memory"]).as_int64() for item in reserved_memory(config, list(range(node_count)))) == kube * size
    else:
        with pytest.raises(KubeletConfigError, match=r"is not a whole number of bytes"):
            reserved_memory(config, list(range(node_count)))
