#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: restart_kubelet
short_description: Write the kubelet's files and restart it as one transaction on the node, rolling back on failure
version_added: 0.1.0
description:
  - "Runs on the node, in one call: write the files of O(write) that differ from what is on the node (keeping what each
    held before), stop the unit, remove C(memory_manager_state) (and C(cpu_manager_state) with
    O(reset_cpu_manager_state)), start it, wait for C(/healthz), compare the new C(memory_manager_state) with
    O(expected_state), then watch the unit until it has run O(settle) seconds since its start. Without O(reset), the
    unit is restarted instead of stopped and started, and the checkpoints stay."
  - "Once the kubelet is up and its checkpoint matches, the transaction reports so (RV(settled) false, with
    RV(settling_until)) and goes on watching the unit for the rest of O(settle): a kubelet that exits in that time is
    rolled back by the transaction itself, which then reports that. O(settled=false) returns that first report, so the
    caller can go on (a rollout verifies the node meanwhile) and read the final verdict later with O(only_report) and
    the same O(token)."
  - "When a write fails (a full disk, say), the files already written are put back, the directories it made are
    removed, and the kubelet is not touched."
  - "On any failure after the writes it puts back the previous files (those of O(write) it changed, and O(files)),
    removes both checkpoints, starts the kubelet with the old config, waits for it, and fails reporting the kubelet's
    own last error and the rollback's outcome."
  - "The transaction runs in a process of its own session on the node, detached from the connection: when the
    controller is killed or the connection drops mid-restart, it still finishes or rolls back, so the kubelet is never
    left stopped. The task waits for it and returns its result; two transactions on one unit take turns (a lock in
    C(/run/numa-kubelet))."
  - The role P(numa.kubelet.kubelet_numa#role) runs it from its handler (topic C(kubelet_numa reset)).
author:
  - numa.kubelet developers (!UNKNOWN)
options:
  unit:
    description:
      - The systemd unit that runs the kubelet (C(kubelet.service), C(rke2-server.service), C(rke2-agent.service), C(k3s.service),
        C(k3s-agent.service)).
    type: str
    required: true
  start_unit:
    description:
      - A unit restarted instead of starting O(unit), which starts the kubelet itself (nodeadm's C(nodeadm-run.service),
        which rewrites the kubelet's files from C(/etc/eks/nodeadm.d) first).
    type: str
  reset:
    description: Stop, remove the checkpoints, start. V(false) restarts the unit and keeps the checkpoints.
    type: bool
    default: true
  reset_cpu_manager_state:
    description: Also remove C(cpu_manager_state) (the CPU manager's inputs changed).
    type: bool
    default: false
  root_dir:
    description: The kubelet's C(--root-dir), where the checkpoints are.
    type: path
    default: /var/lib/kubelet
  daemon_reload:
    description: Reload systemd first (a unit drop-in changed).
    type: bool
    default: false
  health_url:
    description: The kubelet's healthz URL; none (healthz disabled) waits for the unit to be active instead.
    type: str
  health_timeout:
    description:
      - Seconds to wait for the kubelet to answer O(health_url) after a start, before rolling back.
      - "Within the same time, the check against O(expected_state) waits for the kubelet to write the machine state
        into C(memory_manager_state): the real kubelet answers C(/healthz) before its memory manager starts."
    type: int
    default: 120
  settle:
    description:
      - Seconds the kubelet must have run since its start, and still run, before the transaction counts it as up. A
        kubelet can answer C(/healthz) and then exit, when its container manager refuses a checkpoint.
    type: float
    default: 2
  expected_state:
    description:
      - "What C(memory_manager_state) must say after the start, as the plan's C(expected_state)
        (C(policyName), and C(systemReserved) bytes per NUMA node); omitted, the checkpoint is not compared."
    type: dict
  files:
    description:
      - Files written before this call, each with what it held before (C(previous), V(null) when it did not exist), for the
        rollback; C(mode) is the mode it is put back with. Files of O(write) need no entry here.
    type: list
    elements: dict
    default: []
  write:
    description:
      - "Files to write first, as part of the transaction: each with C(path), its whole C(content), C(mode) (owner and
        group root) and, optionally, C(only_if_absent) (write it only when there is no such file). A file whose content,
        mode, owner and group already match is left alone; each file written is put back as it was (or removed) by a
        rollback. A changed file under a systemd directory (C(/systemd/) in its path) reloads systemd before the start."
    type: list
    elements: dict
    default: []
    version_added: 0.2.0
  directories:
    description:
      - Directories to create (mode C(0755), owner and group root) before the writes, or to give that mode, owner and
        group; those it created are removed again, where empty, when the writes fail or the change is rolled back.
    type: list
    elements: path
    default: []
    version_added: 0.2.0
  restart:
    description:
      - V(false) writes O(write) (reloading systemd when a unit drop-in changed) and restarts nothing.
    type: bool
    default: true
    version_added: 0.2.0
  only_report:
    description:
      - "Restart nothing: wait until the transaction running on O(unit), if any, has ended (a lock on the node), and
        return the report of the last one (RV(report_found) false when there is none). For a rescue whose connection
        was lost mid-restart, so that it never races the transaction that goes on on the node."
      - With O(token), wait for the report of that transaction (started with O(wait=false)) and return it as its own
        result.
    type: bool
    default: false
  settled:
    description:
      - "V(true): return the transaction's final verdict, once it has ended (after O(settle), or after its rollback)."
      - "V(false): return as soon as the kubelet is up with the new config and its checkpoint matches, while the
        transaction still watches it until RV(settling_until) and rolls back by itself if it exits; its final verdict
        is read later with O(only_report) and its O(token) (and V(true)). A failure before that point is returned
        as with V(true)."
    type: bool
    default: true
    version_added: 0.2.0
  wait:
    description:
      - "V(false): start the transaction on the node and return at once with its RV(token) (and, with C(--diff), the
        files it writes); a later call with O(only_report) and that O(token) waits for its report. So one task starts
        the restarts of every host of a play without a fork of the controller waiting out each one."
    type: bool
    default: true
    version_added: 0.2.0
  token:
    description: With O(only_report), the RV(token) of the transaction to wait for.
    type: str
    version_added: 0.2.0
  heal_record:
    description:
      - "Once the restarted kubelet has settled, keep this change for the node's self-heal (the role's
        C(numa-kubelet-heal)): in C(/var/lib/numa-kubelet/UNIT.change.json), each file written (and of O(files)) with
        the digest of what it holds now and what it held before. A heal record of an earlier change
        (C(UNIT.healed.json)) is moved to C(UNIT.healed-before.json)."
    type: bool
    default: false
    version_added: 0.2.0
  heal_exclude:
    description: Files the self-heal never puts back (the checkpoint guard's own files); only with O(heal_record).
    type: list
    elements: path
    default: []
    version_added: 0.2.0
attributes:
  check_mode:
    description: Reports which files of O(write) it would change and that it would restart the kubelet, and does nothing.
    support: full
  diff_mode:
    description: Each file of O(write) that differs, before and after.
    support: full
"""

EXAMPLES = r"""
- name: Write the drop-in, reset the kubelet's checkpoints and restart it, rolling back on failure
  numa.kubelet.restart_kubelet:
    unit: kubelet.service
    reset: true
    health_url: http://127.0.0.1:10248/healthz
    expected_state:
      policyName: Static
      systemReserved: {"0": 1126170624, "1": 1126170624}
    directories: [/etc/kubernetes/kubelet.conf.d]
    write:
      - path: /etc/kubernetes/kubelet.conf.d/50-numa-kubelet.conf
        mode: "0644"
        content: "{{ {'apiVersion': 'kubelet.config.k8s.io/v1beta1', 'kind': 'KubeletConfiguration'} | combine(kubelet_config) | to_nice_yaml }}"
  register: restarted
"""

RETURN = r"""
written:
  description: The files of O(write) that differed and were written (in check mode, would be).
  returned: always
  type: list
  elements: str
  version_added: 0.2.0
steps:
  description: Each step of the transaction, in order, with its time in seconds and, for the step that failed, why.
  returned: always
  type: list
  elements: dict
  sample: [{"step": "stop", "seconds": 0.21, "ok": true}, {"step": "start", "seconds": 0.34, "ok": true}]
settled:
  description:
    - Whether this is the transaction's final verdict. V(false) (only with O(settled=false)) says the kubelet is up with
      the new config and its checkpoint matches, and the transaction goes on watching it until RV(settling_until).
  returned: when the transaction reported, and in check mode
  type: bool
  version_added: 0.2.0
settling_until:
  description: With RV(settled) V(false), when the settle time ends (UTC, ISO 8601); until then an exit is rolled back on the node.
  returned: when RV(settled) is V(false)
  type: str
  sample: "2026-11-27T02:31:04.512Z"
  version_added: 0.2.0
rolled_back:
  description: Whether the change was rolled back (the previous files are back and the kubelet was started with them).
  returned: always
  type: bool
rollback:
  description: The rollback's steps and outcome (C(ok), C(error)), when there was one.
  returned: when rolled back
  type: dict
kubelet_error:
  description: The kubelet's last error line from the unit's journal, when the new config failed.
  returned: when rolled back
  type: str
active_state:
  description: The unit's ActiveState when the transaction ended.
  returned: always
  type: str
seconds:
  description: The whole transaction, in seconds.
  returned: always
  type: float
report_found:
  description: With O(only_report), whether a report of an earlier transaction was found.
  returned: with O(only_report)
  type: bool
token:
  description: The transaction's token, for O(only_report) (its final verdict after a report with RV(settled) V(false)).
  returned: when the transaction was started or has reported
  type: str
  version_added: 0.2.0
transaction_failed:
  description: With O(only_report), whether the transaction reported failed (also when the task's C(failed_when) hides it).
  returned: with O(only_report), when a report was found
  type: bool
  version_added: 0.2.0
"""

import fcntl
import hashlib
import json
import os
import re
import signal
import stat
import subprocess
import time
import urllib.error
import uuid

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.urls import open_url

from ansible_collections.numa.kubelet.plugins.module_utils._kubelet_checkpoint import checkpoint_complete, checkpoint_problems

RUN_DIR = "/run/numa-kubelet"
# Where the self-heal finds the last change (the role's templates/numa-kubelet-heal reads the same files).
HEAL_STATE_DIR = "/var/lib/numa-kubelet"
SYSTEMCTL_TIMEOUT = 600
DIRECTORY_MODE = "0755"
# The kubelet's own last words in its journal (klog), before systemd's "Main process exited" lines.
KUBELET_ERROR = re.compile(r'"command failed"|Failed to start ContainerManager')
ANY_ERROR = re.compile(r"(?i)error|failed|refused")


class StepFailed(Exception):
    """A step of the transaction failed; the message says why."""


def systemctl(*args):
    try:
        done = subprocess.run(["systemctl"] + list(args), capture_output=True, text=True, timeout=SYSTEMCTL_TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        raise StepFailed("systemctl %s did not return in %d s" % (" ".join(args), SYSTEMCTL_TIMEOUT)) from None
    except OSError as exc:  # no systemd on this node: a failed step with the reason, never a traceback
        raise StepFailed("systemctl %s could not run: %s" % (" ".join(args), exc)) from None
    if done.returncode != 0:
        raise StepFailed("systemctl %s failed (rc %d): %s" % (" ".join(args), done.returncode, (done.stderr or done.stdout).strip()))
    return done.stdout


def unit_show(unit):
    text = systemctl("show", "--property=ActiveState,SubState,MainPID,NRestarts,ActiveEnterTimestampMonotonic,InactiveExitTimestampMonotonic", unit)
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def healthz(url):
    try:
        # The node's own kubelet on a URL from its config: never through a proxy.
        with open_url(url, timeout=2, use_proxy=False) as answer:
            return answer.getcode() == 200
    except (urllib.error.URLError, OSError, ValueError):
        return False


def octal(mode):
    return "%04o" % int(str(mode), 8)


def read_file(path):
    """(text, mode, uid, gid) of a file, or None when there is none. Newlines are kept as they are."""
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            text = handle.read()
            found = os.fstat(handle.fileno())
    except FileNotFoundError:
        return None
    return text, "%04o" % stat.S_IMODE(found.st_mode), found.st_uid, found.st_gid


def write_file(path, text, mode):
    """Write atomically with the given mode, owner and group root (as the role writes them); no temporary file is left
    behind when the write fails (a full disk)."""
    temporary = "%s.numa-kubelet-tmp" % path
    try:
        with open(temporary, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.chmod(temporary, int(str(mode), 8))
        os.chown(temporary, 0, 0)
        os.replace(temporary, path)
    except BaseException:
        remove(temporary)
        raise


def remove(path):
    try:
        os.remove(path)
    except FileNotFoundError:
        pass


def file_digest(path):
    """sha256:<hex> of the file's bytes, or None when there is none (as numa-kubelet-heal compares them)."""
    try:
        with open(path, "rb") as handle:
            return "sha256:" + hashlib.sha256(handle.read()).hexdigest()
    except FileNotFoundError:
        return None


def keep_change(unit, change):
    """The change for the self-heal, replacing the last one: its failures are no longer counted, and a heal record of
    an earlier change becomes history."""
    os.makedirs(HEAL_STATE_DIR, mode=0o755, exist_ok=True)
    write_file(os.path.join(HEAL_STATE_DIR, "%s.change.json" % unit), json.dumps(change, indent=1, sort_keys=True), "0600")
    remove(os.path.join(HEAL_STATE_DIR, "%s.failures.json" % unit))
    healed = os.path.join(HEAL_STATE_DIR, "%s.healed.json" % unit)
    if os.path.exists(healed):
        os.replace(healed, os.path.join(HEAL_STATE_DIR, "%s.healed-before.json" % unit))


def pending_directories(paths):
    """The directories to create or to give mode 0755, owner and group root: (path, exists)."""
    pending = []
    for path in paths:
        try:
            found = os.stat(path)
        except FileNotFoundError:
            pending.append((path, False))
            continue
        if "%04o" % stat.S_IMODE(found.st_mode) != DIRECTORY_MODE or (found.st_uid, found.st_gid) != (0, 0):
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
            }
        )
    return pending


def diffs(pending):
    """--diff: each file before and after (its mode in the header)."""
    return [
        {
            "before_header": item["path"] + ("" if item["previous"] is None else " (mode %s)" % item["previous_mode"]),
            "after_header": "%s (mode %s)" % (item["path"], item["mode"]),
            "before": item["previous"] or "",
            "after": item["content"],
        }
        for item in pending
    ]


class Transaction:
    """One change of the kubelet's files and its restart on this node, with its rollback."""

    def __init__(self, params, directories=(), writes=(), on_up=None):
        self.params = params
        # Called with the report of a kubelet that is up with the new config while it still settles (settled false).
        self.on_up = on_up
        self.unit = params["unit"]
        self.directories = list(directories)
        self.writes = list(writes)
        self.written = []
        self.made = []
        self.steps = []
        self.started = time.monotonic()
        # A unit file or drop-in written here is read by systemd only after a reload.
        self.reload = params.get("daemon_reload") or any("/systemd/" in item["path"] for item in writes)
        # Set when the kubelet is waited for; the checkpoint check may wait for its file until then.
        self.health_deadline = self.started
        # The unit's state when the new kubelet first answered: settling means it keeps that main PID.
        self.healthy = None
        # time.monotonic() when the last start was asked for: what the unit shows from before it is not its answer.
        self.start_requested = None

    def step(self, steps, name, function):
        began = time.monotonic()
        entry = {"step": name}
        steps.append(entry)
        try:
            detail = function()
        except StepFailed as exc:
            entry.update(ok=False, seconds=round(time.monotonic() - began, 3), error=str(exc))
            raise
        except Exception as exc:  # pylint: disable=broad-except
            entry.update(ok=False, seconds=round(time.monotonic() - began, 3), error="%s: %s" % (type(exc).__name__, exc))
            raise StepFailed(entry["error"]) from exc
        entry.update(ok=True, seconds=round(time.monotonic() - began, 3))
        if detail:
            entry["detail"] = detail
        return detail

    # -- the steps -------------------------------------------------------------------------------------------
    def write(self):
        for path, exists in self.directories:
            if not exists:
                missing = [path]
                while not os.path.isdir(os.path.dirname(missing[-1])):
                    missing.append(os.path.dirname(missing[-1]))
                for directory in reversed(missing):
                    os.mkdir(directory)
                    os.chmod(directory, int(DIRECTORY_MODE, 8))
                    os.chown(directory, 0, 0)
                    self.made.append(directory)
            os.chmod(path, int(DIRECTORY_MODE, 8))
            os.chown(path, 0, 0)
        for item in self.writes:
            try:
                write_file(item["path"], item["content"], item["mode"])
            except OSError as exc:
                raise StepFailed("writing %s failed: %s" % (item["path"], exc.strerror or exc)) from exc
            self.written.append(item)

    def checkpoints(self, names):
        for name in names:
            remove(os.path.join(self.params["root_dir"], name))

    def start(self, restart):
        self.start_requested = time.monotonic()
        if self.params["start_unit"]:
            systemctl("restart", self.params["start_unit"])
        else:
            systemctl("restart" if restart else "start", self.unit)

    def wait_until_up(self):
        """The unit active and /healthz answering, then running for `settle` seconds since its start (the rollback)."""
        return self.settle(self.wait_for_healthz())

    def wait_for_healthz(self):
        """The unit active and /healthz answering: the unit's state then (its main PID, start time, restarts)."""
        deadline = self.health_deadline = time.monotonic() + self.params["health_timeout"]
        url = self.params["health_url"]
        while True:
            state = unit_show(self.unit)
            started = self.started_since_request(state)
            if started and (state.get("ActiveState") in ("failed", "inactive") or state.get("SubState") == "auto-restart"):
                raise StepFailed("%s is %s (%s) after its start" % (self.unit, state.get("ActiveState"), state.get("SubState")))
            if started and state.get("ActiveState") == "active" and (not url or healthz(url)):
                break
            if time.monotonic() > deadline:
                raise StepFailed("%s did not answer %s within %d s" % (self.unit, url or "active", self.params["health_timeout"]))
            time.sleep(0.2)
        self.healthy = state
        return state

    def started_since_request(self, state):
        """Whether the unit's state is from after the start asked for (always, unless O(start_unit) starts it).

        A start through O(start_unit) (nodeadm-run.service) only enqueues the kubelet's start: nodeadm's RestartDaemon
        called RestartUnitContext with no result channel, which returns once systemd has queued the job
        (https://github.com/awslabs/amazon-eks-ami/blob/main/nodeadm/internal/daemon/systemd.go, earlier releases), as
        `systemctl restart --no-block` does. Until systemd runs that job, the kubelet still shows its state from
        before: stopped (the reset stopped it) or the old process (a plain restart).
        """
        if not self.params["start_unit"] or self.start_requested is None:
            return True
        # InactiveExitTimestampMonotonic: CLOCK_MONOTONIC in microseconds, as time.monotonic() reads it.
        return int(state.get("InactiveExitTimestampMonotonic") or 0) / 1e6 >= self.start_requested

    def still_running(self, healthy):
        """Fail when the kubelet that answered is gone: the unit left active, or another main process runs it."""
        state = unit_show(self.unit)
        if state.get("ActiveState") != "active" or state.get("MainPID") != healthy.get("MainPID") or state.get("NRestarts") != healthy.get("NRestarts"):
            raise StepFailed(
                "%s answered, then exited: %s (%s), main PID %s, was %s"
                % (self.unit, state.get("ActiveState"), state.get("SubState"), state.get("MainPID"), healthy.get("MainPID"))
            )

    def settle_end(self, healthy):
        """time.monotonic() when the kubelet will have run `settle` seconds since its start."""
        # systemd's ActiveEnterTimestampMonotonic is CLOCK_MONOTONIC in microseconds, as time.monotonic() reads it.
        return int(healthy.get("ActiveEnterTimestampMonotonic") or 0) / 1e6 + self.params["settle"]

    def settle(self, healthy):
        end = self.settle_end(healthy)
        while True:
            self.still_running(healthy)
            left = end - time.monotonic()
            if left <= 0:
                return "ran %.1f s" % (self.params["settle"] - left)
            time.sleep(min(0.2, left))

    def check_checkpoint(self):
        """Compare memory_manager_state with the plan once the kubelet has written its machine state.

        The real kubelet answers /healthz before it starts its memory manager: the container manager starts only when
        the container runtime is up (initializeRuntimeDependentModules in
        https://github.com/kubernetes/kubernetes/blob/v1.36.2/pkg/kubelet/kubelet.go), so right after a reset the
        checkpoint may be missing or hold no machine state for a few seconds. Wait for it within the health timeout.
        """
        expected = self.params["expected_state"]
        if not expected:
            return None
        path = os.path.join(self.params["root_dir"], "memory_manager_state")
        began = time.monotonic()
        while True:
            # A kubelet that exits while its checkpoint is awaited will never write it: fail now, not at the deadline.
            self.still_running(self.healthy)
            try:
                with open(path, encoding="utf-8") as handle:
                    text = handle.read()
            except FileNotFoundError:
                text = None
            problems = checkpoint_problems(text, expected)
            if not problems:
                waited = time.monotonic() - began
                return "written %.1f s after healthz" % waited if waited >= 0.1 else None
            if checkpoint_complete(text) or time.monotonic() > self.health_deadline:
                raise StepFailed("; ".join(problems))
            time.sleep(0.2)

    def journal_error(self):
        try:
            lines = subprocess.run(
                ["journalctl", "--unit", self.unit, "--lines", "50", "--no-pager", "--output", "cat"], capture_output=True, text=True, timeout=60, check=False
            ).stdout.splitlines()
        except (OSError, subprocess.TimeoutExpired):
            return ""
        chosen = [line for line in lines if KUBELET_ERROR.search(line)] or [line for line in lines if ANY_ERROR.search(line)]
        return chosen[-1].strip() if chosen else ""

    def put_back(self, given=True):
        """The files written here as they were (newest first), the directories made here removed where empty, and
        (`given`) the files of `files` as given."""
        written = set()
        for item in reversed(self.written):
            written.add(item["path"])
            if item["previous"] is None:
                remove(item["path"])
            else:
                write_file(item["path"], item["previous"], item["previous_mode"])
        for path in reversed(self.made):
            try:
                os.rmdir(path)
            except OSError:
                pass  # not empty: something else lives there now
        for item in self.params["files"] if given else ():
            if item["path"] in written:
                continue
            if item.get("previous") is None:
                remove(item["path"])
            else:
                write_file(item["path"], item["previous"], item.get("mode") or "0644")

    # -- the transaction -------------------------------------------------------------------------------------
    def run(self):
        params = self.params
        if self.directories or self.writes:
            try:
                self.step(self.steps, "write %d file(s)" % len(self.writes), self.write)
            except StepFailed as exc:
                return self.undo_writes(str(exc))
        try:
            if not params["restart"]:
                if self.reload and self.written:
                    self.step(self.steps, "daemon-reload", lambda: systemctl("daemon-reload") and None)
                return self.result(
                    changed=bool(self.written or self.directories),
                    failed=False,
                    rolled_back=False,
                    msg="%s: the files are written; nothing restarted" % self.unit,
                )
            if self.reload:
                self.step(self.steps, "daemon-reload", lambda: systemctl("daemon-reload") and None)
            if params["reset"]:
                self.step(self.steps, "stop", lambda: systemctl("stop", self.unit) and None)
                names = ["memory_manager_state"] + (["cpu_manager_state"] if params["reset_cpu_manager_state"] else [])
                self.step(self.steps, "remove " + " and ".join(names), lambda: self.checkpoints(names))
                self.step(self.steps, "start", lambda: self.start(restart=False))
            else:
                self.step(self.steps, "restart", lambda: self.start(restart=True))
            self.step(self.steps, "wait for healthz", lambda: self.wait_for_healthz() and None)
            self.step(self.steps, "check memory_manager_state", self.check_checkpoint)
            self.report_up()
            self.step(self.steps, "settle", lambda: self.settle(self.healthy))
            if params.get("heal_record"):
                self.keep_for_heal()
        except StepFailed as exc:
            if not params["restart"]:
                return self.undo_writes(str(exc))
            return self.roll_back(str(exc))
        return self.result(changed=True, failed=False, rolled_back=False, msg="%s restarted with the new config" % self.unit)

    def keep_for_heal(self):
        """Record the change that just settled for the node's self-heal; a failure to record is a step that failed,
        never a rollback of a kubelet that runs."""
        excluded = set(self.params.get("heal_exclude") or ())
        entries = {}
        for item in self.written:
            entries[item["path"]] = {"path": item["path"], "previous": item["previous"], "previous_mode": item["previous_mode"]}
        for item in self.params["files"]:
            entries.setdefault(item["path"], {"path": item["path"], "previous": item.get("previous"), "previous_mode": octal(item.get("mode") or "0644")})
        files = [entry for path, entry in sorted(entries.items()) if path not in excluded]
        if not files:
            return
        began = time.monotonic()
        try:
            for entry in files:
                entry["digest"] = file_digest(entry["path"])
            change = {
                "unit": self.unit,
                "start_unit": self.params["start_unit"],
                "root_dir": self.params["root_dir"],
                "time": time.time(),
                "files": files,
            }
            keep_change(self.unit, change)
            self.steps.append({"step": "keep the change for the self-heal", "ok": True, "seconds": round(time.monotonic() - began, 3)})
        except OSError as exc:
            self.steps.append({"step": "keep the change for the self-heal", "ok": False, "seconds": round(time.monotonic() - began, 3), "error": str(exc)})

    def report_up(self):
        """Tell on_up that the kubelet is up with the new config, while it still has to settle (when it has to)."""
        left = self.settle_end(self.healthy) - time.monotonic()
        if self.on_up is None or left <= 0:
            return
        moment = time.time() + left
        until = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(moment)) + ".%03dZ" % (moment % 1 * 1000)
        self.on_up(
            self.result(
                changed=True,
                failed=False,
                rolled_back=False,
                settled=False,
                settling_until=until,
                msg="%s is up with the new config; the transaction on the node watches it until %s and rolls "
                "it back by itself if it exits" % (self.unit, until),
            )
        )

    def undo_writes(self, error):
        """A write (or the reload after writes without a restart) failed: the kubelet was not touched."""
        steps = []
        try:
            self.step(steps, "put back %d written file(s)" % len(self.written), lambda: self.put_back(given=False))
            outcome = "the files written before it are back as they were"
        except StepFailed as exc:
            outcome = "putting back the files written before it failed too (%s)" % exc
        msg = "numa.kubelet: %s (%s); %s, and %s was not restarted." % (self.steps[-1]["step"], error, outcome, self.unit)
        return self.result(
            changed=bool(self.written), failed=True, rolled_back=False, msg=msg, error=error, rollback={"ok": outcome.startswith("the files"), "steps": steps}
        )

    def roll_back(self, error):
        kubelet_error = self.journal_error()
        steps = []
        rollback_error = None
        try:
            if self.written or self.params["files"]:
                self.step(steps, "put back %d previous file(s)" % len(set(item["path"] for item in self.written + self.params["files"])), self.put_back)
            if self.reload:
                self.step(steps, "daemon-reload", lambda: systemctl("daemon-reload") and None)
            self.step(steps, "stop", lambda: systemctl("stop", self.unit) and None)
            self.step(steps, "remove memory_manager_state and cpu_manager_state", lambda: self.checkpoints(["memory_manager_state", "cpu_manager_state"]))
            self.step(steps, "start", lambda: self.start(restart=False))
            self.step(steps, "wait for healthz and settle", self.wait_until_up)
        except StepFailed as exc:
            rollback_error = str(exc)
        if rollback_error is None:
            outcome = "the previous files are back and the kubelet runs with them"
        else:
            outcome = "the previous files are back, but the kubelet did not come back with them either (%s; its last error: %s)" % (
                rollback_error,
                self.journal_error() or "none in the journal",
            )
        msg = "numa.kubelet: %s did not come back with the new config (%s); %s. The kubelet's last error: %s" % (
            self.unit,
            error,
            outcome,
            kubelet_error or "none in the journal",
        )
        return self.result(
            changed=True,
            failed=True,
            rolled_back=True,
            msg=msg,
            error=error,
            kubelet_error=kubelet_error,
            rollback={"ok": rollback_error is None, "error": rollback_error, "steps": steps},
        )

    def result(self, **fields):
        try:
            active = unit_show(self.unit).get("ActiveState")
        except StepFailed:
            active = "unknown"
        fields.setdefault("settled", True)
        fields.update(
            steps=list(self.steps), written=[item["path"] for item in self.written], active_state=active, seconds=round(time.monotonic() - self.started, 3)
        )
        return fields


# ------------------------------------------------------------------------------------------------ detaching
def _detach_and_run(params, directories, writes, result_path, token):
    """In the grandchild, a session of its own: nothing of the connection can stop it. Never returns."""
    os.setsid()
    if os.fork() != 0:
        os._exit(0)  # pylint: disable=protected-access
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    devnull = os.open(os.devnull, os.O_RDWR)
    for descriptor in (0, 1, 2):
        os.dup2(devnull, descriptor)
    # Nothing of the connection stays open here, or an ssh session would wait for this process to end.
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))

    def publish(result):
        result.update(token=token, pid=os.getpid())
        with open(result_path + ".tmp", "w", encoding="utf-8") as handle:
            json.dump(result, handle)
        os.replace(result_path + ".tmp", result_path)

    try:
        # The lock is held until the final verdict: a reader without the token (report) waits for that one.
        with open(os.path.join(RUN_DIR, "%s.transaction.lock" % params["unit"]), "w", encoding="utf-8") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                # What differs is looked at again under the lock: a transaction that ran meanwhile may have written it.
                result = Transaction(params, pending_directories(directories), pending_writes(writes), on_up=publish).run()
            except Exception as exc:  # pylint: disable=broad-except
                result = {
                    "failed": True,
                    "changed": True,
                    "settled": True,
                    "msg": "numa.kubelet: the restart transaction broke: %s: %s" % (type(exc).__name__, exc),
                }
            publish(result)
    finally:
        os._exit(0)  # pylint: disable=protected-access


def wait_for_the_running_transaction(unit):
    """Return once no transaction runs on `unit`: each holds this lock until it has written its final verdict."""
    with open(os.path.join(RUN_DIR, "%s.transaction.lock" % unit), "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)


def report(module, unit, result_path):
    """The last transaction's report on this unit, once none runs (it holds the lock while it runs)."""
    wait_for_the_running_transaction(unit)
    try:
        with open(result_path, encoding="utf-8") as handle:
            result = json.load(handle)
    except (FileNotFoundError, ValueError):
        module.exit_json(changed=False, report_found=False, msg="no restart transaction of %s has reported on this node" % unit)
    result.update(report_found=True, transaction_failed=bool(result.get("failed")))
    if result.get("failed"):
        module.fail_json(**result)
    module.exit_json(**result)


def wait_for_report(module, params, result_path, token, writes):
    """The transaction's report, once it has written it (its final verdict, with settled); the task's result."""
    # Stop, start, the health wait and settle, and the same again for a rollback, plus systemd's own stop timeouts.
    deadline = time.monotonic() + 2 * (params["health_timeout"] + params["settle"]) + 2 * SYSTEMCTL_TIMEOUT
    waited_for_the_verdict = False
    while True:
        try:
            with open(result_path, encoding="utf-8") as handle:
                result = json.load(handle)
        except (FileNotFoundError, ValueError):
            result = {}
        if result.get("token") == token:
            if result.get("settled", True) or not params["settled"]:
                break
            if waited_for_the_verdict:
                module.fail_json(
                    msg="restart_kubelet: the transaction on %s ended without its final verdict (it was killed while %s settled); "
                    "its last report: %s" % (params["unit"], params["unit"], result.get("msg"))
                )
            # Up and settling: the transaction holds its lock until it has written its final verdict, however long
            # its settle time (and a rollback) take.
            wait_for_the_running_transaction(params["unit"])
            waited_for_the_verdict = True
            continue
        if time.monotonic() > deadline:
            module.fail_json(msg="restart_kubelet: the transaction on %s has not ended; it goes on on the node (%s)" % (params["unit"], result_path))
        time.sleep(0.05)
    if params["only_report"]:
        result.update(report_found=True, transaction_failed=bool(result.get("failed")))
    # What the transaction wrote, before and after (it wrote what differed when it took the lock).
    result["diff"] = diffs([item for item in writes if item["path"] in result.get("written", [])])
    if result.get("failed"):
        module.fail_json(**result)
    module.exit_json(**result)


def bad_input(module):
    """Each item of files and write as this module needs it; the message names the item and the rule."""
    for item in module.params["files"]:
        if not isinstance(item.get("path"), str) or not item["path"].startswith("/"):
            module.fail_json(msg="restart_kubelet: files: each item needs an absolute path, got %r" % (item,))
    for item in module.params["write"]:
        if not isinstance(item.get("path"), str) or not item["path"].startswith("/"):
            module.fail_json(msg="restart_kubelet: write: each item needs an absolute path, got %r" % (item,))
        if not isinstance(item.get("content"), str):
            module.fail_json(msg="restart_kubelet: write: %s needs its whole text as content (a string), got %r" % (item["path"], item.get("content")))
        if not re.match(r"^0?[0-7]{3}$", str(item.get("mode", ""))):
            module.fail_json(msg='restart_kubelet: write: %s needs an octal mode such as "0644", got %r' % (item["path"], item.get("mode")))
    for path in module.params["directories"]:
        if not path.startswith("/"):
            module.fail_json(msg="restart_kubelet: directories: each needs an absolute path, got %r" % (path,))


def main():
    module = AnsibleModule(
        argument_spec={
            "unit": {"type": "str", "required": True},
            "start_unit": {"type": "str"},
            "reset": {"type": "bool", "default": True},
            "reset_cpu_manager_state": {"type": "bool", "default": False},
            "root_dir": {"type": "path", "default": "/var/lib/kubelet"},
            "daemon_reload": {"type": "bool", "default": False},
            "health_url": {"type": "str"},
            "health_timeout": {"type": "int", "default": 120},
            "settle": {"type": "float", "default": 2},
            "expected_state": {"type": "dict"},
            "files": {"type": "list", "elements": "dict", "default": []},
            "write": {"type": "list", "elements": "dict", "default": []},
            "directories": {"type": "list", "elements": "path", "default": []},
            "restart": {"type": "bool", "default": True},
            "only_report": {"type": "bool", "default": False},
            "settled": {"type": "bool", "default": True},
            "wait": {"type": "bool", "default": True},
            "token": {"type": "str", "no_log": False},
            "heal_record": {"type": "bool", "default": False},
            "heal_exclude": {"type": "list", "elements": "path", "default": []},
        },
        supports_check_mode=True,
    )
    params = dict(module.params)
    bad_input(module)
    if params["only_report"]:
        os.makedirs(RUN_DIR, mode=0o755, exist_ok=True)
        result_path = os.path.join(RUN_DIR, "%s.transaction.json" % params["unit"])
        if params["token"]:
            wait_for_report(module, params, result_path, params["token"], [])
        report(module, params["unit"], result_path)
    directories = pending_directories(params["directories"])
    writes = pending_writes(params["write"])
    if module.check_mode:
        changed = bool(params["restart"] or writes or directories)
        module.exit_json(
            changed=changed,
            steps=[],
            written=[item["path"] for item in writes],
            rolled_back=False,
            settled=True,
            active_state="unknown",
            seconds=0.0,
            diff=diffs(writes),
            msg="check mode: %d file(s) would be written%s" % (len(writes), ", and %s restarted" % params["unit"] if params["restart"] else ""),
        )
    if not params["restart"] and not writes and not directories:
        module.exit_json(
            changed=False,
            steps=[],
            written=[],
            rolled_back=False,
            settled=True,
            active_state="unknown",
            seconds=0.0,
            msg="%s: the files are in place; nothing restarted" % params["unit"],
        )
    os.makedirs(RUN_DIR, mode=0o755, exist_ok=True)
    result_path = os.path.join(RUN_DIR, "%s.transaction.json" % params["unit"])
    token = uuid.uuid4().hex
    # An earlier transaction's report must not pass for this one's, should this task lose its connection.
    remove(result_path)
    child = os.fork()
    if child == 0:
        _detach_and_run(params, params["directories"], params["write"], result_path, token)
    os.waitpid(child, 0)
    if not params["wait"]:
        module.exit_json(
            changed=True,
            token=token,
            steps=[],
            written=[item["path"] for item in writes],
            diff=diffs(writes),
            msg="%s: the transaction runs on the node; its report: only_report with this token" % params["unit"],
        )
    wait_for_report(module, params, result_path, token, writes)


if __name__ == "__main__":
    main()
