# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""restart_kubelet's settle in the background: the transaction reports a kubelet that is up (settled false), goes on
watching it, and rolls it back by itself when it exits before the settle time is over; a caller reads either report.

systemd is a fake here (a unit whose start gives it a new main PID and start time); on test hosts, with the kubelet
stand-in, the same runs in tests/restart/test_settle.py.
"""

from __future__ import annotations

import fcntl
import json
import threading
import time

import pytest

from ansible_collections.numa.kubelet.plugins.module_utils._restart import _node
from ansible_collections.numa.kubelet.plugins.module_utils._restart._detach import RunPaths
from ansible_collections.numa.kubelet.plugins.module_utils._restart._report import wait_for_report
from ansible_collections.numa.kubelet.plugins.module_utils._restart._transaction import Transaction


class FakeUnit:
    """kubelet.service as systemctl shows it; `exit_after` seconds after a start, that start's kubelet exits once."""

    def __init__(self, exit_after=None):
        self.exit_after = exit_after
        self.state = {"ActiveState": "active", "SubState": "running", "MainPID": "100", "NRestarts": "0", "ActiveEnterTimestampMonotonic": "0"}
        self.started_at = None
        self.calls = []

    def systemctl(self, *args):
        self.calls.append(args[0])
        if args[0] == "stop":
            self.state.update(ActiveState="inactive", SubState="dead", MainPID="0")
        elif args[0] in ("start", "restart"):
            self.started_at = time.monotonic()
            self.state.update(
                ActiveState="active",
                SubState="running",
                MainPID=str(int(self.state["MainPID"] or 0) + 101),
                ActiveEnterTimestampMonotonic=str(int(self.started_at * 1e6)),
            )
        return ""

    def show(self, unit):
        if self.exit_after is not None and self.started_at is not None and time.monotonic() - self.started_at >= self.exit_after:
            self.exit_after = None  # the next start (the rollback's) stays up
            self.state.update(ActiveState="failed", SubState="failed", MainPID="0")
        return dict(self.state)


def _params(**extra):
    params = {
        "unit": "kubelet.service",
        "start_unit": None,
        "reset": True,
        "reset_cpu_manager_state": False,
        "root_dir": "/nonexistent",
        "daemon_reload": False,
        "health_url": None,
        "health_timeout": 5,
        "settle": 0.8,
        "expected_state": None,
        "files": [],
        "write": [],
        "directories": [],
        "restart": True,
        "only_report": False,
        "settled": True,
    }
    params.update(extra)
    return params


@pytest.fixture
def unit(monkeypatch):
    fake = FakeUnit()
    monkeypatch.setattr(_node, "systemctl", fake.systemctl)
    monkeypatch.setattr(_node, "unit_show", fake.show)
    monkeypatch.setattr(Transaction, "journal_error", lambda self: 'E1127 kubelet.go:1] "Failed to start ContainerManager"')
    return fake


def test_a_kubelet_that_stays_up_is_reported_up_then_settled(unit):
    reports = []
    result = Transaction(_params(), on_up=reports.append).run()
    assert [report["settled"] for report in reports] == [False]
    assert reports[0]["failed"] is False and "watches it until" in reports[0]["msg"]
    assert reports[0]["settling_until"].endswith("Z")
    steps = ["stop", "remove memory_manager_state", "start", "wait for healthz", "check memory_manager_state"]
    assert [step["step"] for step in reports[0]["steps"]] == steps
    assert result["settled"] is True and result["failed"] is False and not result["rolled_back"]
    assert [step["step"] for step in result["steps"]][-1] == "settle" and result["steps"][-1]["ok"]
    assert unit.calls == ["stop", "start"]


def test_a_kubelet_that_exits_while_it_settles_is_rolled_back_by_the_transaction(unit):
    unit.exit_after = 0.5
    reports = []
    result = Transaction(_params(settle=2), on_up=reports.append).run()
    # It was reported up first; the exit came after, and the transaction rolled back on its own.
    assert [report["settled"] for report in reports] == [False]
    assert result["settled"] is True and result["failed"] is True and result["rolled_back"] is True
    assert result["steps"][-1]["step"] == "settle" and "answered, then exited" in result["steps"][-1]["error"]
    assert result["rollback"]["ok"] is True
    assert "the previous files are back and the kubelet runs with them" in result["msg"]
    assert "Failed to start ContainerManager" in result["msg"]
    assert unit.calls == ["stop", "start", "stop", "start"] and unit.state["ActiveState"] == "active"


def test_a_kubelet_that_exits_before_its_checkpoint_is_written_fails_at_once(unit, tmp_path):
    unit.exit_after = 0.3
    began = time.monotonic()
    result = Transaction(
        _params(root_dir=str(tmp_path), health_timeout=30, settle=0, expected_state={"policyName": "Static", "systemReserved": {"0": 1}})
    ).run()
    assert result["rolled_back"] and time.monotonic() - began < 10
    assert result["steps"][-1]["step"] == "check memory_manager_state" and "answered, then exited" in result["steps"][-1]["error"]


def test_no_report_before_the_verdict_when_the_settle_is_already_over(unit):
    reports = []
    result = Transaction(_params(settle=0), on_up=reports.append).run()
    assert reports == [] and result["settled"] and not result["failed"]


class CheckpointWritingUnit(FakeUnit):
    """A kubelet whose every start writes `text` into memory_manager_state `delay` seconds later (after /healthz answers,
    as the real kubelet does)."""

    def __init__(self, path, text, delay, exit_after):
        super().__init__(exit_after)
        self.path, self.text, self.delay = path, text, delay
        self.timers = []

    def systemctl(self, *args):
        result = super().systemctl(*args)
        if args[0] in ("start", "restart"):
            timer = threading.Timer(self.delay, self.path.write_text, args=(self.text,))
            timer.start()
            self.timers.append(timer)
        return result


def test_a_kubelet_that_exits_within_the_settle_after_its_checkpoint_is_rolled_back(monkeypatch, tmp_path):
    # The checkpoint matches 1 s after the start, the kubelet exits 1.8 s after it; the settle (1.5 s) counts from the
    # match, so the exit falls inside it (counted from the start, it would have passed at 1.5 s).
    text = json.dumps({"policyName": "Static", "machineState": {"0": {"memoryMap": {"memory": {"systemReserved": 1}}}}})
    fake = CheckpointWritingUnit(tmp_path / "memory_manager_state", text, delay=1.0, exit_after=1.8)
    monkeypatch.setattr(_node, "systemctl", fake.systemctl)
    monkeypatch.setattr(_node, "unit_show", fake.show)
    monkeypatch.setattr(Transaction, "journal_error", lambda self: "")
    try:
        result = Transaction(_params(root_dir=str(tmp_path), settle=1.5, expected_state={"policyName": "Static", "systemReserved": {"0": 1}})).run()
    finally:
        for timer in fake.timers:
            timer.join()
    assert result["rolled_back"] and result["steps"][-1]["step"] == "settle", result["steps"]
    assert "answered, then exited" in result["steps"][-1]["error"]


class Exited(Exception):
    pass


class FakeModule:
    def exit_json(self, **result):
        raise Exited(dict(result, failed=False))

    def fail_json(self, **result):
        raise Exited(dict(result, failed=True))


def _report(path, **fields):
    path.write_text(json.dumps(dict({"token": "t1", "changed": True, "failed": False, "steps": [], "written": []}, **fields)))


def test_a_caller_can_take_the_report_of_a_kubelet_that_is_up(tmp_path):
    path = tmp_path / "kubelet.service.transaction.json"
    _report(path, settled=False, settling_until="2026-11-27T02:31:04.512Z")
    with pytest.raises(Exited) as ended:
        wait_for_report(FakeModule(), _params(only_report=True, token="t1", settled=False), RunPaths("kubelet.service", str(tmp_path)), "t1", [])
    assert ended.value.args[0]["settled"] is False and not ended.value.args[0]["failed"] and ended.value.args[0]["token"] == "t1"


def test_a_caller_that_needs_the_verdict_waits_for_the_transaction_to_end(tmp_path, monkeypatch):
    path = tmp_path / "kubelet.service.transaction.json"
    _report(path, settled=False, settling_until="2026-11-27T02:31:04.512Z")
    # The transaction holds its lock while the kubelet settles, and writes its verdict before it lets go.
    lock = open(tmp_path / "kubelet.service.transaction.lock", "w", encoding="utf-8")
    fcntl.flock(lock, fcntl.LOCK_EX)

    def rolled_back():
        time.sleep(0.5)
        _report(path, settled=True, failed=True, rolled_back=True, msg="kubelet.service did not come back with the new config")
        lock.close()

    thread = threading.Thread(target=rolled_back)
    thread.start()
    try:
        with pytest.raises(Exited) as ended:
            wait_for_report(FakeModule(), _params(only_report=True, token="t1", settled=True), RunPaths("kubelet.service", str(tmp_path)), "t1", [])
    finally:
        thread.join()
    result = ended.value.args[0]
    assert result["failed"] and result["transaction_failed"] and result["settled"] and result["rolled_back"]


def test_a_transaction_killed_while_it_settled_is_no_verdict(tmp_path, monkeypatch):
    path = tmp_path / "kubelet.service.transaction.json"
    _report(path, settled=False, settling_until="2026-11-27T02:31:04.512Z", msg="kubelet.service is up with the new config")
    with pytest.raises(Exited) as ended:
        wait_for_report(FakeModule(), _params(only_report=True, token="t1", settled=True), RunPaths("kubelet.service", str(tmp_path)), "t1", [])
    assert ended.value.args[0]["failed"] and "ended without its final verdict" in ended.value.args[0]["msg"]


class QueuedStartUnit(FakeUnit):
    """kubelet.service started through nodeadm-run.service, which only enqueues the kubelet's (re)start: systemd runs
    that job `delay` seconds later; until then the unit shows its state from before (stopped, or the old process)."""

    def __init__(self, delay):
        super().__init__()
        self.delay = delay
        self.queued_at = None
        self.state["InactiveExitTimestampMonotonic"] = "0"

    def systemctl(self, *args):
        if args[0] == "restart" and args[-1] == "nodeadm-run.service":
            self.calls.append("restart nodeadm-run.service")
            self.queued_at = time.monotonic()
            return ""
        return super().systemctl(*args)

    def show(self, unit):
        if self.queued_at is not None and time.monotonic() - self.queued_at >= self.delay:
            self.queued_at = None
            super().systemctl("restart", unit)
            self.state["InactiveExitTimestampMonotonic"] = str(int(self.started_at * 1e6))
        return super().show(unit)


@pytest.mark.parametrize("reset", [True, False], ids=["reset: the kubelet is stopped meanwhile", "restart: the old kubelet runs meanwhile"])
def test_a_start_through_another_unit_is_awaited_until_systemd_runs_it(monkeypatch, reset):
    queued = QueuedStartUnit(delay=0.6)
    monkeypatch.setattr(_node, "systemctl", queued.systemctl)
    monkeypatch.setattr(_node, "unit_show", queued.show)
    old_pid = queued.state["MainPID"]
    result = Transaction(_params(start_unit="nodeadm-run.service", reset=reset, settle=0)).run()
    # Neither "inactive (dead) after its start" from the stopped unit, nor the old process taken for the new one.
    assert result["failed"] is False and not result["rolled_back"], result["msg"]
    assert queued.calls == (["stop", "restart nodeadm-run.service", "restart"] if reset else ["restart nodeadm-run.service", "restart"])
    assert queued.state["MainPID"] != old_pid


def test_a_direct_start_that_leaves_the_unit_inactive_fails_at_once(unit, monkeypatch):
    def start_that_dies(*args):
        unit.calls.append(args[0])
        unit.state.update(ActiveState="inactive", SubState="dead", MainPID="0")
        return ""

    monkeypatch.setattr(_node, "systemctl", start_that_dies)
    began = time.monotonic()
    result = Transaction(_params(health_timeout=30, settle=0)).run()
    assert result["failed"] and time.monotonic() - began < 10
    assert "is inactive (dead) after its start" in result["steps"][3]["error"]
