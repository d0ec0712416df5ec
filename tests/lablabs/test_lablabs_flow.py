# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""examples/lablabs-rke2.yml as a user runs it, with the real lablabs.rke2 role (conftest.py), stage after stage on
one cluster: a fresh install of a server and an agent; a change of reservations on the running cluster (lablabs
restarts RKE2); the user's rke2_kubelet_arg in the inventory (merged); an rke2_kubelet_arg in the lablabs play, which
the planning play cannot see (refused by name before lablabs runs); a kubelet that lost the plan (the last play fails
it); the user's rke2_kubelet_config (merged, with its --config item). The tests run in this order on one cluster."""

from __future__ import annotations

import json
import os

import yaml
from conftest import GROUPS, REPO, UNITS

EXAMPLE = os.path.join(REPO, "examples", "lablabs-rke2.yml")
INTENT = {
    "memoryManagerPolicy": "Static",
    "topologyManagerPolicy": "single-numa-node",
    "kubeReserved": {"memory": "512Mi"},
    "systemReserved": {"memory": "512Mi"},
}
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
    assert cluster.sh(host, f"systemctl is-active {UNITS[host]}").stdout.strip() == "active"
    return start


def assert_passed(result):
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]
    assert "failed=0" in result.stdout


def test_fresh_install_server_and_agent(cluster):
    hosts = intent_everywhere(**{"server-1": {"rke2_server_options": ['write-kubeconfig-mode: "0644"']}})
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


def test_change_of_reservations_on_the_running_cluster(cluster):
    # lablabs rewrites config.yaml and restarts RKE2 itself (its handler, then change_config.yml): the checkpoint guard
    # the planning play installed resets the checkpoints at that start, so the kubelet starts at once, no crash loop.
    hosts = {host: {"kubelet_numa_config": dict(INTENT, kubeReserved={"memory": "1Gi"})} for host in GROUPS}
    before = {host: len(cluster.starts(host)) for host in GROUPS}
    result = cluster.playbook(EXAMPLE, cluster.inventory(hosts))
    assert_passed(result)
    for host in GROUPS:
        running_as_planned(cluster, host, (1 << 30) + (512 << 20))
        new = cluster.starts(host)[before[host] :]
        assert new and all(start["result"] == "started" for start in new), new  # restarted once, never refused


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


def test_rke2_kubelet_arg_the_planning_play_cannot_see_is_refused_before_lablabs_runs(cluster):
    with open(EXAMPLE, encoding="utf-8") as handle:
        plays = yaml.safe_load(handle)
    plays[1]["vars"] = {"rke2_kubelet_arg": ["max-pods=58"]}  # in the lablabs play, where the planning play cannot see it
    variant = os.path.join(cluster.tmp, "lablabs-rke2-with-play-kubelet-arg.yml")
    with open(variant, "w", encoding="utf-8") as out:
        yaml.safe_dump(plays, out, sort_keys=False)
    configs = {host: cluster.read(host, "/etc/rancher/rke2/config.yaml") for host in GROUPS}
    starts = {host: len(cluster.starts(host)) for host in GROUPS}
    result = cluster.playbook(variant, cluster.inventory(intent_everywhere()))
    assert result.returncode != 0
    assert 'rke2_kubelet_arg is ["max-pods=58"] here, the planning play read null' in result.stdout, result.stdout[-4000:]
    for host in GROUPS:  # refused before lablabs.rke2 ran: nothing changed
        assert cluster.read(host, "/etc/rancher/rke2/config.yaml") == configs[host]
        assert len(cluster.starts(host)) == starts[host]


def test_last_play_fails_a_host_whose_kubelet_lost_the_plan(cluster):
    assert_passed(cluster.playbook(EXAMPLE, cluster.inventory(intent_everywhere())))
    # Another tool rewrites config.yaml without numa.kubelet's items and restarts RKE2.
    cluster.sh("agent-1", "sed -i '/^kubelet-arg/,/^[a-z]/{/^kubelet-arg/d;/^  - /d}' /etc/rancher/rke2/config.yaml && systemctl restart rke2-agent")
    with open(EXAMPLE, encoding="utf-8") as handle:
        plays = yaml.safe_load(handle)
    verify_only = os.path.join(cluster.tmp, "lablabs-rke2-verify.yml")
    with open(verify_only, "w", encoding="utf-8") as out:
        yaml.safe_dump(plays[2:], out, sort_keys=False)
    result = cluster.playbook(verify_only, cluster.inventory(intent_everywhere()))
    assert result.returncode != 0
    assert "agent-1 does not run with the plan" in result.stdout and "does not give the kubelet numa.kubelet's settings" in result.stdout
    assert "server-1: rke2-server.service is active and its kubelet runs with the planned policy and reservations" in result.stdout


def test_users_rke2_kubelet_config_with_its_config_item(cluster):
    hosts = intent_everywhere(**{"agent-1": {"rke2_kubelet_config": {"imageGCHighThresholdPercent": 85}}})
    result = cluster.playbook(EXAMPLE, cluster.inventory(hosts))
    assert_passed(result)
    start = running_as_planned(cluster, "agent-1", 1 << 30)
    # RKE2 >= 1.32 copies the file lablabs wrote into its drop-in directory as 10-cli-config.conf: no --config.
    assert not [word for word in start["argv"] if word.startswith("--config=")]
    copied = yaml.safe_load(cluster.read("agent-1", "/var/lib/rancher/rke2/agent/etc/kubelet.conf.d/10-cli-config.conf"))
    assert copied["imageGCHighThresholdPercent"] == 85 and copied["memoryManagerPolicy"] == "Static"
