# -*- coding: utf-8 -*-
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The settle in the background: the transaction reports the kubelet up (settled false) and goes on watching it on
the node. A kubelet that exits before the settle time is over is rolled back by the node itself, with nothing of
the controller left, and whoever reads the verdict next gets the rollback with the kubelet's own words."""

from __future__ import annotations

import time

from conftest import INTENT
from test_faults import CHANGED, DROPIN, assert_converged, assert_ok, wait_for_new_start

EXIT_MARKER = "/etc/kubelet-standin/exit-after-start"


def test_a_kubelet_that_exits_while_it_settles_is_rolled_back_by_the_node(node_factory):
    node = node_factory("kubeadm")
    assert_ok(node.role())
    before = node.starts()
    dropin = node.read(DROPIN)
    # The next good start answers /healthz, then exits 10 s after it started; the settle time is 25 s.
    node.write(EXIT_MARKER, "10\n")
    began = time.time()
    done = node.role("-v", kubelet_numa_config=CHANGED, kubelet_numa_settle_seconds=25, __kubelet_numa_settle_later=True)
    # The role returned while the kubelet ran the new config and still settled: no controller waits any more.
    assert_ok(done)
    assert "settling_until" in done.stdout, done.stdout[-3000:]
    new = node.starts()[len(before):]
    assert [start["result"] for start in new] == ["started"], new
    assert new[0]["reserved_memory_bytes"] != before[-1]["reserved_memory_bytes"]
    assert time.time() - began < 25, "the role waited out the settle time instead of returning once the kubelet was up"
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
