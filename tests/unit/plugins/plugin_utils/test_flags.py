# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Kubelet flag rendering: the syntax of each flag's value type (see _kubelet_fields.FLAG_FORMS)."""

from __future__ import annotations

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._config import KubeletConfigError
from ansible_collections.numa.kubelet.plugins.plugin_utils._flags import kubelet_flags


def test_memory_manager_fragment():
    assert kubelet_flags(
        {
            "apiVersion": "kubelet.config.k8s.io/v1beta1",
            "kind": "KubeletConfiguration",
            "memoryManagerPolicy": "Static",
            "kubeReserved": {"memory": "1Gi", "cpu": "1"},
            "evictionHard": {"nodefs.available": "10%", "memory.available": "100Mi"},
            "reservedMemory": [{"numaNode": 0, "limits": {"memory": "4300Mi"}}, {"numaNode": 1, "limits": {"memory": "4300Mi"}}],
        }
    ) == [
        "--memory-manager-policy=Static",
        "--kube-reserved=cpu=1,memory=1Gi",
        "--eviction-hard=memory.available<100Mi,nodefs.available<10%",
        "--reserved-memory=0:memory=4300Mi;1:memory=4300Mi",
    ]


@pytest.mark.parametrize(
    "config, expected",
    [
        ({"systemReserved": {"memory": 536870912}}, ["--system-reserved=memory=536870912"]),
        ({"reservedMemory": [{"numaNode": 1, "limits": {"memory": "1Gi", "hugepages-2Mi": "2Mi"}}]}, ["--reserved-memory=1:hugepages-2Mi=2Mi,memory=1Gi"]),
        (
            {"cpuManagerPolicy": "static", "cpuManagerPolicyOptions": {"full-pcpus-only": "true", "distribute-cpus-across-numa": "true"}},
            [
                "--cpu-manager-policy=static",
                "--cpu-manager-policy-options=distribute-cpus-across-numa=true",
                "--cpu-manager-policy-options=full-pcpus-only=true",
            ],
        ),
        (
            {"topologyManagerPolicy": "single-numa-node", "topologyManagerScope": "pod", "topologyManagerPolicyOptions": {"prefer-closest-numa-nodes": "true"}},
            ["--topology-manager-policy=single-numa-node", "--topology-manager-scope=pod", "--topology-manager-policy-options=prefer-closest-numa-nodes=true"],
        ),
        ({"reservedSystemCPUs": "0-1,32-33", "maxPods": 110}, ["--reserved-cpus=0-1,32-33", "--max-pods=110"]),
        (
            {"featureGates": {"MemoryManager": True, "CPUManagerPolicyAlphaOptions": False}},
            ["--feature-gates=CPUManagerPolicyAlphaOptions=false,MemoryManager=true"],
        ),
        (
            {"enforceNodeAllocatable": ["pods", "kube-reserved"], "kubeReservedCgroup": "/kube.slice"},
            ["--enforce-node-allocatable=pods,kube-reserved", "--kube-reserved-cgroup=/kube.slice"],
        ),
    ],
)
def test_flag_forms(config, expected):
    assert kubelet_flags(config) == expected


@pytest.mark.parametrize(
    "config, message",
    [
        (
            {"mergeDefaultEvictionSettings": True},
            "mergeDefaultEvictionSettings: has no kubelet flag form this collection writes; set it in a KubeletConfiguration file or drop-in instead",
        ),
        ({"evictionHard": {}}, "evictionHard: {} cannot be written as a kubelet flag: a non-empty mapping is needed"),
        ({"kubeReserved": {"memory": "1,5Gi"}}, "kubeReserved.memory: '1,5Gi' cannot be written in this kubelet flag: it contains ','"),
        ({"reservedMemory": [{"numaNode": "0", "limits": {"memory": "1Gi"}}]}, "reservedMemory[0]: {'numaNode': '0', 'limits': {'memory': '1Gi'}} must be"),
        ({"featureGates": {"MemoryManager": "yes"}}, "featureGates.MemoryManager: 'yes' must be true or false"),
        ({"maxPods": 1.5}, "maxPods: 1.5 (float) cannot be written in a kubelet flag"),
        ("memoryManagerPolicy=Static", "kubelet config: must be a mapping of KubeletConfiguration fields, got str"),
    ],
)
def test_unwritable_values_are_errors(config, message):
    with pytest.raises(KubeletConfigError) as error:
        kubelet_flags(config)
    assert message in str(error.value)


def test_every_problem_is_reported():
    with pytest.raises(KubeletConfigError) as error:
        kubelet_flags({"mergeDefaultEvictionSettings": True, "staticPodPath": "/etc/kubernetes/manifests", "maxPods": True})
    assert len(error.value.problems) == 3


# Flags are written unquoted into kubeadm-flags.env, into /etc/default/kubelet as KUBELET_EXTRA_ARGS="..." (split on
# whitespace by systemd), as RKE2 kubelet-arg items and into AL2's KUBELET_EXTRA_ARGS: a newline, a blank or a
# quoting character in a value would end the flag early, start another one, or be interpreted.
UNSAFE_RULE = (
    'a kubelet flag is written into kubeadm-flags.env, /etc/default/kubelet (KUBELET_EXTRA_ARGS="..."), RKE2 kubelet-arg '
    "and AL2 KUBELET_EXTRA_ARGS, so it must be free of whitespace, control characters and the quoting characters "
    "\" ' \\ $ `"
)


@pytest.mark.parametrize(
    "config, shown",
    [
        # The reported case: one value that would become two flags.
        ({"memoryManagerPolicy": "Static\n--foo"}, "memoryManagerPolicy: 'Static\\n--foo' cannot be written in a kubelet flag: it contains '\\n'"),
        ({"memoryManagerPolicy": "Static\r\n"}, "memoryManagerPolicy: 'Static\\r\\n' cannot be written in a kubelet flag: it contains '\\r' '\\n'"),
        (
            {"topologyManagerPolicy": "single-numa-node --max-pods=1"},
            "topologyManagerPolicy: 'single-numa-node --max-pods=1' cannot be written in a kubelet flag: it contains ' '",
        ),
        ({"cpuManagerPolicy": "static\t"}, "cpuManagerPolicy: 'static\\t' cannot be written in a kubelet flag: it contains '\\t'"),
        ({"cpuManagerPolicy": "static\x00"}, "cpuManagerPolicy: 'static\\x00' cannot be written in a kubelet flag: it contains '\\x00'"),
        ({"cpuManagerPolicy": "static\x7f"}, "cpuManagerPolicy: 'static\\x7f' cannot be written in a kubelet flag: it contains '\\x7f'"),
        ({"cpuManagerPolicy": "static\x85"}, "cpuManagerPolicy: 'static\\x85' cannot be written in a kubelet flag: it contains '\\x85'"),
        ({"cpuManagerPolicy": "static\u2028"}, "cpuManagerPolicy: 'static\\u2028' cannot be written in a kubelet flag: it contains '\\u2028'"),
        ({"kubeReservedCgroup": '/kube.slice"'}, "kubeReservedCgroup: '/kube.slice\"' cannot be written in a kubelet flag: it contains '\"'"),
        ({"kubeReservedCgroup": "/kube.slice'"}, 'kubeReservedCgroup: "/kube.slice\'" cannot be written in a kubelet flag: it contains "\'"'),
        ({"kubeReservedCgroup": "/$HOME"}, "kubeReservedCgroup: '/$HOME' cannot be written in a kubelet flag: it contains '$'"),
        ({"kubeReservedCgroup": "/`id`"}, "kubeReservedCgroup: '/`id`' cannot be written in a kubelet flag: it contains '`'"),
        ({"kubeReservedCgroup": "/kube\\.slice"}, "kubeReservedCgroup: '/kube\\\\.slice' cannot be written in a kubelet flag: it contains '\\\\'"),
        # Map values and keys, list items, reservedMemory limits and feature gate names are checked alike.
        ({"kubeReserved": {"memory": "1Gi\n"}}, "kubeReserved.memory: '1Gi\\n' cannot be written in a kubelet flag: it contains '\\n'"),
        ({"kubeReserved": {"mem ory": "1Gi"}}, "kubeReserved: 'mem ory' cannot be written in a kubelet flag: it contains ' '"),
        ({"evictionHard": {"memory.available": "100Mi "}}, "evictionHard.memory.available: '100Mi ' cannot be written in a kubelet flag: it contains ' '"),
        (
            {"cpuManagerPolicyOptions": {"full-pcpus-only": "true\n--foo=bar"}},
            "cpuManagerPolicyOptions.full-pcpus-only: 'true\\n--foo=bar' cannot be written in a kubelet flag: it contains '\\n'",
        ),
        (
            {"reservedMemory": [{"numaNode": 0, "limits": {"memory": "1Gi\n"}}]},
            "reservedMemory[0].limits.memory: '1Gi\\n' cannot be written in a kubelet flag: it contains '\\n'",
        ),
        (
            {"reservedMemory": [{"numaNode": 0, "limits": {"memory\t": "1Gi"}}]},
            "reservedMemory[0]: 'memory\\t' cannot be written in a kubelet flag: it contains '\\t'",
        ),
        ({"featureGates": {"MemoryManager $X": True}}, "featureGates: 'MemoryManager $X' cannot be written in a kubelet flag: it contains ' ' '$'"),
        (
            {"enforceNodeAllocatable": ["pods", "kube-reserved\n"]},
            "enforceNodeAllocatable: 'kube-reserved\\n' cannot be written in a kubelet flag: it contains '\\n'",
        ),
    ],
)
def test_values_that_would_break_the_flag_file_are_errors(config, shown):
    with pytest.raises(KubeletConfigError) as error:
        kubelet_flags(config)
    assert error.value.problems == [f"{shown}; {UNSAFE_RULE}"]


def test_a_separator_clash_keeps_its_own_error():
    with pytest.raises(KubeletConfigError) as error:
        kubelet_flags({"kubeReserved": {"memory": "1,5Gi"}})
    assert error.value.problems == ["kubeReserved.memory: '1,5Gi' cannot be written in this kubelet flag: it contains ',', the flag's separator"]


def test_legitimate_values_are_untouched():
    assert kubelet_flags(
        {
            "kubeReserved": {"memory": "1.5Gi", "cpu": "100m", "ephemeral-storage": "1Gi"},
            "evictionHard": {"memory.available": "5%", "nodefs.available": "10.5%"},
            "evictionSoftGracePeriod": {"memory.available": "1m30s"},
            "reservedMemory": [{"numaNode": 0, "limits": {"memory": "1074Mi", "hugepages-1Gi": "2Gi"}}, {"numaNode": 1, "limits": {"memory": 1126170624}}],
            "reservedSystemCPUs": "0-1,32-33",
            "featureGates": {"CPUManagerPolicyAlphaOptions": True, "MemoryQoS": False},
            "kubeReservedCgroup": "/kube.slice",
            "maxPods": 110,
        }
    ) == [
        "--kube-reserved=cpu=100m,ephemeral-storage=1Gi,memory=1.5Gi",
        "--eviction-hard=memory.available<5%,nodefs.available<10.5%",
        "--eviction-soft-grace-period=memory.available=1m30s",
        "--reserved-memory=0:hugepages-1Gi=2Gi,memory=1074Mi;1:memory=1126170624",
        "--reserved-cpus=0-1,32-33",
        "--feature-gates=CPUManagerPolicyAlphaOptions=true,MemoryQoS=false",
        "--kube-reserved-cgroup=/kube.slice",
        "--max-pods=110",
    ]


def test_every_unsafe_value_is_reported_at_once():
    with pytest.raises(KubeletConfigError) as error:
        kubelet_flags({"memoryManagerPolicy": "Static\n", "kubeReserved": {"memory": "1 Gi"}, "reservedSystemCPUs": "0-1"})
    assert [problem.split(":")[0] for problem in error.value.problems] == ["memoryManagerPolicy", "kubeReserved.memory"]
