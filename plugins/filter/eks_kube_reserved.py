# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
name: eks_kube_reserved
short_description: The kubeReserved that EKS nodeadm (AL2023) computes for a node
version_added: 0.1.0
description:
  - "Computed as awslabs/amazon-eks-ami nodeadm does: C(memory) is C(11 * maxPods + 255) Mi, C(cpu) a ladder over the
    node's CPUs (6% of the first core, 1% of the second, 0.5% of cores 3-4, 0.25% of each further core, in
    millicores, each step truncated), C(ephemeral-storage) C(1Gi)."
  - maxPods comes from the public per-instance ENI table nodeadm embeds (C(ENIs * (IPv4 addresses per ENI - 1) + 2)),
    shipped with this collection with its source commit and date; or from O(max_pods).
  - nodeadm counts the node's online CPUs itself and the table has no CPU counts, so O(vcpus) is required
    (the number of items in the C(cpus) lists of M(numa.kubelet.numa_facts), or the instance type's vCPUs).
  - An instance type missing from the table fails; pass O(max_pods) for it. A maxPods set in the kubelet config does
    not change nodeadm's kubeReserved; the result of a NodeConfig maxPodsExpression does, pass it as O(max_pods).
author:
  - numa.kubelet developers
options:
  _input:
    description: The EC2 instance type, such as C(p4d.24xlarge); C(null) when O(max_pods) is given.
    type: raw
    required: true
  max_pods:
    description: The node's maxPods, instead of looking up the instance type.
    type: int
  vcpus:
    description: The node's online CPU count.
    type: int
    required: true
"""

EXAMPLES = r"""
- name: kubeReserved for a p4d.24xlarge (96 vCPUs)
  ansible.builtin.debug:
    msg: "{{ 'p4d.24xlarge' | numa.kubelet.eks_kube_reserved(vcpus=96) }}"
  # {"cpu": "310m", "ephemeral-storage": "1Gi", "memory": "8362Mi"}

- name: From this node's facts
  ansible.builtin.debug:
    msg: "{{ 'm5.large' | numa.kubelet.eks_kube_reserved(vcpus=numa_nodes | map(attribute='cpus') | flatten | length) }}"

- name: A type missing from the table
  ansible.builtin.debug:
    msg: "{{ none | numa.kubelet.eks_kube_reserved(max_pods=110, vcpus=8) }}"
"""

RETURN = r"""
_value:
  description: The kubeReserved map with nodeadm's exact strings.
  type: dict
  sample: {"cpu": "310m", "ephemeral-storage": "1Gi", "memory": "8362Mi"}
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.numa.kubelet.plugins.plugin_utils._config import plain_data
from ansible_collections.numa.kubelet.plugins.plugin_utils._eks import EksError, kube_reserved


def eks_kube_reserved(instance_type, max_pods=None, vcpus=None):
    """nodeadm's kubeReserved for an instance type (or maxPods) and CPU count."""
    try:
        return kube_reserved(plain_data(instance_type), max_pods=plain_data(max_pods), vcpus=plain_data(vcpus))
    except EksError as exc:
        raise AnsibleFilterError(f"eks_kube_reserved: {exc}") from exc


class FilterModule:
    """EKS nodeadm kubeReserved."""

    def filters(self):
        return {"eks_kube_reserved": eks_kube_reserved}
