# SPDX-License-Identifier: GPL-3.0-or-later
"""Copies the checkout's files as ROOT/ansible_collections/numa/kubelet and prints that path.

A copy, not a link: ansible-test and molecule want a real tree. The files are those git tracks or would track (not
ignored), so the copy is what a commit of the work tree would hold. Used by the sanity stage (noxfile.py), the trial
release of tests/distribution, scripts/run-molecule and scripts/test-matrix (scripts/lib/common.sh's collection_copy).
Usage: python3 collection_copy.py ROOT   (the standard library only: any Python 3 runs it)
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def collection_copy(root, repo=REPO):
    """A fresh copy of REPO's files in ROOT/ansible_collections/numa/kubelet; returns that path."""
    dest = os.path.join(root, "ansible_collections", "numa", "kubelet")
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=repo, capture_output=True, check=True).stdout
    for path in filter(None, os.fsdecode(listed).split("\0")):
        source = os.path.join(repo, path)
        # Files only: a link to a directory (.collections/.../kubelet, the checkout itself) is left out, and so is a
        # tracked file deleted from the work tree. A link to a file is copied as the file it points to.
        if os.path.isdir(source) or not os.path.exists(source):
            continue
        os.makedirs(os.path.dirname(os.path.join(dest, path)), exist_ok=True)
        shutil.copy2(source, os.path.join(dest, path))
    return dest


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: collection_copy.py ROOT")
    print(collection_copy(sys.argv[1]))
