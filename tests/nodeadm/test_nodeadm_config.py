# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What numa.kubelet plans for EKS AL2023, checked by nodeadm's own configuration code (nodeadm-config).

1. Every user data and EC2NodeClass that numa.kubelet.eks_userdata writes (the shipped example through the playbook,
   and the classes below) is parsed, merged and validated by nodeadm: a Karpenter class through Karpenter v1's own
   merge (`karpenter`: spec.userData, then its NodeConfig with spec.kubelet), then `parse`. The 40-nodeadm.conf
   nodeadm prints is exactly the one the plan built, and layered on nodeadm's base config.json the real kubelet
   (NUMA_KUBELET_ORACLE) accepts it with the planned bytes per NUMA node.
2. What eks_userdata refuses about the cluster, nodeadm fails on too (or drops, and then fails validation).
3. A setting removed from the intent: `chain` over the user data and the node's /etc/eks/nodeadm.d gives the
   40-nodeadm.conf, and the reservation, that the node plan said.
"""

from __future__ import annotations

import base64
import copy
import json
import os
import subprocess

import pytest
import yaml

from ansible_collections.numa.kubelet.plugins.plugin_utils._allocatable import memory_reservation
from ansible_collections.numa.kubelet.plugins.plugin_utils._effective import effective_kubelet_config
from ansible_collections.numa.kubelet.plugins.plugin_utils._eks_al2023 import mime_user_data
from ansible_collections.numa.kubelet.plugins.plugin_utils._eks_userdata import EksUserDataError, render_node_classes
from ansible_collections.numa.kubelet.tests.oracle.test_real_kubelet import (
    KubeletInputs,
    filled,
    quantity_bytes,
    require_verdict,
)
from ansible_collections.numa.kubelet.tests.playbooks.test_eks_userdata_playbook import eks_userdata, example_node_classes
from ansible_collections.numa.kubelet.tests.unit.plugins.plugin_utils.eks_node_classes import CA, CLUSTER, KARPENTER_SPEC, STATIC
from ansible_collections.numa.kubelet.tests.unit.plugins.plugin_utils.test_plan_nodeadm import (
    BASE,
    BASE_CONFIG,
    NEW_INTENT,
    OLD_INTENT,
    OURS,
    USER_DATA,
    plan,
)

DROPIN = "/etc/kubernetes/kubelet/config.json.d/40-nodeadm.conf"
API = {"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration"}


def nodeadm_config(script, *args):
    proc = subprocess.run([str(script), *map(str, args)], capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, "nodeadm-config %s: rc %d\n%s" % (" ".join(map(str, args)), proc.returncode, proc.stderr)
    return proc.stdout


def nodeadm_json(script, *args):
    return json.loads(nodeadm_config(script, *args))


def what_nodeadm_reads(script, directory, name, files):
    """nodeadm's parse of a class's user data: for Karpenter, the user data Karpenter v1 hands the instance."""
    user_data = directory / (f"{name}.user-data.mime")
    user_data.write_text(files[f"{name}.user-data.mime"], encoding="utf-8")
    ec2nodeclass = files.get(f"{name}.ec2nodeclass.yaml")
    if ec2nodeclass is None:
        return nodeadm_json(script, "parse", user_data), None
    spec = yaml.safe_load(ec2nodeclass)["spec"]
    assert spec["userData"] == files[f"{name}.user-data.mime"]
    kubelet = directory / (f"{name}.kubelet.json")
    kubelet.write_text(json.dumps(spec["kubelet"]), encoding="utf-8")
    merged = directory / (f"{name}.karpenter.mime")
    merged.write_bytes(base64.b64decode(nodeadm_config(script, "karpenter", user_data, kubelet)))
    return nodeadm_json(script, "parse", merged), spec


def kubelet_spec(topology):
    """kubelet-check's fake NUMA nodes for a class's topology (all nodes the same size, in whole KiB)."""
    sizes = {node["memory_bytes"] for node in topology["numa_nodes"]}
    assert len(sizes) == 1 and next(iter(sizes)) % 1024 == 0, topology
    return "%dx%dKi" % (len(topology["numa_nodes"]), next(iter(sizes)) >> 10)


def planned_bytes(reserved, count):
    planned = {node: 0 for node in range(count)}
    for item in reserved:
        planned[item["numaNode"]] += quantity_bytes(item["limits"]["memory"])
    return planned


def check_on_the_real_kubelet(kubelet_oracle, topology, base, dropin, reserved, what):
    """Without NUMA_KUBELET_ORACLE only test_the_real_kubelet_accepts_the_example_as_nodeadm_writes_it says so (skipped)."""
    if kubelet_oracle is None:
        return
    inputs = KubeletInputs(kubelet_spec(topology), yaml.safe_dump(base, sort_keys=False), [("40-nodeadm.conf", json.dumps(dropin, indent=2) + "\n")])
    verdict = require_verdict(kubelet_oracle.check(inputs), inputs)
    explain = f"{what}\n{inputs.describe()}\n{verdict.output}"
    assert verdict.kind == "ACCEPTED", f"BUG: the real kubelet refuses what nodeadm writes: {verdict.text}\n{explain}"
    count = len(topology["numa_nodes"])
    assert filled(verdict.reserved, count) == planned_bytes(reserved, count), explain


# ------------------------------------------------------------------------------------------------ 1. every class
def _topology(count, gib, cpus_per_node):
    return {
        "numa_nodes": [{"id": node, "memory_bytes": gib << 30, "cpus": list(range(node * cpus_per_node, (node + 1) * cpus_per_node))} for node in range(count)],
        "numa_memory_capacity_bytes": count * (gib << 30),
    }


# Besides the shipped example: each kind of class the unit tests render (launch template with its cluster, a managed
# node group's with the cluster in another part, Karpenter with and without spec.kubelet, pinned and formula).
CLASSES = [
    {"name": "lt-m5", "instance_type": "m5.large", "topology": _topology(2, 16, 2), "intent": dict(STATIC), "cluster": dict(CLUSTER)},
    {
        "name": "mng-m5",
        "instance_type": "m5.2xlarge",
        "topology": _topology(1, 32, 8),
        "cluster_in_another_part": True,
        "intent": dict(STATIC, systemReserved={"memory": "768Mi"}),
        "split": "first",
    },
    {
        "name": "karpenter-formula",
        "instance_type": "m5.4xlarge",
        "topology": _topology(2, 32, 8),
        "intent": dict(STATIC),
        "karpenter": {"spec": copy.deepcopy(KARPENTER_SPEC)},
    },
    {
        "name": "karpenter-pinned",
        "instance_type": "p4d.24xlarge",
        "topology": _topology(2, 554, 48),
        "intent": dict(STATIC, kubeReserved={"memory": "8500Mi"}),
        "karpenter": {"spec": copy.deepcopy(KARPENTER_SPEC)},
    },
    {
        "name": "karpenter-kubelet",
        "instance_type": "m5.4xlarge",
        "topology": _topology(2, 32, 8),
        "intent": dict(STATIC, systemReserved={"memory": "1Gi"}),
        "split": "proportional",
        "karpenter": {
            "spec": copy.deepcopy(KARPENTER_SPEC),
            "kubelet": {"kubeReserved": {"cpu": "200m", "memory": "1Gi"}, "evictionHard": {"memory.available": "300Mi", "nodefs.available": "10%"}},
        },
    },
]


@pytest.fixture(scope="session")
def example_rendered(collections_root, tmp_path_factory):
    """The shipped example (playbooks/vars/eks_node_classes.yml) through the playbook, and its classes as planned."""
    work = tmp_path_factory.mktemp("eks-example")
    output = work / "eks"
    eks_userdata(collections_root, work, output)
    files = {path.name: path.read_text(encoding="utf-8") for path in output.iterdir()}
    # The same classes as Ansible templates them (the example's cpus are Jinja ranges), planned in-process for the details.
    classes = example_node_classes(collections_root, work)
    rendered = render_node_classes(classes, header=None)
    return {"files": files, "classes": {item["name"]: item for item in classes}, "details": rendered["classes"]}


def _al2023(rendered):
    return sorted(name for name, details in rendered["details"].items() if details["ami_family"] == "AL2023")


def test_the_example_has_both_kinds(example_rendered):
    assert _al2023(example_rendered) == ["batch-r5", "general-m5", "gpu-p4d"]


def _check_class(script, directory, name, files, details, node_class):
    result, spec = what_nodeadm_reads(script, directory, name, files)
    explain = f"{name}\n{json.dumps(result, indent=2)}"
    assert result["ok"], explain
    if node_class.get("cluster_in_another_part"):
        assert result["validate"] == "Name is missing in cluster configuration", explain  # until the other part comes
    else:
        assert result["validate"] == "ok", explain
    # The 40-nodeadm.conf nodeadm writes is the one the plan built (Karpenter's NodeConfig included, merged last).
    planned = details["kubelet_inputs"]["dropins"][0]["content"]
    assert result["dropin"] == planned, explain
    if spec is not None:
        # Karpenter's overhead (kubeReserved + systemReserved + evictionHard memory) is what the node reserves.
        overhead = sum(
            quantity_bytes((spec["kubelet"].get(field) or {}).get(key, "0"))
            for field, key in (("kubeReserved", "memory"), ("systemReserved", "memory"), ("evictionHard", "memory.available"))
        )
        assert overhead == quantity_bytes(details["reservation"]), explain
    return result


def test_nodeadm_reads_the_example_as_planned(example_rendered, nodeadm_config_path, tmp_path):
    for name in _al2023(example_rendered):
        _check_class(nodeadm_config_path, tmp_path, name, example_rendered["files"], example_rendered["details"][name], example_rendered["classes"][name])


@pytest.mark.parametrize("node_class", CLASSES, ids=[item["name"] for item in CLASSES])
def test_nodeadm_reads_each_class_as_planned(node_class, nodeadm_config_path, tmp_path, kubelet_oracle):
    rendered = render_node_classes([copy.deepcopy(node_class)], header="Ansible managed")
    details = rendered["classes"][node_class["name"]]
    result = _check_class(nodeadm_config_path, tmp_path, node_class["name"], rendered["files"], details, node_class)
    check_on_the_real_kubelet(
        kubelet_oracle, node_class["topology"], details["kubelet_inputs"]["config"]["content"], result["dropin"], details["reserved_memory"], node_class["name"]
    )


def test_the_real_kubelet_accepts_the_example_as_nodeadm_writes_it(example_rendered, nodeadm_config_path, tmp_path, kubelet_oracle):
    if kubelet_oracle is None:
        pytest.skip("NUMA_KUBELET_ORACLE is unset: the real kubelet is not here to check what nodeadm writes (here or in the other tests)")
    for name in _al2023(example_rendered):
        details = example_rendered["details"][name]
        result, _spec = what_nodeadm_reads(nodeadm_config_path, tmp_path, name, example_rendered["files"])
        check_on_the_real_kubelet(
            kubelet_oracle,
            example_rendered["classes"][name]["topology"],
            details["kubelet_inputs"]["config"]["content"],
            result["dropin"],
            details["reserved_memory"],
            name,
        )


# ------------------------------------------------------------------------------------------------ 2. refused clusters
@pytest.mark.parametrize(
    "cluster, refusal, nodeadm_says",
    [
        (dict(CLUSTER, certificateAuthority=base64.b64decode(CA).decode()), "certificateAuthority is a PEM", "illegal base64 data"),
        (
            {
                key: (value if key != "apiServerEndpoint" else None)
                for key, value in dict(CLUSTER, apiserverEndpoint="https://x").items()
                if key != "apiServerEndpoint"
            },
            "cluster.apiserverEndpoint: NodeConfig spec.cluster has no such field",
            "Apiserver endpoint is missing in cluster configuration",
        ),
        ({key: value for key, value in CLUSTER.items() if key != "cidr"}, "cidr missing", "CIDR is missing in cluster configuration"),
    ],
    ids=["pem-ca", "misspelt-key", "incomplete"],
)
def test_what_eks_userdata_refuses_about_the_cluster_nodeadm_fails_on(cluster, refusal, nodeadm_says, nodeadm_config_path, tmp_path):
    node_class = {"name": "m5", "instance_type": "m5.large", "topology": _topology(1, 16, 2), "intent": dict(STATIC), "cluster": cluster}
    with pytest.raises(EksUserDataError) as refused:
        render_node_classes([node_class])
    assert any(refusal in problem for problem in refused.value.problems), refused.value.problems
    # The user data as it would have been written: nodeadm cannot decode it, or decodes it and refuses it.
    written = render_node_classes([dict(node_class, cluster=None, cluster_in_another_part=True)])["classes"]["m5"]["nodeconfig"]
    user_data = tmp_path / "user-data.mime"
    user_data.write_text(mime_user_data(dict(written, spec=dict({"cluster": cluster}, **written["spec"]))), encoding="utf-8")
    result = nodeadm_json(nodeadm_config_path, "parse", user_data)
    assert nodeadm_says in (result.get("error") or result.get("validate") or ""), result


# ------------------------------------------------------------------------------------------------ 3. a removed setting
def _write_nodeadm_d(directory, files):
    for path, text in files.items():
        if path.startswith("/etc/eks/nodeadm.d/"):
            (directory / os.path.basename(path)).write_text(text, encoding="utf-8")


def test_removing_a_setting_gives_what_nodeadm_builds_at_the_next_boot(nodeadm_config_path, tmp_path, kubelet_oracle):
    user_data = tmp_path / "user-data"
    user_data.write_text(USER_DATA, encoding="utf-8")
    nodeadm_d = tmp_path / "nodeadm.d"
    nodeadm_d.mkdir()
    # A site file with two documents: nodeadm reads only the first (evictionHard 300Mi), never the 1Gi systemReserved.
    site = (
        "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      evictionHard:\n"
        "        memory.available: 300Mi\n---\napiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n"
        "      systemReserved:\n        memory: 1Gi\n"
    )
    files = {BASE: BASE_CONFIG, "/etc/eks/nodeadm.d/10-site.yaml": site}
    # The role applied the old intent (systemReserved 512Mi); nodeadm-run rebuilt 40-nodeadm.conf.
    old = plan(files, OLD_INTENT, kubelet_numa_nodeadm_user_data=USER_DATA)
    files[OURS] = "# Ansible managed\n" + yaml.safe_dump(old["files"][0]["content"], sort_keys=False)
    _write_nodeadm_d(nodeadm_d, files)
    booted = nodeadm_json(nodeadm_config_path, "chain", user_data, nodeadm_d)
    assert booted["ok"] and booted["validate"] == "ok", booted
    assert booted["dropin"] == old["kubelet_inputs"]["dropins"][0]["content"]
    files[DROPIN] = json.dumps(booted["dropin"], indent=2)
    assert str(memory_reservation(old["kubelet_config"]).total) == "2860Mi"  # 2Gi + 512Mi + 300Mi
    # Now systemReserved leaves the intent: planned with the user data, and inferred without it.
    exact = plan(files, NEW_INTENT, kubelet_numa_nodeadm_user_data=USER_DATA)
    inferred = plan(files, NEW_INTENT)
    assert inferred["kubelet_config"] == exact["kubelet_config"] and exact["restart"] == inferred["restart"] == "reset"
    files[OURS] = "# Ansible managed\n" + yaml.safe_dump(exact["files"][0]["content"], sort_keys=False)
    _write_nodeadm_d(nodeadm_d, files)
    next_boot = nodeadm_json(nodeadm_config_path, "chain", user_data, nodeadm_d)
    assert next_boot["ok"] and next_boot["validate"] == "ok", next_boot
    assert next_boot["dropin"] == exact["kubelet_inputs"]["dropins"][0]["content"]
    base = json.loads(BASE_CONFIG)
    total = memory_reservation(effective_kubelet_config(base, [next_boot["dropin"]])).total
    assert str(total) == str(memory_reservation(exact["kubelet_config"]).total) == "2348Mi"  # 2Gi + 300Mi: no 512Mi left
    check_on_the_real_kubelet(kubelet_oracle, _topology(2, 16, 2), base, next_boot["dropin"], exact["reserved_memory"], "the intent without systemReserved")
