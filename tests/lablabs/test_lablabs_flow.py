# -*- coding: utf-8 -*-
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""examples/lablabs-rke2.yml as a user runs it, with the real lablabs.rke2 role (conftest.py), stage after stage on
one cluster: a fresh install of a server and an agent, then lablabs' own kubelet variables (rke2_kubelet_arg,
rke2_kubelet_config) given in the inventory (merged), then an rke2_kubelet_arg the planning play cannot see (named and
failed by the last play). The tests run in this order and share the cluster."""

from __future__ import annotations

import json
import os

import yaml

from conftest import GROUPS, REPO, UNITS

EXAMPLE = os.path.join(REPO, "examples", "lablabs-rke2.yml")
INTENT = {"memoryManagerPolicy": "Static", "topologyManagerPolicy": "single-numa-node",
          "kubeReserved": {"memory": "512Mi"}, "systemReserved": {"memory": "512Mi"}}
STATE = "/var/lib/kubelet/memory_manager_state"


def intent_everywhere(**extra):
    return {host: dict({"kubelet_numa_config": INTENT}, **extra.get(host, {})) for host in GROUPS}


def running_as_planned(cluster, host, reserved_bytes):
    """The kubelet stand-in's last start under the host's RKE2 unit: started, Static, reservations as planned."""
    start = cluster.starts(host)[-1]
    assert start["result"] == "started", start
    state = json.loads(cluster.read(host, STATE))
    assert state["policyName"] == "Static"
    assert sum(node["memoryMap"]["memory"]["systemReserved"] for node in state["machineState"].values()) == reserved_bytes
    assert cluster.sh(host, "systemctl is-active %s" % UNITS[host]).stdout.strip() == "active"
    return start


def assert_passed(result):
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]
    assert "failed=0" in result.stdout


def test_fresh_install_server_and_agent(cluster):
    hosts = intent_everywhere(**{"server-1": {"rke2_server_options": ["write-kubeconfig-mode: \"0644\""]}})
    result = cluster.playbook(EXAMPLE, cluster.inventory(hosts))
    assert_passed(result)
    assert "kubelet runs with the planned policy and reservations" in result.stdout
    for host in GROUPS:
        start = running_as_planned(cluster, host, 1 << 30)
        assert "--memory-manager-policy=Static" in start["argv"] and "--kube-reserved=memory=512Mi" in start["argv"]
        # RKE2's own disk thresholds stay in what the kubelet runs with (00-rke2-defaults.conf, no eviction-hard flag).
        assert not [word for word in start["argv"] if word.startswith("--eviction-hard")]
    config = yaml.safe_load(cluster.read("server-1", "/etc/rancher/rke2/config.yaml"))
    assert config["write-kubeconfig-mode"] == "0644" and "memory-manager-policy=Static" in config["kubelet-arg"]


def test_users_rke2_kubelet_arg_in_the_inventory_is_merged(cluster):
    hosts = intent_everywhere(**{"agent-1": {"rke2_kubelet_arg": ["max-pods=58", "kube-reserved=cpu=100m"]}})
    before = len(cluster.starts("agent-1"))
    result = cluster.playbook(EXAMPLE, cluster.inventory(hosts))
    assert_passed(result)
    start = running_as_planned(cluster, "agent-1", 1 << 30)
    assert len(cluster.starts("agent-1")) > before  # lablabs restarted RKE2 for the changed config.yaml
    assert "--max-pods=58" in start["argv"] and "--kube-reserved=cpu=100m" in start["argv"] and "--kube-reserved=memory=512Mi" in start["argv"]
    config = cluster.read("agent-1", "/etc/rancher/rke2/config.yaml")
    assert config.count("kubelet-arg") == 1


def test_users_rke2_kubelet_config_with_its_config_item(cluster):
    hosts = intent_everywhere(**{"agent-1": {"rke2_kubelet_config": {"imageGCHighThresholdPercent": 80}}})
    result = cluster.playbook(EXAMPLE, cluster.inventory(hosts))
    assert_passed(result)
    start = running_as_planned(cluster, "agent-1", 1 << 30)
    # RKE2 >= 1.32 copies the file lablabs wrote into its drop-in directory as 10-cli-config.conf: no --config.
    assert not [word for word in start["argv"] if word.startswith("--config=")]
    copied = yaml.safe_load(cluster.read("agent-1", "/var/lib/rancher/rke2/agent/etc/kubelet.conf.d/10-cli-config.conf"))
    assert copied["imageGCHighThresholdPercent"] == 80 and copied["memoryManagerPolicy"] == "Static"


def test_rke2_kubelet_arg_the_planning_play_cannot_see_fails_the_host(cluster):
    with open(EXAMPLE, encoding="utf-8") as handle:
        plays = yaml.safe_load(handle)
    plays[1]["tasks"][0]["vars"]["rke2_kubelet_arg"] = ["max-pods=58"]
    variant = os.path.join(cluster.tmp, "lablabs-rke2-with-play-kubelet-arg.yml")
    with open(variant, "w", encoding="utf-8") as out:
        yaml.safe_dump(plays, out, sort_keys=False)
    result = cluster.playbook(variant, cluster.inventory(intent_everywhere()))
    assert result.returncode != 0
    assert "does not run with the plan" in result.stdout and "does not give the kubelet numa.kubelet's settings" in result.stdout
