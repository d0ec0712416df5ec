# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""reserved_memory: the kubelet's reservedMemory spread over NUMA nodes, as the engine splits it (its errors: test_filter.py)."""

from __future__ import annotations

from ansible_collections.numa.kubelet.plugins.filter.reserved_memory import FilterModule
from ansible_collections.numa.kubelet.tests.unit.plugins.filter.test_filter import P4D

reserved_memory = FilterModule().filters()["reserved_memory"]


def test_reserved_memory_p4d():
    assert reserved_memory(P4D, [0, 1]) == [{"numaNode": 0, "limits": {"memory": "4300Mi"}}, {"numaNode": 1, "limits": {"memory": "4300Mi"}}]
