# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""_rollout.host_problems: what the rollout's first play refuses on one host besides its plan
(roles/kubelet_numa_rollout/templates/host_problems.j2 prints it)."""

from __future__ import annotations

from ansible_collections.numa.kubelet.plugins.plugin_utils._rollout import host_problems

HOST = {
    "name": "n1",
    "config": {"memoryManagerPolicy": "Static"},
    "plan_problems": [],
    "kubeconfig": "/etc/kube/admin.conf",
    "kubeconfig_exists": True,
    "control_host": "cp-1",
    "node_name": "node-one",
    "node_rc": 0,
    "node_stderr": "",
}


def test_a_host_with_intent_a_kubeconfig_and_its_node_has_no_problem():
    assert host_problems(HOST) == []
    # Node-local: no kubeconfig, no Node asked for.
    assert host_problems(dict(HOST, kubeconfig="", kubeconfig_exists=False)) == []


def test_a_host_without_intent_and_its_plans_lines_each_name_the_host():
    assert host_problems(dict(HOST, config={}, plan_problems=["kubelet_numa_platform: cannot detect the platform", "unreachable: gone"])) == [
        "n1: kubelet_numa_config is empty: there is nothing to roll out on this host",
        "n1: kubelet_numa_platform: cannot detect the platform",
        "n1: unreachable: gone",
    ]


def test_a_missing_kubeconfig_is_named_with_the_control_host_and_no_node_is_asked_for():
    assert host_problems(dict(HOST, kubeconfig_exists=False, node_rc=1)) == [
        "kubelet_numa_rollout_kubeconfig: /etc/kube/admin.conf does not exist on the control host cp-1"
    ]
    # As a template that is not native renders the boolean.
    assert host_problems(dict(HOST, kubeconfig_exists="False")) == host_problems(dict(HOST, kubeconfig_exists=False))


def test_a_node_the_cluster_cannot_give_quotes_kubectl():
    problems = host_problems(dict(HOST, node_rc=1, node_stderr='Error from server (NotFound): nodes "node-one" not found\n'))
    assert problems == ['n1: its Node node-one cannot be read from the cluster: Error from server (NotFound): nodes "node-one" not found']
