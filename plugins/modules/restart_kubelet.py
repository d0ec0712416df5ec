#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: restart_kubelet
short_description: Restart the kubelet as one transaction on the node, rolling back on failure
version_added: 0.1.0
description:
  - "Runs on the node, in one call: stop the unit, remove C(memory_manager_state) (and C(cpu_manager_state) with
    O(reset_cpu_manager_state)), start it, wait for C(/healthz), watch the unit for O(settle) seconds from its start,
    then compare the new C(memory_manager_state) with O(expected_state). Without O(reset), the unit is restarted
    instead of stopped and started, and the checkpoints stay."
  - "On any failure it puts back the previous files (O(files)), removes both checkpoints, starts the kubelet with the
    old config, waits for it, and fails reporting the kubelet's own last error and the rollback's outcome."
  - "The transaction runs in a process of its own session on the node, detached from the connection: when the
    controller is killed or the connection drops mid-restart, it still finishes or rolls back, so the kubelet is never
    left stopped. The task waits for it and returns its result; two transactions on one unit take turns (a lock in
    C(/run/numa-kubelet))."
  - The role P(numa.kubelet.kubelet_numa#role) runs it from its handler (topic C(kubelet_numa reset)).
author:
  - numa.kubelet developers (!UNKNOWN)
options:
  unit:
    description: The systemd unit that runs the kubelet (C(kubelet.service), C(rke2-server.service), C(rke2-agent.service)).
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
      - The files the change wrote, each with what it held before (C(previous), V(null) when it did not exist), for the
        rollback; C(mode) is the mode it is put back with.
    type: list
    elements: dict
    default: []
  only_report:
    description:
      - "Restart nothing: wait until the transaction running on O(unit), if any, has ended (a lock on the node), and
        return the report of the last one (RV(report_found) false when there is none). For a rescue whose connection
        was lost mid-restart, so that it never races the transaction that goes on on the node."
    type: bool
    default: false
attributes:
  check_mode:
    description: Reports that it would restart the kubelet, and does nothing.
    support: full
  diff_mode:
    description: The files are written by other tasks, which show the diff.
    support: none
"""

EXAMPLES = r"""
- name: Reset the kubelet's checkpoints and restart it, rolling back on failure
  numa.kubelet.restart_kubelet:
    unit: kubelet.service
    reset: true
    health_url: http://127.0.0.1:10248/healthz
    expected_state:
      policyName: Static
      systemReserved: {"0": 1126170624, "1": 1126170624}
    files:
      - path: /etc/kubernetes/kubelet.conf.d/50-numa-kubelet.conf
        mode: "0644"
        previous: null
  register: restarted
"""

RETURN = r"""
steps:
  description: Each step of the transaction, in order, with its time in seconds and, for the step that failed, why.
  returned: always
  type: list
  elements: dict
  sample: [{"step": "stop", "seconds": 0.21, "ok": true}, {"step": "start", "seconds": 0.34, "ok": true}]
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
"""

import fcntl
import json
import os
import re
import signal
import subprocess
import time
import urllib.error
import uuid

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.urls import open_url
from ansible_collections.numa.kubelet.plugins.module_utils.kubelet_checkpoint import checkpoint_complete, checkpoint_problems

RUN_DIR = "/run/numa-kubelet"
SYSTEMCTL_TIMEOUT = 600
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
    if done.returncode != 0:
        raise StepFailed("systemctl %s failed (rc %d): %s" % (" ".join(args), done.returncode, (done.stderr or done.stdout).strip()))
    return done.stdout


def unit_show(unit):
    text = systemctl("show", "--property=ActiveState,SubState,MainPID,NRestarts,ActiveEnterTimestampMonotonic", unit)
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def healthz(url):
    try:
        # The node's own kubelet on a URL from its config: never through a proxy.
        with open_url(url, timeout=2, use_proxy=False) as answer:
            return answer.getcode() == 200
    except (urllib.error.URLError, OSError, ValueError):
        return False


def write_file(path, text, mode):
    """Write atomically with the given mode (owner root, as the role writes them)."""
    temporary = "%s.numa-kubelet-rollback" % path
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.chmod(temporary, int(str(mode), 8))
    os.chown(temporary, 0, 0)
    os.replace(temporary, path)


def remove(path):
    try:
        os.remove(path)
    except FileNotFoundError:
        pass


class Transaction:
    """One restart of the kubelet on this node, with its rollback."""

    def __init__(self, params):
        self.params = params
        self.unit = params["unit"]
        self.steps = []
        self.started = time.monotonic()
        # Set when the kubelet is waited for; the checkpoint check may wait for its file until then.
        self.health_deadline = self.started

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
    def checkpoints(self, names):
        for name in names:
            remove(os.path.join(self.params["root_dir"], name))

    def start(self, restart):
        if self.params["start_unit"]:
            systemctl("restart", self.params["start_unit"])
        else:
            systemctl("restart" if restart else "start", self.unit)

    def wait_until_up(self):
        """The unit active and /healthz answering, then running for `settle` seconds since its start."""
        deadline = self.health_deadline = time.monotonic() + self.params["health_timeout"]
        url = self.params["health_url"]
        while True:
            state = unit_show(self.unit)
            if state.get("ActiveState") in ("failed", "inactive") or state.get("SubState") == "auto-restart":
                raise StepFailed("%s is %s (%s) after its start" % (self.unit, state.get("ActiveState"), state.get("SubState")))
            if state.get("ActiveState") == "active" and (not url or healthz(url)):
                break
            if time.monotonic() > deadline:
                raise StepFailed("%s did not answer %s within %d s" % (self.unit, url or "active", self.params["health_timeout"]))
            time.sleep(0.2)
        return self.settle(state)

    def settle(self, healthy):
        # systemd's ActiveEnterTimestampMonotonic is CLOCK_MONOTONIC in microseconds, as time.monotonic() reads it.
        since = int(healthy.get("ActiveEnterTimestampMonotonic") or 0) / 1e6
        while True:
            state = unit_show(self.unit)
            if (state.get("ActiveState") != "active" or state.get("MainPID") != healthy.get("MainPID")
                    or state.get("NRestarts") != healthy.get("NRestarts")):
                raise StepFailed("%s answered, then exited: %s (%s), main PID %s, was %s" % (
                    self.unit, state.get("ActiveState"), state.get("SubState"), state.get("MainPID"), healthy.get("MainPID")))
            ran = time.monotonic() - since
            if ran >= self.params["settle"]:
                return "ran %.1f s" % ran
            time.sleep(min(0.2, self.params["settle"] - ran))

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
            lines = subprocess.run(["journalctl", "--unit", self.unit, "--lines", "50", "--no-pager", "--output", "cat"],
                                   capture_output=True, text=True, timeout=60, check=False).stdout.splitlines()
        except (OSError, subprocess.TimeoutExpired):
            return ""
        chosen = [line for line in lines if KUBELET_ERROR.search(line)] or [line for line in lines if ANY_ERROR.search(line)]
        return chosen[-1].strip() if chosen else ""

    def put_back(self):
        for item in self.params["files"]:
            if item.get("previous") is None:
                remove(item["path"])
            else:
                write_file(item["path"], item["previous"], item.get("mode") or "0644")

    # -- the transaction -------------------------------------------------------------------------------------
    def run(self):
        params = self.params
        try:
            if params["daemon_reload"]:
                self.step(self.steps, "daemon-reload", lambda: systemctl("daemon-reload") and None)
            if params["reset"]:
                self.step(self.steps, "stop", lambda: systemctl("stop", self.unit) and None)
                names = ["memory_manager_state"] + (["cpu_manager_state"] if params["reset_cpu_manager_state"] else [])
                self.step(self.steps, "remove " + " and ".join(names), lambda: self.checkpoints(names))
                self.step(self.steps, "start", lambda: self.start(restart=False))
            else:
                self.step(self.steps, "restart", lambda: self.start(restart=True))
            self.step(self.steps, "wait for healthz and settle", self.wait_until_up)
            self.step(self.steps, "check memory_manager_state", self.check_checkpoint)
        except StepFailed as exc:
            return self.roll_back(str(exc))
        return self.result(changed=True, failed=False, rolled_back=False,
                           msg="%s restarted with the new config" % self.unit)

    def roll_back(self, error):
        kubelet_error = self.journal_error()
        steps = []
        rollback_error = None
        try:
            if self.params["files"]:
                self.step(steps, "put back %d previous file(s)" % len(self.params["files"]), self.put_back)
            if self.params["daemon_reload"]:
                self.step(steps, "daemon-reload", lambda: systemctl("daemon-reload") and None)
            self.step(steps, "stop", lambda: systemctl("stop", self.unit) and None)
            self.step(steps, "remove memory_manager_state and cpu_manager_state",
                      lambda: self.checkpoints(["memory_manager_state", "cpu_manager_state"]))
            self.step(steps, "start", lambda: self.start(restart=False))
            self.step(steps, "wait for healthz and settle", self.wait_until_up)
        except StepFailed as exc:
            rollback_error = str(exc)
        if rollback_error is None:
            outcome = "the previous files are back and the kubelet runs with them"
        else:
            outcome = "the previous files are back, but the kubelet did not come back with them either (%s; its last error: %s)" % (
                rollback_error, self.journal_error() or "none in the journal")
        msg = "numa.kubelet: %s did not come back with the new config (%s); %s. The kubelet's last error: %s" % (
            self.unit, error, outcome, kubelet_error or "none in the journal")
        return self.result(changed=True, failed=True, rolled_back=True, msg=msg, error=error, kubelet_error=kubelet_error,
                           rollback={"ok": rollback_error is None, "error": rollback_error, "steps": steps})

    def result(self, **fields):
        try:
            active = unit_show(self.unit).get("ActiveState")
        except StepFailed:
            active = "unknown"
        fields.update(steps=self.steps, active_state=active, seconds=round(time.monotonic() - self.started, 3))
        return fields


# ------------------------------------------------------------------------------------------------ detaching
def _detach_and_run(params, result_path, token):
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
    try:
        with open(os.path.join(RUN_DIR, "%s.transaction.lock" % params["unit"]), "w", encoding="utf-8") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                result = Transaction(params).run()
            except Exception as exc:  # pylint: disable=broad-except
                result = {"failed": True, "changed": True, "msg": "numa.kubelet: the restart transaction broke: %s: %s" % (type(exc).__name__, exc)}
        result["token"] = token
        result["pid"] = os.getpid()
        with open(result_path + ".tmp", "w", encoding="utf-8") as handle:
            json.dump(result, handle)
        os.replace(result_path + ".tmp", result_path)
    finally:
        os._exit(0)  # pylint: disable=protected-access


def report(module, unit, result_path):
    """The last transaction's report on this unit, once none runs (it holds the lock while it runs)."""
    with open(os.path.join(RUN_DIR, "%s.transaction.lock" % unit), "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
    try:
        with open(result_path, encoding="utf-8") as handle:
            result = json.load(handle)
    except (FileNotFoundError, ValueError):
        module.exit_json(changed=False, report_found=False, msg="no restart transaction of %s has reported on this node" % unit)
    result.pop("token", None)
    result["report_found"] = True
    if result.get("failed"):
        module.fail_json(**result)
    module.exit_json(**result)


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
            "only_report": {"type": "bool", "default": False},
        },
        supports_check_mode=True,
    )
    params = dict(module.params)
    for item in params["files"]:
        if not isinstance(item.get("path"), str) or not item["path"].startswith("/"):
            module.fail_json(msg="restart_kubelet: files: each item needs an absolute path, got %r" % (item,))
    if module.check_mode:
        module.exit_json(changed=True, steps=[], rolled_back=False, active_state="unknown", seconds=0.0,
                         msg="check mode: %s would be restarted" % params["unit"])
    os.makedirs(RUN_DIR, mode=0o755, exist_ok=True)
    result_path = os.path.join(RUN_DIR, "%s.transaction.json" % params["unit"])
    if params["only_report"]:
        report(module, params["unit"], result_path)
    token = uuid.uuid4().hex
    # An earlier transaction's report must not pass for this one's, should this task lose its connection.
    remove(result_path)
    child = os.fork()
    if child == 0:
        _detach_and_run(params, result_path, token)
    os.waitpid(child, 0)
    # Stop, start, the health wait and settle, and the same again for a rollback, plus systemd's own stop timeouts.
    deadline = time.monotonic() + 2 * (params["health_timeout"] + params["settle"]) + 2 * SYSTEMCTL_TIMEOUT
    while True:
        try:
            with open(result_path, encoding="utf-8") as handle:
                result = json.load(handle)
            if result.get("token") == token:
                break
        except (FileNotFoundError, ValueError):
            pass
        if time.monotonic() > deadline:
            module.fail_json(msg="restart_kubelet: the transaction on %s has not ended; it goes on on the node (%s)" % (params["unit"], result_path))
        time.sleep(0.05)
    result.pop("token", None)
    if result.get("failed"):
        module.fail_json(**result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
