# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""check_kubelet_config decides as the kubelet does, with the kubelet's own texts (docs/kubelet-facts.md section 1-§3)."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ansible_collections.numa.kubelet.plugins.plugin_utils._config import KubeletConfigError
from ansible_collections.numa.kubelet.plugins.plugin_utils._flags import kubelet_flags
from ansible_collections.numa.kubelet.plugins.plugin_utils._split import reserved_memory
from ansible_collections.numa.kubelet.plugins.plugin_utils._validation import check_kubelet_config

BASE = {
    "apiVersion": "kubelet.config.k8s.io/v1beta1",
    "kind": "KubeletConfiguration",
    "memoryManagerPolicy": "Static",
    "topologyManagerPolicy": "single-numa-node",
    "kubeReserved": {"memory": "512Mi"},
    "systemReserved": {"memory": "412Mi"},
}


def config(**fields):
    merged = dict(BASE)
    for name, value in fields.items():
        if value is None:
            merged.pop(name, None)
        else:
            merged[name] = value
    return merged


def reservations(*limits_per_node):
    return [{"numaNode": node, "limits": limits} for node, limits in limits_per_node]


def errors_of(kubelet_config, numa_nodes=(0, 1), memory_capacity=None):
    return check_kubelet_config(kubelet_config, list(numa_nodes) if numa_nodes is not None else None, memory_capacity).errors


def test_accepted_config_has_no_errors_or_warnings():
    report = check_kubelet_config(config(reservedMemory=reservations((0, {"memory": "512Mi"}), (1, {"memory": "512Mi"}))), [0, 1])
    assert (report.errors, report.warnings) == ([], [])


def test_quantities_compare_as_exact_decimals():
    # 1Gi == 1024Mi == 1073741824: the kubelet compares Quantities, not strings.
    assert errors_of(config(reservedMemory=reservations((0, {"memory": "1024Mi"})))) == []
    assert errors_of(config(reservedMemory=reservations((0, {"memory": "1073741824"})))) == []
    assert errors_of(config(reservedMemory=reservations((0, {"memory": 536870912}), (1, {"memory": "524288Ki"})))) == []


def test_wrong_sum_has_the_kubelets_text():
    assert errors_of(config(reservedMemory=reservations((0, {"memory": "512Mi"})))) == [
        (
            'reservedMemory: the total amount "512Mi" of type "memory" is not equal to the value "1Gi" determined by Node Allocatable feature '
            "(systemReserved.memory 412Mi + kubeReserved.memory 512Mi + evictionHard memory.available (kubelet default) 100Mi)"
        )
    ]


def test_partial_eviction_hard_drops_the_memory_term():
    partial = {"nodefs.available": "10%"}
    assert errors_of(config(evictionHard=partial, reservedMemory=reservations((0, {"memory": "924Mi"})))) == []
    assert (
        'the total amount "1Gi" of type "memory" is not equal to the value "924Mi"'
        in errors_of(config(evictionHard=partial, reservedMemory=reservations((0, {"memory": "1Gi"}))))[0]
    )
    assert errors_of(config(evictionHard=partial, mergeDefaultEvictionSettings=True, reservedMemory=reservations((0, {"memory": "1Gi"})))) == []


def test_percentage_eviction_is_computed_from_capacity():
    capacity = 7910812 * 1024
    needed = 512 * 2**20 + 412 * 2**20 + 405033580
    accepted = config(evictionHard={"memory.available": "5%"}, reservedMemory=reservations((0, {"memory": str(needed)})))
    assert errors_of(accepted, memory_capacity=capacity) == []
    exact_share = config(evictionHard={"memory.available": "5%"}, reservedMemory=reservations((0, {"memory": str(needed - 6)})))
    assert len(errors_of(exact_share, memory_capacity=capacity)) == 1
    assert "memory_capacity" in errors_of(accepted)[0]


@pytest.mark.parametrize(
    "reserved, expected",
    [
        (
            [(0, {"cpu": "1", "memory": "1Gi"})],
            (
                'reservedMemory[0].limits.cpu: invalid configuration: the limit type "cpu" for NUMA node 0 is not supported, '
                "only [memory hugepages-<HugePageSize>] is accepted"
            ),
        ),
        (
            [(0, {"memory": "0"}), (1, {"memory": "1Gi"})],
            'reservedMemory[0].limits.memory: invalid configuration: reserved memory may not be zero for NUMA node 0 and resource "memory"',
        ),
        (
            [(0, {"memory": "512Mi"}), (0, {"memory": "512Mi"})],
            'reservedMemory[1].limits.memory: invalid configuration: the reserved memory has a duplicate value for NUMA node 0 and resource "memory"',
        ),
        ([(0, {"memory": "5.09765625Gi"})], "reservedMemory[0].limits.memory: 5.09765625Gi: could not covert a variable of type Quantity to int64"),
        (
            [(0, {"memory": "1Gi"}), (1, {"hugepages-2Mi": "2Mi"})],
            (
                "reservedMemory[1].limits.hugepages-2Mi: hugepages cannot be reserved here: kubeReserved/systemReserved cannot hold hugepages "
                '(cannot reserve "hugepages-2Mi" resource), so the kubelet compares this with 0 and refuses it (the total amount "2Mi" of type '
                '"hugepages-2Mi" is not equal to the value "0" determined by Node Allocatable feature); reserve only memory'
            ),
        ),
        ([(0, {"memory": "-1Gi"}), (1, {"memory": "2Gi"})], "reservedMemory[0].limits.memory: -1Gi is negative"),
        ([(0, {"memory": "1GB"})], "reservedMemory[0].limits.memory: invalid quantity '1GB'"),
    ],
)
def test_reserved_memory_configuration_rules(reserved, expected):
    found = errors_of(config(reservedMemory=reservations(*reserved)))
    assert any(error.startswith(expected) for error in found), found


def test_int64_convertibility_follows_the_kubelets_representation():
    # 5.47356672G = 5473566720 bytes: accepted; 5.09765625Gi has the same value and is refused (docs/kubelet-facts.md section 1).
    fitting = config(kubeReserved={"memory": "5473566720"}, systemReserved=None, evictionHard={"nodefs.available": "5%"})
    assert errors_of(dict(fitting, reservedMemory=reservations((0, {"memory": "5.47356672G"})))) == []
    refused = errors_of(dict(fitting, reservedMemory=reservations((0, {"memory": "5.09765625Gi"}))))
    assert refused == [
        (
            "reservedMemory[0].limits.memory: 5.09765625Gi: could not covert a variable of type Quantity to int64 (the kubelet's text, sic; "
            "write whole bytes or a unit that keeps the value an integer, e.g. 5220Mi)"
        )
    ]


def test_numa_node_that_does_not_exist():
    found = errors_of(config(reservedMemory=reservations((0, {"memory": "512Mi"}), (2, {"memory": "512Mi"}))))
    assert found == ["reservedMemory: the reserved memory configuration references a NUMA node 2 that does not exist on this machine"]


def test_numa_ids_are_not_checked_without_numa_nodes():
    assert errors_of(config(reservedMemory=reservations((0, {"memory": "512Mi"}), (7, {"memory": "512Mi"}))), numa_nodes=None) == []


def test_reservation_must_fit_in_the_nodes_memory():
    nodes = [{"id": 0, "memory_bytes": 2**30}, {"id": 1, "memory_bytes": 768 * 2**20}]
    found = check_kubelet_config(config(kubeReserved={"memory": "1Gi"}, reservedMemory=reservations((1, {"memory": "1536Mi"}))), nodes).errors
    assert found == ["reservedMemory: reservedMemory for NUMA node 1 is 1536Mi but that node has only 768Mi of memory (node MemTotal)"]


def test_static_without_any_reservation():
    found = errors_of(config(kubeReserved=None, systemReserved=None, evictionHard={"nodefs.available": "5%"}))
    assert found == [
        (
            "memoryManagerPolicy: [memorymanager] you should specify the system reserved memory "
            "(kubeReserved.memory + systemReserved.memory + hard-eviction memory.available is 0)"
        )
    ]


def test_static_without_reserved_memory_fails_the_sum():
    assert 'the total amount "0" of type "memory" is not equal to the value "1Gi"' in errors_of(config())[0]


@pytest.mark.parametrize(
    "policy, expected",
    [
        ("static", 'memoryManagerPolicy: unknown policy: "static"; memory manager policy names are case-sensitive: "None" or "Static"'),
        ("BestEffort", 'memoryManagerPolicy: policy "BestEffort" is not available for platform "linux"'),
        ("Dynamic", 'memoryManagerPolicy: unknown policy: "Dynamic"'),
    ],
)
def test_memory_manager_policy_names(policy, expected):
    assert errors_of(config(memoryManagerPolicy=policy)) == [expected]


def test_reserved_memory_without_static_policy():
    found = errors_of(config(memoryManagerPolicy="None", reservedMemory=reservations((0, {"memory": "1Gi"}))))
    assert found == ['reservedMemory: set without memoryManagerPolicy "Static"; the kubelet ignores it under policy "None"']


def test_topology_policy_that_cannot_align_is_a_warning():
    report = check_kubelet_config(config(topologyManagerPolicy=None, reservedMemory=reservations((0, {"memory": "1Gi"}))), [0, 1])
    assert report.errors == []
    assert report.warnings == [
        (
            'topologyManagerPolicy "none" with memoryManagerPolicy "Static": pods are admitted even when their memory cannot be '
            'kept on one NUMA node; use "single-numa-node" or "restricted"'
        )
    ]


@pytest.mark.parametrize(
    "fields, expected",
    [
        ({"cpuManagerPolicy": "Static"}, ['cpuManagerPolicy: unknown policy: "Static"; CPU manager policy names are lower case: "none" or "static"']),
        (
            {"cpuManagerPolicy": "static"},
            [
                (
                    "cpuManagerPolicy: [cpumanager] unable to determine reserved CPU resources for static policy "
                    "(set kubeReserved.cpu or systemReserved.cpu above zero, or reservedSystemCPUs)"
                )
            ],
        ),
        (
            {"cpuManagerPolicy": "static", "kubeReserved": {"memory": "512Mi", "cpu": "0"}},
            [
                (
                    "cpuManagerPolicy: [cpumanager] unable to determine reserved CPU resources for static policy "
                    "(set kubeReserved.cpu or systemReserved.cpu above zero, or reservedSystemCPUs)"
                )
            ],
        ),
        ({"cpuManagerPolicy": "static", "kubeReserved": {"memory": "512Mi", "cpu": "100m"}}, []),
        ({"cpuManagerPolicy": "static", "reservedSystemCPUs": "0"}, []),
        (
            {"topologyManagerPolicy": "single-numa"},
            [
                (
                    'topologyManagerPolicy: invalid configuration: topologyManagerPolicy (--topology-manager-policy) "single-numa" '
                    'must be one of: ["none" "best-effort" "restricted" "single-numa-node"]'
                )
            ],
        ),
    ],
)
def test_cpu_and_topology_manager(fields, expected):
    assert errors_of(config(reservedMemory=reservations((0, {"memory": "1Gi"})), **fields)) == expected


def test_misspelled_field_gets_a_suggestion():
    found = errors_of(dict(config(), reservedMemroy=reservations((0, {"memory": "1Gi"}))))
    assert (
        "reservedMemroy: unknown KubeletConfiguration (kubelet.config.k8s.io/v1beta1) field; the kubelet ignores it silently and starts "
        'without it; did you mean "reservedMemory"?'
    ) in found


def test_wrong_kind():
    assert errors_of(config(kind="NodeConfig", reservedMemory=reservations((0, {"memory": "1Gi"})))) == [
        (
            'kind: no kind "NodeConfig" is registered for version "kubelet.config.k8s.io/v1beta1" in scheme "pkg/kubelet/apis/config/scheme/scheme.go:33"; '
            "the kubelet only reads kubelet.config.k8s.io/v1beta1 KubeletConfiguration here ('NodeConfig' is not 'KubeletConfiguration')"
        )
    ]


def test_wrong_api_version_and_kind_without_a_version():
    assert errors_of(config(apiVersion="kubelet.config.k8s.io/v1", kind="KubeletConfig", reservedMemory=reservations((0, {"memory": "1Gi"})))) == [
        (
            'apiVersion: no kind "KubeletConfig" is registered for version "kubelet.config.k8s.io/v1" in scheme "pkg/kubelet/apis/config/scheme/scheme.go:33"; '
            "the kubelet only reads kubelet.config.k8s.io/v1beta1 KubeletConfiguration here ('kubelet.config.k8s.io/v1' is not 'kubelet.config.k8s.io/v1beta1')"
        ),
        (
            'kind: no kind "KubeletConfig" is registered for version "kubelet.config.k8s.io/v1" in scheme "pkg/kubelet/apis/config/scheme/scheme.go:33"; '
            "the kubelet only reads kubelet.config.k8s.io/v1beta1 KubeletConfiguration here ('KubeletConfig' is not 'KubeletConfiguration')"
        ),
    ]
    without_version = config(kind=7)
    del without_version["apiVersion"]
    assert (
        errors_of(without_version)[0] == "kind: 7 is not 'KubeletConfiguration'; the kubelet only reads kubelet.config.k8s.io/v1beta1 KubeletConfiguration here"
    )


def test_all_problems_are_reported_at_once():
    broken = config(
        memoryManagerPolicy="Static",
        cpuManagerPolicy="Static",
        reservedMemroy=[],
        kubeReserved={"memory": "lots"},
        reservedMemory=reservations((0, {"memory": "0"}), (3, {"cpu": "1"})),
    )
    found = errors_of(broken)
    assert len(found) == 5, found
    for fragment in (
        "reservedMemroy: unknown KubeletConfiguration",
        'kubeReserved.memory: --kube-reserved value failed to parse: failed to parse quantity "lots" for "memory" resource',
        "reserved memory may not be zero for NUMA node 0",
        'the limit type "cpu" for NUMA node 3 is not supported',
        'cpuManagerPolicy: unknown policy: "Static"',
    ):
        assert any(fragment in error for error in found), (fragment, found)


def test_not_a_mapping():
    assert errors_of(["memoryManagerPolicy", "Static"]) == [
        "kubelet config: must be a mapping of KubeletConfiguration fields, got list ['memoryManagerPolicy', 'Static']"
    ]


# Whatever a playbook passes in, the engine (validation, and the split and the flags it guards) answers with its own
# error naming the problem, never a crash.
LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-5, max_value=1 << 40),
    st.floats(allow_nan=False),
    st.sampled_from(["1Gi", "0", "-1Mi", "5%", "abc", "Static", "static", "none", "hugepages-2Mi", "memory", "1.5", "100%", "1,2"]),
    # Values that would break a flag file or a shell word: control characters, whitespace, quoting characters.
    st.sampled_from(["Static\n--foo", "1Gi\r", "1 Gi", "\t", "\x00", "1Gi\x7f", "\x85", "\u2028", '"', "'", "\\", "$HOME", "`id`"]),
    st.text(max_size=4),
)


KEYS = st.one_of(
    st.integers(min_value=0, max_value=3),
    st.sampled_from(["memory", "cpu", "numaNode", "limits", "hugepages-2Mi", "memory.available", "nodefs.available", "memory\n", "mem ory", "$memory"]),
)


VALUES = st.recursive(LEAVES, lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=3)), max_leaves=8)


FIELDS = st.sampled_from(
    [
        "memoryManagerPolicy",
        "reservedMemory",
        "kubeReserved",
        "systemReserved",
        "evictionHard",
        "cpuManagerPolicy",
        "topologyManagerPolicy",
        "mergeDefaultEvictionSettings",
        "reservedSystemCPUs",
        "featureGates",
        "maxPods",
        "reservedMemroy",
        "cpuManagerPolicyOptions",
        "enforceNodeAllocatable",
        "kubeReservedCgroup",
    ]
)


# Never in a written flag: they would end it, start another one, or be interpreted by systemd or a shell.
UNSAFE_IN_FLAGS = re.compile(r"[\x00-\x1f\x7f-\x9f\s\"'\\$`]")


NODES = st.lists(
    st.one_of(
        st.integers(min_value=-1, max_value=3),
        VALUES,
        st.fixed_dictionaries({"id": st.integers(min_value=0, max_value=3), "memory_bytes": st.one_of(st.none(), st.integers(min_value=1, max_value=1 << 34))}),
    ),
    max_size=3,
)


SPLITS = st.one_of(st.sampled_from(["even", "first", "proportional", "halves"]), st.dictionaries(KEYS, LEAVES, max_size=3))


@settings(max_examples=600, deadline=None)
@given(
    config=st.dictionaries(FIELDS, VALUES, max_size=6),
    nodes=NODES,
    capacity=st.one_of(st.none(), st.integers(min_value=1, max_value=1 << 36), LEAVES),
    split=SPLITS,
)
@example(config={"memoryManagerPolicy": "Static\n--foo"}, nodes=[0], capacity=None, split="even")
def test_arbitrary_input_gives_engine_errors_only(config, nodes, capacity, split):
    report = check_kubelet_config(config, nodes, capacity)
    assert all(isinstance(problem, str) and problem for problem in report.errors)
    for compute in (lambda: reserved_memory(config, nodes, split, capacity), lambda: kubelet_flags(config)):
        try:
            compute()
        except KubeletConfigError as exc:
            assert exc.problems and all(isinstance(problem, str) and problem for problem in exc.problems)
    try:
        flags = kubelet_flags(config)
    except KubeletConfigError:
        return
    assert not [flag for flag in flags if UNSAFE_IN_FLAGS.search(flag)]


def test_validate_kubelet_config_refuses_what_the_kubelet_cannot_decode():
    errors = check_kubelet_config(
        {"memoryManagerPolicy": "Static", "kubeReserved": {"memory": 1073741824}, "reservedMemory": [{"numaNode": 0, "limits": {"memory": "1124Mi"}}]}, [0]
    ).errors
    assert any("json: cannot unmarshal number into Go struct field KubeletConfiguration.kubeReserved of type string" in error for error in errors), errors


def test_what_the_memory_manager_check_found_stays_when_the_reservation_cannot_be_computed():
    # A percentage memory.available without the node's capacity stops the sum check, not the checks before it.
    config = {
        "memoryManagerPolicy": "Static",
        "evictionHard": {"memory.available": "5%"},
        "kubeReserved": {"memory": "1Gi"},
        "reservedMemory": [{"numaNode": 3, "limits": {"memory": "1Gi"}}],
    }
    report = check_kubelet_config(config, [0])
    assert report.errors[0] == "reservedMemory: the reserved memory configuration references a NUMA node 3 that does not exist on this machine"
    assert any(error.startswith("evictionHard.memory.available: '5%' is a share of the node's memory capacity") for error in report.errors[1:])
    assert not any("the total amount" in error for error in report.errors)
    warning = (
        'topologyManagerPolicy "none" with memoryManagerPolicy "Static": pods are admitted even when their memory cannot be kept on one NUMA node; '
        'use "single-numa-node" or "restricted"'
    )
    assert report.warnings == [warning]
