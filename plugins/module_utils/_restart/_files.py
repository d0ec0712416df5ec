# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What restart_kubelet writes: the files and directories that differ from the node's, their --diff, and putting
back what a transaction wrote."""

from __future__ import annotations

import os
import stat

from ansible_collections.numa.kubelet.plugins.module_utils._restart._digest import text_digest
from ansible_collections.numa.kubelet.plugins.module_utils._restart._node import octal, read_file, remove, write_file

DIRECTORY_MODE = "0755"


def pending_directories(paths):
    """The directories to create or to give mode 0755, owner and group root: (path, exists)."""
    pending = []
    for path in paths:
        try:
            found = os.stat(path)
        except FileNotFoundError:
            pending.append((path, False))
            continue
        if f"{stat.S_IMODE(found.st_mode):04o}" != DIRECTORY_MODE or (found.st_uid, found.st_gid) != (0, 0):
            pending.append((path, True))
    return pending


def pending_writes(items):
    """The files of `write` that differ from the node's, each with what it held before (previous, previous_mode)."""
    pending = []
    for item in items:
        found = read_file(item["path"])
        if found is not None and (item.get("only_if_absent") or found == (item["content"], octal(item["mode"]), 0, 0)):
            continue
        pending.append(
            {
                "path": item["path"],
                "content": item["content"],
                "mode": octal(item["mode"]),
                "previous": None if found is None else found[0],
                "previous_mode": None if found is None else found[1],
                "previous_sha256": item.get("previous_sha256"),
            }
        )
    return pending


def changed_since_planned(pending, unit):
    """Refusal of the files of `pending` (pending_writes) that changed on the node since the plan read them (their
    previous_sha256), so that a transaction never writes over a change it did not plan; None when none did."""
    changed = [item["path"] for item in pending if item.get("previous_sha256") and text_digest(item["previous"]) != item["previous_sha256"]]
    if not changed:
        return None
    return (
        f"numa.kubelet: {', '.join(changed)} changed on the node since this host was planned; nothing was written and {unit} was "
        "not restarted. Plan the host again (run the role or the rollout again) to apply over the file as it is now"
    )


def diffs(pending):
    """--diff: each file before and after (its mode in the header)."""
    return [
        {
            "before_header": item["path"] + ("" if item["previous"] is None else f" (mode {item['previous_mode']})"),
            "after_header": f"{item['path']} (mode {item['mode']})",
            "before": item["previous"] or "",
            "after": item["content"],
        }
        for item in pending
    ]


def make_directories(directories):
    """Create the missing directories of (path, exists), and their missing parents, with mode 0755, owner and group
    root; give the existing ones that mode, owner and group. The directories made, parents first."""
    made = []
    for path, exists in directories:
        if not exists:
            missing = [path]
            while not os.path.isdir(os.path.dirname(missing[-1])):
                missing.append(os.path.dirname(missing[-1]))
            for directory in reversed(missing):
                os.mkdir(directory)
                _own(directory)
                made.append(directory)
        _own(path)
    return made


def _own(directory):
    os.chmod(directory, int(DIRECTORY_MODE, 8))
    os.chown(directory, 0, 0)


def put_back(written, made, given, remove_made=True):
    """The files `written` by a transaction as they were (newest first), the files `given` (its `files` option) as they
    were given, then, with `remove_made`, the directories it `made` removed where empty.

    A rollback that starts the kubelet again keeps the directories (remove_made false): a flag the kubelet reads may
    name one (a --config-dir that was missing when the transaction began, in a flags file it did not write), and the
    kubelet refuses to start on a --config-dir that does not exist; an empty directory changes nothing for a kubelet
    whose flags do not name it."""
    for item in reversed(written):
        if item["previous"] is None:
            remove(item["path"])
        else:
            write_file(item["path"], item["previous"], item["previous_mode"])
    paths_written = {item["path"] for item in written}
    for item in given:
        if item["path"] in paths_written:
            continue
        if item.get("previous") is None:
            remove(item["path"])
        else:
            write_file(item["path"], item["previous"], item.get("mode") or "0644")
    if not remove_made:
        return
    for path in reversed(made):
        try:
            os.rmdir(path)
        except OSError:
            pass  # not empty: something else lives there now
