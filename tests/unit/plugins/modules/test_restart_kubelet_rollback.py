# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""restart_kubelet's rollback leaves a tree the kubelet starts on: the flags files, the --config-dir they name and its
drop-ins agree after every way a change ends (rolled back, undone before the restart, settled). The node is a temp
tree laid out as kubeadm's (kubeadm-flags.env, /etc/default/kubelet, /etc/kubernetes/kubelet.conf.d); systemd is a
fake whose kubelet reads its flags files at each start and refuses a --config-dir that does not exist, as the kubelet
does ("failed to walk through kubelet dropin directory"). On test hosts the same runs in tests/restart/test_faults.py."""

from __future__ import annotations

import os
import re
import time

import pytest

from ansible_collections.numa.kubelet.plugins.module_utils._restart import _node, _transaction
from ansible_collections.numa.kubelet.plugins.module_utils._restart._files import pending_directories, pending_writes
from ansible_collections.numa.kubelet.plugins.module_utils._restart._transaction import Transaction
from ansible_collections.numa.kubelet.tests.unit.plugins.modules.test_restart_kubelet_settle import _params

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="writes files owned by root, as on a node")
HEALTH_URL = "http://127.0.0.1:10248/healthz"


class KubeadmNode:
    """A kubeadm node's kubelet files under `root`, and a kubelet unit that reads them at each start.

    `start_fails` starts fail (the new config is refused); `slow_starts` starts run but never answer /healthz (a kubelet
    still starting on a loaded node). The unit's state at each put-back of the transaction is kept in `put_back_while`.
    """

    def __init__(self, root):
        self.root = root
        self.kubeadm_flags = root / "var/lib/kubelet/kubeadm-flags.env"
        self.extra_args = root / "etc/default/kubelet"
        self.config_dir = root / "etc/kubernetes/kubelet.conf.d"
        self.kubeadm_flags.parent.mkdir(parents=True)
        self.extra_args.parent.mkdir(parents=True)
        self.kubeadm_flags.write_text('KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///run/containerd/containerd.sock"\n')
        self.start_fails = 0
        self.slow_starts = 0
        self.answers = False
        self.journal = []
        self.put_back_while = []
        self.state = {"ActiveState": "active", "SubState": "running", "MainPID": "100", "NRestarts": "0", "ActiveEnterTimestampMonotonic": "0"}

    def flags(self):
        """The words of both flags files, as kubeadm's 10-kubeadm.conf passes them."""
        words = []
        for path in (self.kubeadm_flags, self.extra_args):
            if path.exists():
                words += " ".join(re.findall(r'^[A-Z_]+="?([^"\n]*)"?$', path.read_text(), re.MULTILINE)).split()
        return words

    def named_directories(self):
        return [word.split("=", 1)[1] for word in self.flags() if word.startswith("--config-dir=")]

    def missing_named_directories(self):
        return [path for path in self.named_directories() if not os.path.isdir(path)]

    def systemctl(self, *args):
        if args[0] == "stop":
            self.state.update(ActiveState="inactive", SubState="dead", MainPID="0")
        elif args[0] in ("start", "restart"):
            self.start()
        return ""

    def start(self):
        missing = self.missing_named_directories()
        pid = str(int(self.state["MainPID"] or 100) + 101)
        if missing or self.start_fails:
            self.start_fails = max(0, self.start_fails - 1)
            error = "forced failure"
            if missing:  # the kubelet's words (cmd/kubelet/app/server.go), its quotes escaped as klog writes them
                error = (
                    f'failed to merge kubelet configs: failed to walk through kubelet dropin directory \\"{missing[0]}\\": '
                    f"lstat {missing[0]}: no such file or directory"
                )
            self.journal.append((time.time(), f'E1128 server.go:1] "command failed" err="{error}"'))
            self.state.update(ActiveState="failed", SubState="failed", MainPID="0")
            return
        self.answers = not self.slow_starts
        self.slow_starts = max(0, self.slow_starts - 1)
        self.state.update(ActiveState="active", SubState="running", MainPID=pid, ActiveEnterTimestampMonotonic=str(int(time.monotonic() * 1e6)))

    def show(self, unit):
        return dict(self.state)

    def healthz(self, url):
        return self.state["ActiveState"] == "active" and self.answers

    def journal_error(self, unit, since=None):
        lines = [line for moment, line in self.journal if since is None or moment >= since]
        return lines[-1] if lines else ""


@pytest.fixture
def node(monkeypatch, tmp_path):
    fake = KubeadmNode(tmp_path)
    monkeypatch.setattr(_node, "systemctl", fake.systemctl)
    monkeypatch.setattr(_node, "unit_show", fake.show)
    monkeypatch.setattr(_node, "healthz", fake.healthz)
    monkeypatch.setattr(_node, "journal_error", fake.journal_error)
    real_put_back = _transaction.put_back

    def put_back(*args, **kwargs):
        fake.put_back_while.append(fake.state["ActiveState"])
        return real_put_back(*args, **kwargs)

    monkeypatch.setattr(_transaction, "put_back", put_back)
    return fake


def change(node, content="memoryManagerPolicy: Static\n", flag=True, **params):
    """The transaction of the role's kubeadm change: its drop-in, and --config-dir added to /etc/default/kubelet where
    no flags file names it yet (as _platform_kubeadm plans it)."""
    writes = [{"path": str(node.config_dir / "50-numa-kubelet.conf"), "content": content, "mode": "0644"}]
    if flag:
        writes.append({"path": str(node.extra_args), "content": f'KUBELET_EXTRA_ARGS="--config-dir={node.config_dir}"\n', "mode": "0644"})
    params = _params(root_dir=str(node.root / "var/lib/kubelet"), health_url=HEALTH_URL, health_timeout=1, settle=0, **params)
    return Transaction(params, pending_directories([str(node.config_dir)]), pending_writes(writes))


def converge(node):
    """The node after the role's first change settled: the flag in /etc/default/kubelet, the drop-in in its directory."""
    result = change(node).run()
    assert not result["failed"], result["msg"]
    assert node.named_directories() == [str(node.config_dir)] and not node.missing_named_directories()


@needs_root
def test_a_kubelet_still_starting_is_stopped_before_any_file_is_put_back(node):
    """On a loaded node the new kubelet may still be starting when the health timeout ends: it must be stopped before
    the rollback puts the files back, or it reads a --config-dir whose drop-in (and directory) are already gone."""
    node.slow_starts = 1
    result = change(node).run()
    assert result["rolled_back"] and result["rollback"]["ok"], result["msg"]
    assert node.put_back_while == ["inactive"]
    assert [step["step"] for step in result["rollback"]["steps"]][:2] == ["stop", "put back 2 previous file(s)"]
    assert node.state["ActiveState"] == "active" and not node.missing_named_directories()
    assert not node.extra_args.exists()


@needs_root
def test_a_rollback_keeps_the_drop_in_directory_a_flags_file_names(node):
    """The drop-in directory went while the kubelet ran (it had read it at its start): the change makes it again, and
    its rollback must not remove it, for the flags the kubelet starts with again still name it."""
    converge(node)
    (node.config_dir / "50-numa-kubelet.conf").unlink()
    node.config_dir.rmdir()
    node.start_fails = 1
    result = change(node, content="memoryManagerPolicy: Static\nsystemReserved: {memory: 1Gi}\n", flag=False).run()
    assert result["rolled_back"], result["msg"]
    assert result["rollback"]["ok"], result["msg"]
    assert node.config_dir.is_dir() and os.listdir(node.config_dir) == []
    assert node.state["ActiveState"] == "active" and not node.missing_named_directories()


@needs_root
def test_a_first_change_rolled_back_leaves_flags_and_directories_that_agree(node):
    node.start_fails = 1
    result = change(node).run()
    assert result["rolled_back"] and result["rollback"]["ok"], result["msg"]
    # The flag is gone with /etc/default/kubelet, the drop-in with it; the empty directory stays, named by nothing.
    assert not node.extra_args.exists() and os.listdir(node.config_dir) == []
    assert node.named_directories() == [] and node.state["ActiveState"] == "active"


@needs_root
def test_a_change_rolled_back_over_a_converged_node_keeps_its_drop_in(node):
    converge(node)
    dropin = node.config_dir / "50-numa-kubelet.conf"
    before = dropin.read_text()
    node.start_fails = 1
    result = change(node, content="memoryManagerPolicy: Static\nsystemReserved: {memory: 1Gi}\n").run()
    assert result["rolled_back"] and result["rollback"]["ok"], result["msg"]
    assert dropin.read_text() == before and not node.missing_named_directories()
    assert node.state["ActiveState"] == "active"


@needs_root
def test_a_failed_write_before_the_restart_leaves_the_tree_as_it_was(node):
    # /etc/default/kubelet cannot be written (no /etc/default): the drop-in written before it goes, and so does the
    # directory made for it; the kubelet was never restarted.
    node.extra_args.parent.rmdir()
    result = change(node).run()
    assert result["failed"] and not result["rolled_back"] and "was not restarted" in result["msg"], result["msg"]
    assert not node.config_dir.exists() and node.named_directories() == []
    assert node.state["MainPID"] == "100"


@needs_root
def test_after_a_failed_rollback_the_error_quoted_is_from_the_rollback_on(node):
    """The new kubelet was refused; the rollback's kubelet never answered (a loaded node) and logged nothing: the
    report quotes the first error for the new config, and none for the rollback's start (not that first one again)."""
    node.start_fails = 1
    node.slow_starts = 1
    result = change(node).run()
    assert result["rolled_back"] and not result["rollback"]["ok"], result["msg"]
    assert "did not answer" in result["rollback"]["error"]
    assert "its last error: none in the journal" in result["msg"], result["msg"]
    assert result["kubelet_error"].endswith('err="forced failure"')
