# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
name: kubelet_flags
short_description: Write a KubeletConfiguration fragment as kubelet command-line flags
version_added: 0.1.0
description:
  - For platforms that take kubelet settings as flags, such as RKE2's C(kubelet-arg) or nodeadm's C(spec.kubelet.flags).
  - "Handled fields: C(kubeReserved), C(systemReserved), C(evictionHard), C(evictionSoft), C(evictionSoftGracePeriod),
    C(evictionMinimumReclaim), C(reservedMemory), C(memoryManagerPolicy), C(cpuManagerPolicy), C(cpuManagerPolicyOptions),
    C(cpuManagerReconcilePeriod), C(topologyManagerPolicy), C(topologyManagerScope), C(topologyManagerPolicyOptions),
    C(reservedSystemCPUs) (C(--reserved-cpus)), C(maxPods), C(featureGates), C(enforceNodeAllocatable),
    C(kubeReservedCgroup), C(systemReservedCgroup). C(apiVersion) and C(kind) are skipped."
  - A map flag replaces the config file's whole map, so each map is written whole in one flag, keys sorted
    (C(--kube-reserved=cpu=1,memory=1Gi), C(--eviction-hard=memory.available<100Mi,nodefs.available<10%)).
    C(cpuManagerPolicyOptions) and C(topologyManagerPolicyOptions) are not split on commas by the kubelet,
    so they get one flag per option.
  - C(reservedMemory) becomes one flag, C(;) between NUMA nodes (C(--reserved-memory=0:memory=4300Mi;1:memory=4300Mi)).
    RKE2 passes each C(kubelet-arg) item as one argument without a shell, so the C(;) is safe there.
  - A field with no flag form (such as C(mergeDefaultEvictionSettings)) or a value the flag syntax cannot carry
    fails; nothing is dropped.
  - Flags end up in C(kubeadm-flags.env), C(/etc/default/kubelet), RKE2 C(kubelet-arg) items and AL2
    C(KUBELET_EXTRA_ARGS) strings, so a key or value holding whitespace, a control character, a quote, a backslash,
    C($) or a backtick is refused, naming the field and the value.
author:
  - numa.kubelet developers
options:
  _input:
    description: A KubeletConfiguration fragment with the kubelet's own field names.
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: RKE2 kubelet-arg items
  ansible.builtin.debug:
    msg: "{{ kubelet_config | numa.kubelet.kubelet_flags | map('regex_replace', '^--', '') | list }}"
  vars:
    kubelet_config:
      memoryManagerPolicy: Static
      kubeReserved: {cpu: "1", memory: 1Gi}
      reservedMemory:
        - {numaNode: 0, limits: {memory: 562Mi}}
        - {numaNode: 1, limits: {memory: 562Mi}}
  # ["memory-manager-policy=Static", "kube-reserved=cpu=1,memory=1Gi", "reserved-memory=0:memory=562Mi;1:memory=562Mi"]
"""

RETURN = r"""
_value:
  description: The flags, C(--name=value) each, in the fragment's field order.
  type: list
  elements: str
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.numa.kubelet.plugins.plugin_utils._config import KubeletConfigError, plain_data
from ansible_collections.numa.kubelet.plugins.plugin_utils._flags import kubelet_flags as render_kubelet_flags


def kubelet_flags(kubelet_config):
    """The kubelet flags for a config fragment."""
    try:
        return render_kubelet_flags(plain_data(kubelet_config))
    except KubeletConfigError as exc:
        raise AnsibleFilterError(f"kubelet_flags: {exc}") from exc


class FilterModule:
    """KubeletConfiguration to kubelet flags."""

    def filters(self):
        return {"kubelet_flags": kubelet_flags}
