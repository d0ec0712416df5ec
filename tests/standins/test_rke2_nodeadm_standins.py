# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The RKE2 and nodeadm stand-ins turn their platform's config into kubelet flags and drop-ins like the real ones."""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

import pytest
import yaml

STANDINS = Path(__file__).resolve().parent / "image"
RKE2 = STANDINS / "rke2-standin"
NODEADM = STANDINS / "nodeadm-standin"

GI = 1024**3
V131 = {"RKE2_STANDIN_VERSION": "v1.31.4+rke2r1"}


def rke2_args(host, env=None):
    """The kubelet argv the RKE2 stand-in would exec."""
    result = host.run(RKE2, ["server", "--print-args"], env)
    assert result.rc == 0, result.stderr
    return json.loads(result.stdout)


# ------------------------------------------------------------------------------------------------ RKE2
def test_rke2_later_kubelet_arg_replaces_and_plus_appends(host):
    host.write("/etc/rancher/rke2/config.yaml", {"kubelet-arg": ["max-pods=200", "cpu-manager-policy=static"]})
    host.write("/etc/rancher/rke2/config.yaml.d/10-a.yaml", {"kubelet-arg+": ["kube-reserved=cpu=100m"]})
    host.write("/etc/rancher/rke2/config.yaml.d/20-b.yaml", {"kubelet-arg": ["memory-manager-policy=Static"]})
    host.write("/etc/rancher/rke2/config.yaml.d/30-c.yaml", {"kubelet-arg+": "system-reserved=memory=1Gi"})
    args = rke2_args(host)
    assert "--memory-manager-policy=Static" in args
    assert "--system-reserved=memory=1Gi" in args
    assert not [a for a in args if a.startswith(("--max-pods", "--cpu-manager-policy", "--kube-reserved"))]


def test_rke2_items_become_single_argv_entries_and_repeat(host):
    host.write(
        "/etc/rancher/rke2/config.yaml",
        {"kubelet-arg": ["reserved-memory=0:memory=1Gi;1:memory=1Gi", "eviction-hard=imagefs.available<5%", "eviction-hard=memory.available<100Mi"]},
    )
    args = rke2_args(host)
    assert "--reserved-memory=0:memory=1Gi;1:memory=1Gi" in args
    assert [a for a in args if a.startswith("--eviction-hard=")] == ["--eviction-hard=imagefs.available<5%", "--eviction-hard=memory.available<100Mi"]


def test_rke2_before_132_passes_eviction_as_a_flag_that_users_replace(host):
    assert "--eviction-hard=imagefs.available<5%,nodefs.available<5%" in rke2_args(host, V131)
    host.write("/etc/rancher/rke2/config.yaml", {"kubelet-arg": ["eviction-hard=memory.available<200Mi"]})
    args = rke2_args(host, V131)
    assert [a for a in args if a.startswith("--eviction-hard=")] == ["--eviction-hard=memory.available<200Mi"]
    assert not [a for a in args if a.startswith("--config-dir")]


@pytest.fixture
def k3s_standin(tmp_path):
    """rke2-standin under the name the test host installs it as for k3s (k3s-standin): the same agent code."""
    path = tmp_path / "bin" / "k3s-standin"
    path.parent.mkdir()
    shutil.copy(RKE2, path)
    return path


def test_as_k3s_standin_it_reads_k3s_paths_and_before_132_passes_the_eviction_flag(host, k3s_standin):
    host.write("/etc/rancher/rke2/config.yaml", {"kubelet-arg": ["max-pods=10"]})
    host.write("/etc/rancher/k3s/config.yaml", {"kubelet-arg": ["max-pods=200"]})
    host.write("/etc/rancher/k3s/config.yaml.d/50-x.yaml", {"kubelet-arg+": ["kube-reserved=memory=1Gi"]})
    result = host.run(k3s_standin, ["agent", "--print-args"], {"K3S_STANDIN_VERSION": "v1.31.9+k3s1"})
    assert result.rc == 0, result.stderr
    assert json.loads(result.stdout) == [
        "--eviction-hard=imagefs.available<5%,nodefs.available<5%",
        "--eviction-minimum-reclaim=imagefs.available=10%,nodefs.available=10%",
        "--kube-reserved=memory=1Gi",
        "--kubeconfig=/var/lib/rancher/k3s/agent/kubelet.kubeconfig",
        "--max-pods=200",
        "--root-dir=/var/lib/kubelet",
    ]


def test_as_k3s_standin_from_132_it_writes_00_k3s_defaults_and_passes_config_dir(host, k3s_standin):
    rke2_numa_config(host, "924Mi")
    host.write("/etc/rancher/k3s/config.yaml", yaml.safe_load(host.path("/etc/rancher/rke2/config.yaml").read_text(encoding="utf-8")))
    result = host.run(k3s_standin, ["server"])
    assert result.rc == 0, result.stderr
    assert result.start["result"] == "started", result.start["error"]
    assert "--config-dir=/var/lib/rancher/k3s/agent/etc/kubelet.conf.d" in result.start["argv"]
    assert host.path("/var/lib/rancher/k3s/agent/etc/kubelet.conf.d/00-k3s-defaults.conf").exists()
    assert not host.path("/var/lib/rancher/rke2").exists()
    assert "k3s-standin (not k3s) server v1.32.5+k3s1" in result.stderr


def rke2_numa_config(host, reserved):
    """RKE2 config for the Static memory manager with 512Mi + 412Mi reserved."""
    host.write(
        "/etc/rancher/rke2/config.yaml",
        {
            "kubelet-arg": [
                "memory-manager-policy=Static",
                "kube-reserved=memory=512Mi",
                "system-reserved=memory=412Mi",
                f"reserved-memory=0:memory={reserved}",
            ]
        },
    )


def test_rke2_132_defaults_dropin_is_the_whole_eviction_map(host):
    # RKE2 >= 1.32 passes --config-dir and no --config, so the kubelet never applies its default evictionHard map
    # (server.go loadConfigFile); the real kubelet v1.36.2 accepted 924Mi and refused 1Gi for 512Mi + 412Mi.
    rke2_numa_config(host, "1Gi")
    refused = host.run(RKE2, ["server"])
    assert refused.rc == 1
    assert 'the total amount "1Gi" of type "memory" is not equal to the value "924Mi"' in refused.start["error"]
    rke2_numa_config(host, "924Mi")
    result = host.run(RKE2, ["server"])
    assert result.rc == 0, result.stderr
    assert result.start["result"] == "started", result.start["error"]
    assert "--config-dir=/var/lib/rancher/rke2/agent/etc/kubelet.conf.d" in result.start["argv"]
    assert host.path("/var/lib/rancher/rke2/agent/etc/kubelet.conf.d/00-rke2-defaults.conf").exists()
    assert result.start["effective_config"]["evictionHard"] == {"nodefs.available": "5%", "imagefs.available": "5%"}
    assert host.state()["machineState"]["0"]["memoryMap"]["memory"]["systemReserved"] == 924 << 20


def test_rke2_before_132_has_no_memory_eviction_term(host):
    rke2_numa_config(host, "1Gi")
    result = host.run(RKE2, ["agent"], V131)
    assert result.rc == 1
    assert result.start["error"] == ('the total amount "1Gi" of type "memory" is not equal to the value "924Mi" determined by Node Allocatable feature')
    rke2_numa_config(host, "924Mi")
    assert host.run(RKE2, ["agent"], V131).start["result"] == "started"


def test_rke2_rejects_a_kubelet_arg_that_is_not_a_list_of_strings(host):
    host.write("/etc/rancher/rke2/config.yaml.d/50-bad.yaml", {"kubelet-arg": {"max-pods": 10}})
    result = host.run(RKE2, ["server", "--print-args"])
    assert result.rc == 1
    assert "/etc/rancher/rke2/config.yaml.d/50-bad.yaml: kubelet-arg must be a string or a list of strings" in result.stderr


# ------------------------------------------------------------------------------------------------ nodeadm
def nodeconfig(config=None, flags=None):
    """A NodeConfig document."""
    kubelet = {}
    if config is not None:
        kubelet["config"] = config
    if flags is not None:
        kubelet["flags"] = flags
    return {"apiVersion": "node.eks.aws/v1alpha1", "kind": "NodeConfig", "spec": {"kubelet": kubelet}}


def environment(host):
    """The variables of the environment file nodeadm writes for kubelet.service."""
    values = {}
    for line in host.path("/etc/eks/kubelet/environment").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            key, _separator, value = line.partition("=")
            # systemd removes the quotes, then $VAR in ExecStart splits the value at whitespace.
            values[key] = " ".join(shlex.split(value)).split()
    return values


def test_nodeadm_merges_nodeconfigs_into_the_40_dropin_and_flags(host):
    host.write(
        "/etc/eks/nodeadm.d/10-numa.yaml",
        nodeconfig(
            {"memoryManagerPolicy": "Static", "kubeReserved": {"memory": "900Mi"}, "reservedMemory": [{"numaNode": 0, "limits": {"memory": "1Gi"}}]},
            ["--node-labels=a=b"],
        ),
    )
    host.write("/etc/eks/nodeadm.d/20-override.yaml", nodeconfig({"kubeReserved": {"memory": "924Mi"}}, ["--reserved-memory=0:memory=1Gi"]))
    result = host.run(NODEADM, [])
    assert result.rc == 0, result.stderr
    dropin = json.loads(host.path("/etc/kubernetes/kubelet/config.json.d/40-nodeadm.conf").read_text())
    assert dropin["kind"] == "KubeletConfiguration"
    assert dropin["kubeReserved"] == {"memory": "924Mi"}
    assert dropin["reservedMemory"] == [{"numaNode": 0, "limits": {"memory": "1Gi"}}]
    env = environment(host)
    assert env["KUBELET_CONFIG_ARGS"] == ["--config=/etc/kubernetes/kubelet/config.json", "--config-dir=/etc/kubernetes/kubelet/config.json.d"]
    assert env["NODEADM_KUBELET_ARGS"] == ["--node-labels=a=b", "--reserved-memory=0:memory=1Gi"]
    # The kubelet stand-in started with those arguments: 924Mi + 0 + nodeadm's 100Mi eviction = 1Gi.
    start = host.kubelet(*(env["KUBELET_CONFIG_ARGS"] + env["NODEADM_KUBELET_ARGS"]))
    assert start.rc == 0, start.stderr
    assert start.start["effective_config"]["evictionHard"]["memory.available"] == "100Mi"
    assert start.start["effective_config"]["kubeReserved"]["ephemeral-storage"] == "1Gi"


def test_nodeadm_base_config_reserves_like_nodeadm(host):
    assert host.run(NODEADM, [], {"NODEADM_STANDIN_MAX_PODS": "737"}).rc == 0
    base = json.loads(host.path("/etc/kubernetes/kubelet/config.json").read_text())
    assert base["kubeReserved"]["memory"] == "8362Mi"
    assert base["kubeReserved"]["cpu"] == "60m"  # one CPU in the fake host
    assert base["evictionHard"]["memory.available"] == "100Mi"


def test_nodeadm_without_kubelet_config_passes_no_config_dir(host):
    host.write("/etc/kubernetes/kubelet/config.json.d/40-nodeadm.conf", "{}")
    host.write("/etc/eks/nodeadm.d/10-flags.yaml", nodeconfig(flags=["--max-pods=20"]))
    assert host.run(NODEADM, []).rc == 0
    assert not host.path("/etc/kubernetes/kubelet/config.json.d/40-nodeadm.conf").exists()
    assert environment(host)["KUBELET_CONFIG_ARGS"] == ["--config=/etc/kubernetes/kubelet/config.json"]


def test_nodeadm_rejects_a_document_that_is_not_a_nodeconfig(host):
    host.write("/etc/eks/nodeadm.d/30-wrong.yaml", {"apiVersion": "v1", "kind": "ConfigMap"})
    result = host.run(NODEADM, [])
    assert result.rc == 1
    assert ("/etc/eks/nodeadm.d/30-wrong.yaml: every document must be apiVersion node.eks.aws/v1alpha1, kind NodeConfig") in result.stderr
