# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
name: bytes_to_quantity
short_description: Write a number of bytes as a canonical Kubernetes quantity
version_added: 0.1.0
description:
  - Returns the string Kubernetes itself prints for that many bytes as a binary-SI quantity
    (C(resource.NewQuantity(n, resource.BinarySI).String())), the form the kubelet uses in its messages.
  - The largest binary suffix that keeps the value a whole number is used (C(1073741824) is C(1Gi),
    C(9017753600) is C(8600Mi)); values that no suffix divides, and values below 1024, stay plain numbers.
author:
  - numa.kubelet developers
options:
  _input:
    description: A whole number of bytes (an integer, or a string of digits), within int64.
    type: raw
    required: true
"""

EXAMPLES = r"""
- name: Bytes to a quantity
  ansible.builtin.debug:
    msg: "{{ 9017753600 | numa.kubelet.bytes_to_quantity }}"  # 8600Mi
"""

RETURN = r"""
_value:
  description: The canonical quantity string.
  type: str
"""

import re

from ansible.errors import AnsibleFilterError

from ansible_collections.numa.kubelet.plugins.plugin_utils._config import plain_data
from ansible_collections.numa.kubelet.plugins.plugin_utils._kubelet_fields import type_name
from ansible_collections.numa.kubelet.plugins.plugin_utils._quantity import canonical_bytes

_INT64 = range(-(2**63), 2**63)


def bytes_to_quantity(value):
    """The canonical binary-SI quantity string for a number of bytes."""
    value = plain_data(value)
    if isinstance(value, str) and re.match(r"^-?\d+$", value.strip()):
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or value not in _INT64:
        raise AnsibleFilterError(f"bytes_to_quantity: {value!r} ({type_name(value)}) is not a whole number of bytes within int64")
    return canonical_bytes(value)


class FilterModule:
    """Bytes to a canonical Kubernetes quantity."""

    def filters(self):
        return {"bytes_to_quantity": bytes_to_quantity}
