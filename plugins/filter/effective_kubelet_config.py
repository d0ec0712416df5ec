# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
name: effective_kubelet_config
short_description: The KubeletConfiguration a kubelet really runs with, defaults included
version_added: 0.1.0
description:
  - Layers a node's kubelet inputs the way the kubelet does (v1.36) - the v1beta1 defaults applied to the main
    C(--config) file, then the C(--config-dir) drop-ins as JSON merge patches in the order given (maps merge key by
    key, lists such as C(reservedMemory) are replaced whole, C(null) deletes), then the command-line flags (a scalar
    flag replaces the value; the first map or list flag replaces the file's value and repeated ones add to it).
  - Defaults reach the main file before the drop-ins, so a main file without C(evictionHard) keeps the default
    C(memory.available=100Mi) under a drop-in that sets only C(nodefs.available).
  - Compute C(reservedMemory) on this result, not on a fragment - the eviction term and the reservations depend on it.
author:
  - numa.kubelet developers
options:
  _input:
    description: The main C(--config) file as a dict, or C(none) when the kubelet gets no C(--config) (RKE2 1.32 and later).
    type: raw
    required: true
  dropins:
    description: The C(--config-dir) drop-in documents, in lexical order of their file names.
    type: list
    elements: dict
    default: []
  flags:
    description:
      - Kubelet command-line words (C(--name=value) or C(--name value)).
      - Flags that carry no config field (C(--kubeconfig), C(--node-ip), ...) and C(--config)/C(--config-dir) are ignored.
    type: list
    elements: str
    default: []
"""

EXAMPLES = r"""
- name: A kubeadm node whose main config sets only a disk eviction threshold (memory term 0)
  ansible.builtin.debug:
    msg: "{{ main | numa.kubelet.effective_kubelet_config(dropins=[ours]) | ansible.builtin.dict2items | length }}"
  vars:
    main: {apiVersion: kubelet.config.k8s.io/v1beta1, kind: KubeletConfiguration, evictionHard: {nodefs.available: 5%}}
    ours: {memoryManagerPolicy: Static, kubeReserved: {memory: 1Gi}}

- name: A --kube-reserved flag replaces the file's whole map
  ansible.builtin.debug:
    msg: "{{ (main | numa.kubelet.effective_kubelet_config(flags=['--kube-reserved=cpu=100m'])).kubeReserved }}"
  vars:
    main: {kubeReserved: {memory: 512Mi}}
  # {"cpu": "100m"}
"""

RETURN = r"""
_value:
  description: The complete effective KubeletConfiguration.
  type: dict
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.numa.kubelet.plugins.plugin_utils._config import KubeletConfigError, plain_data
from ansible_collections.numa.kubelet.plugins.plugin_utils._effective import effective_kubelet_config as layer


def effective_kubelet_config(main, dropins=None, flags=None):
    """The effective config of a kubelet with these inputs."""
    try:
        return layer(plain_data(main), plain_data(dropins) or [], plain_data(flags) or [])
    except KubeletConfigError as exc:
        raise AnsibleFilterError(f"effective_kubelet_config: {exc}") from exc


class FilterModule:
    """Kubelet config layering."""

    def filters(self):
        return {"effective_kubelet_config": effective_kubelet_config}
