# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The settle in the background: the transaction reports the kubelet up (settled false) and goes on watching it on
the node. A kubelet that exits before the settle time is over is rolled back by the node itself, with nothing of
the controller left, and whoever reads the verdict next gets the rollback with the kubelet's own words."""

from __future__ import annotations

import os

from conftest import INTENT, REPO
from podman_hosts import run
from test_faults import CHANGED, DROPIN, assert_converged, assert_ok, wait_for_new_start

EXIT_MARKER = "/etc/kubelet-standin/exit-after-start"


def test_a_kubelet_that_exits_while_it_settles_is_rolled_back_by_the_node(node_factory):
    node = node_factory("kubeadm")
    assert_ok(node.role())
    before = node.starts()
    dropin = node.read(DROPIN)
    # The next good start answers /healthz, then exits 10 s after it started; the settle time is 25 s.
    node.write(EXIT_MARKER, "10\n")
    done = node.role("-v", kubelet_numa_config=CHANGED, kubelet_numa_settle_seconds=25, __kubelet_numa_settle_later=True)
    # The role returned while the kubelet ran the new config and still settled: no controller waits any more. Had it
    # waited out the settle time, it would have met the exit and failed with the rollback. (How soon it returns is a
    # speed figure, not a test: a timed assertion fails on a loaded machine.)
    assert_ok(done)
    assert "settling_until" in done.stdout, done.stdout[-3000:]
    new = node.starts()[len(before) :]
    assert new[0]["result"] == "started", new
    assert new[0]["reserved_memory_bytes"] != before[-1]["reserved_memory_bytes"]
    # On the node alone: the kubelet exits, and the transaction puts the previous files back and starts it with them.
    back = wait_for_new_start(node, len(before) + 1, timeout=120)
    assert back["reserved_memory_bytes"] == before[-1]["reserved_memory_bytes"]
    assert node.read(DROPIN) == dropin and node.active() == "active"
    # The next step that needs the verdict reads the node's report: the rollback, with the kubelet's words.
    verdict = node.play([{"name": "Read the last restart's verdict", "numa.kubelet.restart_kubelet": {"unit": node.unit, "only_report": True}}])
    assert verdict.returncode != 0
    out = " ".join(verdict.stdout.split())
    assert "answered, then exited" in out and "Failed to start ContainerManager" in out, out[-3000:]
    assert "the previous files are back and the kubelet runs with them" in out
    assert_converged(node, kubelet_numa_config=INTENT)


def test_the_rollout_reads_the_verdict_and_halts_at_a_kubelet_that_exits_while_it_settles(node_factory):
    """numa.kubelet.rollout verifies the node while the transaction still watches the kubelet and reads its final
    verdict before it counts the host: an exit in that time is rolled back by the node, and the rollout halts there."""
    node = node_factory("kubeadm")
    assert_ok(node.role())

    def rollout(config, *extra, **variables):
        argv = node.playbook_argv(
            os.path.join(REPO, "playbooks", "rollout.yml"), *extra, kubelet_numa_config=config, kubelet_numa_rollout_node_local=True, **variables
        )
        return run(argv, check=False, cwd=REPO, env=node.playbook_env())

    # A good restart: the host is verified while its kubelet settles, then counted once the verdict is in.
    good = rollout(CHANGED, "-v")
    assert_ok(good)
    out = " ".join(good.stdout.split())
    assert "settling_until" in out and "TASK [numa.kubelet.kubelet_numa_rollout : Wait for the restarted kubelet's final verdict]" in out, out[-3000:]
    before = node.starts()
    dropin = node.read(DROPIN)
    # Back to the first config, with a kubelet that answers and exits 10 s after its start; the settle time is 25 s.
    node.write(EXIT_MARKER, "10\n")
    failed = rollout(INTENT, kubelet_numa_settle_seconds=25)
    assert failed.returncode != 0
    out = " ".join(failed.stdout.split())
    assert "FAILED at apply" in out and f"numa.kubelet.rollout halted at {node.name} (apply)" in out, out[-3000:]
    assert "answered, then exited" in out and "the previous files are back and the kubelet runs with them" in out
    # The node rolled back by itself: the kubelet runs the config it ran before, with the files of that config.
    assert node.starts()[-1]["reserved_memory_bytes"] == before[-1]["reserved_memory_bytes"] and node.active() == "active"
    assert node.read(DROPIN) == dropin
    assert_converged(node, kubelet_numa_config=CHANGED)
