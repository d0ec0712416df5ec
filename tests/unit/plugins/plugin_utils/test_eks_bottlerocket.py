# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Bottlerocket node classes: TOML settings user data, checked the way Bottlerocket renders and Karpenter rewrites it
(_eks_bottlerocket). The kubelet config is rebuilt by the re-stated template (bottlerocket_kubelet_config), not by the
module's own model."""

from __future__ import annotations

import copy
import tomllib

import pytest
import yaml

from ansible_collections.numa.kubelet.plugins.plugin_utils._eks_userdata import render_node_classes
from ansible_collections.numa.kubelet.plugins.plugin_utils._validation import check_kubelet_config
from ansible_collections.numa.kubelet.tests.unit.plugins.plugin_utils.bottlerocket_kubelet_config import karpenter_rewrite, template_kubelet_config
from ansible_collections.numa.kubelet.tests.unit.plugins.plugin_utils.eks_node_classes import CA, STATIC, TWO_NODES, problems_of

BOTTLEROCKET_SPEC = {
    "role": "KarpenterNodeRole",
    "amiSelectorTerms": [{"alias": "bottlerocket@latest"}],
    "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "my-cluster"}}],
    "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "my-cluster"}}],
}
CLUSTER = {"name": "my-cluster", "apiServerEndpoint": "https://example.com", "certificateAuthority": CA}


def bottlerocket_class(with_karpenter=True, **overrides):
    base = {"name": "m5", "ami_family": "Bottlerocket", "instance_type": "m5.large", "topology": copy.deepcopy(TWO_NODES), "intent": dict(STATIC)}
    if with_karpenter:
        base["karpenter"] = {"spec": copy.deepcopy(BOTTLEROCKET_SPEC), "version": "1.15.0"}
    else:
        base["cluster"] = dict(CLUSTER)
    return dict(base, **overrides)


# m5.large: max-pods 29, kube-reserved 11*29+255 = 574Mi, + the kubelet's default 100Mi eviction = 674Mi = 337Mi x 2.
M5_TOML = """# Ansible managed
[settings.kubernetes]
memory-manager-policy = "Static"
topology-manager-policy = "single-numa-node"

[settings.kubernetes.kube-reserved]
memory = "574Mi"

[settings.kubernetes.memory-manager-reserved-memory.0]
enabled = true
memory = "337Mi"

[settings.kubernetes.memory-manager-reserved-memory.1]
enabled = true
memory = "337Mi"
"""


def test_exact_bytes_of_a_karpenter_class():
    rendered = render_node_classes([bottlerocket_class()], header="Ansible managed")
    assert sorted(rendered["files"]) == ["m5.ec2nodeclass.yaml", "m5.user-data.toml"]
    assert rendered["files"]["m5.user-data.toml"] == M5_TOML
    ec2nodeclass = yaml.safe_load(rendered["files"]["m5.ec2nodeclass.yaml"])
    assert ec2nodeclass["spec"]["userData"] == M5_TOML
    assert ec2nodeclass["spec"]["kubelet"] == {"kubeReserved": {"memory": "574Mi"}}
    assert rendered["classes"]["m5"]["reservation"] == "674Mi"


@pytest.mark.parametrize(
    "intent, karpenter_kubelet, expected",
    [
        (STATIC, {}, "674Mi"),
        (dict(STATIC, topologyManagerScope="pod", cpuManagerPolicy="static", systemReserved={"cpu": "100m", "memory": "512Mi"}), {}, "1186Mi"),
        (dict(STATIC, evictionHard={"memory.available": "300Mi", "nodefs.available": "10%"}, kubeReserved={"memory": "1Gi"}), {}, "1324Mi"),
        # spec.kubelet's maps replace the settings whole: they are the class's reservation
        (STATIC, {"kubeReserved": {"cpu": "200m", "memory": "2Gi"}, "systemReserved": {"memory": "512Mi"}}, "2660Mi"),
    ],
)
def test_the_template_renders_what_the_engine_planned_and_the_engine_accepts_it(intent, karpenter_kubelet, expected):
    karpenter = {"spec": copy.deepcopy(BOTTLEROCKET_SPEC), "version": "1.15.0", "kubelet": karpenter_kubelet}
    rendered = render_node_classes([bottlerocket_class(intent=intent, karpenter=karpenter)])
    details = rendered["classes"]["m5"]
    ec2nodeclass = yaml.safe_load(rendered["files"]["m5.ec2nodeclass.yaml"])
    # Karpenter rewrites the user data with spec.kubelet and max-pods; the template renders the kubelet config.
    kubernetes = karpenter_rewrite(ec2nodeclass["spec"]["userData"], ec2nodeclass["spec"]["kubelet"], max_pods=29)
    assert (
        kubernetes["memory-manager-reserved-memory"]
        == tomllib.loads(rendered["files"]["m5.user-data.toml"])["settings"]["kubernetes"]["memory-manager-reserved-memory"]
    )
    config = yaml.safe_load(template_kubelet_config(kubernetes, vcpus=4))
    assert config["memoryManagerPolicy"] == "Static"
    assert config["reservedMemory"] == details["reserved_memory"]
    for field in ("kubeReserved", "systemReserved", "evictionHard", "topologyManagerPolicy", "topologyManagerScope", "cpuManagerPolicy", "maxPods"):
        assert config.get(field) == details["kubelet_config"].get(field), field
    assert details["reservation"] == expected
    assert check_kubelet_config(config, [0, 1]).errors == []


def test_a_launch_template_class_carries_the_cluster_settings():
    rendered = render_node_classes([bottlerocket_class(with_karpenter=False)])
    kubernetes = tomllib.loads(rendered["files"]["m5.user-data.toml"])["settings"]["kubernetes"]
    assert (kubernetes["cluster-name"], kubernetes["api-server"], kubernetes["cluster-certificate"]) == ("my-cluster", "https://example.com", CA)
    assert list(rendered["files"]) == ["m5.user-data.toml"]
    assert rendered["classes"]["m5"]["launch"] == "launch template"


def test_without_the_static_policy_no_reserved_memory_is_written():
    rendered = render_node_classes([bottlerocket_class(intent={"topologyManagerPolicy": "best-effort"})])
    kubernetes = tomllib.loads(rendered["files"]["m5.user-data.toml"])["settings"]["kubernetes"]
    assert "memory-manager-reserved-memory" not in kubernetes and "memoryManagerPolicy" not in rendered["classes"]["m5"]["kubelet_config"]


@pytest.mark.parametrize(
    "overrides, phrase",
    [
        # Karpenter releases that would drop the settings, by name
        ({"karpenter": {"spec": BOTTLEROCKET_SPEC, "version": "1.14.1"}}, "Karpenter 1.14.1 drops settings.kubernetes.memory-manager-reserved-memory"),
        ({"karpenter": {"spec": BOTTLEROCKET_SPEC, "version": "v1.9.3"}}, "drops settings.kubernetes.memory-manager-policy and memory-manager-reserved-memory"),
        ({"karpenter": {"spec": BOTTLEROCKET_SPEC}}, "karpenter.version: None must be the Karpenter release that renders the user data"),
        # one NUMA layout per class
        ({"instance_type": ["p4d.24xlarge", "p5.48xlarge"]}, "instance_type: p4d.24xlarge, p5.48xlarge: a Bottlerocket class is one NUMA layout"),
        (
            {"instance_types": {"p4d.24xlarge": TWO_NODES, "p5.48xlarge": TWO_NODES}, "instance_type": None, "topology": None},
            "instance_types: p4d.24xlarge, p5.48xlarge: a Bottlerocket class is one NUMA layout",
        ),
        ({"boot_split": True}, "boot_split: m5.large: a Bottlerocket class is one NUMA layout"),
        # Bottlerocket's settings model (modeled-types) refuses these before the kubelet sees them
        ({"intent": dict(STATIC, kubeReserved={"pid": "100"})}, "settings.kubernetes.kube-reserved.pid: Bottlerocket's settings model"),
        ({"intent": dict(STATIC, systemReserved={"memory": "1 Gi"})}, "settings.kubernetes.system-reserved.memory: '1 Gi' is refused"),
        ({"intent": dict(STATIC, evictionHard={"allocatableMemory.available": "1Gi"})}, "(KubernetesEvictionKey) takes only memory.available"),
        ({"intent": dict(STATIC, evictionHard={"nodefs.available": "100%"})}, "'100%' is refused by Bottlerocket's settings model"),
        ({"intent": dict(STATIC, topologyManagerScope="Pod")}, "'Pod' is refused by Bottlerocket's settings model (TopologyManagerScope"),
        ({"intent": dict(STATIC, memoryManagerPolicy="dynamic")}, "(KubernetesMemoryManagerPolicy takes Static, static, None, none)"),
        ({"intent": dict(STATIC, kubeReserved={"memory": 1073741824})}, "kube-reserved.memory: 1073741824 is refused"),
        # what the model accepts and the kubelet refuses: refused with the kubelet's words
        ({"intent": dict(STATIC, memoryManagerPolicy="static")}, 'memoryManagerPolicy: unknown policy: "static"'),
        ({"intent": dict(STATIC, shutdownGracePeriod="30s")}, "intent.shutdownGracePeriod: no Bottlerocket setting carries it here"),
        ({"intent": dict(STATIC, maxPods=50)}, "intent.maxPods: Karpenter always writes it into the Bottlerocket settings"),
        ({"intent": dict(STATIC, maxPods=50), "karpenter": None, "cluster": CLUSTER}, "intent.maxPods: no Bottlerocket setting carries it here"),
        ({"intent": dict(STATIC, evictionHard={"memory.available": "5%"})}, "evictionHard memory.available is 5%: a percentage"),
        (
            {
                "karpenter": {"spec": BOTTLEROCKET_SPEC, "version": "1.15.0", "kubelet": {"kubeReserved": {"memory": "1Gi"}}},
                "intent": dict(STATIC, kubeReserved={"memory": "2Gi"}),
            },
            "Karpenter replaces settings.kubernetes.kube-reserved whole",
        ),
        (
            {"karpenter": {"spec": dict(BOTTLEROCKET_SPEC, amiSelectorTerms=[{"alias": "al2023@latest"}]), "version": "1.15.0"}},
            "the user data is TOML settings, read only by Bottlerocket",
        ),
        ({"karpenter": {"spec": BOTTLEROCKET_SPEC, "version": "1.15.0"}, "cluster": CLUSTER}, "Karpenter writes the cluster settings"),
        ({"karpenter": None, "cluster": dict(CLUSTER, cidr="10.0.0.0/16")}, "cluster: {"),
        ({"karpenter": None, "cluster_in_another_part": True}, "Bottlerocket user data is one TOML document"),
    ],
)
def test_refused_with_one_clear_message(overrides, phrase):
    node_class = {key: value for key, value in dict(bottlerocket_class(), **overrides).items() if value is not None}
    problems = problems_of([node_class])
    assert any(phrase in problem for problem in problems), problems
