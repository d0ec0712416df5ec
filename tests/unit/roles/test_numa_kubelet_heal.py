# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""roles/kubelet_numa/templates/numa-kubelet-heal, the node's self-heal: it counts the kubelet's failed exits after the
collection's last change, and heals once per change, never over a file another tool changed. systemd and the journal
are fakes here; on test hosts the whole runs in tests/restart/test_heal.py."""

from __future__ import annotations

import ast
import fcntl
import hashlib
import importlib.machinery
import importlib.util
import os
import time

import pytest

from ansible_collections.numa.kubelet.plugins.module_utils._restart import _heal, _node
from ansible_collections.numa.kubelet.tests.unit.plugins.modules.test_restart_kubelet_rollback import KubeadmNode
from ansible_collections.numa.kubelet.tests.unit.plugins.modules.test_restart_kubelet_rollback import change as change_on

PROGRAM = os.path.join(os.path.dirname(__file__), "..", "..", "..", "roles", "kubelet_numa", "templates", "numa-kubelet-heal")
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="writes files owned by root, as on a node")


def load():
    loader = importlib.machinery.SourceFileLoader("numa_kubelet_heal", PROGRAM)
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(module)
    return module


heal_program = load()


def digest(text):
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


@pytest.fixture
def node(tmp_path):
    """A node after a change that settled: the change wrote a drop-in over an older one and created a flags file."""
    paths = heal_program.state_paths("kubelet.service", str(tmp_path / "state"), str(tmp_path / "run"))
    root_dir = tmp_path / "kubelet"
    root_dir.mkdir()
    (root_dir / "memory_manager_state").write_text("{}")
    (root_dir / "cpu_manager_state").write_text("{}")
    dropin, flags = tmp_path / "50-numa-kubelet.conf", tmp_path / "default-kubelet"
    dropin.write_text("new: 2\n")
    flags.write_text("KUBELET_EXTRA_ARGS=--config-dir=x\n")
    change = {
        "unit": "kubelet.service",
        "start_unit": None,
        "root_dir": str(root_dir),
        "time": 1000.0,
        "files": [
            {"path": str(dropin), "previous": "old: 1\n", "previous_mode": "0600", "digest": digest("new: 2\n")},
            {"path": str(flags), "previous": None, "previous_mode": None, "digest": digest("KUBELET_EXTRA_ARGS=--config-dir=x\n")},
        ],
    }
    heal_program.save_json(paths["change"], change)
    return {"paths": paths, "dropin": dropin, "flags": flags, "root_dir": root_dir}


def test_the_program_is_written_as_it_is_and_runs_on_python_3_8():
    with open(PROGRAM, encoding="utf-8") as handle:
        text = handle.read()
    # The role renders its templates: this one must come out unchanged.
    assert not [marker for marker in ("{{", "{%", "{#") if marker in text]
    # No shebang: the drop-in runs it with `/usr/bin/env python3` (ansible-test's shebang check allows no python3).
    assert not text.startswith("#!")
    ast.parse(text, PROGRAM, feature_version=(3, 8))


def test_failed_exits_are_counted_after_the_change_and_within_the_window(node):
    paths = node["paths"]
    heal_program.save_json(paths["failures"], [990.0, 1100.0, 1500.0])
    # A stop asked for is no failure; 990 came before the change, 1100 is older than 10 minutes at 1800.
    assert heal_program.count_failure("success", 3, 10, 1800.0, paths) is False
    assert heal_program.count_failure("exit-code", 3, 10, 1800.0, paths) is False
    assert heal_program.load_json(paths["failures"]) == [1500.0, 1800.0]
    assert heal_program.count_failure("signal", 3, 10, 1810.0, paths) is True


def test_no_count_without_a_change_after_its_heal_or_during_a_transaction(node):
    paths = node["paths"]
    os.makedirs(os.path.dirname(paths["lock"]))
    with open(paths["lock"], "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        assert heal_program.count_failure("exit-code", 1, 10, 1800.0, paths) is False
    assert heal_program.count_failure("exit-code", 1, 10, 1800.0, paths) is True
    change = heal_program.load_json(paths["change"])
    heal_program.save_json(paths["change"], dict(change, heal={"time": "t", "healed": True}))
    assert heal_program.count_failure("exit-code", 1, 10, 1800.0, paths) is False
    os.remove(paths["change"])
    assert heal_program.count_failure("exit-code", 1, 10, 1800.0, paths) is False


@needs_root
def test_a_heal_restores_the_files_resets_the_checkpoints_and_starts_the_unit_once(node):
    paths, calls = node["paths"], []
    heal_program.save_json(paths["failures"], [1500.0, 1600.0, 1700.0])
    record = heal_program.heal("kubelet.service", paths, 1800.0, run=lambda *args: calls.append(args), journal=lambda unit: "the kubelet's words")
    assert calls == [("stop", "kubelet.service"), ("reset-failed", "kubelet.service"), ("start", "kubelet.service")]
    assert node["dropin"].read_text() == "old: 1\n" and oct(node["dropin"].stat().st_mode & 0o777) == "0o600"
    assert not node["flags"].exists() and os.listdir(node["root_dir"]) == []
    assert record == {
        "unit": "kubelet.service",
        "time": "1970-01-01T00:30:00Z",
        "change_time": "1970-01-01T00:16:40Z",
        "failures": 3,
        "kubelet_error": "the kubelet's words",
        "restored": [str(node["dropin"]), str(node["flags"])],
        "healed": True,
    }
    assert heal_program.load_json(paths["healed"]) == record
    assert heal_program.load_json(paths["change"])["heal"] == {"time": "1970-01-01T00:30:00Z", "healed": True}
    assert not os.path.exists(paths["failures"])
    # Once per change.
    assert heal_program.heal("kubelet.service", paths, 1900.0, run=lambda *args: calls.append(args), journal=str) is None
    assert len(calls) == 3


def test_a_file_another_tool_changed_is_left_alone_and_the_reason_recorded(node):
    paths, calls = node["paths"], []
    node["dropin"].write_text("new: 2\n# another tool\n")
    record = heal_program.heal("kubelet.service", paths, 1800.0, run=lambda *args: calls.append(args), journal=lambda unit: "")
    assert calls == [] and node["dropin"].read_text() == "new: 2\n# another tool\n" and node["flags"].exists()
    assert record["healed"] is False and record["restored"] == []
    assert record["reason"] == (
        "another tool changed the files since numa.kubelet wrote them, so they are not rolled back: %s is %s on the node, numa.kubelet wrote %s"
        % (node["dropin"], digest("new: 2\n# another tool\n"), digest("new: 2\n"))
    )
    assert heal_program.load_json(paths["change"])["heal"]["healed"] is False


def test_no_heal_while_a_restart_transaction_runs(node):
    paths, calls = node["paths"], []
    os.makedirs(os.path.dirname(paths["lock"]))
    with open(paths["lock"], "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        assert heal_program.heal("kubelet.service", paths, 1800.0, run=lambda *args: calls.append(args), journal=str) is None
    assert calls == [] and "heal" not in heal_program.load_json(paths["change"])


@needs_root
def test_a_heal_that_fails_says_why_and_is_not_repeated(node):
    def broken(*args):
        if args[0] == "start":
            raise RuntimeError("systemctl start kubelet.service failed (rc 1): no")

    record = heal_program.heal("kubelet.service", node["paths"], 1800.0, run=broken, journal=str)
    assert record["healed"] is False and record["reason"] == "the heal failed: systemctl start kubelet.service failed (rc 1): no"
    assert "heal" in heal_program.load_json(node["paths"]["change"])


def test_a_start_unit_is_restarted_instead_and_a_systemd_file_reloads(node, monkeypatch):
    calls = []
    change = heal_program.load_json(node["paths"]["change"])
    change.update(start_unit="nodeadm-run.service", files=[dict(change["files"][1], path=str(node["flags"]) + "/systemd/x", previous=None)])
    monkeypatch.setattr(heal_program, "write_back", lambda entry: None)
    assert heal_program.restore(change, run=lambda *args: calls.append(args)) == [str(node["flags"]) + "/systemd/x"]
    assert calls == [("stop", "kubelet.service"), ("daemon-reload",), ("reset-failed", "kubelet.service"), ("restart", "nodeadm-run.service")]


def test_the_command_line(node, monkeypatch, capsys):
    launched = []
    monkeypatch.setattr(heal_program, "state_paths", lambda unit: node["paths"])
    monkeypatch.setattr(heal_program, "launch_heal", lambda unit, program: launched.append((unit, program)))
    monkeypatch.setenv("SERVICE_RESULT", "exit-code")
    assert heal_program.main(["/etc/numa-kubelet/numa-kubelet-heal", "exited", "kubelet.service", "1", "10"]) == 0
    assert launched == [("kubelet.service", "/etc/numa-kubelet/numa-kubelet-heal")]
    assert heal_program.main(["numa-kubelet-heal", "bogus"]) == 2
    assert "numa-kubelet-heal exited UNIT FAILURES MINUTES" in capsys.readouterr().err


@needs_root
@pytest.mark.parametrize("converged", [False, True], ids=["the first change: flag, directory and drop-in", "a later change: the drop-in alone"])
def test_a_heal_leaves_flags_and_drop_in_directory_that_agree(tmp_path, monkeypatch, converged):
    """A change kept by a real transaction on a kubeadm tree, then healed: the kubelet starts on what the heal put back,
    every --config-dir its flags name exists (the heal removes no directory)."""
    kubeadm = KubeadmNode(tmp_path / "node")
    for name, fake in (("systemctl", kubeadm.systemctl), ("unit_show", kubeadm.show), ("healthz", kubeadm.healthz), ("journal_error", kubeadm.journal_error)):
        monkeypatch.setattr(_node, name, fake)
    monkeypatch.setattr(_heal, "HEAL_STATE_DIR", str(tmp_path / "state"))
    if converged:
        change_on(kubeadm, heal_record=True).run()
    result = change_on(kubeadm, content="memoryManagerPolicy: Static\nsystemReserved: {memory: 1Gi}\n", heal_record=True).run()
    assert not result["failed"] and [step["step"] for step in result["steps"]][-1] == "keep the change for the self-heal"
    paths = heal_program.state_paths("kubelet.service", str(tmp_path / "state"), str(tmp_path / "run"))
    record = heal_program.heal("kubelet.service", paths, time.time(), run=kubeadm.systemctl, journal=lambda unit: "")
    assert record["healed"] is True, record
    assert kubeadm.state["ActiveState"] == "active" and not kubeadm.missing_named_directories()
    assert kubeadm.config_dir.is_dir()
    assert kubeadm.named_directories() == ([str(kubeadm.config_dir)] if converged else [])
