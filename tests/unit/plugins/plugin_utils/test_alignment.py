# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The alignment check on what numa.kubelet.container_numa read on the two-NUMA-node test VM under the real kubelet
v1.36.2 (molecule/real_kubelet, captured in tests/unit/fixtures/alignment): a Guaranteed pod (1 CPU, 256Mi) on
NUMA node 1, and the kubelet's two refusals of a pod too big for one node. The wrong cases change one kernel list
of that capture, as a changed cgroup would."""

from __future__ import annotations

import copy
import json
import os

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._alignment import AlignmentError, admission_denials, alignment, format_list, parse_cpu_list

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "alignment")


def _captured(name):
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as handle:
        return json.load(handle)


@pytest.fixture(name="view")
def fixture_view():
    return _captured("guaranteed-pod-on-node1.json")


def _app(view):
    return next(c for c in view["containers"] if c["pod"].startswith("numa-guaranteed"))


def test_the_real_guaranteed_pod_is_aligned(view):
    result = alignment(view)
    assert result["problems"] == []
    app = _app(view)
    assert result["lines"][:1] == [
        "alignment: pod default/%s container %s (PID %d): NUMA node 1 (memory_manager_state); kernel: "
        "Cpus_allowed_list 1, Mems_allowed_list 1: aligned" % (app["pod"], app["container"], app["pid"])
    ]
    assert result["lines"][1].startswith(
        "alignment: pod default/numa-too-big-numa-kubelet-vm was refused by the kubelet: UnexpectedAdmissionError: Allocate failed due to [memorymanager]"
    )
    [row] = result["containers"]
    assert row["numa_nodes"] == [1] and row["exclusive_cpus"] == "1" and row["problems"] == []


def test_memory_allowed_on_another_node_fails(view):
    _app(view)["mems_allowed_list"] = "0"
    assert [p.split(": ", 2)[2] for p in alignment(view)["problems"]] == ["the memory manager assigned NUMA node 1, but the kernel's Mems_allowed_list is 0"]


def test_memory_allowed_on_both_nodes_fails(view):
    _app(view)["mems_allowed_list"] = "0-1"
    assert len(alignment(view)["problems"]) == 1


def test_cpus_off_the_node_fail_twice_when_the_cpu_manager_pinned_them(view):
    _app(view)["cpus_allowed_list"] = "0-1"
    problems = [p.split(": ", 2)[2] for p in alignment(view)["problems"]]
    assert problems == [
        "Cpus_allowed_list 0-1 is not on NUMA node 1 (its CPUs: 1)",
        "the CPU manager assigned CPUs 1, but the kernel's Cpus_allowed_list is 0-1",
    ]


def test_cpus_off_the_node_fail_without_an_exclusive_cpu(view):
    _app(view)["cpus_allowed_list"] = "0"
    view["cpu_manager_state"] = None
    problems = [p.split(": ", 2)[2] for p in alignment(view)["problems"]]
    assert problems == ["Cpus_allowed_list 0 is not on NUMA node 1 (its CPUs: 1)"]


def test_a_container_in_the_checkpoint_without_a_process_is_not_checked(view):
    view["containers"] = []
    result = alignment(view)
    assert result["problems"] == []
    assert result["lines"][0].endswith("NUMA node 1 in memory_manager_state, no running process (not checked)")


def test_no_guaranteed_pod_means_nothing_to_prove(view):
    state = json.loads(view["memory_manager_state"])
    state.pop("entries")
    view["memory_manager_state"] = json.dumps(state)
    assert alignment(view)["lines"][:1] == ["alignment: no pod container holds memory in memory_manager_state (no Guaranteed pod runs here): nothing to prove"]


def test_policy_none_means_nothing_to_prove(view):
    # As the real kubelet writes it under policy None (molecule/real_kubelet's prepare).
    view["memory_manager_state"] = '{"policyName":"None","machineState":{},"checksum":4236770233}'
    view["admission_denials"] = []
    assert alignment(view) == {
        "containers": [],
        "refused": [],
        "problems": [],
        "lines": ["alignment: memory manager policy None: the kubelet assigns no NUMA nodes, nothing to prove"],
    }


def test_no_checkpoint_means_nothing_to_prove():
    result = alignment({"memory_manager_state": None, "cpu_manager_state": None, "numa_nodes": [], "containers": []})
    assert result["problems"] == [] and "nothing to prove" in result["lines"][0]


def test_both_refusals_of_the_real_kubelet_are_reported_with_its_reason():
    view = _captured("too-big-refusals.json")
    refused = admission_denials(view["admission_denials"])
    assert {r["reason"] for r in refused} == {"TopologyAffinityError", "UnexpectedAdmissionError"}
    alone = next(r for r in refused if r["reason"] == "TopologyAffinityError")
    assert alone["message"] == "Resources cannot be allocated with Topology locality"
    beside = next(r for r in refused if r["reason"] == "UnexpectedAdmissionError")
    assert "no NUMA nodes with enough memory is available" in beside["message"]
    result = alignment(view)
    assert result["problems"] == []
    assert ["alignment: pod %s was refused by the kubelet: %s: %s" % (r["pod"], r["reason"], r["message"]) for r in refused] == result["lines"][-len(refused) :]


def test_the_last_refusal_of_a_pod_counts_and_escaped_quotes_are_read():
    lines = [
        'I1 "Pod admission denied" pod="default/a" reason="OutOfcpu" message="first"',
        'I2 "Pod admission denied" pod="default/b" reason="R" message="say \\"no\\""',
        'I3 "Pod admission denied" pod="default/a" reason="TopologyAffinityError" message="second"',
        'I4 "Some other line" pod="default/c"',
    ]
    assert admission_denials(lines) == [
        {"pod": "default/b", "reason": "R", "message": 'say "no"'},
        {"pod": "default/a", "reason": "TopologyAffinityError", "message": "second"},
    ]


@pytest.mark.parametrize("text, numbers", [("", set()), ("1", {1}), ("0-2,5", {0, 1, 2, 5}), ("0-1\n", {0, 1})])
def test_lists(text, numbers):
    assert parse_cpu_list(text) == numbers
    assert parse_cpu_list(format_list(numbers)) == numbers


@pytest.mark.parametrize("text", ["a", "3-1", "1-", "-1"])
def test_bad_lists_are_refused(text):
    with pytest.raises(AlignmentError, match="is not a CPU or NUMA node list"):
        parse_cpu_list(text)


def test_a_checkpoint_that_is_not_json_is_refused(view):
    bad = copy.deepcopy(view)
    bad["memory_manager_state"] = "{"
    with pytest.raises(AlignmentError, match="memory_manager_state is not JSON"):
        alignment(bad)
