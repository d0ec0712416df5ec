# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""quantity_to_bytes: a Kubernetes quantity as a number of bytes (its errors: test_filter.py)."""

from __future__ import annotations

import pytest

from ansible_collections.numa.kubelet.plugins.filter.quantity_to_bytes import FilterModule

quantity_to_bytes = FilterModule().filters()["quantity_to_bytes"]


@pytest.mark.parametrize("value, expected", [("4300Mi", 4508876800), ("1.5Gi", 1610612736), ("0.5", 1), (1024, 1024), ("5.47356672G", 5473566720)])
def test_quantity_to_bytes(value, expected):
    assert quantity_to_bytes(value) == expected
