# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""scripts/lib/collection_copy.py: the checkout as a real ansible_collections/numa/kubelet tree (sanity, molecule,
the matrix and the trial release of tests/distribution use it)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
# The scripts list the checkout's files with git; the ansible-core matrix runs the unit tests in a Debian 13 root without it.
pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git (git ls-files), which this controller lacks")


def _collection_copy():
    spec = importlib.util.spec_from_file_location("collection_copy", os.path.join(REPO, "scripts", "lib", "collection_copy.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.collection_copy


def test_tracked_and_untracked_files_are_copied_ignored_and_deleted_ones_and_directory_links_are_not(tmp_path):
    repo = tmp_path / "repo"
    (repo / "plugins").mkdir(parents=True)
    (repo / "plugins" / "a.py").write_text("a\n")
    (repo / "gone.txt").write_text("gone\n")
    (repo / ".gitignore").write_text("ignored.txt\n")
    (repo / "ignored.txt").write_text("ignored\n")
    (repo / "self").symlink_to(".")
    (repo / "alias.py").symlink_to("plugins/a.py")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", "add", "plugins/a.py", "gone.txt", ".gitignore", "self", "alias.py"], cwd=repo, check=True)
    (repo / "gone.txt").unlink()
    (repo / "new.txt").write_text("new\n")
    stale = tmp_path / "out" / "ansible_collections" / "numa" / "kubelet" / "stale.txt"
    stale.parent.mkdir(parents=True)
    stale.write_text("from an earlier copy\n")

    dest = _collection_copy()(str(tmp_path / "out"), repo=str(repo))

    assert dest == str(stale.parent)
    copied = sorted(os.path.relpath(os.path.join(directory, name), dest) for directory, _subdirectories, names in os.walk(dest) for name in names)
    assert copied == [".gitignore", "alias.py", "new.txt", "plugins/a.py"]
    assert not os.path.islink(os.path.join(dest, "alias.py"))
    assert (stale.parent / "alias.py").read_text() == "a\n"
