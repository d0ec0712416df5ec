# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The private filters of verify and the rollout: _configz_drift is thin (the engine's lines pass through, a non-plan input is refused
naming the filter); _drift and _rollout_problems refuse careless input by name."""

from __future__ import annotations

import json

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.numa.kubelet.plugins.filter.rollout import FilterModule

FILTER = FilterModule().filters()["_configz_drift"]
drift = FilterModule().filters()["_drift"]
rollout_problems = FilterModule().filters()["_rollout_problems"]
PLAN = {
    "kubelet_config": {
        "memoryManagerPolicy": "Static",
        "cpuManagerPolicy": "none",
        "topologyManagerPolicy": "none",
        "topologyManagerScope": "container",
        "kubeReserved": {"memory": "1Gi"},
        "evictionHard": {"memory.available": "100Mi"},
        "reservedMemory": [{"numaNode": 0, "limits": {"memory": "1124Mi"}}],
    }
}


def running(**changes):
    config = json.loads(json.dumps(PLAN["kubelet_config"]))
    config["reservedMemory"][0]["limits"]["memory"] = "1178599424"
    config.update(changes)
    return json.dumps({"kubeletconfig": config})


def test_the_engines_lines_pass_through():
    assert FILTER(PLAN, running()) == []
    assert FILTER(PLAN, running(kubeReserved={"memory": "512Mi"})) == ["/configz: kubeReserved[memory] is 512Mi in the running kubelet, the plan 1Gi"]
    assert FILTER(PLAN, "Error from server (ServiceUnavailable)") == [
        "/configz: the answer is not JSON (Expecting value: line 1 column 1 (char 0)): 'Error from server (ServiceUnavailable)'"
    ]


@pytest.mark.parametrize("plan", [None, "plan", {"files": []}, {"kubelet_config": "Static"}])
def test_an_input_that_is_not_a_plan_is_refused_naming_the_filter(plan):
    with pytest.raises(AnsibleFilterError) as error:
        FILTER(plan, running())
    assert str(error.value).startswith(f"_configz_drift: the input must be a numa.kubelet.plan result, got {plan!r}")


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: drift([], None), "the input must be a numa.kubelet.plan result, got [] (list)"),
        (lambda: drift(None, None), "the input must be a numa.kubelet.plan result, got None"),
        (lambda: rollout_problems(1, inventory=[], hosts=None), "inventory: [] must be the mapping"),
        (lambda: rollout_problems(1, inventory={}, hosts="abc"), "hosts: 'abc' must be a list"),
    ],
)
def test_filters_name_a_list_none_or_string_where_a_mapping_belongs(call, message):
    with pytest.raises(AnsibleFilterError) as raised:
        call()
    assert message in str(raised.value) and "_Ansible" not in str(raised.value)


@pytest.mark.parametrize(
    "hosts, message",
    [
        (
            {"host": "n1"},
            r"^_rollout_summary: the input must be a list of \{host, platform, reserved_memory, result, healed\}, got \{'host': 'n1'\} \(mapping\)$",
        ),
        (["n1"], r"^_rollout_summary: the input must be a list of .*, got \['n1'\] \(list\)$"),
        (
            [{"host": "n1", "reserved_memory": [{"numaNode": 0}]}],
            r"^_rollout_summary: a host's entry is not as documented \(a missing key or a wrong type\) in \[\{'host': 'n1', ",
        ),
    ],
)
def test_rollout_summary_refuses_what_is_not_a_list_of_host_entries(hosts, message):
    with pytest.raises(AnsibleFilterError, match=message):
        FilterModule().filters()["_rollout_summary"](hosts)


def test_rollout_summary_passes_the_engines_lines_through():
    assert FilterModule().filters()["_rollout_summary"]([{"host": "n1"}]) == [
        "HOST  PLATFORM  NUMA SPLIT  RESULT",
        "n1    -         -           untouched (not reached)",
    ]


def test_rollout_host_problems_refuses_what_is_not_a_hosts_checks():
    host_problems = FilterModule().filters()["_rollout_host_problems"]
    with pytest.raises(AnsibleFilterError, match=r"^_rollout_host_problems: the input must be a mapping with the host's name and checks, got 'n1' \(string\)$"):
        host_problems("n1")
    with pytest.raises(
        AnsibleFilterError, match=r"^_rollout_host_problems: the host's checks are not as documented \(a missing key or a wrong type\) in \{'name': 'n1', "
    ):
        host_problems({"name": "n1", "config": {}, "kubeconfig": "/k", "kubeconfig_exists": False})
    assert host_problems({"name": "n1", "config": {}}) == ["n1: kubelet_numa_config is empty: there is nothing to roll out on this host"]


def test_rollout_result_builds_the_record_the_roll_keeps():
    result = FilterModule().filters()["_rollout_result"]
    assert result({"halt": "the canary n1 failed"}) == {"result": "untouched", "message": "halted before its batch: the canary n1 failed"}
    assert result({"decision": {"message": "uncordoned"}, "control_lost": []}) == {"result": "applied", "message": "uncordoned"}
    failure = {"step": "drain", "result": {"msg": "timeout"}}
    assert result({"failure": failure, "decision": {"owner": None}, "probe": {}})["step"] == "drain"
    with pytest.raises(AnsibleFilterError, match=r"^_rollout_result: the input must be a mapping with halt, failure or decision, got \['n1'\] \(list\)$"):
        result(["n1"])
    with pytest.raises(AnsibleFilterError, match=r"^_rollout_result: the input is not as documented"):
        result({"decision": {}, "control_lost": [["drain"]]})


def test_rollout_halted_gives_the_hosts_of_a_halted_batch_their_record():
    halted = FilterModule().filters()["_rollout_halted"]
    results = {"n1": {"result": "failed", "step": "apply", "message": "x"}, "n2": {}}
    assert halted(results, {"batches": [["n1"], ["n2"]], "canary": ["n1"]})["n2"] == {
        "result": "untouched",
        "message": "halted before its batch: the canary n1 failed: no later batch starts",
    }
    # Without the planning play's plan, nothing is worked out.
    assert halted(results) == results
    with pytest.raises(AnsibleFilterError, match=r"^_rollout_halted: the input must map each host to its record, got \['n1'\] \(list\)$"):
        halted(["n1"])
    with pytest.raises(AnsibleFilterError, match=r"^_rollout_halted: plan must be a _rollout_plan result, got \['b'\] \(list\)$"):
        halted(results, ["b"])


def test_rollout_failures_says_each_failed_host():
    failures = FilterModule().filters()["_rollout_failures"]
    assert failures({"n1": {"result": "failed", "step": "drain", "message": "timeout"}}) == {"n1": "numa.kubelet.rollout halted at n1 (drain): timeout"}
    with pytest.raises(AnsibleFilterError, match=r"^_rollout_failures: the input must map each host to its record, got \['n1'\] \(list\)$"):
        failures(["n1"])
