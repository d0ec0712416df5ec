# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""restart_kubelet's transaction: write the kubelet's files, restart it, check it came up with them, watch it settle,
and roll back when any of it fails."""

from __future__ import annotations

import os
import time

from ansible_collections.numa.kubelet.plugins.module_utils._kubelet_checkpoint import checkpoint_complete, checkpoint_problems
from ansible_collections.numa.kubelet.plugins.module_utils._restart import _heal, _node
from ansible_collections.numa.kubelet.plugins.module_utils._restart._files import make_directories, put_back
from ansible_collections.numa.kubelet.plugins.module_utils._restart._node import StepFailed

CHECKPOINTS = ("memory_manager_state", "cpu_manager_state")


def _utc(moment):
    """time.time() `moment` as UTC ISO 8601 with milliseconds."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(moment)) + f".{int(moment % 1 * 1000):03d}Z"


def _process_start(state):
    """time.monotonic() when the unit's main process started (systemd's ActiveEnterTimestampMonotonic, CLOCK_MONOTONIC in
    microseconds, as time.monotonic() reads it)."""
    return int(state.get("ActiveEnterTimestampMonotonic") or 0) / 1e6


def _read_checkpoint(path):
    """(text or None, time.monotonic() when it was written) of the checkpoint; the kubelet replaces it whole (rename)."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
            modified = os.fstat(handle.fileno()).st_mtime
    except FileNotFoundError:
        return None, time.monotonic()
    # Its modification time (wall clock) on the monotonic clock the unit's times use.
    return text, time.monotonic() - max(0.0, time.time() - modified)


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
        # time.monotonic() from which the settle counts: when memory_manager_state matched the plan (check_checkpoint).
        self.proven_at = None
        # time.monotonic() when the last start was asked for: what the unit shows from before it is not its answer.
        self.start_requested = None
        # time.time() from which the journal's lines are the kubelet's answer (the rollback's start), or None: all.
        self.journal_since = None

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
            entry.update(ok=False, seconds=round(time.monotonic() - began, 3), error=f"{type(exc).__name__}: {exc}")
            raise StepFailed(entry["error"]) from exc
        entry.update(ok=True, seconds=round(time.monotonic() - began, 3))
        if detail:
            entry["detail"] = detail
        return detail

    # -- the steps -------------------------------------------------------------------------------------------
    def write(self):
        self.made.extend(make_directories(self.directories))
        for item in self.writes:
            try:
                _node.write_file(item["path"], item["content"], item["mode"])
            except OSError as exc:
                raise StepFailed(f"writing {item['path']} failed: {exc.strerror or exc}") from exc
            self.written.append(item)

    def remove_checkpoints(self, names):
        for name in names:
            _node.remove(os.path.join(self.params["root_dir"], name))

    def daemon_reload(self):
        _node.systemctl("daemon-reload")

    def stop(self):
        _node.systemctl("stop", self.unit)

    def start(self, restart):
        self.start_requested = time.monotonic()
        if self.params["start_unit"]:
            _node.systemctl("restart", self.params["start_unit"])
        else:
            _node.systemctl("restart" if restart else "start", self.unit)

    def wait_until_up(self):
        """The unit active and /healthz answering, then running for `settle` seconds since its start (the rollback)."""
        return self.settle(self.wait_for_healthz())

    def wait_for_healthz(self):
        """The unit active and /healthz answering: the unit's state then (its main PID, start time, restarts)."""
        deadline = self.health_deadline = time.monotonic() + self.params["health_timeout"]
        url = self.params["health_url"]
        while True:
            state = _node.unit_show(self.unit)
            started = self.started_since_request(state)
            if started and (state.get("ActiveState") in ("failed", "inactive") or state.get("SubState") == "auto-restart"):
                raise StepFailed(f"{self.unit} is {state.get('ActiveState')} ({state.get('SubState')}) after its start")
            if started and state.get("ActiveState") == "active" and (not url or _node.healthz(url)):
                break
            if time.monotonic() > deadline:
                raise StepFailed(f"{self.unit} did not answer {url or 'active'} within {self.params['health_timeout']} s")
            time.sleep(0.2)
        self.healthy = state
        self.proven_at = None
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
        state = _node.unit_show(self.unit)
        if state.get("ActiveState") != "active" or state.get("MainPID") != healthy.get("MainPID") or state.get("NRestarts") != healthy.get("NRestarts"):
            raise StepFailed(
                f"{self.unit} answered, then exited: {state.get('ActiveState')} ({state.get('SubState')}), "
                f"main PID {state.get('MainPID')}, was {healthy.get('MainPID')}"
            )

    def settle_from(self, healthy):
        """time.monotonic() from which the settle counts: when memory_manager_state matched the plan, else (no
        expected_state, or the rollback's start) the process's start."""
        if self.proven_at is not None:
            return self.proven_at
        # systemd's ActiveEnterTimestampMonotonic is CLOCK_MONOTONIC in microseconds, as time.monotonic() reads it.
        return _process_start(healthy)

    def settle_end(self, healthy):
        """time.monotonic() when the kubelet will have run `settle` seconds since its checkpoint matched (or its start)."""
        return self.settle_from(healthy) + self.params["settle"]

    def settle(self, healthy):
        end = self.settle_end(healthy)
        since = "memory_manager_state matched" if self.proven_at is not None else "its start"
        while True:
            self.still_running(healthy)
            left = end - time.monotonic()
            if left <= 0:
                return f"ran {self.params['settle'] - left:.1f} s since {since}"
            time.sleep(min(0.2, left))

    def check_checkpoint(self):
        """Compare memory_manager_state with the plan once the kubelet has written its machine state, and keep when it
        matched (proven_at): the settle counts from there.

        The real kubelet answers /healthz before it starts its memory manager: the container manager starts only when
        the container runtime is up (initializeRuntimeDependentModules in
        https://github.com/kubernetes/kubernetes/blob/v1.36.2/pkg/kubelet/kubelet.go), so right after a reset the
        checkpoint may be missing or hold no machine state for a few seconds. Wait for it within the health timeout.
        A kubelet that writes it before it answers is as good: the file's own time says when it matched.
        """
        expected = self.params["expected_state"]
        if not expected:
            return None
        path = os.path.join(self.params["root_dir"], "memory_manager_state")
        began = time.monotonic()
        while True:
            # A kubelet that exits while its checkpoint is awaited will never write it: fail now, not at the deadline.
            self.still_running(self.healthy)
            text, written_at = _read_checkpoint(path)
            problems = checkpoint_problems(text, expected)
            if not problems:
                # Never before this process started: a checkpoint kept by a plain restart is only read by the new kubelet.
                self.proven_at = max(written_at, _process_start(self.healthy))
                waited = time.monotonic() - began
                return f"written {waited:.1f} s after healthz" if waited >= 0.1 else None
            if checkpoint_complete(text) or time.monotonic() > self.health_deadline:
                raise StepFailed("; ".join(problems))
            time.sleep(0.2)

    def journal_error(self):
        return _node.journal_error(self.unit, self.journal_since)

    def put_back(self, given=True):
        """The files written here as they were and (`given`, a rollback of a restart) the files of `files` as given;
        the directories made here are removed where empty only when the kubelet was not restarted (_files.put_back)."""
        put_back(self.written, self.made, self.params["files"] if given else (), remove_made=not given)

    def keep_for_heal(self):
        """Record the change that just settled for the node's self-heal; a failure to record is a step that failed,
        never a rollback of a kubelet that runs."""
        excluded = set(self.params.get("heal_exclude") or ())
        began = time.monotonic()
        step = {"step": "keep the change for the self-heal"}
        try:
            files = _heal.change_files(self.written, self.params["files"], excluded)
            if not files:
                return
            _heal.keep_change(self.params, files)
            step["ok"] = True
        except OSError as exc:
            step.update(ok=False, error=str(exc))
        step["seconds"] = round(time.monotonic() - began, 3)
        self.steps.append(step)

    # -- the transaction -------------------------------------------------------------------------------------
    def run(self):
        if self.directories or self.writes:
            try:
                self.step(self.steps, f"write {len(self.writes)} file(s)", self.write)
            except StepFailed as exc:
                return self.undo_writes(str(exc))
        try:
            if not self.params["restart"]:
                return self.write_only()
            self.restart()
        except StepFailed as exc:
            if not self.params["restart"]:
                return self.undo_writes(str(exc))
            return self.roll_back(str(exc))
        return self.result(changed=True, failed=False, rolled_back=False, msg=f"{self.unit} restarted with the new config")

    def write_only(self):
        """restart false: the files are written; systemd reloads when a unit drop-in changed."""
        if self.reload and self.written:
            self.step(self.steps, "daemon-reload", self.daemon_reload)
        changed = bool(self.written or self.directories)
        return self.result(changed=changed, failed=False, rolled_back=False, msg=f"{self.unit}: the files are written; nothing restarted")

    def restart(self):
        """Restart the kubelet (stop, remove the checkpoints, start with `reset`), check it, watch it settle."""
        if self.reload:
            self.step(self.steps, "daemon-reload", self.daemon_reload)
        if self.params["reset"]:
            self.step(self.steps, "stop", self.stop)
            names = list(CHECKPOINTS[: 2 if self.params["reset_cpu_manager_state"] else 1])
            self.step(self.steps, "remove " + " and ".join(names), lambda: self.remove_checkpoints(names))
            self.step(self.steps, "start", lambda: self.start(restart=False))
        else:
            self.step(self.steps, "restart", lambda: self.start(restart=True))
        self.step(self.steps, "wait for healthz", lambda: self.wait_for_healthz() and None)
        self.step(self.steps, "check memory_manager_state", self.check_checkpoint)
        self.report_up()
        self.step(self.steps, "settle", lambda: self.settle(self.healthy))
        if self.params.get("heal_record"):
            self.keep_for_heal()

    def report_up(self):
        """Tell on_up that the kubelet is up with the new config, while it still has to settle (when it has to)."""
        left = self.settle_end(self.healthy) - time.monotonic()
        if self.on_up is None or left <= 0:
            return
        until = _utc(time.time() + left)
        msg = f"{self.unit} is up with the new config; the transaction on the node watches it until {until} and rolls it back by itself if it exits"
        self.on_up(self.result(changed=True, failed=False, rolled_back=False, settled=False, settling_until=until, msg=msg))

    def undo_writes(self, error):
        """A write (or the reload after writes without a restart) failed: the kubelet was not touched."""
        steps = []
        try:
            self.step(steps, f"put back {len(self.written)} written file(s)", lambda: self.put_back(given=False))
            outcome = "the files written before it are back as they were"
        except StepFailed as exc:
            outcome = f"putting back the files written before it failed too ({exc})"
        msg = f"numa.kubelet: {self.steps[-1]['step']} ({error}); {outcome}, and {self.unit} was not restarted."
        rollback = {"ok": outcome.startswith("the files"), "steps": steps}
        return self.result(changed=bool(self.written), failed=True, rolled_back=False, msg=msg, error=error, rollback=rollback)

    def roll_back(self, error):
        kubelet_error = self.journal_error()
        steps = []
        rollback_error = None
        try:
            self.roll_back_steps(steps)
        except StepFailed as exc:
            rollback_error = str(exc)
        if rollback_error is None:
            outcome = "the previous files are back and the kubelet runs with them"
        else:
            outcome = (
                "the previous files are back, but the kubelet did not come back with them either "
                f"({rollback_error}; its last error: {self.journal_error() or 'none in the journal'})"
            )
        msg = (
            f"numa.kubelet: {self.unit} did not come back with the new config ({error}); {outcome}. "
            f"The kubelet's last error: {kubelet_error or 'none in the journal'}"
        )
        rollback = {"ok": rollback_error is None, "error": rollback_error, "steps": steps}
        return self.result(changed=True, failed=True, rolled_back=True, msg=msg, error=error, kubelet_error=kubelet_error, rollback=rollback)

    def roll_back_steps(self, steps):
        """The kubelet stopped, the previous files back, both checkpoints removed, the kubelet started with them and
        watched as it settles. Stopped first: a kubelet of the new config still starting (a slow node), or started
        again by systemd (Restart=), would read a tree half put back, such as a --config-dir whose drop-in is gone."""
        try:
            self.step(steps, "stop", self.stop)
        finally:  # a stop that failed still gets the previous files back
            if self.written or self.params["files"]:
                count = len({item["path"] for item in self.written + self.params["files"]})
                self.step(steps, f"put back {count} previous file(s)", self.put_back)
        if self.reload:
            self.step(steps, "daemon-reload", self.daemon_reload)
        self.step(steps, "remove memory_manager_state and cpu_manager_state", lambda: self.remove_checkpoints(CHECKPOINTS))
        # Whatever the kubelet says from here on is about the previous files.
        self.journal_since = time.time()
        self.step(steps, "start", lambda: self.start(restart=False))
        self.step(steps, "wait for healthz and settle", self.wait_until_up)

    def result(self, **fields):
        try:
            active = _node.unit_show(self.unit).get("ActiveState")
        except StepFailed:
            active = "unknown"
        fields.setdefault("settled", True)
        fields.update(
            steps=list(self.steps), written=[item["path"] for item in self.written], active_state=active, seconds=round(time.monotonic() - self.started, 3)
        )
        return fields
