# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The planning play of examples/lablabs-rke2.yml through ansible-playbook on the controller, in check mode: what it
hands lablabs.rke2 for a mixed inventory (a server with its own options, an agent with its own rke2_kubelet_arg, a host
without intent), read from lablabs' own variables and groups, with nothing installed yet."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BIN = os.path.dirname(sys.executable)
INTENT = {"memoryManagerPolicy": "Static", "topologyManagerPolicy": "single-numa-node", "kubeReserved": {"memory": "1Gi"}, "systemReserved": {"memory": "1Gi"}}
TOPOLOGY = {
    "numa_nodes": [{"id": 0, "memory_bytes": 16 << 30, "cpus": [0]}, {"id": 1, "memory_bytes": 16 << 30, "cpus": [1]}],
    "numa_memory_capacity_bytes": 32 << 30,
}
OUTPUTS = ["kubelet_numa_rke2_server_options", "kubelet_numa_rke2_agent_options", "kubelet_numa_rke2_kubelet_arg", "kubelet_numa_rke2_kubelet_config"]


def test_planning_play_hands_each_host_its_own_values_merged(collections_root, tmp_path):
    with open(os.path.join(REPO, "examples", "lablabs-rke2.yml"), encoding="utf-8") as handle:
        planning = yaml.safe_load(handle)[0]
    local = {
        "ansible_connection": "local",
        "ansible_python_interpreter": sys.executable,
        # No RKE2 on this machine: its files as on a fresh node, and the kubelet's checkpoints under tmp.
        "kubelet_numa_node_files": {"/etc/rancher/rke2/config.yaml": None},
        "kubelet_numa_topology": TOPOLOGY,
        "kubelet_numa_kubelet_root_dir": str(tmp_path / "kubelet"),
    }
    inventory = {
        "all": {
            "vars": {"rke2_version": "v1.32.5+rke2r1"},
            "children": {
                "k8s_cluster": {
                    "children": {
                        "masters": {"hosts": {"server-1": dict(local, kubelet_numa_config=INTENT, rke2_server_options=["node-ip: 192.0.2.11"])}},
                        "workers": {
                            "hosts": {
                                "agent-1": dict(local, kubelet_numa_config=INTENT, rke2_kubelet_arg=["--kube-reserved=cpu=100m"]),
                                "plain-1": dict(local, rke2_agent_options=["node-label: [plain=true]"]),
                            }
                        },
                    }
                }
            },
        }
    }
    (tmp_path / "inventory.yml").write_text(yaml.safe_dump(inventory, sort_keys=False))
    keep = {
        "name": "What lablabs.rke2 gets",
        "hosts": "k8s_cluster",
        "gather_facts": False,
        "tasks": [
            {
                "name": "Keep it",
                "ansible.builtin.copy": {
                    "content": "{{ {%s} | to_json }}" % ", ".join("'%s': %s | default('UNDEFINED')" % (name, name) for name in OUTPUTS),
                    "dest": str(tmp_path) + "/{{ inventory_hostname }}.json",
                    "mode": "0600",
                },
                "check_mode": False,
                "delegate_to": "localhost",
            }
        ],
    }
    (tmp_path / "play.yml").write_text(yaml.safe_dump([planning, keep], sort_keys=False))
    env = dict(
        os.environ,
        ANSIBLE_COLLECTIONS_PATH=str(collections_root),
        ANSIBLE_HOME=str(tmp_path / "ansible-home"),
        ANSIBLE_LOCAL_TEMP=str(tmp_path / "ansible-tmp"),
        ANSIBLE_NOCOLOR="1",
    )
    result = subprocess.run(
        [os.path.join(BIN, "ansible-playbook"), "-i", str(tmp_path / "inventory.yml"), "--check", str(tmp_path / "play.yml")],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    handed = {host: json.loads((tmp_path / (host + ".json")).read_text()) for host in ("server-1", "agent-1", "plain-1")}
    items = [
        "memory-manager-policy=Static",
        "topology-manager-policy=single-numa-node",
        "kube-reserved=memory=1Gi",
        "system-reserved=memory=1Gi",
        "reserved-memory=0:memory=1Gi;1:memory=1Gi",
    ]
    # RKE2 role and version from lablabs' groups and rke2_version: nothing was asked of the (absent) rke2 binary.
    assert handed["server-1"] == {
        "kubelet_numa_rke2_server_options": ["node-ip: 192.0.2.11", "kubelet-arg: " + json.dumps(items)],
        "kubelet_numa_rke2_agent_options": [],
        "kubelet_numa_rke2_kubelet_arg": "UNDEFINED",
        "kubelet_numa_rke2_kubelet_config": {},
    }
    assert handed["agent-1"] == {
        "kubelet_numa_rke2_server_options": [],
        "kubelet_numa_rke2_agent_options": [],
        "kubelet_numa_rke2_kubelet_arg": ["--kube-reserved=cpu=100m"] + items,
        "kubelet_numa_rke2_kubelet_config": {},
    }
    assert handed["plain-1"] == {
        "kubelet_numa_rke2_server_options": [],
        "kubelet_numa_rke2_agent_options": ["node-label: [plain=true]"],
        "kubelet_numa_rke2_kubelet_arg": "UNDEFINED",
        "kubelet_numa_rke2_kubelet_config": {},
    }
