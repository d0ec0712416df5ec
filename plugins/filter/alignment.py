# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

# Documented in its sidecar, alignment.yml.
from ansible.errors import AnsibleFilterError

from ansible_collections.numa.kubelet.plugins.plugin_utils._alignment import AlignmentError, alignment


def alignment_filter(view):
    """Each pod container's NUMA assignment (the kubelet's checkpoint) against the kernel's view of its process."""
    if not isinstance(view, dict) or "containers" not in view:
        raise AnsibleFilterError(f"alignment: the input must be a numa.kubelet.container_numa result, got {view!r} ({type(view).__name__})")
    try:
        return alignment(view)
    except AlignmentError as exc:
        raise AnsibleFilterError(f"alignment: {exc}") from exc


class FilterModule:
    """NUMA alignment of pod containers."""

    def filters(self):
        return {"alignment": alignment_filter}
