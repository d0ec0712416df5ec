# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""restart_kubelet's writes: only what differs is written, check mode and --diff show it and write nothing, and a
failed write puts back what it wrote before and restarts nothing. (The restart itself runs on test hosts: tests/restart.)"""

from __future__ import annotations

import json
import os

import pytest

from ansible_collections.numa.kubelet.plugins.module_utils._restart import _node
from ansible_collections.numa.kubelet.plugins.module_utils._restart._files import pending_directories, pending_writes
from ansible_collections.numa.kubelet.plugins.module_utils._restart._transaction import Transaction
from ansible_collections.numa.kubelet.plugins.modules import restart_kubelet
from ansible_collections.numa.kubelet.tests.unit.plugins.modules.module_args import patch_module_args

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="writes files owned by root, as on a node")


def _params(**extra):
    params = {
        "unit": "kubelet.service",
        "start_unit": None,
        "reset": True,
        "reset_cpu_manager_state": False,
        "root_dir": "/var/lib/kubelet",
        "daemon_reload": False,
        "health_url": None,
        "health_timeout": 5,
        "settle": 0,
        "expected_state": None,
        "files": [],
        "write": [],
        "directories": [],
        "restart": False,
        "only_report": False,
    }
    params.update(extra)
    return params


@needs_root
def test_only_what_differs_is_written_and_kept_for_the_rollback(tmp_path):
    same, other, mode_only = tmp_path / "same.conf", tmp_path / "other.conf", tmp_path / "mode.conf"
    same.write_text("a\n")
    same.chmod(0o644)
    other.write_text("old\n")
    other.chmod(0o644)
    mode_only.write_text("m\n")
    mode_only.chmod(0o600)
    items = [
        {"path": str(same), "content": "a\n", "mode": "0644"},
        {"path": str(other), "content": "new\n", "mode": "0644"},
        {"path": str(mode_only), "content": "m\n", "mode": "0644"},
        {"path": str(tmp_path / "new.conf"), "content": "n\n", "mode": "644"},
        {"path": str(other), "content": "not this\n", "mode": "0644", "only_if_absent": True},
    ]
    pending = pending_writes(items)
    assert [(item["path"], item["previous"], item["previous_mode"]) for item in pending] == [
        (str(other), "old\n", "0644"),
        (str(mode_only), "m\n", "0600"),
        (str(tmp_path / "new.conf"), None, None),
    ]
    assert pending[2]["mode"] == "0644"


@needs_root
def test_a_failed_write_puts_back_what_was_written_and_restarts_nothing(tmp_path):
    first = tmp_path / "conf.d" / "deeper" / "50-numa-kubelet.conf"
    second = tmp_path / "kubelet"
    second.write_text("KUBELET_EXTRA_ARGS=\n")
    second.chmod(0o600)
    items = [
        {"path": str(first), "content": "one\n", "mode": "0644"},
        {"path": str(second), "content": "two\n", "mode": "0644"},
        {"path": str(tmp_path / "no-such-dir" / "third"), "content": "three\n", "mode": "0644"},
    ]
    transaction = Transaction(_params(restart=True), pending_directories([str(first.parent)]), pending_writes(items))
    result = transaction.run()
    assert result["failed"] and not result["rolled_back"]
    assert "was not restarted" in result["msg"] and "No such file or directory" in result["msg"], result["msg"]
    assert [step["step"] for step in result["steps"]] == ["write 3 file(s)"]
    # As before: the new file and the directories made for it are gone, the changed file has its text and mode back.
    assert not (tmp_path / "conf.d").exists()
    assert second.read_text() == "KUBELET_EXTRA_ARGS=\n" and oct(second.stat().st_mode & 0o777) == "0o600"
    assert sorted(os.listdir(tmp_path)) == ["kubelet"]


@needs_root
def test_check_mode_reports_each_file_with_its_diff_and_writes_nothing(tmp_path, capsys):
    path = tmp_path / "50-numa-kubelet.conf"
    path.write_text("old\n")
    path.chmod(0o644)
    args = {
        "unit": "kubelet.service",
        "_ansible_check_mode": True,
        "directories": [str(tmp_path / "new-dir")],
        "write": [
            {"path": str(path), "content": "new\n", "mode": "0644"},
            {"path": str(path) + ".same", "content": "", "mode": "0644", "only_if_absent": True},
        ],
    }
    with patch_module_args(args), pytest.raises(SystemExit):
        restart_kubelet.main()
    result = json.loads(capsys.readouterr().out)
    assert result["changed"] and result["written"] == [str(path), str(path) + ".same"]
    assert result["diff"][0] == {"before_header": f"{path} (mode 0644)", "after_header": f"{path} (mode 0644)", "before": "old\n", "after": "new\n"}
    assert path.read_text() == "old\n" and not (tmp_path / "new-dir").exists() and not os.path.exists(str(path) + ".same")


@pytest.mark.parametrize(
    ("item", "missing"),
    [({"mode": "0644"}, "content"), ({"content": ""}, "mode"), ({}, "content and no mode")],
    ids=["no content", "no mode", "neither"],
)
def test_a_write_without_its_text_or_mode_is_refused_naming_the_file(capsys, item, missing):
    good = {"path": "/etc/kubernetes/kubelet.conf.d/50-numa-kubelet.conf", "content": "", "mode": "0644"}
    args = {"unit": "kubelet.service", "write": [good, dict(item, path="/etc/default/kubelet")]}
    with patch_module_args(args), pytest.raises(SystemExit):
        restart_kubelet.main()
    result = json.loads(capsys.readouterr().out)
    assert result["failed"]
    assert result["msg"] == f"restart_kubelet: write: /etc/default/kubelet has no {missing}: each item of write needs path, content and mode"


def test_a_node_without_systemctl_is_a_failed_step_not_a_traceback(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(_node.StepFailed, match=r"^systemctl show .* could not run: .*No such file or directory"):
        _node.unit_show("kubelet.service")
