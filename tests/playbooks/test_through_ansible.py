# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The module, the filters and the main playbook run through ansible-playbook (the built tarball: scripts/check-distribution)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import yaml

from ansible_collections.numa.kubelet.plugins.plugin_utils._render_names import MANIFEST
from ansible_collections.numa.kubelet.plugins.plugin_utils._validation import check_kubelet_config
from ansible_collections.numa.kubelet.tests.unit.plugins.modules.fake_sysfs import make_tree

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BIN = os.path.dirname(sys.executable)


def run(command, collections_path, tmp_path, check=True):
    env = dict(
        os.environ,
        ANSIBLE_COLLECTIONS_PATH=str(collections_path),
        ANSIBLE_LOCAL_TEMP=str(tmp_path / "ansible-tmp"),
        ANSIBLE_HOME=str(tmp_path / "ansible-home"),
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_FORCE_COLOR="0",
    )
    result = subprocess.run(command, env=env, capture_output=True, text=True, check=False, timeout=300)
    if check:
        assert result.returncode == 0, result.stdout + result.stderr
    return result


def playbook(path, collections_path, tmp_path, *extra, check=True):
    return run(
        [os.path.join(BIN, "ansible-playbook"), "-i", "localhost,", "-c", "local", "-e", f"ansible_python_interpreter={sys.executable}", *extra, path],
        collections_path,
        tmp_path,
        check,
    )


@pytest.fixture()
def two_node_root(tmp_path):
    root = tmp_path / "host"
    make_tree(root, {0: (1310720, "0", {2048: (0, 0)}), 1: (786432, "1", {2048: (0, 0)})}, mem_total_kib=2097152)
    return root


def check_two_node_plan(collections_path, tmp_path, root, *extra):
    plan_file = tmp_path / "plan.json"
    playbook(os.path.join(HERE, "two_numa_nodes.yml"), collections_path, tmp_path, "-e", f"fake_root={root}", "-e", f"plan_file={plan_file}", *extra)
    if "--check" in extra:
        assert not plan_file.exists(), "check mode wrote a file"
        return
    plan = json.loads(plan_file.read_text())
    # 5% of 2GiB with the kubelet's float32 arithmetic, spread by node memory (1280Mi : 768Mi).
    assert plan["reservedMemory"] == [{"numaNode": 0, "limits": {"memory": "1073741825"}}, {"numaNode": 1, "limits": {"memory": "644245095"}}]
    assert check_kubelet_config(plan, [0, 1], 2147483648).errors == []


def test_module_and_filters_through_ansible(collections_root, tmp_path, two_node_root):
    check_two_node_plan(collections_root, tmp_path, two_node_root)


def test_module_in_check_mode(collections_root, tmp_path, two_node_root):
    check_two_node_plan(collections_root, tmp_path, two_node_root, "--check")


def test_module_fails_clearly_without_a_numa_tree(collections_root, tmp_path):
    result = playbook(
        os.path.join(HERE, "two_numa_nodes.yml"),
        collections_root,
        tmp_path,
        "-e",
        f"fake_root={tmp_path}",
        "-e",
        "plan_file=%s" % (tmp_path / "plan.json"),
        check=False,
    )
    assert result.returncode == 2
    assert f"numa_facts: no NUMA topology at {tmp_path}/sys/devices/system/node" in result.stdout
    assert not (tmp_path / "plan.json").exists()


def test_refused_config_fails_the_play_with_the_kubelets_words(collections_root, tmp_path):
    result = playbook(os.path.join(HERE, "refused.yml"), collections_root, tmp_path, check=False)
    assert result.returncode == 2
    assert 'the total amount "924Mi" of type "memory" is not equal to the value "1Gi" determined by Node Allocatable feature' in result.stdout


def render(collections_path, tmp_path, inventory, *extra, check=True):
    output = tmp_path / "render"
    result = run(
        [
            os.path.join(BIN, "ansible-playbook"),
            "-i",
            str(inventory),
            "-e",
            f"kubelet_numa_render_dir={output}",
            *extra,
            os.path.join(REPO, "playbooks", "render.yml"),
        ],
        collections_path,
        tmp_path,
        check,
    )
    return output, result


def test_render_writes_what_the_role_would_for_every_platform(collections_root, tmp_path):
    output = render(collections_root, tmp_path, os.path.join(REPO, "playbooks", "inventory", "example.yml"))[0]
    hosts = sorted(os.listdir(output))
    assert hosts == ["eks-m5-01", "eks-p4d-01", "kubeadm-gpu-01", "kubeadm-gpu-02", "rke2-agent-01", "rke2-server-01", "this-machine"]
    files = {
        host: sorted(
            os.path.relpath(os.path.join(root, name), output / host) for root, _dirs, names in os.walk(output / host) for name in names if name != MANIFEST
        )
        for host in hosts
    }
    assert files["kubeadm-gpu-01"] == ["etc/default/kubelet", "etc/kubernetes/kubelet.conf.d/50-numa-kubelet.conf", "plan.json"]
    assert files["rke2-server-01"] == ["plan.json", "var/lib/rancher/rke2/agent/etc/kubelet.conf.d/50-numa-kubelet.conf"]
    assert files["rke2-agent-01"] == ["etc/rancher/rke2/config.yaml.d/50-numa-kubelet.yaml", "plan.json"]
    assert files["eks-p4d-01"] == ["etc/eks/nodeadm.d/50-numa-kubelet.yaml", "plan.json"]
    plans = {host: json.loads((output / host / "plan.json").read_text()) for host in hosts}
    for host, plan in plans.items():
        assert sorted(plan) == sorted(
            ["platform", "numa_nodes", "reserved_memory", "kubelet_config", "kubelet_inputs", "files", "unit", "restart", "warnings"]
        ), host
        assert check_kubelet_config(plan["kubelet_config"], plan["numa_nodes"]).errors == [], host
        assert plan["kubelet_config"]["reservedMemory"] == plan["reserved_memory"]
    memory = {host: [item["limits"]["memory"] for item in plans[host]["reserved_memory"]] for host in hosts}
    assert memory["kubeadm-gpu-01"] == ["1074Mi", "1074Mi"]  # 1Gi + 1Gi + the kubelet's 100Mi default
    assert memory["rke2-server-01"] == ["1Gi", "1Gi"]  # RKE2 1.32: no --config, 00-rke2-defaults.conf has no memory term
    assert memory["rke2-agent-01"] == ["1Gi", "1Gi"]  # RKE2 1.31: its --eviction-hard flag drops memory.available
    dropin = yaml.safe_load((output / "kubeadm-gpu-01" / "etc/kubernetes/kubelet.conf.d/50-numa-kubelet.conf").read_text())
    assert dropin["reservedMemory"] == plans["kubeadm-gpu-01"]["reserved_memory"]
    assert "evictionHard" not in dropin and "maxPods" not in dropin, "kubelet defaults must not be copied into the node's files"
    rke2 = yaml.safe_load((output / "rke2-agent-01" / "etc/rancher/rke2/config.yaml.d/50-numa-kubelet.yaml").read_text())
    assert "reserved-memory=0:memory=1Gi;1:memory=1Gi" in rke2["kubelet-arg+"]


def test_render_fails_only_the_host_with_bad_intent(collections_root, tmp_path):
    inventory = tmp_path / "inventory.yml"
    topology = {
        "numa_nodes": [{"id": 0, "memory_bytes": 8 << 30, "cpus": [0]}, {"id": 1, "memory_bytes": 8 << 30, "cpus": [1]}],
        "numa_memory_capacity_bytes": 16 << 30,
    }
    main = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
    good = {
        "kubelet_numa_platform": "kubeadm",
        "kubelet_numa_topology": topology,
        "kubelet_numa_node_files": {"/var/lib/kubelet/config.yaml": main},
        "kubelet_numa_config": {"memoryManagerPolicy": "Static", "kubeReserved": {"memory": "1Gi"}},
    }
    bad = dict(good, kubelet_numa_config={"memoryManagerPolicy": "static", "kubeReserved": {"memory": "1Gi"}})
    inventory.write_text(yaml.safe_dump({"all": {"hosts": {"good": good, "bad": bad}}}))
    (tmp_path / "render" / "bad").mkdir(parents=True)
    (tmp_path / "render" / "bad" / "stale").write_text("from an earlier run")
    output, result = render(collections_root, tmp_path, inventory, check=False)
    assert result.returncode == 2, result.stdout
    assert 'memoryManagerPolicy: unknown policy: \\"static\\"' in result.stdout or 'unknown policy: "static"' in result.stdout
    assert sorted(os.listdir(output)) == ["bad", "good"]
    assert os.listdir(output / "bad") == ["stale"], "the failed host gets no files; a file the render did not write survives"
    assert json.loads((output / "good" / "plan.json").read_text())["reserved_memory"] == [
        {"numaNode": 0, "limits": {"memory": "562Mi"}},
        {"numaNode": 1, "limits": {"memory": "562Mi"}},
    ]
