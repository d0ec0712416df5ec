# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""numa.kubelet.restart_kubelet's arguments and its run: report, check mode, or start the transaction and wait."""

from __future__ import annotations

import os
import re

from ansible_collections.numa.kubelet.plugins.module_utils._restart._detach import RunPaths, start_detached
from ansible_collections.numa.kubelet.plugins.module_utils._restart._files import (
    changed_since_planned,
    diffs,
    make_directories,
    pending_directories,
    pending_writes,
)
from ansible_collections.numa.kubelet.plugins.module_utils._restart._node import write_file
from ansible_collections.numa.kubelet.plugins.module_utils._restart._report import exit_with, last_report, wait_for_report, without_transaction

ARGUMENT_SPEC = {
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
    "files": {
        "type": "list",
        "elements": "dict",
        "default": [],
        "options": {"path": {"type": "path", "required": True}, "previous": {"type": "str"}, "mode": {"type": "str", "default": "0644"}},
    },
    "write": {
        "type": "list",
        "elements": "dict",
        "default": [],
        "options": {
            "path": {"type": "path", "required": True},
            # Required, checked by refused(): Ansible's own message would not say which item lacks them.
            "content": {"type": "str"},
            "mode": {"type": "str"},
            "only_if_absent": {"type": "bool", "default": False},
            "previous_sha256": {"type": "str"},
        },
    },
    "directories": {"type": "list", "elements": "path", "default": []},
    "restart": {"type": "bool", "default": True},
    "only_report": {"type": "bool", "default": False},
    "settled": {"type": "bool", "default": True},
    "wait": {"type": "bool", "default": True},
    "token": {"type": "str", "no_log": False},
    "heal_record": {"type": "bool", "default": False},
    "heal_exclude": {"type": "list", "elements": "path", "default": []},
    "progress_record": {"type": "dict", "options": {"path": {"type": "path", "required": True}, "content": {"type": "str", "required": True}}},
    "remove_when_settled": {"type": "list", "elements": "path", "default": []},
}
OCTAL_MODE = re.compile(r"^0?[0-7]{3}$")


def refused(params):
    """What the argument spec cannot say: paths are absolute, each write has its content and mode (named by its path),
    modes are octal. None when all are."""
    for option in ("files", "write"):
        for item in params[option]:
            if not item["path"].startswith("/"):
                return f"restart_kubelet: {option}: each item needs an absolute path, got {item['path']!r}"
    for item in params["write"]:
        missing = [name for name in ("content", "mode") if item[name] is None]
        if missing:
            return f"restart_kubelet: write: {item['path']} has no {' and no '.join(missing)}: each item of write needs path, content and mode"
        if not OCTAL_MODE.match(item["mode"]):
            return f'restart_kubelet: write: {item["path"]} needs an octal mode such as "0644", got {item["mode"]!r}'
    for option in ("directories", "remove_when_settled"):
        for path in params[option]:
            if not path.startswith("/"):
                return f"restart_kubelet: {option}: each needs an absolute path, got {path!r}"
    record = params["progress_record"]
    if record and not record["path"].startswith("/"):
        return f"restart_kubelet: progress_record: needs an absolute path, got {record['path']!r}"
    return None


def run(module):
    """The task: the report of a transaction (only_report), what would change (check mode), or the transaction."""
    params = module.params
    problem = refused(params)
    if problem:
        module.fail_json(msg=problem)
    paths = RunPaths(params["unit"])
    if params["only_report"]:
        paths.make()
        if params["token"]:
            wait_for_report(module, params, paths, params["token"], [])
        last_report(module, paths)
    writes = pending_writes(params["write"])
    stale = changed_since_planned(writes, params["unit"])
    if stale:
        module.fail_json(msg=stale, changed=False, rolled_back=False, settled=True, written=[], steps=[])
    if module.check_mode:
        restarted = f", and {params['unit']} restarted" if params["restart"] else ""
        changed = bool(params["restart"] or writes or pending_directories(params["directories"]))
        exit_with(module, without_transaction(changed, writes, f"check mode: {len(writes)} file(s) would be written{restarted}"))
    if not params["restart"] and not writes and not pending_directories(params["directories"]):
        exit_with(module, without_transaction(False, [], f"{params['unit']}: the files are in place; nothing restarted"))
    if params["progress_record"]:
        write_progress_record(module, params)
    token = start_detached(params, paths.make())
    if not params["wait"]:
        written = [item["path"] for item in writes]
        msg = f"{params['unit']}: the transaction runs on the node; its report: only_report with this token"
        exit_with(module, {"changed": True, "token": token, "steps": [], "written": written, "diff": diffs(writes), "msg": msg})
    wait_for_report(module, params, paths, token, writes)


def write_progress_record(module, params):
    """The caller's record that a change of this node began (numa.kubelet.rollout's node-local progress), written before
    the transaction starts so that it is on the node whatever becomes of the controller; kept whatever the outcome."""
    record = params["progress_record"]
    try:
        directory = os.path.dirname(record["path"])
        make_directories([(directory, os.path.isdir(directory))])
        write_file(record["path"], record["content"], "0644")
    except OSError as exc:
        module.fail_json(
            msg=f"restart_kubelet: writing the progress record {record['path']} failed ({exc.strerror or exc}); nothing was written and "
            f"{params['unit']} was not restarted"
        )
