# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The node-allocatable memory reservation (_allocatable): its total, its terms and the kubelet's eviction arithmetic.

Cases come from the Kubernetes memory manager documentation (4Gi + 1Gi + 100Mi reserved as 3Gi + 2148Mi),
docs/kubelet-facts.md sections 1, 2 and 5, and the kubelet's eviction arithmetic.
"""

from __future__ import annotations

import re

import numpy
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.numa.kubelet.plugins.plugin_utils._allocatable import eviction_memory_term, memory_capacity_problems, memory_reservation
from ansible_collections.numa.kubelet.plugins.plugin_utils._config import KubeletConfigError
from ansible_collections.numa.kubelet.plugins.plugin_utils._quantity import Quantity

GI = 1 << 30


def static(**fields):
    return dict({"memoryManagerPolicy": "Static"}, **fields)


@pytest.mark.parametrize(
    "config, expected",
    [
        # Kubernetes docs (memory-manager "Reserved memory flag"): 4Gi + 1Gi + 100Mi.
        (static(kubeReserved={"memory": "4Gi"}, systemReserved={"memory": "1Gi"}), "5220Mi"),
        (static(systemReserved={"memory": "16Gi"}), "16484Mi"),
        (static(kubeReserved={"memory": "1Gi"}, systemReserved={"memory": "16484Mi"}), "17608Mi"),
        (static(kubeReserved={"memory": "20Gi"}, systemReserved={"memory": "412Mi"}), "20992Mi"),
        # The seed EKS p4d config: kubeReserved pinned at 8500Mi, nodeadm's evictionHard memory.available 100Mi.
        (static(kubeReserved={"memory": "8500Mi"}, evictionHard={"memory.available": "100Mi"}), "8600Mi"),
        # EKS p4d.24xlarge computed by nodeadm: (11 * 737 + 255)Mi + 100Mi.
        (static(kubeReserved={"memory": "8362Mi"}, evictionHard={"memory.available": "100Mi"}), "8462Mi"),
        # evictionHard present without memory.available: the memory term is 0 (docs/kubelet-facts.md section 2, verified on a kubelet).
        (static(kubeReserved={"memory": "512Mi"}, systemReserved={"memory": "412Mi"}, evictionHard={"nodefs.available": "10%"}), "924Mi"),
        # ... unless mergeDefaultEvictionSettings brings the 100Mi default back.
        (
            static(
                kubeReserved={"memory": "512Mi"},
                systemReserved={"memory": "412Mi"},
                evictionHard={"nodefs.available": "10%"},
                mergeDefaultEvictionSettings=True,
            ),
            "1Gi",
        ),
        # evictionHard: null is no evictionHard at all: the default applies.
        (static(kubeReserved={"memory": "924Mi"}, evictionHard=None), "1Gi"),
        # 1Gi written as 1024Mi plus decimal units: compared as exact decimals.
        (static(kubeReserved={"memory": "1G"}, evictionHard={"memory.available": "1"}), "1000000001"),
    ],
)
def test_memory_reservation_totals(config, expected):
    assert memory_reservation(config).total == Quantity.parse(expected)


def test_reservation_explains_its_terms():
    reservation = memory_reservation(static(kubeReserved={"memory": "4Gi"}, systemReserved={"memory": "1Gi"}))
    assert reservation.describe() == "systemReserved.memory 1Gi + kubeReserved.memory 4Gi + evictionHard memory.available (kubelet default) 100Mi"


@pytest.mark.parametrize(
    "percentage, capacity_kib, expected_bytes",
    [
        # docs/kubelet-facts.md section 2: float32 arithmetic, not the exact 405,033,574.4.
        ("5%", 7910812, 405033580),
        ("10%", 7910812, 810067160),
        ("7.5%", 16 * 1024 * 1024, 1288490240),
    ],
)
def test_percentage_uses_the_kubelets_float32_arithmetic(percentage, capacity_kib, expected_bytes):
    term = eviction_memory_term({"evictionHard": {"memory.available": percentage}}, capacity_kib * 1024)
    assert term.quantity.value() == expected_bytes


def test_float32_percentage_is_not_the_exact_share():
    capacity = 7910812 * 1024
    exact = capacity * 5 // 100
    term = eviction_memory_term({"evictionHard": {"memory.available": "5%"}}, capacity)
    assert term.quantity.value() != exact


@pytest.mark.parametrize("percentage", ["0%", "100%"])
def test_zero_and_hundred_percent_are_ignored(percentage):
    assert eviction_memory_term({"evictionHard": {"memory.available": percentage}}) is None


def test_percentage_without_capacity_is_a_clear_error():
    with pytest.raises(KubeletConfigError, match=r"evictionHard.memory.available: '5%' is a share of the node's memory capacity, so memory_capacity"):
        memory_reservation(static(evictionHard={"memory.available": "5%"}))


@pytest.mark.parametrize(
    "value, message",
    [
        ("101%", "evictionHard.memory.available: eviction percentage threshold memory.available must be <= 100%: 101%"),
        ("-1%", "evictionHard.memory.available: eviction percentage threshold memory.available must be >= 0%: -1%"),
        ("abc%", 'evictionHard.memory.available: strconv.ParseFloat: parsing "abc": invalid syntax'),
        ("0", "evictionHard.memory.available: eviction threshold memory.available must be positive: 0"),
        ("-1Mi", "evictionHard.memory.available: eviction threshold memory.available must be positive: -1Mi"),
    ],
)
def test_invalid_eviction_thresholds(value, message):
    with pytest.raises(KubeletConfigError) as error:
        eviction_memory_term({"evictionHard": {"memory.available": value}}, GI)
    assert str(error.value).startswith(message)


def test_every_eviction_threshold_is_checked():
    with pytest.raises(KubeletConfigError) as error:
        eviction_memory_term({"evictionHard": {"memory.available": "100Mi", "nodefs.available": "ten%", "imagefs.available": "0"}})
    assert sorted(error.value.problems) == [
        "evictionHard.imagefs.available: eviction threshold imagefs.available must be positive: 0",
        'evictionHard.nodefs.available: strconv.ParseFloat: parsing "ten": invalid syntax (write a percentage like "5%")',
    ]


def test_unknown_eviction_signal():
    with pytest.raises(KubeletConfigError, match=re.escape("evictionHard.memory.availible: unsupported eviction signal memory.availible")):
        eviction_memory_term({"evictionHard": {"memory.availible": "100Mi"}})


@settings(max_examples=500, deadline=None)
@given(
    percentage=st.decimals(min_value=0, max_value=100, places=3).filter(lambda value: value not in (0, 100)),
    capacity_kib=st.integers(min_value=1, max_value=1 << 34),
)
def test_percentage_matches_a_float32_oracle(percentage, capacity_kib):
    text = f"{percentage}%"
    share = numpy.float32(numpy.float32(str(percentage)) / numpy.float32(100))
    expected = int(numpy.float64(capacity_kib * 1024) * numpy.float64(share))
    term = eviction_memory_term({"evictionHard": {"memory.available": text}}, capacity_kib * 1024)
    assert (term.quantity.value() if term else 0) == expected


def test_a_reservation_above_the_node_memory_is_refused_as_the_kubelet_refuses_it():
    # The real kubelet v1.36.2 on a machine with MemTotal 24684096 kB (25276514304 bytes): the exact fit starts.
    capacity = 24684096 * 1024
    fits = {"kubeReserved": {"memory": "1Gi"}, "systemReserved": {"memory": "24097914880"}}
    assert memory_capacity_problems(fits, capacity) == []
    over = {"kubeReserved": {"memory": "1Gi"}, "systemReserved": {"memory": "24097914881"}}
    (problem,) = memory_capacity_problems(over, capacity)
    assert problem.startswith(
        "systemReserved.memory + kubeReserved.memory + evictionHard.memory.available: "
        'invalid Node Allocatable configuration. Resource "memory" has a reservation of {{25276514305 0} {<nil>}  DecimalSI} '
        "but capacity of {{25276514304 0} {<nil>}  BinarySI}. Expected capacity >= reservation. "
    )
    binary = {"kubeReserved": {"memory": "1Gi"}, "systemReserved": {"memory": "200Gi"}}
    assert "a reservation of {{215926964224 0} {<nil>}  BinarySI}" in memory_capacity_problems(binary, capacity)[0]


def test_the_memory_capacity_check_needs_the_capacity():
    assert memory_capacity_problems({"systemReserved": {"memory": "200Gi"}}) == []
