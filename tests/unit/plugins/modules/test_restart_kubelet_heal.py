# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""restart_kubelet keeps each change that settled for the node's self-heal (heal_record): the files it wrote, with the
digest of what it wrote and what they held before, minus heal_exclude; a change rolled back is not kept. systemd is
the fake of test_restart_kubelet_settle.py; the heal itself is tested in tests/unit/roles/test_numa_kubelet_heal.py and
on test hosts in tests/restart/test_heal.py."""

from __future__ import annotations

import hashlib
import json
import os

import pytest

from ansible_collections.numa.kubelet.plugins.module_utils._restart import _heal, _node
from ansible_collections.numa.kubelet.plugins.module_utils._restart._files import pending_writes
from ansible_collections.numa.kubelet.plugins.module_utils._restart._transaction import Transaction
from ansible_collections.numa.kubelet.tests.unit.plugins.modules.test_restart_kubelet_settle import FakeUnit, _params

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="writes files owned by root, as on a node")


@pytest.fixture
def unit(monkeypatch, tmp_path):
    fake = FakeUnit()
    monkeypatch.setattr(_node, "systemctl", fake.systemctl)
    monkeypatch.setattr(_node, "unit_show", fake.show)
    monkeypatch.setattr(_heal, "HEAL_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setattr(Transaction, "journal_error", lambda self: 'E1127 kubelet.go:1] "Failed to start ContainerManager"')
    return fake


def node_files(tmp_path):
    """A drop-in the change replaces, a file it creates, and the guard's own drop-in."""
    dropin, extra, guard = tmp_path / "50-numa-kubelet.conf", tmp_path / "kubelet", tmp_path / "90-guard.conf"
    dropin.write_text("old: 1\n")
    dropin.chmod(0o600)
    items = [
        {"path": str(dropin), "content": "new: 2\n", "mode": "0644"},
        {"path": str(extra), "content": "KUBELET_EXTRA_ARGS=\n", "mode": "0644"},
        {"path": str(guard), "content": "[Service]\n", "mode": "0644"},
    ]
    return dropin, extra, guard, pending_writes(items)


def change_file(tmp_path):
    return tmp_path / "state" / "kubelet.service.change.json"


@needs_root
def test_a_change_that_settled_is_kept_with_what_each_file_held_before(unit, tmp_path):
    dropin, extra, guard, writes = node_files(tmp_path)
    state = tmp_path / "state"
    state.mkdir()
    (state / "kubelet.service.failures.json").write_text("[1, 2]")
    (state / "kubelet.service.healed.json").write_text('{"healed": true}')
    result = Transaction(_params(settle=0, heal_record=True, heal_exclude=[str(guard)]), writes=writes).run()
    assert result["failed"] is False
    assert result["steps"][-1] == {"step": "keep the change for the self-heal", "ok": True, "seconds": result["steps"][-1]["seconds"]}
    change = json.loads(change_file(tmp_path).read_text())
    assert change["unit"] == "kubelet.service" and change["root_dir"] == "/nonexistent" and change["start_unit"] is None
    assert change["files"] == [
        {"path": str(dropin), "previous": "old: 1\n", "previous_mode": "0600", "digest": "sha256:" + hashlib.sha256(b"new: 2\n").hexdigest()},
        {"path": str(extra), "previous": None, "previous_mode": None, "digest": "sha256:" + hashlib.sha256(b"KUBELET_EXTRA_ARGS=\n").hexdigest()},
    ]
    assert oct(change_file(tmp_path).stat().st_mode & 0o777) == "0o600"
    # The failures counted against the last change are forgotten, and its heal record becomes history.
    assert sorted(os.listdir(state)) == ["kubelet.service.change.json", "kubelet.service.healed-before.json"]


@needs_root
def test_a_change_rolled_back_or_not_asked_for_is_not_kept(unit, tmp_path):
    _dropin, _extra, _guard, writes = node_files(tmp_path)
    unit.exit_after = 0.3
    result = Transaction(_params(settle=2, heal_record=True), writes=writes).run()
    assert result["rolled_back"] and not change_file(tmp_path).exists()
    _dropin, _extra, _guard, writes = node_files(tmp_path)
    result = Transaction(_params(settle=0), writes=writes).run()
    assert result["failed"] is False and not change_file(tmp_path).exists()


@needs_root
def test_a_change_that_cannot_be_kept_is_a_failed_step_not_a_rollback(unit, tmp_path):
    _dropin, _extra, _guard, writes = node_files(tmp_path)
    (tmp_path / "state").write_text("a file where the directory should be")
    result = Transaction(_params(settle=0, heal_record=True), writes=writes).run()
    assert result["failed"] is False and not result["rolled_back"]
    assert result["steps"][-1]["step"] == "keep the change for the self-heal" and result["steps"][-1]["ok"] is False
