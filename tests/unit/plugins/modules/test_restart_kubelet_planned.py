# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""restart_kubelet never writes over a file changed since the plan read it (write[].previous_sha256): numa.kubelet.rollout
applies the plan its planning play made, minutes earlier in a large fleet, and someone may have changed a file meanwhile."""

from __future__ import annotations

import hashlib
import json
import os

import pytest

from ansible_collections.numa.kubelet.plugins.module_utils._restart._detach import RunPaths, _run_under_the_lock
from ansible_collections.numa.kubelet.plugins.module_utils._restart._files import changed_since_planned, pending_writes
from ansible_collections.numa.kubelet.plugins.modules import restart_kubelet
from ansible_collections.numa.kubelet.tests.unit.plugins.modules.module_args import patch_module_args

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="writes files owned by root, as on a node")


def digest(text):
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_a_file_that_still_holds_what_was_planned_is_written(tmp_path):
    path = tmp_path / "kubelet"
    path.write_text("KUBELET_EXTRA_ARGS=\n")
    items = [{"path": str(path), "content": "KUBELET_EXTRA_ARGS=--x\n", "mode": "0644", "previous_sha256": digest("KUBELET_EXTRA_ARGS=\n")}]
    items.append({"path": str(tmp_path / "new.conf"), "content": "n\n", "mode": "0644", "previous_sha256": "absent"})
    assert changed_since_planned(pending_writes(items), "kubelet.service") is None


@pytest.mark.parametrize(
    ("now", "planned"),
    [("changed by another tool\n", digest("as planned\n")), ("made by another tool\n", "absent"), (None, digest("as planned\n"))],
    ids=["changed", "created", "removed"],
)
def test_a_file_changed_since_the_plan_is_refused_by_name(tmp_path, now, planned):
    path = tmp_path / "50-numa-kubelet.conf"
    if now is not None:
        path.write_text(now)
    other = tmp_path / "kubelet"
    items = [
        {"path": str(other), "content": "o\n", "mode": "0644", "previous_sha256": "absent"},
        {"path": str(path), "content": "ours\n", "mode": "0644", "previous_sha256": planned},
    ]
    refusal = changed_since_planned(pending_writes(items), "kubelet.service")
    assert refusal.startswith(f"numa.kubelet: {path} changed on the node since this host was planned; nothing was written")
    assert str(other) not in refusal and "kubelet.service was not restarted" in refusal


def test_a_file_that_already_holds_the_new_text_or_has_no_digest_is_not_refused(tmp_path):
    same, unplanned = tmp_path / "same.conf", tmp_path / "unplanned.conf"
    same.write_text("ours\n")
    same.chmod(0o644)
    unplanned.write_text("anything\n")
    items = [
        # Someone wrote exactly what the plan writes: nothing is written over.
        {"path": str(same), "content": "ours\n", "mode": "0644", "previous_sha256": digest("before\n")},
        {"path": str(unplanned), "content": "ours\n", "mode": "0644"},
    ]
    assert changed_since_planned(pending_writes(items), "kubelet.service") is None


@needs_root
def test_the_task_refuses_before_anything_is_written_or_recorded(tmp_path, capsys):
    path, record = tmp_path / "kubelet", tmp_path / "progress" / "rollout.json"
    path.write_text("changed by another tool\n")
    args = {
        "unit": "numa-kubelet-test-planned.service",
        "restart": True,
        "write": [{"path": str(path), "content": "ours\n", "mode": "0644", "previous_sha256": digest("as planned\n")}],
        "progress_record": {"path": str(record), "content": "{}"},
    }
    with patch_module_args(args), pytest.raises(SystemExit):
        restart_kubelet.main()
    result = json.loads(capsys.readouterr().out)
    assert result["failed"] and result["written"] == [] and not result["rolled_back"] and result["steps"] == []
    assert f"{path} changed on the node since this host was planned" in result["msg"]
    assert path.read_text() == "changed by another tool\n" and not record.parent.exists()
    # Nothing was started on the node for this unit: no transaction report.
    assert not os.path.exists(RunPaths(args["unit"]).result)


def test_the_transaction_looks_again_under_its_lock(tmp_path):
    # A transaction that ran while this one waited for the lock changed the file: refused there too, nothing written.
    path = tmp_path / "kubelet"
    path.write_text("written meanwhile\n")
    params = {"unit": "kubelet.service", "directories": [], "write": [{"path": str(path), "content": "ours\n", "mode": "0644", "previous_sha256": "absent"}]}
    result = _run_under_the_lock(params, publish=None)
    assert result["failed"] and not result["changed"] and result["written"] == [] and result["settled"]
    assert f"{path} changed on the node since this host was planned" in result["msg"]
    assert path.read_text() == "written meanwhile\n"
