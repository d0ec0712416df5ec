# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Go's %v of the values the kubelet's validation texts show."""

from __future__ import annotations

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._kubelet_view import go_float


@pytest.mark.parametrize(
    "value, text",
    [
        (500.0, "500"),
        (0.999, "0.999"),
        (1.5, "1.5"),
        (0.0001, "0.0001"),
        (0.00001, "1e-05"),
        (123456.0, "123456"),
        (1e6, "1e+06"),
        (123456789.0, "1.23456789e+08"),
    ],
)
def test_go_float(value, text):
    assert go_float(value) == text
