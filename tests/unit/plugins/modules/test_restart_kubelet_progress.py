# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""restart_kubelet's progress record (numa.kubelet.rollout's node-local record): written before the transaction starts,
and removed by a result that says the kubelet runs settled, never by a failure, a rollback or a report of a kubelet
that still settles."""

from __future__ import annotations

import json
import os

import pytest

from ansible_collections.numa.kubelet.plugins.module_utils._restart._module import write_progress_record
from ansible_collections.numa.kubelet.plugins.module_utils._restart._report import exit_with
from ansible_collections.numa.kubelet.plugins.modules import restart_kubelet
from ansible_collections.numa.kubelet.tests.unit.plugins.modules.module_args import patch_module_args

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="writes files owned by root, as on a node")


class Ended(Exception):
    """The module ended the task (exit_json or fail_json) with this result."""

    def __init__(self, result):
        super().__init__(result.get("msg"))
        self.result = result


class Module:
    """What exit_with and write_progress_record use of AnsibleModule."""

    def __init__(self, remove_when_settled=(), check_mode=False):
        self.params = {"remove_when_settled": list(remove_when_settled)}
        self.check_mode = check_mode
        self.warnings = []

    def exit_json(self, **result):
        raise Ended(result)

    def fail_json(self, **result):
        raise Ended(dict(result, failed=True))

    def warn(self, text):
        self.warnings.append(text)


def ended(module, result):
    with pytest.raises(Ended) as caught:
        exit_with(module, result)
    return caught.value.result


@pytest.mark.parametrize(
    "result",
    [
        {"failed": True, "rolled_back": True, "settled": True, "msg": "rolled back"},
        {"changed": True, "settled": False, "msg": "up, still settling"},
        {"changed": True, "token": "0123", "steps": [], "msg": "started, not waited for"},
    ],
    ids=["rolled-back", "still-settling", "not-waited-for"],
)
def test_the_record_stays_unless_the_kubelet_runs_settled(tmp_path, result):
    record = tmp_path / "rollout.json"
    record.write_text("{}")
    assert "removed" not in ended(Module([str(record)]), result)
    assert record.exists()


def test_a_settled_verdict_removes_the_record_and_says_so(tmp_path):
    record = tmp_path / "rollout.json"
    record.write_text("{}")
    result = ended(Module([str(record), str(tmp_path / "absent.json")]), {"changed": False, "settled": True, "msg": "settled"})
    assert result["removed"] == [str(record)] and result["changed"] and not record.exists()
    # Already gone: nothing removed, nothing changed.
    assert ended(Module([str(record)]), {"changed": False, "settled": True})["changed"] is False


def test_a_record_that_cannot_be_removed_is_a_warning_not_a_failure(tmp_path):
    directory = tmp_path / "rollout.json"
    directory.mkdir()  # os.remove refuses a directory
    module = Module([str(directory)])
    result = ended(module, {"changed": False, "settled": True})
    assert not result.get("failed") and "removed" not in result and directory.exists()
    assert module.warnings and module.warnings[0].startswith(f"restart_kubelet: {directory} could not be removed: ")


@needs_root
def test_check_mode_and_nothing_to_restart_remove_only_outside_check_mode(tmp_path, capsys):
    record = tmp_path / "rollout.json"
    record.write_text("{}")
    args = {"unit": "kubelet.service", "restart": False, "remove_when_settled": [str(record)]}
    with patch_module_args(dict(args, _ansible_check_mode=True)), pytest.raises(SystemExit):
        restart_kubelet.main()
    assert "removed" not in json.loads(capsys.readouterr().out) and record.exists()
    with patch_module_args(args), pytest.raises(SystemExit):
        restart_kubelet.main()
    result = json.loads(capsys.readouterr().out)
    assert result["removed"] == [str(record)] and result["settled"] and not record.exists()


@needs_root
def test_the_progress_record_is_written_with_its_directory_as_root_0644(tmp_path):
    path = tmp_path / "numa-kubelet" / "rollout.json"
    params = {"unit": "kubelet.service", "progress_record": {"path": str(path), "content": '{"step": "apply"}'}}
    write_progress_record(Module(), params)
    assert path.read_text() == '{"step": "apply"}'
    found = path.stat()
    assert (oct(found.st_mode & 0o777), found.st_uid, found.st_gid) == ("0o644", 0, 0)
    made = path.parent.stat()
    assert (oct(made.st_mode & 0o777), made.st_uid, made.st_gid) == ("0o755", 0, 0)


def test_a_record_that_cannot_be_written_fails_before_anything_changed(tmp_path):
    blocker = tmp_path / "numa-kubelet"
    blocker.write_text("a file where the directory should be")
    params = {"unit": "kubelet.service", "progress_record": {"path": str(blocker / "rollout.json"), "content": "{}"}}
    with pytest.raises(Ended) as caught:
        write_progress_record(Module(), params)
    assert caught.value.result["failed"]
    assert caught.value.result["msg"].startswith(f"restart_kubelet: writing the progress record {blocker / 'rollout.json'} failed (")
    assert caught.value.result["msg"].endswith("nothing was written and kubelet.service was not restarted")


def test_a_relative_record_path_is_refused(capsys):
    args = {"unit": "kubelet.service", "remove_when_settled": ["rollout.json"]}
    with patch_module_args(args), pytest.raises(SystemExit):
        restart_kubelet.main()
    result = json.loads(capsys.readouterr().out)
    assert result["failed"] and result["msg"] == "restart_kubelet: remove_when_settled: each needs an absolute path, got 'rollout.json'"
