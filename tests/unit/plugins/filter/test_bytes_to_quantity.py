# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""bytes_to_quantity: a number of bytes as a canonical Kubernetes quantity (its errors: test_filter.py)."""

from __future__ import annotations

import pytest

from ansible_collections.numa.kubelet.plugins.filter.bytes_to_quantity import FilterModule

bytes_to_quantity = FilterModule().filters()["bytes_to_quantity"]


@pytest.mark.parametrize("value, expected", [(9017753600, "8600Mi"), (1073741824, "1Gi"), ("4508876800", "4300Mi"), (405033580, "405033580"), (0, "0")])
def test_bytes_to_quantity(value, expected):
    assert bytes_to_quantity(value) == expected
