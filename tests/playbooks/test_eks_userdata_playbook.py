# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""playbooks/eks_userdata.yml through ansible-playbook: byte-stable files, nothing changed on a re-run, nothing written on bad input."""

from __future__ import annotations

import json
import os
import re
import sys

import yaml

from ansible_collections.numa.kubelet.plugins.plugin_utils._eks_al2023 import nodeconfig_parts
from ansible_collections.numa.kubelet.tests.playbooks.test_through_ansible import BIN, REPO, run

PLAYBOOK = os.path.join(REPO, "playbooks", "eks_userdata.yml")
EXAMPLE = os.path.join(REPO, "playbooks", "vars", "eks_node_classes.yml")


def eks_userdata(collections_root, tmp_path, output, *extra, check=True):
    return run(
        [os.path.join(BIN, "ansible-playbook"), "-i", "localhost,", "-e", f"@{EXAMPLE}", "-e", f"kubelet_numa_eks_output_dir={output}", *extra, PLAYBOOK],
        collections_root,
        tmp_path,
        check,
    )


def example_node_classes(collections_root, tmp_path):
    """The example's kubelet_numa_eks_node_classes as Ansible templates them (their cpus are Jinja ranges)."""
    out = tmp_path / "classes.json"
    content = f"content={{{{ kubelet_numa_eks_node_classes | to_json }}}} dest={out}"
    python = f"ansible_python_interpreter={sys.executable}"
    run(
        [
            os.path.join(BIN, "ansible"),
            "localhost",
            "-i",
            "localhost,",
            "-c",
            "local",
            "-e",
            python,
            "-e",
            f"@{EXAMPLE}",
            "-m",
            "ansible.builtin.copy",
            "-a",
            content,
        ],
        collections_root,
        tmp_path,
    )
    return json.loads(out.read_text(encoding="utf-8"))


def snapshot(directory):
    return {name: (directory / name).read_bytes() for name in sorted(os.listdir(directory))}


def recap(result):
    return dict(re.findall(r"(\w+)=(\d+)", result.stdout.split("PLAY RECAP")[-1]))


def test_example_renders_byte_stable_and_idempotent(collections_root, tmp_path):
    output = tmp_path / "eks"
    first = eks_userdata(collections_root, tmp_path, output)
    files = snapshot(output)
    assert sorted(files) == [
        "batch-r5.user-data.mime",
        "general-m5.ec2nodeclass.yaml",
        "general-m5.user-data.mime",
        "gpu-p4d.ec2nodeclass.yaml",
        "gpu-p4d.user-data.mime",
        "legacy-al2.kubelet-extra-args.sh",
    ]
    assert recap(first)["changed"] != "0"
    second = eks_userdata(collections_root, tmp_path, output)
    assert recap(second)["changed"] == "0", second.stdout
    assert snapshot(output) == files
    # The seed PR's p4d: kubeReserved pinned 8500Mi + 100Mi eviction = 4300Mi per NUMA node.
    p4d = nodeconfig_parts(files["gpu-p4d.user-data.mime"].decode())
    assert p4d[0]["spec"]["kubelet"]["config"]["reservedMemory"] == [
        {"numaNode": 0, "limits": {"memory": "4300Mi"}},
        {"numaNode": 1, "limits": {"memory": "4300Mi"}},
    ]
    # Karpenter schedules with the node's reservation: 8500Mi + 100Mi.
    assert yaml.safe_load(files["gpu-p4d.ec2nodeclass.yaml"])["spec"]["kubelet"] == {
        "kubeReserved": {"memory": "8500Mi"},
        "evictionHard": {"memory.available": "100Mi"},
    }
    ec2nodeclass = yaml.safe_load(files["general-m5.ec2nodeclass.yaml"])
    assert ec2nodeclass["spec"]["userData"] == files["general-m5.user-data.mime"].decode()
    assert files["legacy-al2.kubelet-extra-args.sh"].decode().splitlines()[-1] == (
        "KUBELET_EXTRA_ARGS='--memory-manager-policy=Static --topology-manager-policy=single-numa-node "
        "--system-reserved=memory=256Mi --reserved-memory=0:memory=930Mi'"
    )


def test_check_mode_writes_nothing(collections_root, tmp_path):
    output = tmp_path / "eks"
    eks_userdata(collections_root, tmp_path, output, "--check")
    assert not output.exists()


def test_an_empty_output_dir_is_refused_and_the_working_directory_untouched(collections_root, tmp_path):
    before = sorted(os.listdir(os.getcwd()))  # ansible-playbook runs here: '' would have been this directory
    result = eks_userdata(collections_root, tmp_path, "", check=False)
    assert result.returncode == 2 and 'kubelet_numa_eks_output_dir: "" must be a directory path on the controller, not empty' in result.stdout, result.stdout
    assert sorted(os.listdir(os.getcwd())) == before


def test_a_symlink_in_the_output_dir_is_replaced_not_written_through(collections_root, tmp_path):
    output = tmp_path / "eks"
    output.mkdir()
    outside = tmp_path / "outside"
    outside.write_text("keep")
    os.symlink(outside, output / "general-m5.user-data.mime")
    eks_userdata(collections_root, tmp_path, output)
    assert outside.read_text() == "keep"
    assert not os.path.islink(output / "general-m5.user-data.mime")


def test_bad_class_writes_nothing_and_names_every_problem(collections_root, tmp_path):
    output = tmp_path / "eks"
    bad = tmp_path / "bad.yml"
    bad.write_text(
        yaml.safe_dump(
            {
                "kubelet_numa_eks_node_classes": [
                    {
                        "name": "a",
                        "instance_type": "m9.huge",
                        "cluster_in_another_part": True,
                        "intent": {"memoryManagerPolicy": "Static"},
                        "topology": {"numa_nodes": [{"id": 0, "memory_bytes": 1 << 33, "cpus": [0]}], "numa_memory_capacity_bytes": 1 << 33},
                    },
                    {
                        "name": "b",
                        "max_pods": 0,
                        "cluster_in_another_part": True,
                        "intent": {"memoryManagerPolicy": "Static"},
                        "topology": {"numa_nodes": [{"id": 0, "memory_bytes": 1 << 33, "cpus": [0]}], "numa_memory_capacity_bytes": 1 << 33},
                    },
                ]
            }
        )
    )
    result = eks_userdata(collections_root, tmp_path, output, "-e", f"@{bad}", check=False)
    assert result.returncode == 2, result.stdout
    assert "node_classes[0] (a): unknown EC2 instance type 'm9.huge'" in result.stdout
    assert "node_classes[1] (b): max_pods must be a positive integer (the node's maxPods), got 0" in result.stdout
    assert not output.exists()
