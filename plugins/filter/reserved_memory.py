# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
name: reserved_memory
short_description: Compute the kubelet's reservedMemory exactly, spread over NUMA nodes
version_added: 0.1.0
description:
  - With C(memoryManagerPolicy=Static) the kubelet refuses to start unless the C(reservedMemory) limits of type
    C(memory) sum exactly to C(kubeReserved.memory + systemReserved.memory + evictionHard memory.available).
    This filter computes that total from a KubeletConfiguration as the kubelet does and spreads it over NUMA nodes.
  - The eviction term is the kubelet's C(100Mi) default when the config has no C(evictionHard); it is 0 when
    C(evictionHard) is set without C(memory.available), unless C(mergeDefaultEvictionSettings=true); a percentage
    is computed from O(memory_capacity) with the kubelet's float32 arithmetic.
  - Every share is a whole number of bytes the kubelet can convert to int64, written in canonical form, and the
    shares always sum exactly to the total. Nodes whose share is zero are left out (the kubelet refuses zero).
author:
  - numa.kubelet developers
extends_documentation_fragment:
  - numa.kubelet.kubelet_config
options:
  numa_nodes:
    description:
      - The host's NUMA nodes, as a list of ids or as the C(numa_nodes) fact of M(numa.kubelet.numa_facts).
      - With the fact, a share larger than its node's memory is refused.
    type: list
    elements: raw
    required: true
  split:
    description:
      - V(even) spreads the total as equally as possible, counted in the coarsest binary unit that divides it
        (Gi, Mi, Ki or bytes), the remainder one unit each on the lowest ids.
      - V(first) puts it all on the lowest id.
      - V(proportional) spreads it by each node's memory (needs the C(numa_facts) node list), largest remainders first.
      - "A mapping C({numa_id: quantity}) is used as given after checking that it sums exactly to the total."
    type: raw
    default: even
"""

EXAMPLES = r"""
- name: Even split of 8500Mi + 100Mi over two NUMA nodes
  ansible.builtin.debug:
    msg: "{{ {'memoryManagerPolicy': 'Static', 'kubeReserved': {'memory': '8500Mi'}} | numa.kubelet.reserved_memory([0, 1]) }}"
  # [{"numaNode": 0, "limits": {"memory": "4300Mi"}}, {"numaNode": 1, "limits": {"memory": "4300Mi"}}]

- name: From this host's facts, with a percentage eviction threshold
  ansible.builtin.set_fact:
    kubelet_reserved_memory: >-
      {{ kubelet_config | numa.kubelet.reserved_memory(numa_nodes, split='proportional',
                                                       memory_capacity=numa_memory_capacity_bytes) }}

- name: An explicit split, checked against the total (4Gi + 1Gi + 100Mi)
  ansible.builtin.debug:
    msg: >-
      {{ {'memoryManagerPolicy': 'Static', 'kubeReserved': {'memory': '4Gi'}, 'systemReserved': {'memory': '1Gi'}}
         | numa.kubelet.reserved_memory([0, 1], split={0: '3Gi', 1: '2148Mi'}) }}
"""

RETURN = r"""
_value:
  description: The C(reservedMemory) list, one item per NUMA node with a non-zero share, sorted by id.
  type: list
  elements: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.numa.kubelet.plugins.plugin_utils._config import KubeletConfigError, plain_data
from ansible_collections.numa.kubelet.plugins.plugin_utils._split import reserved_memory as compute_reserved_memory


def reserved_memory(kubelet_config, numa_nodes, split="even", memory_capacity=None):
    """The reservedMemory list for kubelet_config on these NUMA nodes."""
    try:
        return compute_reserved_memory(plain_data(kubelet_config), plain_data(numa_nodes), plain_data(split), plain_data(memory_capacity))
    except KubeletConfigError as exc:
        raise AnsibleFilterError(f"reserved_memory: {exc}") from exc


class FilterModule:
    """reservedMemory computation."""

    def filters(self):
        return {"reserved_memory": reserved_memory}
