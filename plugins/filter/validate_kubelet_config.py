# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
name: validate_kubelet_config
short_description: Fail unless the kubelet would start with this KubeletConfiguration
version_added: 0.1.0
description:
  - Returns the config unchanged when the kubelet would accept it as its main config file; otherwise fails with
    every problem at once, each naming the field and quoting the kubelet's own error text where it has one.
  - Judges the config the kubelet would hold for this file, as the kubelet does - after its v1beta1 defaults and its
    default C(evictionHard) (see P(numa.kubelet.effective_kubelet_config#filter)) - so a rule that depends on a default
    (the image GC thresholds, C(enforceNodeAllocatable) C([pods]) with C(cgroupsPerQOS), the C(serializeImagePulls)
    derived from C(maxParallelImagePulls)) decides on the value the kubelet uses. A value set explicitly is kept as written, even an empty
    one such as C(enforceNodeAllocatable) set to C([]).
  - The kubelet's checks, with its texts - its validation of the whole configuration (validation.go), the feature
    gates it knows (locked, unknown, and the fields that need one), what it checks when it builds its CPU, memory and
    topology managers (policy names and options, reservedMemory, the CPU reservation) and parses its eviction,
    qosReserved, reservedSystemCPUs, logging, taint and TLS settings - and the ones it lacks (a node's reservation
    must fit in that node's memory, C(reservedMemory) only with C(Static), hugepages refused with the reason, unknown
    top-level fields with a suggestion, since the kubelet silently ignores a misspelled C(reservedMemroy)).
  - A C(Static) memory manager without C(topologyManagerPolicy) C(single-numa-node) or C(restricted) gives a warning.
author:
  - numa.kubelet developers
extends_documentation_fragment:
  - numa.kubelet.kubelet_config
options:
  numa_nodes:
    description:
      - The host's NUMA nodes (ids, or the C(numa_nodes) fact of M(numa.kubelet.numa_facts)).
      - Enables the checks that NUMA ids exist and that each node's reservation fits in its memory.
    type: list
    elements: raw
  kubelet_version:
    description:
      - The version of the kubelet that reads the config, as a quoted string (C("1.33"), C("v1.32.5+rke2r1")).
      - Chooses the rules that differ between versions (which CPU and topology manager policy options exist and at
        which maturity, the feature gates, the defaults, the fields). The rules are exact for C("1.31"), C("1.33") and
        C("1.36"); another version is judged by the nearest older of these, with a warning that says so.
      - A field that kubelet does not know (C(memoryReservationPolicy) on C("1.33"), C(userNamespaces) on C("1.31"))
        is ignored by it whatever its value, so it gets a warning naming the field and the version, never an error.
      - Omitted, the config is judged as the kubelet v1.36 judges it.
    type: str
"""

EXAMPLES = r"""
- name: Refuse to write a config the kubelet would crash on (numa_nodes from numa.kubelet.numa_facts)
  ansible.builtin.copy:
    content: >-
      {{ kubelet_config
         | ansible.builtin.combine({'reservedMemory': kubelet_config | numa.kubelet.reserved_memory(numa_nodes)})
         | numa.kubelet.validate_kubelet_config(numa_nodes, memory_capacity=numa_memory_capacity_bytes)
         | ansible.builtin.to_nice_yaml(indent=2) }}
    dest: /var/lib/kubelet/config.yaml
    mode: "0644"

- name: Check a config for the kubelet of an RKE2 1.33 node (its CPU manager options as that kubelet knows them)
  ansible.builtin.debug:
    msg: "{{ (config | numa.kubelet.validate_kubelet_config(kubelet_version=rke2_version)).cpuManagerPolicyOptions }}"
  vars:
    rke2_version: v1.33.1+rke2r1
    config: {cpuManagerPolicy: static, kubeReserved: {cpu: 500m}, cpuManagerPolicyOptions: {full-pcpus-only: "true"}}
  # {"full-pcpus-only": "true"}
"""

RETURN = r"""
_value:
  description: The config, unchanged.
  type: dict
"""

from ansible.errors import AnsibleFilterError
from ansible.utils.display import Display

from ansible_collections.numa.kubelet.plugins.plugin_utils._config import plain_data
from ansible_collections.numa.kubelet.plugins.plugin_utils._validation import check_main_config_file


def validate_kubelet_config(kubelet_config, numa_nodes=None, memory_capacity=None, kubelet_version=None):
    """kubelet_config itself when the kubelet would accept it as its main config file."""
    report = check_main_config_file(plain_data(kubelet_config), plain_data(numa_nodes), plain_data(memory_capacity), plain_data(kubelet_version))
    for warning in report.warnings:
        Display().warning("validate_kubelet_config: %s" % warning)
    if report.errors:
        raise AnsibleFilterError("validate_kubelet_config: the kubelet would refuse this config:\n- %s" % "\n- ".join(report.errors))
    return kubelet_config


class FilterModule:
    """KubeletConfiguration validation."""

    def filters(self):
        return {"validate_kubelet_config": validate_kubelet_config}
