# -*- coding: utf-8 -*-
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Kubelet flag rendering: the syntax of each flag's value type (see _kubelet_fields.FLAG_FORMS)."""

from __future__ import annotations

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._config import KubeletConfigError
from ansible_collections.numa.kubelet.plugins.plugin_utils._flags import kubelet_flags


def test_memory_manager_fragment():
    assert kubelet_flags({
        "apiVersion": "kubelet.config.k8s.io/v1beta1",
        "kind": "KubeletConfiguration",
        "memoryManagerPolicy": "Static",
        "kubeReserved": {"memory": "1Gi", "cpu": "1"},
        "evictionHard": {"nodefs.available": "10%", "memory.available": "100Mi"},
        "reservedMemory": [{"numaNode": 0, "limits": {"memory": "4300Mi"}}, {"numaNode": 1, "limits": {"memory": "4300Mi"}}],
    }) == [
        "--memory-manager-policy=Static",
        "--kube-reserved=cpu=1,memory=1Gi",
        "--eviction-hard=memory.available<100Mi,nodefs.available<10%",
        "--reserved-memory=0:memory=4300Mi;1:memory=4300Mi",
    ]


@pytest.mark.parametrize("config, expected", [
    ({"systemReserved": {"memory": 536870912}}, ["--system-reserved=memory=536870912"]),
    ({"reservedMemory": [{"numaNode": 1, "limits": {"memory": "1Gi", "hugepages-2Mi": "2Mi"}}]},
     ["--reserved-memory=1:hugepages-2Mi=2Mi,memory=1Gi"]),
    ({"cpuManagerPolicy": "static", "cpuManagerPolicyOptions": {"full-pcpus-only": "true", "distribute-cpus-across-numa": "true"}},
     ["--cpu-manager-policy=static", "--cpu-manager-policy-options=distribute-cpus-across-numa=true",
      "--cpu-manager-policy-options=full-pcpus-only=true"]),
    ({"topologyManagerPolicy": "single-numa-node", "topologyManagerScope": "pod", "topologyManagerPolicyOptions": {"prefer-closest-numa-nodes": "true"}},
     ["--topology-manager-policy=single-numa-node", "--topology-manager-scope=pod", "--topology-manager-policy-options=prefer-closest-numa-nodes=true"]),
    ({"reservedSystemCPUs": "0-1,32-33", "maxPods": 110}, ["--reserved-cpus=0-1,32-33", "--max-pods=110"]),
    ({"featureGates": {"MemoryManager": True, "CPUManagerPolicyAlphaOptions": False}},
     ["--feature-gates=CPUManagerPolicyAlphaOptions=false,MemoryManager=true"]),
    ({"enforceNodeAllocatable": ["pods", "kube-reserved"], "kubeReservedCgroup": "/kube.slice"},
     ["--enforce-node-allocatable=pods,kube-reserved", "--kube-reserved-cgroup=/kube.slice"]),
])
def test_flag_forms(config, expected):
    assert kubelet_flags(config) == expected


@pytest.mark.parametrize("config, message", [
    ({"mergeDefaultEvictionSettings": True},
     "mergeDefaultEvictionSettings: has no kubelet flag form this collection writes; set it in a KubeletConfiguration file or drop-in instead"),
    ({"evictionHard": {}}, "evictionHard: {} cannot be written as a kubelet flag: a non-empty mapping is needed"),
    ({"kubeReserved": {"memory": "1,5Gi"}}, "kubeReserved.memory: '1,5Gi' cannot be written in this kubelet flag: it contains ','"),
    ({"reservedMemory": [{"numaNode": "0", "limits": {"memory": "1Gi"}}]}, "reservedMemory[0]: {'numaNode': '0', 'limits': {'memory': '1Gi'}} must be"),
    ({"featureGates": {"MemoryManager": "yes"}}, "featureGates.MemoryManager: 'yes' must be true or false"),
    ({"maxPods": 1.5}, "maxPods: 1.5 (float) cannot be written in a kubelet flag"),
    ("memoryManagerPolicy=Static", "kubelet config: must be a mapping of KubeletConfiguration fields, got str"),
])
def test_unwritable_values_are_errors(config, message):
    with pytest.raises(KubeletConfigError) as error:
        kubelet_flags(config)
    assert message in str(error.value)


def test_every_problem_is_reported():
    with pytest.raises(KubeletConfigError) as error:
        kubelet_flags({"mergeDefaultEvictionSettings": True, "staticPodPath": "/etc/kubernetes/manifests", "maxPods": True})
    assert len(error.value.problems) == 3
