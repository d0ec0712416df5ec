# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations


class ModuleDocFragment:
    """Options shared by the filters that read a whole kubelet config."""

    DOCUMENTATION = r"""
options:
  _input:
    description: The kubelet's main config as a dict with the kubelet's own field names (KubeletConfiguration v1beta1).
    type: dict
    required: true
  memory_capacity:
    description:
      - The node's memory capacity in bytes (C(numa_memory_capacity_bytes) from M(numa.kubelet.numa_facts)).
      - Required when C(evictionHard) C(memory.available) is a percentage.
    type: raw
"""
