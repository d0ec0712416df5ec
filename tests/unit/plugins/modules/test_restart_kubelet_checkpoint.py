# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""restart_kubelet compares memory_manager_state only once the kubelet has written its machine state.

The real kubelet v1.36.2 answers /healthz before its memory manager starts; molecule/real_kubelet saw the restart
read a checkpoint with policy Static and no machine state yet, and roll back a good start. The complete checkpoint
here is the one the real kubelet wrote on the test VM (tests/unit/fixtures/alignment).
"""

from __future__ import annotations

import json
import os
import threading
import time

import pytest

from ansible_collections.numa.kubelet.plugins.module_utils._kubelet_checkpoint import checkpoint_complete
from ansible_collections.numa.kubelet.plugins.module_utils._restart import _node
from ansible_collections.numa.kubelet.plugins.module_utils._restart._transaction import Transaction

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "alignment", "guaranteed-pod-on-node1.json")
with open(FIXTURE, encoding="utf-8") as _handle:
    WRITTEN = json.load(_handle)["memory_manager_state"]
# What the memory manager stores before its Static policy has computed the machine state.
NOT_YET = json.dumps({"policyName": "Static", "machineState": {}, "checksum": 1})
RESERVED = {node: state["memoryMap"]["memory"]["systemReserved"] for node, state in json.loads(WRITTEN)["machineState"].items()}


@pytest.mark.parametrize(
    "text, complete",
    [
        (None, False),
        ('{"policyName":"Sta', False),
        (NOT_YET, False),
        (WRITTEN, True),
        (json.dumps({"policyName": "None", "machineState": {}}), True),
    ],
)
def test_checkpoint_complete(text, complete):
    assert checkpoint_complete(text) is complete


# The kubelet that answered /healthz, still running while its checkpoint is awaited (the check watches it).
RUNNING = {"ActiveState": "active", "SubState": "running", "MainPID": "4242", "NRestarts": "0"}


@pytest.fixture(autouse=True)
def running_kubelet(monkeypatch):
    monkeypatch.setattr(_node, "unit_show", lambda unit: dict(RUNNING))


def _transaction(tmp_path, wait_seconds, reserved=None):
    transaction = Transaction(
        {"unit": "kubelet.service", "root_dir": str(tmp_path), "expected_state": {"policyName": "Static", "systemReserved": reserved or RESERVED}}
    )
    transaction.health_deadline = time.monotonic() + wait_seconds
    transaction.healthy = dict(RUNNING)
    return transaction


def _write_later(path, text, seconds):
    timer = threading.Timer(seconds, path.write_text, args=(text,))
    timer.start()
    return timer


@pytest.mark.parametrize("first", [None, NOT_YET])
def test_waits_for_the_machine_state(tmp_path, first):
    state = tmp_path / "memory_manager_state"
    if first is not None:
        state.write_text(first)
    timer = _write_later(state, WRITTEN, 0.6)
    try:
        assert _transaction(tmp_path, 30).check_checkpoint().startswith("written ")
    finally:
        timer.join()


def test_a_written_checkpoint_that_differs_fails_at_once(tmp_path):
    (tmp_path / "memory_manager_state").write_text(WRITTEN)
    began = time.monotonic()
    with pytest.raises(_node.StepFailed, match=r"memory_manager_state reserves .* bytes per NUMA node, the plan"):
        _transaction(tmp_path, 30, reserved={"0": 1, "1": 1}).check_checkpoint()
    assert time.monotonic() - began < 5


def test_no_machine_state_by_the_health_deadline_fails(tmp_path):
    (tmp_path / "memory_manager_state").write_text(NOT_YET)
    with pytest.raises(_node.StepFailed, match=r"memory_manager_state reserves \{\} bytes per NUMA node"):
        _transaction(tmp_path, 0.5).check_checkpoint()


@pytest.mark.parametrize(
    "written_ago, started_ago, counts_from_ago",
    [(5, 10, 5), (10, 5, 5)],
    ids=["written by the new kubelet: its write", "kept from before its start (a plain restart): the start"],
)
def test_the_settle_counts_from_the_checkpoint_matching(tmp_path, written_ago, started_ago, counts_from_ago):
    # Written before the check looked (before /healthz answered, say): the file's time, not the look, is the proof's.
    state = tmp_path / "memory_manager_state"
    state.write_text(WRITTEN)
    os.utime(state, (time.time() - written_ago, time.time() - written_ago))
    transaction = _transaction(tmp_path, 30)
    transaction.healthy = dict(RUNNING, ActiveEnterTimestampMonotonic=str(int((time.monotonic() - started_ago) * 1e6)))
    transaction.params["settle"] = 2
    transaction.check_checkpoint()
    assert abs(transaction.settle_end(transaction.healthy) - (time.monotonic() - counts_from_ago + 2)) < 0.5


def test_without_an_expected_state_the_settle_counts_from_the_start(tmp_path):
    transaction = Transaction({"unit": "kubelet.service", "root_dir": str(tmp_path), "expected_state": None, "settle": 2})
    transaction.healthy = dict(RUNNING, ActiveEnterTimestampMonotonic=str(int((time.monotonic() - 1) * 1e6)))
    assert transaction.check_checkpoint() is None
    assert abs(transaction.settle_end(transaction.healthy) - (time.monotonic() + 1)) < 0.5
