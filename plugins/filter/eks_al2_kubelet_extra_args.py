# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
name: eks_al2_kubelet_extra_args
short_description: The KUBELET_EXTRA_ARGS value for an EKS AL2 node's bootstrap.sh
version_added: 0.1.0
description:
  - "For AL2-era EKS nodes (C(/etc/eks/bootstrap.sh --kubelet-extra-args)): the kubelet flags that carry the intent
    and a C(--reserved-memory) matching the reservation the kubelet will check: bootstrap.sh's kubeReserved
    (C(11 * maxPods + 255) Mi, cpu from the node's CPUs, ephemeral-storage 1Gi) and evictionHard (memory.available
    100Mi, nodefs.available 10%, nodefs.inodesFree 5%) in kubelet-config.json, then the flags."
  - A kubelet map flag replaces the file's whole map, so C(--kube-reserved), C(--system-reserved) and
    C(--eviction-hard) carry bootstrap.sh's keys as well as the intent's.
  - bootstrap.sh writes the value into a systemd C(Environment=) line, where C(%) starts a specifier, so C(%) is
    written C(%%). Quote the result for the shell (P(ansible.builtin.quote#filter) filter, or the C(bootstrap_args) of
    P(numa.kubelet.eks_userdata#filter)).
  - The same checks as P(numa.kubelet.eks_userdata#filter); see there for the node class keys.
author:
  - numa.kubelet developers
options:
  _input:
    description: One node class (C(ami_family) is taken as C(AL2)).
    type: dict
    required: true
"""

EXAMPLES = r"""
- name: Bootstrap an AL2 m5.large with the memory manager
  ansible.builtin.debug:
    msg: "/etc/eks/bootstrap.sh my-cluster --kubelet-extra-args {{ node_class | numa.kubelet.eks_al2_kubelet_extra_args | ansible.builtin.quote }}"
  vars:
    node_class:
      name: m5
      instance_type: m5.large
      topology:
        numa_nodes: [{id: 0, memory_bytes: 8589934592, cpus: [0, 1]}]
        numa_memory_capacity_bytes: 8589934592
      intent: {memoryManagerPolicy: Static, topologyManagerPolicy: single-numa-node}
"""

RETURN = r"""
_value:
  description: The flags, space-separated, with C(%) doubled for systemd; not shell-quoted.
  type: str
  sample: "--memory-manager-policy=Static --topology-manager-policy=single-numa-node --reserved-memory=0:memory=674Mi"
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.numa.kubelet.plugins.plugin_utils._config import KubeletConfigError, plain_data
from ansible_collections.numa.kubelet.plugins.plugin_utils._eks_userdata import al2_kubelet_extra_args


def eks_al2_kubelet_extra_args(node_class):
    """KUBELET_EXTRA_ARGS for one AL2 node class."""
    try:
        return al2_kubelet_extra_args(plain_data(node_class))
    except KubeletConfigError as exc:
        raise AnsibleFilterError("eks_al2_kubelet_extra_args: %s" % "; ".join(exc.problems)) from exc


class FilterModule:
    """EKS AL2 kubelet extra args."""

    def filters(self):
        return {"eks_al2_kubelet_extra_args": eks_al2_kubelet_extra_args}
