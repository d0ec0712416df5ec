# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
name: _deprecated_entry_point
short_description: Warn that a platform entry point of the kubelet_numa role is deprecated
version_added: 0.2.0
description:
  - Shows a deprecation warning (removal in 0.3.0) saying that C(tasks_from) with a platform's name is now the role's
    C(main) entry point with C(kubelet_numa_platform) set to that platform, and returns the warning's text.
  - meta/runtime.yml routes renamed plugins, not a role's task files, so the old entry points of
    P(numa.kubelet.kubelet_numa#role) warn through this filter.
  - Private to numa.kubelet, as its leading underscore says. The role's old entry points call it, and it goes with them.
author:
  - numa.kubelet developers
options:
  _input:
    description: The old entry point, one of V(kubeadm), V(rke2), V(nodeadm) and V(k3s).
    type: str
    required: true
"""

EXAMPLES = r"""
- name: Warn that tasks_from kubeadm is deprecated
  ansible.builtin.debug:
    msg: "{{ 'kubeadm' | numa.kubelet._deprecated_entry_point }}"
"""

RETURN = r"""
_value:
  description: The text of the deprecation warning.
  type: str
"""

from ansible.errors import AnsibleFilterError
from ansible.utils.display import Display

from ansible_collections.numa.kubelet.plugins.plugin_utils._config import plain_data
from ansible_collections.numa.kubelet.plugins.plugin_utils._kubelet_fields import type_name

# The platform entry points (tasks/<platform>.yml), kept for one release; k3s came with 0.2.0, the others with 0.1.0.
PLATFORM_ENTRY_POINTS = ("kubeadm", "rke2", "nodeadm", "k3s")


def deprecation_text(entry_point: str) -> str:
    """What the warning says: the old call and the one that replaces it."""
    return (
        f"The entry point tasks_from: {entry_point} of the role numa.kubelet.kubelet_numa is deprecated: run the role's "
        f"main entry point (no tasks_from) with kubelet_numa_platform: {entry_point}."
    )


def deprecated_entry_point(entry_point):
    """Show the deprecation of a platform entry point and return its text."""
    entry_point = plain_data(entry_point)
    if entry_point not in PLATFORM_ENTRY_POINTS:
        raise AnsibleFilterError(f"_deprecated_entry_point: {entry_point!r} ({type_name(entry_point)}) is not one of {', '.join(PLATFORM_ENTRY_POINTS)}")
    text = deprecation_text(entry_point)
    # A literal version: ansible-test sanity (pylint) checks it against galaxy.yml.
    Display().deprecated(text, version="0.3.0", collection_name="numa.kubelet")
    return text


class FilterModule:
    """The deprecation of the role's platform entry points."""

    def filters(self):
        return {"_deprecated_entry_point": deprecated_entry_point}
