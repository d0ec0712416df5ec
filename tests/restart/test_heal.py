# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The node heals itself: after a change the collection made and that settled, a kubelet that keeps failing later
(past the settle, or after a restart by anyone once the role has finished) is put back on the configuration that last
ran healthy by the node alone, once per change, and never over a file another tool changed since.

The kubelet's units restart it forever on real nodes (Restart=always); the stand-in's unit does not, so each test
gives it that, and a start-time rule standing for "this config fails late": while /root/late-exit exists, a start with
a drop-in other than the one that ran healthy serves /healthz and exits 6 s later (the stand-in's exit-after-start
marker), past the 2 s settle.
"""

from __future__ import annotations

import datetime
import json
import os
import time

from conftest import INTENT, REPO
from podman_hosts import run
from test_faults import CHANGED, DROPIN, assert_ok, wait_for

HEALED = "/var/lib/numa-kubelet/kubelet.service.healed.json"
CHANGE = "/var/lib/numa-kubelet/kubelet.service.change.json"
GOOD_COPY = "/root/good-dropin"
LATE_EXIT = "/root/late-exit"
FAILURES, MINUTES = 3, 2
# A start on a drop-in other than the good one exits this long after it recorded itself (the stand-in's marker).
LATE_EXIT_SECONDS = 6
HEAL = {"kubelet_numa_heal_failures": FAILURES, "kubelet_numa_heal_minutes": MINUTES}
REAL_UNIT = "/etc/systemd/system/kubelet.service.d/95-test-restart-always.conf"
RULE = (
    "[Service]\\nRestart=always\\nRestartSec=1\\n"
    f"ExecStartPre=/bin/sh -c 'if [ -e {LATE_EXIT} ] && ! cmp -s {DROPIN} {GOOD_COPY}; "
    f"then echo {LATE_EXIT_SECONDS} > /etc/kubelet-standin/exit-after-start; fi'\\n"
)


def healthy_node(node_factory):
    """A kubeadm test host converged on INTENT, whose unit restarts the kubelet forever and fails late on any other
    drop-in once LATE_EXIT exists."""
    node = node_factory("kubeadm")
    node.sh(f'mkdir -p /etc/systemd/system/kubelet.service.d && printf "{RULE}" > {REAL_UNIT} && systemctl daemon-reload')
    assert_ok(node.role(**HEAL))
    node.sh(f"cp {DROPIN} {GOOD_COPY}")
    return node


def wait_for_the_heal(node, began):
    """The node's heal record, once written, within MINUTES of `began`."""
    while node.read(HEALED) is None:
        assert time.time() - began < MINUTES * 60, "no heal within %d min; starts: %s" % (MINUTES, node.starts()[-5:])
        time.sleep(1)
    return json.loads(node.read(HEALED))


def main_pid(node):
    return int(node.sh("systemctl show --property MainPID --value kubelet.service").stdout.strip() or 0)


def assert_runs_the_good_config(node):
    """The kubelet runs the restored drop-in, and keeps running: the process that recorded its start is still the
    unit's, active, once LATE_EXIT_SECONDS (and a margin) have passed since that record, when a late exit would have come."""
    assert node.read(DROPIN) == node.read(GOOD_COPY)
    records = []

    def recorded():
        pid = main_pid(node)
        records[:] = [start for start in node.starts() if start["pid"] == pid and start["result"] == "started"]
        return node.active() == "active" and bool(records)

    wait_for(recorded, 120, "a good start of the kubelet after the heal, recorded")
    pid, since = records[-1]["pid"], datetime.datetime.fromisoformat(records[-1]["time"]).timestamp()
    while time.time() < since + LATE_EXIT_SECONDS + 3:
        assert node.active() == "active" and main_pid(node) == pid, ("the kubelet exited after the heal", node.starts()[-3:])
        time.sleep(0.5)
    assert node.active() == "active" and main_pid(node) == pid, ("the kubelet exited after the heal", node.starts()[-3:])


def assert_the_next_run_reports_it(node):
    """A run of the role reports the heal (a warning, on stderr, with the kubelet's error) and restarts nothing."""
    starts = len(node.starts())
    again = node.role(**dict(HEAL, kubelet_numa_config=INTENT))
    assert_ok(again)
    assert len(node.starts()) == starts
    out = " ".join((again.stdout + again.stderr).split())
    assert f"the node restored {DROPIN}" in out and "Failed to start ContainerManager" in out, out[-3000:]


def assert_verify_and_the_rollout_report_it(node):
    """numa.kubelet.verify (the node matches INTENT again: it passes) and a node-local rollout (converged: nothing
    restarts) each print the heal with the host's lines."""
    starts = len(node.starts())
    for playbook in ("verify.yml", "rollout.yml"):
        argv = node.playbook_argv(os.path.join(REPO, "playbooks", playbook), **dict(HEAL, kubelet_numa_config=INTENT, kubelet_numa_rollout_node_local=True))
        done = run(argv, check=False, cwd=REPO, env=node.playbook_env())
        assert_ok(done)
        out = " ".join((done.stdout + done.stderr).split())
        assert f"the node restored {DROPIN}" in out, (playbook, out[-3000:])
    assert len(node.starts()) == starts


def test_a_change_that_fails_after_the_settle_is_undone_by_the_node(node_factory):
    node = healthy_node(node_factory)
    node.sh(f"touch {LATE_EXIT}")
    began = time.time()
    # The change passes the transaction (the kubelet exits 6 s after its start, the settle is 2 s) ...
    assert_ok(node.role(**dict(HEAL, kubelet_numa_config=CHANGED)))
    assert node.read(DROPIN) != node.read(GOOD_COPY)
    assert [entry["path"] for entry in json.loads(node.read(CHANGE))["files"]] == [
        DROPIN,
        "/etc/numa-kubelet/kubelet.service.manager-inputs",
    ]
    # ... then the kubelet fails at every start, and the node puts INTENT's files back by itself.
    record = wait_for_the_heal(node, began)
    assert record["healed"] is True and DROPIN in record["restored"], record
    assert record["failures"] >= FAILURES
    assert "exit after start" in record["kubelet_error"], record
    assert_runs_the_good_config(node)
    assert node.checkpoint()["policyName"] == "Static"
    assert_the_next_run_reports_it(node)
    assert_verify_and_the_rollout_report_it(node)


def test_a_restart_by_anyone_after_the_role_finished_is_healed_too(node_factory):
    node = healthy_node(node_factory)
    assert_ok(node.role(**dict(HEAL, kubelet_numa_config=CHANGED)))
    assert node.active() == "active" and node.read(DROPIN) != node.read(GOOD_COPY)
    # The role has moved on; the changed config now fails late, from a restart nobody of the collection asked for.
    node.sh(f"touch {LATE_EXIT}")
    began = time.time()
    node.sh("systemctl restart kubelet.service")
    record = wait_for_the_heal(node, began)
    assert record["healed"] is True and DROPIN in record["restored"], record
    assert_runs_the_good_config(node)


def test_a_file_another_tool_changed_is_never_rolled_back(node_factory):
    node = healthy_node(node_factory)
    assert_ok(node.role(**dict(HEAL, kubelet_numa_config=CHANGED)))
    theirs = node.read(DROPIN) + "# written by another tool\n"
    node.write(DROPIN, theirs)
    node.sh(f"touch {LATE_EXIT}")
    began = time.time()
    node.sh("systemctl restart kubelet.service")
    record = wait_for_the_heal(node, began)
    assert record["healed"] is False and record["restored"] == [], record
    assert record["reason"].startswith("another tool changed the files since numa.kubelet wrote them") and DROPIN in record["reason"], record
    # Once per change: the kubelet keeps failing (two more failed starts), and the node leaves the other tool's file alone.
    failed = len(node.starts())
    wait_for(lambda: len(node.starts()) >= failed + 2, 180, "two more starts of the kubelet on the other tool's drop-in")
    assert node.read(DROPIN) == theirs
    heal_lines = node.sh("journalctl --no-pager --output cat --unit numa-kubelet-heal-kubelet.service").stdout
    assert heal_lines.count("numa-kubelet-heal: ") == 1 and "did NOT heal" in heal_lines, heal_lines
