# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
name: quantity_to_bytes
short_description: Convert a Kubernetes quantity to a number of bytes
version_added: 0.1.0
description:
  - Parses a Kubernetes quantity exactly as C(k8s.io/apimachinery) C(resource.ParseQuantity) does
    (binary suffixes C(Ki) to C(Ei), decimal suffixes C(m) to C(E), exponents, signs, fractions)
    and returns its C(Value()), which rounds a fraction up to the next whole number.
  - An integer is taken as a number of bytes.
  - An invalid quantity fails with Kubernetes' own parse error and the value that caused it.
author:
  - numa.kubelet developers
options:
  _input:
    description: A quantity string such as C(4300Mi), C(1.5Gi) or C(5.47356672G), or an integer.
    type: raw
    required: true
"""

EXAMPLES = r"""
- name: 4300Mi in bytes
  ansible.builtin.debug:
    msg: "{{ '4300Mi' | numa.kubelet.quantity_to_bytes }}"  # 4508876800

- name: Decimal and binary suffixes
  ansible.builtin.debug:
    msg: "{{ ['1G', '1Gi', '1e3', '0.5Ki'] | map('numa.kubelet.quantity_to_bytes') | list }}"  # [1000000000, 1073741824, 1000, 512]
"""

RETURN = r"""
_value:
  description: The quantity's value in bytes, rounded up to a whole number as Kubernetes' Value() does.
  type: int
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.numa.kubelet.plugins.plugin_utils._config import KubeletConfigError, parse_quantity, plain_data


def quantity_to_bytes(value):
    """The quantity's Value() in bytes."""
    try:
        return parse_quantity(plain_data(value), "quantity_to_bytes").value()
    except KubeletConfigError as exc:
        raise AnsibleFilterError(str(exc)) from exc


class FilterModule:
    """Kubernetes quantity to bytes."""

    def filters(self):
        return {"quantity_to_bytes": quantity_to_bytes}
