# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""numa.kubelet.rollout resumed after its controller was lost at each step of a node's roll (docs/rollout.md,
"Resuming after a lost controller"), on the fleet of conftest.py and a real kube-apiserver.

The controller is lost by killing the whole ansible-playbook process group (SIGKILL: nothing of the controller
cleans up) at a step of rollout-n1's roll: a kubectl on the control host that hangs at one call (a pause hook: the
drain, the record that the apply is done, the uncordon), the drain itself stuck on a PodDisruptionBudget after it
evicted another pod (mid-drain), or node-local once the record file is on the node. Then the rollout runs again,
unchanged: every node ends converged and schedulable, the summary says what was resumed, and a node someone cordoned
by hand stays cordoned and is reported.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest
from conftest import HOSTS, LAYOUT, REPO, dropin
from podman_hosts import ansible_env
from test_rollout import RESERVED, RESERVED_BYTES, add_pod, checkpoint, cluster_vars, flat, reserved_in_checkpoint

ANNOTATION = "numa.kubelet/rollout"
RECORD_FILE = "/var/lib/numa-kubelet/rollout.json"
# kubectl as the control host runs it, but hanging at the call HOOK matches (its arguments, as a list): the hook's
# file appears, so the test knows the controller is there and kills it.
KUBECTL_HOOK = """#!%s
import os
import sys
import time

args = sys.argv[1:]
hit = %r
if %s:
    open(hit, "w").close()
    # Hang as a call of a lost controller does, until the test has killed the controller (it then removes the file);
    # then end without making the call, as no one is left to wait for it (Ansible's workers outlive a killed controller).
    deadline = time.time() + 3600
    while os.path.exists(hit) and time.time() < deadline:
        time.sleep(0.2)
    sys.exit(1)
os.execvp("kubectl", ["kubectl"] + args)
"""
# The calls of rollout-n1's roll to hang at.
HOOKS = {
    "before-drain": '"drain" in args and "rollout-n1" in args',
    # The apply is done (files written, kubelet restarted) and its record not yet written: the record still says drain.
    "after-apply": '"patch" in args and "rollout-n1" in args and "ready" in args[-1] and "unschedulable" not in args[-1]',
    # Verify passed; the uncordon is the next call.
    "after-verify": '"patch" in args and "rollout-n1" in args and \'"unschedulable": false\' in args[-1]',
}


class Controller:
    """ansible-playbook numa.kubelet.rollout in its own process group, read line by line, to be killed at a step."""

    def __init__(self, fleet, *extra):
        env = ansible_env(fleet.collections_root, ANSIBLE_CALLBACK_RESULT_FORMAT="yaml")
        argv = [os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "numa.kubelet.rollout", "-i", fleet.inventory, *extra]
        self.process = subprocess.Popen(argv, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
        self.lines = []
        self.reader = threading.Thread(target=lambda: self.lines.extend(self.process.stdout), daemon=True)
        self.reader.start()

    @property
    def output(self):
        return "".join(self.lines)

    def kill_when(self, reached, timeout=300, release=None):
        """Wait until reached() is true, then kill the controller and everything it started, at once; then remove the
        file `release` (a hooked call's), which ends the call that hung in a worker the kill left behind."""
        deadline = time.time() + timeout
        while not reached():
            assert self.process.poll() is None, "the rollout ended before the step:\n" + self.output[-6000:]
            assert time.time() < deadline, "the step was not reached in %d s:\n%s" % (timeout, self.output[-6000:])
            time.sleep(0.2)
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        self.reader.join(10)
        if release is not None:
            os.remove(release)
        return self.output


def summary(output):
    """The summary's lines, whitespace made one space (the YAML callback folds long lines)."""
    return flat(output.split("Show host, platform, NUMA split and result]")[-1].split("PLAY RECAP")[0])


def hooked_kubectl(tmp_path, hook):
    hit = str(tmp_path / (f"hook-{hook}"))
    path = tmp_path / "kubectl-hooked"
    path.write_text(KUBECTL_HOOK % (sys.executable, hit, HOOKS[hook]))
    path.chmod(0o755)
    return str(path), hit


def record(fleet, host):
    text = (fleet.node(host)["metadata"].get("annotations") or {}).get(ANNOTATION)
    return json.loads(text) if text else None


def converged(fleet, host):
    """The role's drop-in with the planned split, and a kubelet that runs it (its memory_manager_state)."""
    written = fleet.sh(host, "cat " + dropin(host), check=False).stdout
    return RESERVED[LAYOUT[host]] in written and reserved_in_checkpoint(checkpoint(fleet, host)) == RESERVED_BYTES[LAYOUT[host]]


def assert_finished(fleet, result, hosts, resumed_step):
    """The re-run passed and every host is converged, schedulable and without a record; n1 was resumed from the step."""
    assert result.returncode == 0, result.stdout[-8000:] + result.stderr[-2000:]
    for host in hosts:
        assert converged(fleet, host), host
        assert not fleet.cordoned(host) and fleet.ready(host), host
        assert record(fleet, host) is None, host
    assert f"uncordoned; resumed: an interrupted roll of this plan had reached {resumed_step}" in summary(result.stdout), summary(result.stdout)


def test_lost_before_the_drain_the_rerun_finishes_every_node_and_leaves_a_hand_cordoned_node_cordoned(fleet, tmp_path):
    fleet.reset()
    fleet.kubectl("cordon", "rollout-n3")  # by hand, before the rollout: not the rollout's to lift
    kubectl, hit = hooked_kubectl(tmp_path, "before-drain")
    controller = Controller(fleet, *cluster_vars(fleet, "-e", "kubelet_numa_rollout_kubectl=" + kubectl))
    controller.kill_when(lambda: os.path.exists(hit), release=hit)
    # Lost between the cordon and the drain: cordoned by the rollout, which its record says, and nothing applied.
    assert fleet.cordoned("rollout-n1") and record(fleet, "rollout-n1")["by"] == "rollout" and record(fleet, "rollout-n1")["step"] == "drain"
    assert not converged(fleet, "rollout-n1")

    result = fleet.playbook("numa.kubelet.rollout", *cluster_vars(fleet))
    assert result.returncode == 0, result.stdout[-8000:]
    for host in HOSTS:
        assert converged(fleet, host), host
        assert record(fleet, host) is None, host
    assert not fleet.cordoned("rollout-n1") and not fleet.cordoned("rollout-n2")
    assert "rollout-n1 kubeadm 0=1124Mi applied, uncordoned; resumed: an interrupted roll of this plan had reached drain" in summary(result.stdout), summary(
        result.stdout
    )
    assert "rollout-n2 kubeadm 0=1124Mi applied, uncordoned" in summary(result.stdout), summary(result.stdout)
    # Someone else's cordon: rolled (drained: it had something to change) and left cordoned, and the summary says so.
    assert fleet.cordoned("rollout-n3")
    assert "rollout-n3 rke2 0=1Gi applied, drained, left cordoned (cordoned by someone else, not by the rollout)" in summary(result.stdout), summary(
        result.stdout
    )

    # Once more: nothing to change, the hand cordon still stays and is reported, and nothing is resumed.
    again = fleet.playbook("numa.kubelet.rollout", *cluster_vars(fleet))
    assert again.returncode == 0, again.stdout[-8000:]
    assert "rollout-n3 rke2 0=1Gi applied, left cordoned (cordoned by someone else, not by the rollout)" in summary(again.stdout), summary(again.stdout)
    assert "resumed" not in again.stdout and fleet.cordoned("rollout-n3")


def test_lost_mid_drain_the_rerun_drains_again_and_uncordons(fleet):
    fleet.reset()
    add_pod(fleet, "rollout-n1", "evicted")
    add_pod(fleet, "rollout-n1", "guarded", running=True)
    pdb = {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "guarded", "namespace": "rollout-test"},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "guarded"}}},
    }
    fleet.kubectl("create", "--filename=-", stdin=json.dumps(pdb))
    # No disruption controller runs: write the status it would write (apiserver README).
    fleet.kubectl(
        "patch",
        "pdb",
        "guarded",
        "--namespace=rollout-test",
        "--subresource=status",
        "--type=merge",
        "--patch=" + json.dumps({"status": {"observedGeneration": 1, "disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1}}),
    )
    controller = Controller(fleet, *cluster_vars(fleet, "-e", "kubelet_numa_rollout_drain_timeout=120"), "--limit", "rollout-n1")

    def mid_drain():
        pods = fleet.kubectl("get", "pods", "--namespace=rollout-test", "--output=name").stdout.split()
        return "pod/evicted" not in pods and "Cordon and drain the node]" in controller.output

    controller.kill_when(mid_drain)
    assert fleet.kubectl("get", "pods", "--namespace=rollout-test", "--output=name").stdout.split() == ["pod/guarded"]
    assert fleet.cordoned("rollout-n1") and record(fleet, "rollout-n1")["step"] == "drain"
    assert not converged(fleet, "rollout-n1")

    fleet.kubectl("delete", "pdb", "guarded", "--namespace=rollout-test")
    result = fleet.playbook("numa.kubelet.rollout", *cluster_vars(fleet), "--limit", "rollout-n1")
    assert_finished(fleet, result, ["rollout-n1"], "drain")
    assert fleet.kubectl("get", "pods", "--namespace=rollout-test", "--output=name").stdout.split() == []


@pytest.mark.parametrize(("hook", "recorded"), [("after-apply", "drain"), ("after-verify", "ready")])
def test_lost_after_the_apply_or_verify_the_rerun_checks_and_uncordons_the_converged_node(fleet, tmp_path, hook, recorded):
    fleet.reset()
    kubectl, hit = hooked_kubectl(tmp_path, hook)
    controller = Controller(fleet, *cluster_vars(fleet, "-e", "kubelet_numa_rollout_kubectl=" + kubectl), "--limit", "rollout-n1")
    controller.kill_when(lambda: os.path.exists(hit), release=hit)
    # The node has what the role writes and is still cordoned, as the rollout recorded: a re-run that saw only a
    # converged node would leave it cordoned for good.
    assert fleet.cordoned("rollout-n1") and record(fleet, "rollout-n1")["step"] == recorded
    time.sleep(3)  # the restart's transaction settles on the node by itself (kubelet_numa_settle_seconds)
    assert converged(fleet, "rollout-n1")

    result = fleet.playbook("numa.kubelet.rollout", *cluster_vars(fleet), "--limit", "rollout-n1")
    assert_finished(fleet, result, ["rollout-n1"], recorded)
    # Converged: not drained again, but Ready from the running kubelet and verified before the uncordon.
    assert "Cordon and drain the node] ***" in result.stdout
    drain = result.stdout.split("Cordon and drain the node]")[1].split("TASK [")[0]
    assert "skipping: [rollout-n1]" in drain
    assert "rollout-n1: files, memory_manager_state and /configz match the plan" in flat(result.stdout), result.stdout[-6000:]


def test_node_local_the_record_is_a_file_on_the_node_and_the_rerun_names_what_it_resumed(fleet):
    fleet.reset()
    controller = Controller(fleet, "--limit", "rollout-n1", "-e", "kubelet_numa_rollout_node_local=true")
    # The restart's own call writes the record just before its transaction starts (restart_kubelet's progress_record).
    controller.kill_when(lambda: fleet.sh("rollout-n1", "test -e " + RECORD_FILE, check=False).returncode == 0)
    written = json.loads(fleet.sh("rollout-n1", "cat " + RECORD_FILE).stdout)
    assert written["by"] is None and written["step"] == "apply" and len(written["digest"]) == 16

    result = fleet.playbook("numa.kubelet.rollout", "--limit", "rollout-n1", "-e", "kubelet_numa_rollout_node_local=true")
    assert result.returncode == 0, result.stdout[-8000:]
    assert "rollout-n1 kubeadm 0=1124Mi applied, node-local; resumed: an interrupted roll of this plan had reached apply" in summary(result.stdout), summary(
        result.stdout
    )
    assert converged(fleet, "rollout-n1")
    assert fleet.sh("rollout-n1", "test -e " + RECORD_FILE, check=False).returncode == 1
