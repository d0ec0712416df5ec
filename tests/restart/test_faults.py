# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The restart as a handler and one transaction on the node, under faults. Each case ends with the kubelet running
the new config or the old one, never stopped, with files that match what runs: a second run of the role then
converges (it plans no restart, so the files and the checkpoint agree with the plan) and starts nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import time

from conftest import FAIL_MARKER, INTENT, REPO

CHANGED = dict(INTENT, systemReserved={"memory": "1Gi"})
DROPIN = "/etc/kubernetes/kubelet.conf.d/50-numa-kubelet.conf"
SLOW_STOP = "/etc/systemd/system/kubelet.service.d/10-test-slow-stop.conf"


def assert_ok(result):
    assert result.returncode == 0, result.stdout + result.stderr


def assert_converged(node, **variables):
    """The kubelet runs, and a further run of the role plans nothing and starts nothing."""
    assert node.active() == "active", node.starts()[-1]
    starts = len(node.starts())
    again = node.role(**variables)
    assert_ok(again)
    assert len(node.starts()) == starts, node.starts()[starts:]
    assert node.active() == "active"


def wait_for(predicate, timeout, what):
    deadline = time.time() + timeout
    while not predicate():
        assert time.time() < deadline, "%s: not within %d s" % (what, timeout)
        time.sleep(0.1)


def slow_stop(node, seconds=5):
    """A kubelet unit whose stop takes a while, so that a test can strike between the stop and the start."""
    node.sh(
        "mkdir -p %s && printf '[Service]\\nExecStopPost=/bin/sleep %d\\n' > %s && systemctl daemon-reload" % (os.path.dirname(SLOW_STOP), seconds, SLOW_STOP)
    )


def start_role(node, **variables):
    """The role in the background, in a process group of its own (the controller, as a signal can kill it whole)."""
    log = open(os.path.join(node.tmp, f"background-{node.name}.log"), "w")
    argv = node.playbook_argv(write_role_play(node), **variables)
    return subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=node.playbook_env(), start_new_session=True)


def write_role_play(node):
    import yaml

    path = os.path.join(node.tmp, f"role-{node.name}.yml")
    with open(path, "w", encoding="utf-8") as out:
        yaml.safe_dump(
            [
                {
                    "name": "Role",
                    "hosts": "all",
                    "gather_facts": False,
                    "tasks": [{"name": "Run the role", "ansible.builtin.import_role": {"name": "numa.kubelet.kubelet_numa"}}],
                }
            ],
            out,
        )
    return path


def wait_for_new_start(node, before, timeout=120):
    """The kubelet running again after a start recorded after `before` starts."""
    wait_for(
        lambda: len(node.starts()) > before and node.starts()[-1]["result"] == "started" and node.active() == "active",
        timeout,
        "a new good start of the kubelet",
    )
    return node.starts()[-1]


def kill_module_processes(node):
    """Kill the node's end of the controller's connection: every module process that is not the transaction.

    The transaction has left the task's session and been handed to PID 1 (systemd); a module's process is a child of
    the connection's shell. Returns the PIDs killed.
    """
    return node.sh(
        "for pid in $(pgrep -f '^/usr/bin/python3'); do   [ \"$(ps -o ppid= -p $pid | tr -d ' ')\" = 1 ] || { kill -9 $pid && echo $pid; }; done"
    ).stdout.split()


def stopping(node):
    return node.sh("systemctl show --property=ActiveState --value kubelet.service", check=False).stdout.strip() in ("deactivating", "inactive")


def test_notify_from_another_play_restarts_safely_and_rolls_back(node_factory):
    node = node_factory("kubeadm")
    assert_ok(node.role())
    notify = [
        {"name": "Run the role", "ansible.builtin.import_role": {"name": "numa.kubelet.kubelet_numa"}},
        {"name": "Change something the kubelet reads", "ansible.builtin.command": "/bin/true", "changed_when": True, "notify": "kubelet_numa reset"},
    ]
    starts = len(node.starts())
    assert_ok(node.play(notify))
    new = node.starts()[starts:]
    assert [start["result"] for start in new] == ["started"] and node.active() == "active"
    assert node.checkpoint()["policyName"] == "Static"

    # The same with a start that fails: the handler's transaction starts the kubelet again and fails the host.
    node.write("/etc/kubelet-standin/fail-next-start", "")
    failed = node.play(notify)
    assert failed.returncode != 0
    assert "forced failure: the marker /etc/kubelet-standin/fail-next-start was present" in failed.stdout
    assert "the previous files are back and the kubelet runs with them" in failed.stdout
    assert_converged(node)


def test_controller_killed_between_stop_and_start(node_factory):
    node = node_factory("kubeadm")
    assert_ok(node.role())
    slow_stop(node)
    before = node.starts()
    controller = start_role(node, kubelet_numa_config=CHANGED)
    wait_for(lambda: stopping(node), 180, "the kubelet stopping")
    os.killpg(controller.pid, signal.SIGKILL)
    controller.wait()
    # The transaction goes on, detached, on the node: the kubelet comes back with the new config.
    new = wait_for_new_start(node, len(before))
    assert new["reserved_memory_bytes"] != before[-1]["reserved_memory_bytes"]
    assert_converged(node, kubelet_numa_config=CHANGED)


def test_connection_dropped_mid_restart(node_factory):
    node = node_factory("kubeadm")
    assert_ok(node.role())
    slow_stop(node)
    before = node.starts()
    controller = start_role(node, kubelet_numa_config=CHANGED)
    wait_for(lambda: stopping(node), 180, "the kubelet stopping")
    # The connection's end on the node: the process of the task that waits for the transaction's report (the handler
    # starts the transaction and returns, then waits for it in a second task, which may begin a moment after the stop).
    wait_for(lambda: kill_module_processes(node), 60, "a module process on the node, waiting for the restart")
    controller.wait(300)
    new = wait_for_new_start(node, len(before))
    assert new["reserved_memory_bytes"] != before[-1]["reserved_memory_bytes"]
    assert_converged(node, kubelet_numa_config=CHANGED)


def test_kubelet_answers_then_exits(node_factory):
    node = node_factory("kubeadm")
    assert_ok(node.role())
    before = node.starts()[-1]
    node.write("/etc/kubelet-standin/exit-after-start", "5\n")
    failed = node.role(kubelet_numa_config=CHANGED, kubelet_numa_settle_seconds=10)
    assert failed.returncode != 0
    assert "answered, then exited" in failed.stdout and "exit after start" in failed.stdout
    assert "the previous files are back and the kubelet runs with them" in failed.stdout
    assert node.starts()[-1]["reserved_memory_bytes"] == before["reserved_memory_bytes"]
    assert_converged(node)


def test_rollback_start_failing_reports_both(node_factory):
    node = node_factory("kubeadm")
    assert_ok(node.role())
    dropin = node.read(DROPIN)
    node.write("/etc/kubelet-standin/fail-next-start", "2\n")
    failed = node.role(kubelet_numa_config=CHANGED)
    assert failed.returncode != 0
    assert "did not come back with the new config" in failed.stdout
    assert "did not come back with them either" in failed.stdout, failed.stdout[-2500:]
    # Left as the report says: the previous files, and a kubelet that did not start with them.
    assert node.read(DROPIN) == dropin and node.active() != "active"
    # The next run brings it back with the planned config.
    assert_ok(node.role(kubelet_numa_config=CHANGED))
    assert_converged(node, kubelet_numa_config=CHANGED)


def test_a_rollback_keeps_the_drop_in_directory_the_flags_name(node_factory):
    """The kubelet's drop-in directory went while it ran (it read it at its start): the change makes it again, and its
    rollback keeps it, for /etc/default/kubelet still names it and the kubelet refuses a --config-dir that is missing."""
    node = node_factory("kubeadm")
    assert_ok(node.role())
    config_dir = os.path.dirname(DROPIN)
    node.sh(f"rm -rf {config_dir}")
    node.write(FAIL_MARKER, "")
    failed = node.role(kubelet_numa_config=CHANGED)
    assert failed.returncode != 0
    assert "the previous files are back and the kubelet runs with them" in failed.stdout, failed.stdout[-2500:]
    assert node.active() == "active" and node.starts()[-1]["result"] == "started"
    assert node.sh(f"test -d {config_dir} && grep -c -- --config-dir={config_dir} /etc/default/kubelet").stdout.strip() == "1"


def test_disk_full_changes_nothing(node_factory):
    node = node_factory("kubeadm")
    # A full file system where the second file goes (/etc/default/kubelet), after the drop-in was written.
    node.sh("mount -t tmpfs -o size=16k tmpfs /etc/default && dd if=/dev/zero of=/etc/default/fill bs=4k count=8 2>/dev/null || true")
    snapshot = (
        "find /etc/kubernetes /etc/systemd/system /etc/numa-kubelet /var/lib/numa-kubelet /var/lib/kubelet "
        "-printf '%p %m %s\\n' 2>/dev/null | sort; cat /var/lib/kubelet/memory_manager_state"
    )
    files = node.sh(snapshot).stdout
    starts = len(node.starts())
    failed = node.role()
    assert failed.returncode != 0
    assert "was not restarted" in failed.stdout and "No space left" in failed.stdout
    assert node.read(DROPIN) is None and len(node.starts()) == starts and node.active() == "active"
    assert node.sh(snapshot).stdout == files
    node.sh("umount /etc/default")
    assert_ok(node.role())
    assert_converged(node)


def test_a_stopped_kubelet_is_brought_back(node_factory):
    node = node_factory("kubeadm")
    assert_ok(node.role())
    node.sh("systemctl stop kubelet.service")
    assert_ok(node.role())
    assert node.active() == "active"
    assert_converged(node)


def test_rollout_summary_for_a_host_lost_mid_restart(node_factory):
    """numa.kubelet.rollout (node-local) still ends with its summary line for a host whose connection goes mid-restart."""
    node = node_factory("kubeadm")
    assert_ok(node.role())
    slow_stop(node)
    # The connection reads the node's PID from a file at each task: one that cannot exist makes the node unreachable.
    pid_file = os.path.join(node.tmp, f"pid-{node.name}")
    with open(pid_file, "w", encoding="utf-8") as out:
        out.write(node.pid)
    before = node.starts()
    log = open(os.path.join(node.tmp, f"rollout-{node.name}.log"), "w+")
    argv = node.playbook_argv(
        os.path.join(REPO, "playbooks", "rollout.yml"),
        kubelet_numa_config=CHANGED,
        kubelet_numa_rollout_node_local=True,
        ansible_nsenter_pid=f"{{{{ lookup('ansible.builtin.file', '{pid_file}') | int }}}}",
    )
    controller = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=node.playbook_env(), cwd=REPO)
    wait_for(lambda: stopping(node), 180, "the kubelet stopping")
    with open(pid_file, "w", encoding="utf-8") as out:
        out.write("4194999")  # above the kernel's largest pid_max
    # The task that waits for the transaction's report may begin a moment after the stop, its connection made before
    # the PID changed: kill it once it is there, unless the controller has already found the node unreachable.
    wait_for(lambda: kill_module_processes(node) or controller.poll() is not None, 60, "a module process on the node, or the controller ending")
    assert controller.wait(300) != 0
    log.seek(0)
    out = " ".join(log.read().split())
    assert f"{node.name} kubeadm" in out and "FAILED at apply" in out, out[-3000:]
    assert f"numa.kubelet.rollout halted at {node.name} (apply)" in out
    # On the node, the transaction went on by itself.
    wait_for_new_start(node, len(before))
    assert_converged(node, kubelet_numa_config=CHANGED)
