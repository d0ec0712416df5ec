# -*- coding: utf-8 -*-
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""numa.kubelet.rollout and numa.kubelet.verify on three test hosts registered with a real kube-apiserver.

The tests share one fleet (conftest.py) and run in file order; each starts from fleet.reset() unless it says it
builds on the previous one. Expected values are literals: 512Mi + 512Mi + the kubelet's 100Mi eviction default
(kubeadm's config has no evictionHard) = 1124Mi = 1178599424 bytes on NUMA node 0 (the test hosts see one node).
"""

from __future__ import annotations

import json

import yaml

from conftest import DROPIN, FAIL_MARKER, HOSTS

RESERVED_BYTES = {"0": 1178599424}
SPLIT = "0=1124Mi"


def cluster_vars(fleet, *extra):
    return ["-e", "kubelet_numa_rollout_kubeconfig=" + fleet.kubeconfig, "-e", "kubelet_numa_rollout_drain_force=true",
            "-e", "kubelet_numa_rollout_drain_timeout=20"] + list(extra)


def summary_rows(output):
    """The summary table's rows after its header line, as {host: row text}."""
    lines = output.splitlines()
    start = max(i for i, line in enumerate(lines) if "HOST" in line and "NUMA SPLIT" in line and "RESULT" in line)
    rows = {}
    for line in lines[start + 1:]:
        if line.startswith("PLAY RECAP"):
            break
        text = line.strip().strip('",-').strip()
        name = text.split(" ")[0] if text else ""
        if name in HOSTS:
            rows[name] = text
    return rows


def checkpoint(fleet, host):
    return json.loads(fleet.sh(host, "cat /var/lib/kubelet/memory_manager_state").stdout)


def reserved_in_checkpoint(state):
    return {node: machine["memoryMap"]["memory"]["systemReserved"] for node, machine in state["machineState"].items()}


def add_pod(fleet, host, name, running=False):
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": name, "namespace": "rollout-test", "labels": {"app": name}},
           "spec": {"nodeName": host, "containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10"}]}}
    fleet.kubectl("create", "namespace", "rollout-test", check=False)
    fleet.kubectl("create", "--filename=-", stdin=json.dumps(pod))
    if running:
        fleet.kubectl("patch", "pod", name, "--namespace=rollout-test", "--subresource=status", "--type=merge",
                      "--patch=" + json.dumps({"status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}}))


def pods_on(fleet, host):
    out = fleet.kubectl("get", "pods", "--all-namespaces", "--field-selector=spec.nodeName=" + host, "--output=name").stdout
    return out.split()


def test_rollout_rolls_the_fleet_one_host_at_a_time_and_verify_passes(fleet):
    fleet.reset()
    add_pod(fleet, "rollout-n2", "web")
    before = {host: fleet.snapshot(host)["starts"] for host in HOSTS}
    result = fleet.playbook("numa.kubelet.rollout", *cluster_vars(fleet))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "cluster mode" in result.stdout
    rows = summary_rows(result.stdout)
    for host in HOSTS:
        assert rows[host].split() == [host, "kubeadm", SPLIT, "applied,", "uncordoned"], rows
        assert not fleet.cordoned(host) and fleet.ready(host)
        dropin = yaml.safe_load(fleet.sh(host, "cat " + DROPIN).stdout)
        assert dropin["reservedMemory"] == [{"numaNode": 0, "limits": {"memory": "1124Mi"}}]
        assert reserved_in_checkpoint(checkpoint(fleet, host)) == RESERVED_BYTES
        starts = fleet.starts(host)
        assert len(starts) == before[host] + 1 and starts[-1]["result"] == "started"
    # The drain evicted the pod; the node agent stand-in completed its deletion.
    assert pods_on(fleet, "rollout-n2") == []
    # serial 1: each host was drained, restarted and uncordoned before the next was drained.
    steps = [line.split("]")[0] for line in result.stdout.splitlines() if line.startswith(("TASK [Cordon and drain", "TASK [Uncordon"))]
    assert steps == ["TASK [Cordon and drain the node", "TASK [Uncordon the node"] * 3

    verify = fleet.playbook("numa.kubelet.verify")
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert verify.stdout.count("files and memory_manager_state match the plan") == 3


def test_verify_names_the_host_and_field_that_drifted(fleet):
    # Builds on the rolled fleet of the previous test.
    fleet.sh("rollout-n1", "sed -i 's/memory: 512Mi/memory: 600Mi/' " + DROPIN)
    state = checkpoint(fleet, "rollout-n3")
    state["machineState"]["0"]["memoryMap"]["memory"]["systemReserved"] = 1
    fleet.sh("rollout-n3", "cat > /var/lib/kubelet/memory_manager_state <<'EOF'\n%s\nEOF" % json.dumps(state))
    result = fleet.playbook("numa.kubelet.verify")
    assert result.returncode != 0
    out = result.stdout
    assert "numa.kubelet.verify: rollout-n1 drifted from the plan:" in out
    assert DROPIN + ": kubeReserved is {'memory': '600Mi'} on the node, the plan {'memory': '512Mi'}" in out
    assert "numa.kubelet.verify: rollout-n3 drifted from the plan:" in out
    assert "memory_manager_state reserves {'0': 1} bytes per NUMA node, the plan {'0': 1178599424}" in out
    assert "rollout-n2: files and memory_manager_state match the plan" in out
