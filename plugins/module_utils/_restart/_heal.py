# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The change a restart settled with, kept on the node for its self-heal (the role's templates/numa-kubelet-heal reads
the same files)."""

from __future__ import annotations

import json
import os
import time

from ansible_collections.numa.kubelet.plugins.module_utils._restart._node import file_digest, octal, remove, write_file

HEAL_STATE_DIR = "/var/lib/numa-kubelet"


def change_files(written, given, excluded):
    """Each file of the change (written by the transaction, or of its `files` option), with what it held before and
    the digest of what it holds now; those `excluded` (the checkpoint guard's own) left out."""
    entries = {}
    for item in written:
        entries[item["path"]] = {"path": item["path"], "previous": item["previous"], "previous_mode": item["previous_mode"]}
    for item in given:
        entries.setdefault(item["path"], {"path": item["path"], "previous": item.get("previous"), "previous_mode": octal(item.get("mode") or "0644")})
    files = [entry for path, entry in sorted(entries.items()) if path not in excluded]
    for entry in files:
        entry["digest"] = file_digest(entry["path"])
    return files


def keep_change(params, files):
    """The change for the self-heal, replacing the last one: its failures are no longer counted, and a heal record of
    an earlier change becomes history."""
    unit = params["unit"]
    change = {"unit": unit, "start_unit": params["start_unit"], "root_dir": params["root_dir"], "time": time.time(), "files": files}
    os.makedirs(HEAL_STATE_DIR, mode=0o755, exist_ok=True)
    write_file(os.path.join(HEAL_STATE_DIR, f"{unit}.change.json"), json.dumps(change, indent=1, sort_keys=True), "0600")
    remove(os.path.join(HEAL_STATE_DIR, f"{unit}.failures.json"))
    healed = os.path.join(HEAL_STATE_DIR, f"{unit}.healed.json")
    if os.path.exists(healed):
        os.replace(healed, os.path.join(HEAL_STATE_DIR, f"{unit}.healed-before.json"))
