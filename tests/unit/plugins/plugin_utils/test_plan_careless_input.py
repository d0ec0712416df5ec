# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Careless input to the planning core (plan_host): each case a named error (variable or file, value, rule) or a correct
acceptance; never a Python error, never an internal type name. The same for the filters is in tests/unit/plugins/filter."""

from __future__ import annotations

import os

import pytest
import yaml

from ansible_collections.numa.kubelet.plugins.plugin_utils._config import KubeletConfigError
from ansible_collections.numa.kubelet.plugins.plugin_utils._plan import plan_host
from ansible_collections.numa.kubelet.plugins.plugin_utils._validation import check_kubelet_config

ROLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), *[os.pardir] * 4, "roles", "kubelet_numa")
with open(os.path.join(ROLE, "defaults", "main.yml"), encoding="utf-8") as _handle:
    DEFAULTS = yaml.safe_load(_handle)
TOPOLOGY = {
    "numa_nodes": [{"id": 0, "memory_bytes": 8 << 30, "cpus": [0]}, {"id": 1, "memory_bytes": 8 << 30, "cpus": [1]}],
    "numa_memory_capacity_bytes": 16 << 30,
}
MAIN = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
FILES = {"/var/lib/kubelet/config.yaml": MAIN}
INTENT = {"memoryManagerPolicy": "Static", "kubeReserved": {"memory": "1Gi"}}


class _AnsibleTaggedStr(str):
    """What ansible-core 2.19 hands plugins: a str subclass whose class name must never reach a message."""


def variables(**overrides):
    return dict(dict(DEFAULTS, kubelet_numa_platform="kubeadm", kubelet_numa_topology=TOPOLOGY, kubelet_numa_config=INTENT), **overrides)


def intent(**fields):
    return variables(kubelet_numa_config=dict(INTENT, **fields))


def refused(variables_, files=None, **facts):
    with pytest.raises(KubeletConfigError) as raised:
        plan_host(variables_, dict(facts, files=FILES if files is None else files))
    text = "\n".join(raised.value.problems)
    assert "_Ansible" not in text and "Traceback" not in text
    return text


CASES = {
    "healthzPort quoted": (intent(healthzPort="10248"), None, "kubelet_numa_config.healthzPort: '10248' (string) is not an int32 integer"),
    "an integer key in the intent": (
        variables(kubelet_numa_config={1: "x", "memoryManagerPolicy": "Static"}),
        None,
        "kubelet_numa_config: field names must be strings, got 1",
    ),
    "healthzBindAddress: 1": (
        intent(healthzBindAddress=1),
        None,
        "json: cannot unmarshal number into Go struct field KubeletConfiguration.healthzBindAddress of type string",
    ),
    "rke2 version 1.30 (a float)": (
        variables(kubelet_numa_platform="rke2", kubelet_numa_rke2_version=1.30, kubelet_numa_rke2_role="agent"),
        {},
        "kubelet_numa_rke2_version: 1.3 (float) is not an RKE2 version",
    ),
    "numa_nodes: 4": (
        variables(kubelet_numa_topology={"numa_nodes": 4, "numa_memory_capacity_bytes": 16 << 30}),
        None,
        "kubelet_numa_topology: numa_nodes 4 (integer) must be a list",
    ),
    "node file content an integer": (
        variables(),
        {"/var/lib/kubelet/config.yaml": 5},
        "kubelet_numa_node_files[/var/lib/kubelet/config.yaml]: 5 (integer) must be the file's text",
    ),
    "node files a list": (variables(), ["/var/lib/kubelet/config.yaml"], "kubelet_numa_node_files: ['/var/lib/kubelet/config.yaml'] (list) must be a mapping"),
    "node files with an integer key": (variables(), {1: "x"}, "kubelet_numa_node_files: the key 1 must be an absolute path"),
    "extra args file a directory": (variables(kubelet_numa_kubeadm_extra_args_file="/etc/kubernetes"), None, "/etc/kubernetes: is a directory"),
    "featureGates yes": (
        intent(featureGates={"X": "yes"}),
        None,
        "json: cannot unmarshal string into Go struct field KubeletConfiguration.featureGates of type bool",
    ),
    "clusterDNS a string": (
        intent(clusterDNS="10.0.0.10"),
        None,
        "json: cannot unmarshal string into Go struct field KubeletConfiguration.clusterDNS of type []string",
    ),
    "reservedSystemCPUs a list": (
        intent(reservedSystemCPUs=[0, 1]),
        None,
        "json: cannot unmarshal array into Go struct field KubeletConfiguration.reservedSystemCPUs of type string",
    ),
    "maxPods -1": (intent(maxPods=-1), None, "invalid configuration: maxPods (--max-pods) -1 must not be a negative number"),
    "a node file of another kind": (
        variables(),
        {"/var/lib/kubelet/config.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfigurashun\n"},
        "/var/lib/kubelet/config.yaml: kind 'KubeletConfigurashun' is not 'KubeletConfiguration'",
    ),
    "a node file with bytes as a number": (
        variables(),
        {"/var/lib/kubelet/config.yaml": MAIN + "kubeReserved: {memory: 1073741824}\n"},
        "/var/lib/kubelet/config.yaml: kubeReserved.memory: 1073741824 (integer) is not a string",
    ),
    "split key 1.5": (variables(kubelet_numa_reserved_memory_split={0: "512Mi", 1.5: "612Mi"}), None, "split: key 1.5 must be a NUMA node id"),
    "split key '1.5'": (variables(kubelet_numa_reserved_memory_split={"0": "512Mi", "1.5": "612Mi"}), None, "split: key '1.5' must be a NUMA node id"),
    "a NUMA id of 2^40": (
        variables(kubelet_numa_topology={"numa_nodes": [{"id": 0}, {"id": 2**40}], "numa_memory_capacity_bytes": 16 << 30}),
        None,
        "kubelet_numa_topology: numa_nodes[1]: NUMA node id 1099511627776 must be a non-negative integer no larger than 2147483647",
    ),
    "topology memory_byte": (
        variables(kubelet_numa_topology={"numa_nodes": [{"id": 0, "memory_byte": 1 << 20}, {"id": 1}], "numa_memory_capacity_bytes": 16 << 30}),
        None,
        "numa_nodes[0]: unknown keys memory_byte (did you mean memory_bytes?)",
    ),
    "nodeadm cpus '0-63'": (
        variables(
            kubelet_numa_platform="nodeadm",
            kubelet_numa_instance_type="m5.large",
            kubelet_numa_config={"memoryManagerPolicy": "Static"},
            kubelet_numa_topology={"numa_nodes": [{"id": 0, "memory_bytes": 8 << 30, "cpus": "0-63"}], "numa_memory_capacity_bytes": 8 << 30},
        ),
        {},
        "numa_nodes[0].cpus: '0-63' must be a list of CPU ids",
    ),
    "extra args file = the main config": (
        variables(kubelet_numa_kubeadm_extra_args_file="/var/lib/kubelet/config.yaml"),
        None,
        "kubelet_numa_kubeadm_extra_args_file: /var/lib/kubelet/config.yaml is kubelet_numa_kubeadm_config_file",
    ),
    "extra args file = our drop-in": (
        variables(kubelet_numa_kubeadm_extra_args_file="/etc/kubernetes/kubelet.conf.d/50-numa-kubelet.conf"),
        None,
        "is numa.kubelet's drop-in",
    ),
    "a flags-env --config-dir leaving the tree": (
        variables(),
        dict(FILES, **{"/var/lib/kubelet/kubeadm-flags.env": 'KUBELET_KUBEADM_ARGS="--config-dir=/../../../x"'}),
        "--config-dir=/../../../x in the kubelet flags is not a path numa.kubelet can write to safely",
    ),
    "a Cyrillic a in Static": (intent(memoryManagerPolicy="St\u0430tic"), None, "U+0430 CYRILLIC SMALL LETTER A at position 3"),
    "a tagged string of the wrong type": (intent(healthzPort=_AnsibleTaggedStr("10248")), None, "'10248' (string) is not an int32 integer"),
    "a NodeConfig whose spec is a list": (
        variables(kubelet_numa_platform="nodeadm", kubelet_numa_instance_type="m5.large", kubelet_numa_config={"memoryManagerPolicy": "Static"}),
        {"/etc/eks/nodeadm.d/10.yaml": "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec: [1]"},
        "spec.kubelet.config of a NodeConfig must be a mapping",
    ),
    "a duration that is no Go duration": (intent(syncFrequency="1 minute"), None, 'time: unknown unit " minute" in duration "1 minute"'),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_careless_input_is_a_named_error(case):
    variables_, files, message = CASES[case]
    text = refused(variables_, files)
    assert message in text, text


def test_integer_bytes_in_the_intent_are_written_as_strings_the_kubelet_decodes():
    plan = plan_host(intent(kubeReserved={"memory": 1073741824}, evictionHard={"memory.available": 104857600}), {"files": FILES})
    dropin = plan["files"][0]["content"]
    assert dropin["kubeReserved"] == {"memory": "1073741824"} and dropin["evictionHard"] == {"memory.available": "104857600"}
    assert [item["limits"]["memory"] for item in plan["reserved_memory"]] == ["562Mi", "562Mi"]
    assert check_kubelet_config(plan["kubelet_config"], [0, 1]).errors == []


def test_a_whole_float_in_an_integer_field_is_what_the_kubelet_reads_and_a_fraction_is_refused():
    # kubelet v1.36.2 (kubelet-check): maxPods: 110.0 ACCEPTED; maxPods: 1.5 REJECTED with
    # "json: cannot unmarshal number 1.5 into Go struct field KubeletConfiguration.maxPods of type int32".
    plan = plan_host(intent(maxPods=110.0), {"files": FILES})
    assert plan["files"][0]["content"]["maxPods"] == 110 and isinstance(plan["files"][0]["content"]["maxPods"], int)
    assert check_kubelet_config(dict(INTENT, maxPods=110.0, reservedMemory=[{"numaNode": 0, "limits": {"memory": "1124Mi"}}]), [0]).errors == []
    assert "json: cannot unmarshal number 1.5 into Go struct field KubeletConfiguration.maxPods of type int32" in refused(intent(maxPods=1.5))
