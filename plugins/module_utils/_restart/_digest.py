# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a file held when planned, as one string: the plan (plugin_utils/_pending.py) writes it into
numa.kubelet.restart_kubelet's write[].previous_sha256 and the transaction on the node compares it (_files.py).
Plain Python, so that the engine imports it without Ansible."""

from __future__ import annotations

import hashlib

# previous_sha256 of a file that did not exist when it was planned.
ABSENT = "absent"


def text_digest(text):
    """sha256:<hex> of a file's text as it is on disk (UTF-8), or ABSENT for no file (None)."""
    return ABSENT if text is None else "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()
