# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The EC2NodeClasses numa.kubelet.eks_userdata writes, on a REAL kube-apiserver with Karpenter's REAL CRD.

Karpenter's EC2NodeClass CRD of v1.14.1 and of its main branch (karpenter/, copied unchanged; main's spec.kubelet takes
any KubeletConfiguration field) is installed in turn on one real kube-apiserver v1.36.2 (../shared/apiserver), and
every test runs against each. Every EC2NodeClass the shipped example and the nodeadm stage's classes produce is created, and
the Bottlerocket classes' (TOML settings as userData) too; each rule eks_userdata enforces for Karpenter (role xor
instanceProfile, the required selector terms, amiFamily without an alias) is shown to be the API server's too: the same
spec with that one fault is refused by the server, with the CRD's message, and the class is refused by eks_userdata
before anything is written.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import time

import pytest
import yaml
from kube_apiserver import ApiServer, skip_without_apiserver

from ansible_collections.numa.kubelet.plugins.plugin_utils._eks_userdata import EksUserDataError, render_node_classes
from ansible_collections.numa.kubelet.tests.playbooks.test_eks_userdata_playbook import example_node_classes

HERE = os.path.dirname(os.path.abspath(__file__))
CRDS = {
    "v1.14.1": os.path.join(HERE, "karpenter", "karpenter.k8s.aws_ec2nodeclasses.yaml"),
    "main": os.path.join(HERE, "karpenter", "karpenter.k8s.aws_ec2nodeclasses.main.yaml"),
}
# A spec.kubelet field v1.14.1's schema does not have: kubectl's strict field validation refuses it there, main's CRD
# keeps it; which of the two the server answers shows which CRD it serves.
PASSTHROUGH_PROBE = {"kubelet": {"memoryManagerPolicy": "Static"}}
SPEC = {
    "role": "KarpenterNodeRole",
    "amiSelectorTerms": [{"alias": "al2023@latest"}],
    "subnetSelectorTerms": [{"id": "subnet-1"}],
    "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "my-cluster"}}],
}
TOPOLOGY = {
    "numa_nodes": [{"id": 0, "memory_bytes": 16 << 30, "cpus": [0, 1]}, {"id": 1, "memory_bytes": 16 << 30, "cpus": [2, 3]}],
    "numa_memory_capacity_bytes": 32 << 30,
}
STATIC = {"memoryManagerPolicy": "Static", "topologyManagerPolicy": "single-numa-node"}


@pytest.fixture(scope="module")
def apiserver(tmp_path_factory):
    skip_without_apiserver()
    if not shutil.which("kubectl"):
        pytest.skip("needs kubectl")
    api = ApiServer(str(tmp_path_factory.mktemp("karpenter-api") / "apiserver"))
    try:
        api.start()
        yield api
    finally:
        api.stop()


def _serves(api, karpenter):
    """Whether the server validates EC2NodeClasses with `karpenter`'s CRD (a CRD's new schema is served a moment after
    it is stored)."""
    good = yaml.safe_load(render_node_classes([karpenter_class("probe")])["files"]["probe.ec2nodeclass.yaml"])
    good["spec"].update(PASSTHROUGH_PROBE)
    result = api.kubectl("create", "--dry-run=server", "-f", "-", stdin=yaml.safe_dump(good), check=False)
    return (result.returncode == 0) == (karpenter == "main")


@pytest.fixture(scope="module", params=sorted(CRDS))
def karpenter_api(request, apiserver):
    """The API server serving the EC2NodeClass CRD of request.param, with no EC2NodeClass left from the other one."""
    apiserver.kubectl("delete", "ec2nodeclasses.karpenter.k8s.aws", "--all", "--wait=true", check=False)
    apiserver.kubectl("apply", "--server-side", "--force-conflicts", "-f", CRDS[request.param])
    apiserver.kubectl("wait", "--for=condition=Established", "--timeout=60s", "crd/ec2nodeclasses.karpenter.k8s.aws")
    deadline = time.monotonic() + 30
    while not _serves(apiserver, request.param):
        assert time.monotonic() < deadline, f"the API server does not serve Karpenter {request.param}'s EC2NodeClass CRD"
        time.sleep(0.5)
    return apiserver


def karpenter_class(name, spec=None, **overrides):
    return dict(
        {
            "name": name,
            "instance_type": "m5.4xlarge",
            "topology": copy.deepcopy(TOPOLOGY),
            "intent": dict(STATIC),
            "karpenter": {"spec": copy.deepcopy(SPEC) if spec is None else spec},
        },
        **overrides,
    )


def mixed_boot_split_class():
    """A 1-, 2- and 4-NUMA-node type behind one class, split at boot (the user data carries the program's part)."""
    one, four = ({"numa_nodes": [{"id": node, "memory_bytes": 16 << 30, "cpus": [2 * node, 2 * node + 1]} for node in range(count)]} for count in (1, 4))
    types = {"m5.xlarge": one, "m5.2xlarge": copy.deepcopy(TOPOLOGY), "m5.4xlarge": four}
    for topology in (one, four):
        topology["numa_memory_capacity_bytes"] = sum(node["memory_bytes"] for node in topology["numa_nodes"])
    mixed = {key: value for key, value in karpenter_class("mixed-boot-split").items() if key not in ("instance_type", "topology")}
    mixed["karpenter"]["kubelet"] = {"kubeReserved": {"memory": "1948Mi"}}
    return dict(mixed, instance_types=types, boot_split=True)


def test_every_ec2nodeclass_written_is_accepted(karpenter_api, collections_root, tmp_path):
    classes = example_node_classes(collections_root, tmp_path) + [
        mixed_boot_split_class(),
        karpenter_class("formula"),
        karpenter_class("pinned", intent=dict(STATIC, kubeReserved={"memory": "4Gi"}, systemReserved={"memory": "1Gi"})),
        karpenter_class(
            "instance-profile",
            spec=dict(
                {k: v for k, v in SPEC.items() if k != "role"},
                instanceProfile="KarpenterProfile",
                amiFamily="AL2023",
                amiSelectorTerms=[{"tags": {"team": "ml"}}],
            ),
        ),
    ]
    classes[-1]["karpenter"]["kubelet"] = {"kubeReserved": {"cpu": "200m", "memory": "2Gi"}}
    rendered = render_node_classes(classes, header="Ansible managed")
    written = sorted(name for name in rendered["files"] if name.endswith(".ec2nodeclass.yaml"))
    assert len(written) == len([item for item in classes if "karpenter" in item]) >= 5
    for name in written:
        result = karpenter_api.kubectl("create", "-f", "-", "--output=json", stdin=rendered["files"][name])
        stored = json.loads(result.stdout)
        assert stored["spec"]["userData"] == rendered["files"][name.replace(".ec2nodeclass.yaml", ".user-data.mime")], name
        assert stored["spec"]["kubelet"] == yaml.safe_load(rendered["files"][name])["spec"]["kubelet"], name


BOTTLEROCKET_SPEC = dict(SPEC, amiSelectorTerms=[{"alias": "bottlerocket@latest"}])


def test_every_bottlerocket_ec2nodeclass_written_is_accepted(karpenter_api):
    """Bottlerocket classes: the EC2NodeClass carries the TOML settings as userData, byte for byte."""

    def bottlerocket(name, spec=None, **overrides):
        node_class = karpenter_class(name, spec=copy.deepcopy(BOTTLEROCKET_SPEC if spec is None else spec), ami_family="Bottlerocket", **overrides)
        node_class["karpenter"]["version"] = "1.15.0"
        return node_class

    classes = [
        bottlerocket("bottlerocket-formula"),
        bottlerocket("bottlerocket-pinned", intent=dict(STATIC, topologyManagerScope="pod", systemReserved={"memory": "1Gi"})),
        bottlerocket(
            "bottlerocket-instance-profile",
            spec=dict(
                {k: v for k, v in SPEC.items() if k != "role"},
                instanceProfile="KarpenterProfile",
                amiFamily="Bottlerocket",
                amiSelectorTerms=[{"tags": {"team": "ml"}}],
            ),
        ),
    ]
    classes[-1]["karpenter"]["kubelet"] = {"kubeReserved": {"cpu": "200m", "memory": "2Gi"}, "evictionHard": {"memory.available": "300Mi"}}
    rendered = render_node_classes(classes, header="Ansible managed")
    written = sorted(name for name in rendered["files"] if name.endswith(".ec2nodeclass.yaml"))
    assert len(written) == len(classes)
    for name in written:
        result = karpenter_api.kubectl("create", "-f", "-", "--output=json", stdin=rendered["files"][name])
        stored = json.loads(result.stdout)
        assert stored["spec"]["userData"] == rendered["files"][name.replace(".ec2nodeclass.yaml", ".user-data.toml")], name
        assert stored["spec"]["kubelet"] == yaml.safe_load(rendered["files"][name])["spec"]["kubelet"], name


@pytest.mark.parametrize(
    "change, server_says, we_say",
    [
        (
            lambda spec: dict(spec, instanceProfile="KarpenterProfile"),
            "must specify exactly one of ['role', 'instanceProfile']",
            "give exactly one of role and instanceProfile",
        ),
        (lambda spec: {k: v for k, v in spec.items() if k != "role"}, "must specify exactly one of ['role', 'instanceProfile']", "it has neither"),
        (
            lambda spec: {k: v for k, v in spec.items() if k != "subnetSelectorTerms"},
            "spec.subnetSelectorTerms: Required value",
            "karpenter.spec.subnetSelectorTerms: None must be a non-empty list",
        ),
        (
            lambda spec: dict(spec, securityGroupSelectorTerms=[]),
            "securityGroupSelectorTerms cannot be empty",
            "karpenter.spec.securityGroupSelectorTerms: [] must be a non-empty list",
        ),
        (
            lambda spec: dict(spec, amiSelectorTerms=[{"id": "ami-0123456789abcdef0"}]),
            "must specify amiFamily if amiSelectorTerms does not contain an alias",
            "so amiFamily is required",
        ),
    ],
    ids=["role-and-instance-profile", "neither", "no-subnet-terms", "empty-security-group-terms", "no-alias-no-family"],
)
def test_what_the_crd_refuses_eks_userdata_refuses(change, server_says, we_say, karpenter_api):
    good = yaml.safe_load(render_node_classes([karpenter_class("good")])["files"]["good.ec2nodeclass.yaml"])
    bad = dict(
        good,
        metadata={"name": "bad"},
        spec=dict(
            change({k: v for k, v in good["spec"].items() if k not in ("kubelet", "userData")}),
            kubelet=good["spec"]["kubelet"],
            userData=good["spec"]["userData"],
        ),
    )
    result = karpenter_api.kubectl("create", "--dry-run=server", "-f", "-", stdin=yaml.safe_dump(bad), check=False)
    assert result.returncode != 0 and server_says in result.stderr, result.stderr
    with pytest.raises(EksUserDataError) as refused:
        render_node_classes([karpenter_class("bad", spec=change(copy.deepcopy(SPEC)))])
    assert any(we_say in problem for problem in refused.value.problems), refused.value.problems
