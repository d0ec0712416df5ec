# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rollout's input rules and drift, with exact messages."""

from __future__ import annotations

import json

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._rollout import drift, intent_conflicts, serial_problems

DROPIN = "/etc/kubernetes/kubelet.conf.d/50-numa-kubelet.conf"
CONTENT = {
    "apiVersion": "kubelet.config.k8s.io/v1beta1",
    "kind": "KubeletConfiguration",
    "memoryManagerPolicy": "Static",
    "kubeReserved": {"memory": "512Mi"},
    "reservedMemory": [{"numaNode": 0, "limits": {"memory": "612Mi"}}],
}
ON_DISK = """# Ansible managed
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
memoryManagerPolicy: Static
kubeReserved:
  memory: 512Mi
reservedMemory:
- numaNode: 0
  limits:
    memory: 612Mi
"""
EXPECTED = {"policyName": "Static", "systemReserved": {"0": 641728512}}
STATE = json.dumps({"policyName": "Static", "machineState": {"0": {"memoryMap": {"memory": {"systemReserved": 641728512}}}}})


@pytest.mark.parametrize("serial", [1, 3, "1", "25%", "100%", "1%"])
def test_serial_accepts_a_count_or_a_percentage(serial):
    assert serial_problems(serial) == []


@pytest.mark.parametrize("serial", [0, -1, True, "0", "half", "0%", "101%", "2.5", 2.5, "", None, [1, 2]])
def test_serial_refuses_anything_else_naming_the_value(serial):
    assert serial_problems(serial) == [
        f"kubelet_numa_rollout_serial: {serial!r} ({type(serial).__name__}) is neither a count (1, 2, ...) nor a percentage (1% to 100%)"
    ]


def inventory(**groups):
    data = {"_meta": {"hostvars": {"n1": {}}}, "all": {"children": ["ungrouped"] + sorted(groups)}}
    data.update(groups)
    return data


def test_two_unrelated_groups_setting_different_intent_conflict():
    found = intent_conflicts(
        inventory(
            gpu={"hosts": ["n1"], "vars": {"kubelet_numa_reserved_memory_split": "even"}},
            big={"hosts": ["n1"], "vars": {"kubelet_numa_reserved_memory_split": "first"}},
        ),
        ["n1"],
    )
    assert found == [
        (
            "n1: kubelet_numa_reserved_memory_split is set differently by groups big and gpu, neither a child of the "
            "other and of equal ansible_group_priority; Ansible would pick gpu by name order. Set it in one place, "
            "in a host variable, or give one group a higher ansible_group_priority"
        )
    ]


@pytest.mark.parametrize(
    "groups",
    [
        # the same value twice
        {"gpu": {"hosts": ["n1"], "vars": {"kubelet_numa_platform": "rke2"}}, "big": {"hosts": ["n1"], "vars": {"kubelet_numa_platform": "rke2"}}},
        # a child overrides its parent on purpose
        {"gpu": {"children": ["big"], "vars": {"kubelet_numa_platform": "rke2"}}, "big": {"hosts": ["n1"], "vars": {"kubelet_numa_platform": "kubeadm"}}},
        # a higher priority overrides on purpose
        {
            "gpu": {"hosts": ["n1"], "vars": {"kubelet_numa_platform": "rke2", "ansible_group_priority": 5}},
            "big": {"hosts": ["n1"], "vars": {"kubelet_numa_platform": "kubeadm"}},
        },
    ],
)
def test_deliberate_overrides_are_no_conflict(groups):
    assert intent_conflicts(inventory(**groups), ["n1"]) == []


def test_a_host_variable_settles_a_group_conflict():
    data = inventory(gpu={"hosts": ["n1"], "vars": {"kubelet_numa_platform": "rke2"}}, big={"hosts": ["n1"], "vars": {"kubelet_numa_platform": "kubeadm"}})
    data["_meta"]["hostvars"]["n1"] = {"kubelet_numa_platform": "rke2"}
    assert intent_conflicts(data, ["n1"]) == []


def plan(previous, text_previous='KUBELET_EXTRA_ARGS="--config-dir=/etc/kubernetes/kubelet.conf.d"\n'):
    return {
        "expected_state": EXPECTED,
        "files": [
            {"path": DROPIN, "content": CONTENT, "previous": previous},
            {"path": "/etc/default/kubelet", "text": 'KUBELET_EXTRA_ARGS="--config-dir=/etc/kubernetes/kubelet.conf.d"\n', "previous": text_previous},
        ],
    }


def test_no_drift_when_files_and_checkpoint_match_comments_aside():
    assert drift(plan(ON_DISK), STATE) == []


def test_drift_names_the_file_and_field():
    edited = ON_DISK.replace("memory: 512Mi", "memory: 600Mi") + "systemReserved:\n  memory: 1Gi\n"
    assert drift(plan(edited, None), STATE) == [
        DROPIN + ": kubeReserved is {'memory': '600Mi'} on the node, the plan {'memory': '512Mi'}",
        DROPIN + ": systemReserved is on the node ({'memory': '1Gi'}) but not in the plan",
        "/etc/default/kubelet: missing on the node",
    ]


def test_drift_of_the_checkpoint():
    assert drift(plan(ON_DISK), STATE.replace("641728512", "1")) == ["memory_manager_state reserves {'0': 1} bytes per NUMA node, the plan {'0': 641728512}"]
    assert drift(plan(ON_DISK), None) == ["there is no memory_manager_state: the kubelet has not started its memory manager"]


def test_serial_names_the_builtin_type_of_a_value_ansible_hands_over_as_a_subclass():
    class TaggedStr(str):  # as Ansible's _AnsibleTaggedStr
        def __repr__(self):
            return f"TaggedStr({str.__repr__(self)})"

    assert serial_problems(TaggedStr("half")) == ["kubelet_numa_rollout_serial: 'half' (str) is neither a count (1, 2, ...) nor a percentage (1% to 100%)"]
