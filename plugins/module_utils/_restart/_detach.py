# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""restart_kubelet's transaction in a process of its own session, detached from the connection: when the controller
is killed or the connection drops mid-restart, it still finishes or rolls back. It publishes its report in a file and
holds a lock until its final verdict; two transactions on one unit take turns on that lock."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import uuid
from dataclasses import dataclass

from ansible_collections.numa.kubelet.plugins.module_utils._restart._files import changed_since_planned, pending_directories, pending_writes
from ansible_collections.numa.kubelet.plugins.module_utils._restart._node import remove
from ansible_collections.numa.kubelet.plugins.module_utils._restart._transaction import Transaction

RUN_DIR = "/run/numa-kubelet"


@dataclass(frozen=True)
class RunPaths:
    """Where the transactions on one unit publish their report and hold their lock."""

    unit: str
    run_dir: str = RUN_DIR

    @property
    def result(self):
        return os.path.join(self.run_dir, f"{self.unit}.transaction.json")

    @property
    def lock(self):
        return os.path.join(self.run_dir, f"{self.unit}.transaction.lock")

    def make(self):
        os.makedirs(self.run_dir, mode=0o755, exist_ok=True)
        return self


def wait_for_the_running_transaction(paths):
    """Return once no transaction runs on the unit: each holds this lock until it has written its final verdict."""
    with open(paths.lock, "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)


def start_detached(params, paths):
    """Start the transaction of `params` in a process of its own session; its token."""
    token = uuid.uuid4().hex
    # An earlier transaction's report must not pass for this one's, should this task lose its connection.
    remove(paths.result)
    child = os.fork()
    if child == 0:
        _detach_and_run(params, paths, token)
    os.waitpid(child, 0)
    return token


def _detach_and_run(params, paths, token):
    """In the grandchild, a session of its own: nothing of the connection can stop it. Never returns."""
    os.setsid()
    if os.fork() != 0:
        os._exit(0)  # pylint: disable=protected-access
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    devnull = os.open(os.devnull, os.O_RDWR)
    for descriptor in (0, 1, 2):
        os.dup2(devnull, descriptor)
    # Nothing of the connection stays open here, or an ssh session would wait for this process to end.
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))

    def publish(result):
        result.update(token=token, pid=os.getpid())
        with open(paths.result + ".tmp", "w", encoding="utf-8") as handle:
            json.dump(result, handle)
        os.replace(paths.result + ".tmp", paths.result)

    try:
        # The lock is held until the final verdict: a reader without the token (report) waits for that one.
        with open(paths.lock, "w", encoding="utf-8") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            publish(_run_under_the_lock(params, publish))
    finally:
        os._exit(0)  # pylint: disable=protected-access


def _run_under_the_lock(params, publish):
    try:
        # What differs is looked at again under the lock: a transaction that ran meanwhile may have written it.
        directories, writes = pending_directories(params["directories"]), pending_writes(params["write"])
        # ... and a file changed meanwhile by someone else is not written over.
        stale = changed_since_planned(writes, params["unit"])
        if stale:
            return {"failed": True, "changed": False, "settled": True, "rolled_back": False, "written": [], "steps": [], "msg": stale}
        return Transaction(params, directories, writes, on_up=publish).run()
    except Exception as exc:  # pylint: disable=broad-except
        return {"failed": True, "changed": True, "settled": True, "msg": f"numa.kubelet: the restart transaction broke: {type(exc).__name__}: {exc}"}
