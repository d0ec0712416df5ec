# -*- coding: utf-8 -*-
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""RKE2 managed by lablabs.rke2: kubelet_numa_rke2_options copied into config.yaml give RKE2 the right kubelet-arg.

lablabs.rke2 (1.53.0, templates/config.yaml.j2) writes each rke2_server_options / rke2_agent_options string as one
line of /etc/rancher/rke2/config.yaml, and rke2_kubelet_arg as a `kubelet-arg:` list after them
(docs/kubelet-facts.md section 4). The config is built here the same way and handed to the RKE2 and kubelet stand-ins.
"""

from __future__ import annotations

import os

import pytest
import yaml

from ansible_collections.numa.kubelet.plugins.plugin_utils._plan import PlanError, plan_host

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RKE2 = os.path.join(REPO, "tests", "hosts", "standins", "rke2-standin")
with open(os.path.join(REPO, "roles", "kubelet_numa", "defaults", "main.yml"), encoding="utf-8") as _handle:
    DEFAULTS = yaml.safe_load(_handle)


def lablabs_plan(version, nodes_kib, files=None, **facts):
    variables = dict(DEFAULTS, kubelet_numa_platform="rke2", kubelet_numa_rke2_version=version, kubelet_numa_rke2_role="server",
                     kubelet_numa_rke2_write_files=False,
                     kubelet_numa_config={"memoryManagerPolicy": "Static", "topologyManagerPolicy": "single-numa-node",
                                          "kubeReserved": {"memory": "512Mi"}, "systemReserved": {"memory": "1.5Gi"}},
                     kubelet_numa_topology={"numa_nodes": [{"id": node, "memory_bytes": kib * 1024, "cpus": [node]}
                                                           for node, kib in enumerate(nodes_kib)],
                                            "numa_memory_capacity_bytes": sum(nodes_kib) * 1024})
    return plan_host(variables, dict(facts, files=files or {}))


@pytest.mark.parametrize("version", ["v1.31.9+rke2r1", "v1.32.5+rke2r1"])
def test_options_lines_give_rke2_our_kubelet_args_and_the_kubelet_accepts(make_host, version):
    host = make_host([4194304, 4194304])
    plan = lablabs_plan(version, [4194304, 4194304])
    # The lines lablabs.rke2 writes: its own keys, then each option string verbatim.
    config = "token: secret\nnode-name: gpu-01\n" + "".join(line + "\n" for line in ["write-kubeconfig-mode: '0600'"] + plan["rke2"]["options"])
    host.write("/etc/rancher/rke2/config.yaml", config)
    host.write("/etc/default/rke2-server", "RKE2_STANDIN_VERSION=%s\n" % version)
    assert yaml.safe_load(config)["kubelet-arg"] == plan["rke2"]["kubelet_args"]
    result = host.run(RKE2, ["server"], {"RKE2_STANDIN_VERSION": version})
    assert result.start is not None and result.start["result"] == "started", result.stderr
    for item in plan["rke2"]["kubelet_args"]:
        assert "--" + item in result.start["argv"]
    # RKE2 passes no --config from 1.32 and an --eviction-hard flag before it: no memory eviction term either way.
    assert [item["limits"]["memory"] for item in plan["reserved_memory"]] == ["1Gi", "1Gi"]
    assert result.start["reserved_memory_bytes"] == {"0": {"memory": 1 << 30}, "1": {"memory": 1 << 30}}


def test_rke2_kubelet_arg_would_replace_the_options_line(make_host):
    # What lablabs renders when rke2_kubelet_arg is set too: a later kubelet-arg key, which RKE2 keeps.
    host = make_host([4194304, 4194304])
    plan = lablabs_plan("v1.32.5+rke2r1", [4194304, 4194304])
    host.write("/etc/rancher/rke2/config.yaml", "token: secret\n" + plan["rke2"]["options"][0] + "\nkubelet-arg:\n  - max-pods=58\n")
    args = host.run(RKE2, ["server", "--print-args"]).stdout
    assert "--memory-manager-policy=Static" not in args and "--max-pods=58" in args
    with pytest.raises(PlanError, match="rke2_kubelet_arg is set"):
        lablabs_plan("v1.32.5+rke2r1", [4194304, 4194304], rke2_kubelet_arg=["max-pods=58"])
