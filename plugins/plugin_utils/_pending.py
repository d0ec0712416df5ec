# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What applying a plan would change on a node: every directory and file the role writes, the checkpoint guard's
decisions, and which of them differ from what discovery read.

The role (roles/kubelet_numa) writes the plan's files, the checkpoint guard of the kubelet's unit (its systemd drop-in,
the digest of the manager inputs on disk, and, for a guard installed while the kubelet runs, the digest it was started
with) and, with kubelet_numa_reboot_reset, this boot's reset marker. numa.kubelet.plan_node renders the role's
templates and hands the texts to role_writes(), which decides all of it once; the role's tasks only act on the answer
(a run with nothing pending skips apply.yml as one task, docs/performance.md).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypedDict

from ..module_utils._restart._digest import text_digest
from ._plan_inputs import NodeFiles

# Where the checkpoint guard keeps its state; each path is the unit's own (several units may be guarded on one node).
GUARD_INPUTS_DIR = "/etc/numa-kubelet"
GUARD_STARTED_DIR = "/var/lib/numa-kubelet"
RESET_MARKER_DIR = "/run/numa-kubelet"
GUARD_DROPIN_NAME = "90-numa-kubelet-reboot-reset.conf"
# What every directory and file the role writes must be: root-owned, directories 0755 (files carry their own mode).
OWNER = {"owner": "root", "group": "root"}
DIRECTORY_ATTRIBUTES = dict(OWNER, mode="0755")
GUARD_FILE_MODE = "0644"
# The role's templates of the guard (roles/kubelet_numa/templates).
DROPIN_TEMPLATE = "reboot-reset.conf.j2"
INPUTS_TEMPLATE = "manager-inputs.j2"
# The self-heal's program (docs/rollout.md, "Self-healing"): a plain file among the templates, written as it is.
HEAL_TEMPLATE = "numa-kubelet-heal"


class GuardPaths(TypedDict):
    dropin: str
    inputs: str
    started: str
    marker: str
    heal: str
    healed: str


class _WriteBase(TypedDict):
    path: str
    mode: str
    content: str


class Write(_WriteBase, total=False):
    """A file for numa.kubelet.restart_kubelet to write; only_if_absent: written only where it is missing;
    previous_sha256: what it held when planned (previous_digest), so that the write never goes over a later change."""

    only_if_absent: bool
    previous_sha256: str


class GuardWrites(TypedDict):
    directories: list[str]
    writes: list[Write]
    seed_started: bool
    reset_marker: bool


class RoleWrites(TypedDict):
    """role_writes' answer (its docstring says what each part is)."""

    directories: list[str]
    writes: list[Write]
    guard: GuardWrites
    pending_directories: list[str]
    pending_writes: list[str]
    pending: bool
    heal_exclude: list[str]
    healed: str


def systemd_dropin_dir(unit: str) -> str:
    """The directory of the drop-ins an administrator adds to a unit (systemd.unit(5), "Description":
    https://www.freedesktop.org/software/systemd/man/latest/systemd.unit.html)."""
    return f"/etc/systemd/system/{unit}.d"


def guard_paths(unit: str) -> GuardPaths:
    """The checkpoint guard's files for one unit: its drop-in, the digest of the manager inputs on disk, the digest the
    drop-in's ExecStartPre copies at each start, this boot's reset marker (under /run, gone at each boot), the self-heal's
    program (its drop-in's ExecStopPost) and the record the heal leaves."""
    return {
        "dropin": f"{systemd_dropin_dir(unit)}/{GUARD_DROPIN_NAME}",
        "inputs": f"{GUARD_INPUTS_DIR}/{unit}.manager-inputs",
        "started": f"{GUARD_STARTED_DIR}/{unit}.started-inputs",
        "marker": f"{RESET_MARKER_DIR}/{unit}.reset",
        "heal": f"{GUARD_INPUTS_DIR}/numa-kubelet-heal",
        "healed": f"{GUARD_STARTED_DIR}/{unit}.healed.json",
    }


def guard_state_paths(units: Iterable[str]) -> list[str]:
    """What discovery reads besides the kubelet's files, so that role_writes() can compare: the guard's directories and,
    for every unit a plan may name, its guard files (the plan names the unit only after the read)."""
    paths = [RESET_MARKER_DIR, GUARD_INPUTS_DIR, GUARD_STARTED_DIR]
    for unit in units:
        guard = guard_paths(unit)
        paths += [guard["marker"], systemd_dropin_dir(unit), guard["dropin"], guard["inputs"], guard["started"], guard["healed"]]
    return paths + [guard_paths("")["heal"]]


def role_writes(
    plan: Mapping[str, Any],
    files: NodeFiles,
    attributes: Mapping[str, Mapping[str, str]],
    reboot_reset: bool,
    check_mode: bool,
    render: Callable[[str, dict[str, Any]], str],
) -> RoleWrites:
    """Everything the role writes for `plan` and what of it is pending.

    files: {path: text or None} and attributes: {path: {mode, owner, group}} as discovery read them (attributes are
    empty when the files were given rather than read: then everything is pending). reboot_reset: the role's
    kubelet_numa_reboot_reset, a bool. check_mode: a check-mode run, which restarts nothing and so must still show the
    reset marker. render(template, template_vars) -> text: one of the role's templates rendered as the role renders it
    (with the ansible_managed header).

    Returns {directories, writes, guard, pending_directories, pending_writes, pending, heal_exclude, healed}: the
    directories and the files (path, mode, content, and only_if_absent for a file that is written only where it is
    missing) for numa.kubelet.restart_kubelet; guard, the checkpoint guard's part alone ({directories, writes,
    seed_started, reset_marker}) for a play that installs only the guard; which of them differ from what is in place;
    pending, true when anything differs or the plan restarts the unit; heal_exclude, the guard's own files, which the
    self-heal never puts back (only the kubelet's configuration and the manager inputs' digest); and healed, the
    sentence that reports the node's last self-heal since the collection's last change ('' when there was none).
    """
    guard = guard_paths(plan["unit"])
    guard_part = _guard_writes(plan, guard, attributes, render)
    guard_directories, guard_writes = guard_part["directories"], guard_part["writes"]
    # A reset's start runs the drop-in's ExecStartPre, which makes the directory and the marker itself; check mode
    # restarts nothing, so there the marker shows as a write.
    reset_marker = reboot_reset and guard["marker"] not in attributes and (plan["restart"] != "reset" or check_mode)
    guard_part["reset_marker"] = reset_marker
    directories = list(plan["directories"]) + guard_directories + ([RESET_MARKER_DIR] if reset_marker else [])
    writes: list[Write] = [
        {
            "path": entry["path"],
            "mode": entry["mode"],
            "content": render(entry["template"], {"kubelet_numa_plan": plan, "item": entry}) if "template" in entry else entry["text"],
        }
        for entry in plan["files"]
    ]
    writes += guard_writes
    if reset_marker:
        writes.append({"path": guard["marker"], "mode": GUARD_FILE_MODE, "content": "", "only_if_absent": True})
    pending_directories = [path for path in directories if attributes.get(path) != DIRECTORY_ATTRIBUTES]
    pending_writes = [write["path"] for write in writes if _differs(write, files, attributes)]
    for write in writes:
        digest = previous_digest(write, files, attributes)
        if digest:
            write["previous_sha256"] = digest
    return {
        "directories": directories,
        "writes": writes,
        "guard": guard_part,
        "pending_directories": pending_directories,
        "pending_writes": pending_writes,
        "pending": plan["restart"] != "none" or bool(pending_directories) or bool(pending_writes),
        "heal_exclude": [guard["heal"], guard["dropin"], guard["started"], guard["marker"]],
        "healed": heal_report(plan["unit"], files.get(guard["healed"])),
    }


def _guard_writes(
    plan: Mapping[str, Any], guard: GuardPaths, attributes: Mapping[str, Mapping[str, str]], render: Callable[[str, dict[str, Any]], str]
) -> GuardWrites:
    """The checkpoint guard's directories and files for the plan's unit (reset_marker False: role_writes decides it)."""
    digests = plan["manager_inputs"]
    # A guard installed while the kubelet runs: the inputs it was started with are those on disk before this run, so the
    # next start resets only if they change (without this, the first restart after the install would reset).
    seed_started = guard["started"] not in attributes and digests["current"] is not None
    writes: list[Write] = [
        {"path": guard["dropin"], "mode": GUARD_FILE_MODE, "content": render(DROPIN_TEMPLATE, {"kubelet_numa_plan": plan, "guard": guard})},
        {"path": guard["inputs"], "mode": GUARD_FILE_MODE, "content": render(INPUTS_TEMPLATE, {"digest": digests["planned"]})},
        {"path": guard["heal"], "mode": GUARD_FILE_MODE, "content": render(HEAL_TEMPLATE, {})},
    ]
    if seed_started:
        writes.append(
            {"path": guard["started"], "mode": GUARD_FILE_MODE, "only_if_absent": True, "content": render(INPUTS_TEMPLATE, {"digest": digests["current"]})}
        )
    directories = [systemd_dropin_dir(plan["unit"]), GUARD_INPUTS_DIR] + ([GUARD_STARTED_DIR] if seed_started else [])
    return {"directories": directories, "writes": writes, "seed_started": seed_started, "reset_marker": False}


def heal_report(unit: str, record_text: str | None) -> str:
    """One sentence on the self-heal the node recorded (/var/lib/numa-kubelet/UNIT.healed.json, written by the role's
    numa-kubelet-heal), or '' when there is none. The record stays until the collection's next change settles."""
    if not record_text:
        return ""
    try:
        record = json.loads(record_text)
        failures, error = record["failures"], record["kubelet_error"] or "none in the journal"
        if record["healed"]:
            done = "restored %s (what ran healthy before that change), reset the checkpoints and started it" % ", ".join(record["restored"])
        else:
            done = "did NOT heal itself: %s" % record["reason"]
    except (ValueError, KeyError, TypeError) as exc:
        return f"numa.kubelet: {unit}: the self-heal's record {guard_paths(unit)['healed']} cannot be read ({exc})"
    return (
        f"numa.kubelet: {unit} failed {failures} time(s) after the change numa.kubelet made at {record['change_time']}, and at "
        f"{record['time']} the node {done}. The kubelet's last error: {error}"
    )


def previous_digest(write: Write, files: NodeFiles, attributes: Mapping[str, Mapping[str, str]]) -> str | None:
    """What the file held as discovery read it, for numa.kubelet.restart_kubelet's write[].previous_sha256: sha256:<hex>
    of its text, 'absent' for no file; None where it cannot tell (files given rather than read, a file it did not read
    as text) or need not (a file written only where it is missing never goes over anything)."""
    if not attributes or write.get("only_if_absent"):
        return None
    if write["path"] not in attributes:
        return text_digest(None)
    text = files.get(write["path"])
    return None if text is None else text_digest(text)


def _differs(write: Write, files: NodeFiles, attributes: Mapping[str, Mapping[str, str]]) -> bool:
    """A file is written when it is missing; one kept only where missing stops there; any other when its text, mode,
    owner or group differ."""
    if write["path"] not in attributes:
        return True
    if write.get("only_if_absent"):
        return False
    return files.get(write["path"]) != write["content"] or attributes[write["path"]] != dict(OWNER, mode=write["mode"])
