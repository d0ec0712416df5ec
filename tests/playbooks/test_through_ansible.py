# -*- coding: utf-8 -*-
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The module, the filters and the main playbook run through ansible-playbook, and the built collection installs and works."""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys

import pytest
import yaml

from ansible_collections.numa.kubelet.plugins.plugin_utils._validation import check_kubelet_config
from ansible_collections.numa.kubelet.tests.unit.plugins.modules.fake_sysfs import make_tree

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BIN = os.path.dirname(sys.executable)
FILTERS = ["bytes_to_quantity", "eks_kube_reserved", "kubelet_flags", "quantity_to_bytes", "reserved_memory", "validate_kubelet_config"]


def run(command, collections_path, tmp_path, check=True):
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=str(collections_path), ANSIBLE_LOCAL_TEMP=str(tmp_path / "ansible-tmp"),
               ANSIBLE_HOME=str(tmp_path / "ansible-home"), ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0")
    result = subprocess.run(command, env=env, capture_output=True, text=True, check=False, timeout=300)
    if check:
        assert result.returncode == 0, result.stdout + result.stderr
    return result


def playbook(path, collections_path, tmp_path, *extra, check=True):
    return run([os.path.join(BIN, "ansible-playbook"), "-i", "localhost,", "-c", "local", "-e", "ansible_python_interpreter=%s" % sys.executable,
                *extra, path], collections_path, tmp_path, check)


@pytest.fixture()
def two_node_root(tmp_path):
    root = tmp_path / "host"
    make_tree(root, {0: (1310720, "0", {2048: (0, 0)}), 1: (786432, "1", {2048: (0, 0)})}, mem_total_kib=2097152)
    return root


def check_two_node_plan(collections_path, tmp_path, root, *extra):
    plan_file = tmp_path / "plan.json"
    playbook(os.path.join(HERE, "two_numa_nodes.yml"), collections_path, tmp_path,
             "-e", "fake_root=%s" % root, "-e", "plan_file=%s" % plan_file, *extra)
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
    result = playbook(os.path.join(HERE, "two_numa_nodes.yml"), collections_root, tmp_path,
                      "-e", "fake_root=%s" % tmp_path, "-e", "plan_file=%s" % (tmp_path / "plan.json"), check=False)
    assert result.returncode == 2
    assert "numa_facts: no NUMA topology at %s/sys/devices/system/node" % tmp_path in result.stdout
    assert not (tmp_path / "plan.json").exists()


def test_refused_config_fails_the_play_with_the_kubelets_words(collections_root, tmp_path):
    result = playbook(os.path.join(HERE, "refused.yml"), collections_root, tmp_path, check=False)
    assert result.returncode == 2
    assert 'the total amount "924Mi" of type "memory" is not equal to the value "1Gi" determined by Node Allocatable feature' in result.stdout


def test_main_playbook_renders_every_platform(collections_root, tmp_path):
    output = tmp_path / "plan"
    root = tmp_path / "host"
    make_tree(root, {0: (64 << 20, "0-31", {}), 1: (64 << 20, "32-63", {})})
    playbook(os.path.join(REPO, "playbooks", "plan.yml"), collections_root, tmp_path, "-e", "numa_kubelet_plan_output_dir=%s" % output,
             "-e", "numa_kubelet_plan_root=%s" % root, "-e", "numa_kubelet_plan_eks_instance_type=p4d.24xlarge")
    files = {os.path.basename(path): path for path in glob.glob(str(output / "localhost" / "*"))}
    assert sorted(files) == ["eks-nodeadm.d-50-numa-kubelet.yaml", "kubeadm-kubelet.conf.d-50-numa-kubelet.conf", "rke2-config.yaml.d-50-numa-kubelet.yaml"]
    for path in files.values():
        with open(path, encoding="utf-8") as handle:
            assert handle.readline().startswith("#"), "%s lacks the ansible_managed header" % path
    kubeadm = yaml.safe_load(open(files["kubeadm-kubelet.conf.d-50-numa-kubelet.conf"], encoding="utf-8"))
    assert kubeadm["kind"] == "KubeletConfiguration"
    assert check_kubelet_config(kubeadm).errors == []
    eks = yaml.safe_load(open(files["eks-nodeadm.d-50-numa-kubelet.yaml"], encoding="utf-8"))
    assert (eks["apiVersion"], eks["kind"]) == ("node.eks.aws/v1alpha1", "NodeConfig")
    # p4d.24xlarge: maxPods 737, 11 * 737 + 255 = 8362Mi; 64 CPUs on this fake host; (8362 + 1024 + 500)Mi / 2 = 4943Mi.
    assert eks["spec"]["kubelet"]["config"]["kubeReserved"] == {"cpu": "230m", "ephemeral-storage": "1Gi", "memory": "8362Mi"}
    assert eks["spec"]["kubelet"]["config"]["reservedMemory"] == [{"numaNode": 0, "limits": {"memory": "4943Mi"}},
                                                                  {"numaNode": 1, "limits": {"memory": "4943Mi"}}]
    assert kubeadm["reservedMemory"] == [{"numaNode": 0, "limits": {"memory": "1274Mi"}}, {"numaNode": 1, "limits": {"memory": "1274Mi"}}]
    assert check_kubelet_config(eks["spec"]["kubelet"]["config"]).errors == []
    rke2 = yaml.safe_load(open(files["rke2-config.yaml.d-50-numa-kubelet.yaml"], encoding="utf-8"))
    assert "memory-manager-policy=Static" in rke2["kubelet-arg"]
    assert [arg for arg in rke2["kubelet-arg"] if arg.startswith("reserved-memory=")] == [
        "reserved-memory=" + ";".join("%d:memory=%s" % (item["numaNode"], item["limits"]["memory"]) for item in kubeadm["reservedMemory"])]


def test_built_collection_installs_and_works(tmp_path, two_node_root):
    build = tmp_path / "build"
    run([os.path.join(BIN, "ansible-galaxy"), "collection", "build", REPO, "--output-path", str(build)], tmp_path, tmp_path)
    tarballs = glob.glob(str(build / "numa-kubelet-*.tar.gz"))
    assert len(tarballs) == 1
    installed = tmp_path / "installed"
    run([os.path.join(BIN, "ansible-galaxy"), "collection", "install", "--offline", "-p", str(installed), tarballs[0]], tmp_path, tmp_path)
    assert not glob.glob(str(installed / "ansible_collections/numa/kubelet/tests/playbooks"))
    for name in FILTERS:
        doc = run([os.path.join(BIN, "ansible-doc"), "-t", "filter", "numa.kubelet.%s" % name], installed, tmp_path)
        assert "numa.kubelet.%s" % name in doc.stdout and "EXAMPLES" in doc.stdout
    doc = run([os.path.join(BIN, "ansible-doc"), "-t", "module", "numa.kubelet.numa_facts"], installed, tmp_path)
    assert "numa_memory_capacity_bytes" in doc.stdout
    check_two_node_plan(installed, tmp_path, two_node_root)
