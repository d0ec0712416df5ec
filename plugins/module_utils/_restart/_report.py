# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""restart_kubelet's answer to the task: the report a transaction published on the node, or what it would do."""

from __future__ import annotations

import json
import os
import time

from ansible_collections.numa.kubelet.plugins.module_utils._restart._detach import wait_for_the_running_transaction
from ansible_collections.numa.kubelet.plugins.module_utils._restart._files import diffs
from ansible_collections.numa.kubelet.plugins.module_utils._restart._node import SYSTEMCTL_TIMEOUT


def exit_with(module, result):
    """End the task with `result`: failed when the transaction failed. A final verdict that the kubelet runs settled
    (or nothing to restart) first removes the files of remove_when_settled."""
    if result.get("failed"):
        module.fail_json(**result)
    if result.get("settled") is True and not module.check_mode:
        _remove_when_settled(module, result)
    module.exit_json(**result)


def _remove_when_settled(module, result):
    """Remove the files of remove_when_settled that exist; one that cannot be removed is a warning, never a failure of
    a kubelet that runs."""
    removed = []
    for path in module.params["remove_when_settled"]:
        try:
            os.remove(path)
        except FileNotFoundError:
            continue
        except OSError as exc:
            module.warn(f"restart_kubelet: {path} could not be removed: {exc.strerror or exc}")
            continue
        removed.append(path)
    if removed:
        result.update(removed=removed, changed=True)


def without_transaction(changed, writes, msg):
    """The result when no transaction runs (check mode, or nothing to write and no restart)."""
    written = [item["path"] for item in writes]
    return {
        "changed": changed,
        "steps": [],
        "written": written,
        "rolled_back": False,
        "settled": True,
        "active_state": "unknown",
        "seconds": 0.0,
        "diff": diffs(writes),
        "msg": msg,
    }


def _read(path):
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (FileNotFoundError, ValueError):
        return None


def last_report(module, paths):
    """The last transaction's report on this unit, once none runs (it holds the lock while it runs)."""
    wait_for_the_running_transaction(paths)
    result = _read(paths.result)
    if result is None:
        module.exit_json(changed=False, report_found=False, msg=f"no restart transaction of {paths.unit} has reported on this node")
    result.update(report_found=True, transaction_failed=bool(result.get("failed")))
    exit_with(module, result)


def wait_for_report(module, params, paths, token, writes):
    """The transaction's report, once it has written it (its final verdict, with settled); the task's result."""
    result = _wait_for(module, params, paths, token)
    if params["only_report"]:
        result.update(report_found=True, transaction_failed=bool(result.get("failed")))
    # What the transaction wrote, before and after (it wrote what differed when it took the lock).
    result["diff"] = diffs([item for item in writes if item["path"] in result.get("written", [])])
    exit_with(module, result)


def _wait_for(module, params, paths, token):
    # Stop, start, the health wait and settle, and the same again for a rollback, plus systemd's own stop timeouts.
    deadline = time.monotonic() + 2 * (params["health_timeout"] + params["settle"]) + 2 * SYSTEMCTL_TIMEOUT
    waited_for_the_verdict = False
    while True:
        result = _read(paths.result) or {}
        if result.get("token") == token:
            if result.get("settled", True) or not params["settled"]:
                return result
            if waited_for_the_verdict:
                module.fail_json(
                    msg=f"restart_kubelet: the transaction on {paths.unit} ended without its final verdict (it was killed while {paths.unit} "
                    f"settled); its last report: {result.get('msg')}"
                )
            # Up and settling: the transaction holds its lock until it has written its final verdict, however long
            # its settle time (and a rollback) take.
            wait_for_the_running_transaction(paths)
            waited_for_the_verdict = True
            continue
        if time.monotonic() > deadline:
            module.fail_json(msg=f"restart_kubelet: the transaction on {paths.unit} has not ended; it goes on on the node ({paths.result})")
        time.sleep(0.05)
