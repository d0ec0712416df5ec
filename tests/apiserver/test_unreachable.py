# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""numa.kubelet.rollout with a node that cannot be reached: refused before the first drain, or, when it drops out
mid-roll, the rollout halts there and still prints its summary (without ignore_unreachable, ansible-core ends the
whole playbook when a serial batch is all unreachable, and lets later batches go on when it is not).

A node is made unreachable by giving its nsenter connection a PID that cannot exist (above the kernel's largest
pid_max, 2^22): the connection plugin then reports the host UNREACHABLE, as it does for a node that went away.
"""

from __future__ import annotations

import yaml
from conftest import HOSTS
from test_rollout import ROLL_TASK, cluster_vars, failure_messages, flat, summary_rows

NO_SUCH_PID = 4194999


def inventory_with(fleet, tmp_path, host, pid):
    inventory = yaml.safe_load(open(fleet.inventory))
    inventory["all"]["children"]["gpu_nodes"]["hosts"][host]["ansible_nsenter_pid"] = pid
    path = tmp_path / "inventory.yml"
    path.write_text(yaml.safe_dump(inventory))
    return str(path)


def test_an_unreachable_host_is_refused_before_the_first_drain(fleet, tmp_path):
    fleet.reset()
    before = {host: fleet.snapshot(host) for host in HOSTS}
    result = fleet.playbook("numa.kubelet.rollout", *cluster_vars(fleet), inventory=inventory_with(fleet, tmp_path, "rollout-n2", NO_SUCH_PID))
    assert result.returncode != 0
    out = result.stdout + result.stderr
    refusals = [msg for msg in failure_messages(out) if isinstance(msg, list) and msg[:1] == ["numa.kubelet.rollout refused; nothing was drained or changed:"]]
    assert len(refusals) == 1, out
    assert len(refusals[0]) == 2 and refusals[0][1].startswith("rollout-n2: unreachable: "), refusals
    assert ROLL_TASK + "Cordon and drain" not in out
    for host in HOSTS:
        assert fleet.snapshot(host) == before[host], host
        assert not fleet.cordoned(host)


def test_a_host_that_drops_out_mid_roll_halts_the_rollout_with_a_summary(fleet, tmp_path):
    fleet.reset()
    # Reachable while the rollout plans every host, gone once its batch starts (after the drain, which runs on the
    # control host): __kubelet_numa_rollout_cluster is a variable of the role's roll_host entry point only.
    pid = fleet.pids["rollout-n2"]
    dropping = "{{ %s if __kubelet_numa_rollout_cluster is not defined else %d }}" % (pid, NO_SUCH_PID)
    n3_before = fleet.snapshot("rollout-n3")
    result = fleet.playbook("numa.kubelet.rollout", *cluster_vars(fleet), inventory=inventory_with(fleet, tmp_path, "rollout-n2", dropping))
    assert result.returncode != 0
    rows = summary_rows(result.stdout)
    assert rows["rollout-n1"].split()[-2:] == ["applied,", "uncordoned"], rows
    assert "rollout-n2 kubeadm 0=1124Mi FAILED at apply, unreachable (not rolled back), left cordoned" in " ".join(result.stdout.split()), rows
    # Not reached: the summary says why (a long row, folded by the YAML callback).
    assert (
        "untouched, halted before its batch: 1 host(s) failed (rollout-n2), "
        "more than kubelet_numa_rollout_max_failures (0): no later batch starts" in flat(result.stdout).split("rollout-n3 ", 1)[-1]
    ), rows
    assert "numa.kubelet.rollout halted at rollout-n2 (apply): unreachable: " in " ".join(result.stdout.split())
    assert fleet.cordoned("rollout-n2")
    assert fleet.snapshot("rollout-n3") == n3_before
    assert not fleet.cordoned("rollout-n3")
