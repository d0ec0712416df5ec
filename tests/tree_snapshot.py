# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A file tree as data, to prove that a refused or check-mode run changed nothing. tests/ is on sys.path (pytest puts
tests/conftest.py's folder there), so a test imports this as `tree_snapshot`."""

from __future__ import annotations

import os


def snapshot(root, skip=None):
    """Every path under root (links not followed) with its bytes, its link target or "dir"; skip: a directory left out."""
    found = {}
    for directory, dirs, names in os.walk(root):
        dirs[:] = [name for name in dirs if os.path.join(directory, name) != skip]
        for name in dirs + names:
            path = os.path.join(directory, name)
            if os.path.islink(path):
                found[path] = "-> " + os.readlink(path)
            elif os.path.isfile(path):
                with open(path, "rb") as handle:
                    found[path] = handle.read()
            else:
                found[path] = "dir"
    return found
