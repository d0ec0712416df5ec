# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rollout's batch plan under its unavailability budget: scaling, domains, nodes unavailable already, the canary,
the failure budget, and the refusals (each naming the host or variable, the value and the rule)."""

from __future__ import annotations

import itertools
import json
import random

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._rollout_budget import (
    Fleet,
    batch_plan,
    budget_problems,
    group_domains,
    halt_reason,
    node_availability,
    outside_unavailable,
    rollout_plan,
    scaled_budget,
)

HOSTS = ["n1", "n2", "n3", "n4", "n5", "n6"]
ZONES = {"n1": "a", "n2": "a", "n3": "a", "n4": "b", "n5": "b", "n6": "b"}


# Kubernetes scales a percentage maxUnavailable rounding down (ResolveFenceposts), and with no surge raises 0 to 1.
@pytest.mark.parametrize(
    ("value", "total", "expected"),
    [
        ("25%", 8, 2),
        ("25%", 7, 1),
        ("25%", 4, 1),
        ("25%", 3, 1),
        ("1%", 99, 1),
        ("1%", 100, 1),
        ("1%", 200, 2),
        ("100%", 3, 3),
        ("50%", 5, 2),
        (2, 5, 2),
        ("7", 3, 7),
    ],
)
def test_a_percentage_rounds_down_and_is_at_least_one(value, total, expected):
    assert scaled_budget(value, total) == expected


@pytest.mark.parametrize("value", [1, "1", 20, "1%", "25%", "100%"])
def test_a_budget_is_a_count_from_one_or_a_percentage_from_one_to_a_hundred(value):
    assert budget_problems(value) == []


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        (0, "kubelet_numa_rollout_max_unavailable: 0 allows no node to be unavailable, so no node could ever be rolled; the budget is at least 1 (or 1%)"),
        ("0", "kubelet_numa_rollout_max_unavailable: 0 allows no node to be unavailable, so no node could ever be rolled; the budget is at least 1 (or 1%)"),
        ("0%", "kubelet_numa_rollout_max_unavailable: 0% allows no node to be unavailable, so no node could ever be rolled; the budget is at least 1 (or 1%)"),
        (-1, "kubelet_numa_rollout_max_unavailable: -1 allows no node to be unavailable, so no node could ever be rolled; the budget is at least 1 (or 1%)"),
        ("101%", "kubelet_numa_rollout_max_unavailable: 101% must not be greater than 100%"),
        ("120%", "kubelet_numa_rollout_max_unavailable: 120% must not be greater than 100%"),
        ("2.5%", "kubelet_numa_rollout_max_unavailable: '2.5%' is neither a count (1, 2, ...) nor a percentage (1% to 100%)"),
        ("half", "kubelet_numa_rollout_max_unavailable: 'half' is neither a count (1, 2, ...) nor a percentage (1% to 100%)"),
        (True, "kubelet_numa_rollout_max_unavailable: True (bool) is neither a count (1, 2, ...) nor a percentage (1% to 100%)"),
        (2.5, "kubelet_numa_rollout_max_unavailable: 2.5 (float) is neither a count (1, 2, ...) nor a percentage (1% to 100%)"),
    ],
)
def test_any_other_budget_is_refused_naming_the_value_and_the_rule(value, problem):
    assert budget_problems(value) == [problem]
    plan = batch_plan(HOSTS, value)
    assert plan["problems"] == [problem] and plan["batches"] == [] and plan["sizes"] == []


def test_the_canary_goes_first_on_its_own_then_batches_fill_the_budget():
    plan = batch_plan(HOSTS, 2)
    assert plan["batches"] == [["n1"], ["n2", "n3"], ["n4", "n5"], ["n6"]]
    assert plan["sizes"] == [1, 2, 2, 1] and plan["order"] == HOSTS and plan["canary"] == ["n1"]
    assert batch_plan(HOSTS, 2, canary=0)["batches"] == [["n1", "n2"], ["n3", "n4"], ["n5", "n6"]]
    assert batch_plan(HOSTS, 3, canary=2)["batches"] == [["n1", "n2"], ["n3", "n4", "n5"], ["n6"]]
    # A canary larger than the budget is cut to it.
    assert batch_plan(HOSTS, 2, canary=3)["batches"][0] == ["n1", "n2"]


def test_each_failure_domain_keeps_its_own_budget():
    # 50% of 3 per zone rounds down to 1; 50% of the fleet is 3.
    plan = batch_plan(HOSTS, "50%", canary=0, fleet=Fleet(domains=ZONES))
    assert plan["budget"] == {"fleet": 3, "a": 1, "b": 1}
    assert plan["batches"] == [["n1", "n4"], ["n2", "n5"], ["n3", "n6"]]


def test_a_node_unavailable_already_is_not_rolled_and_takes_room_the_whole_time():
    plan = batch_plan(HOSTS, 2, canary=0, fleet=Fleet(domains=ZONES, unavailable={"n2": "NotReady"}))
    assert plan["skipped"] == {"n2": "NotReady"}
    assert plan["batches"] == [["n1"], ["n3"], ["n4"], ["n5"], ["n6"]]
    # Without it, two at a time.
    assert batch_plan(HOSTS, 2, canary=0, fleet=Fleet(domains=ZONES))["batches"] == [["n1", "n2"], ["n3", "n4"], ["n5", "n6"]]


def test_a_budget_used_up_by_nodes_unavailable_already_is_refused_naming_them():
    plan = batch_plan(HOSTS, 1, fleet=Fleet(unavailable={"n3": "cordoned"}))
    assert plan["batches"] == []
    assert plan["problems"] == [
        (
            "kubelet_numa_rollout_max_unavailable: 1 allows 1 unavailable node(s) in the fleet, and 1 already are (n3: cordoned): "
            "n1, n2, n4, n5, n6 could never be rolled. Bring those nodes back, leave them out of the rollout, or raise the budget"
        )
    ]
    # One domain used up: its hosts could never roll, the other's could, and nothing starts.
    plan = batch_plan(HOSTS, "50%", fleet=Fleet(domains=ZONES, unavailable={"n2": "NotReady"}))
    assert plan["problems"] == [
        (
            "kubelet_numa_rollout_max_unavailable: 50% allows 1 unavailable node(s) in failure domain a, and 1 already are (n2: NotReady): "
            "n1, n3 could never be rolled. Bring those nodes back, leave them out of the rollout, or raise the budget"
        )
    ]
    assert batch_plan(HOSTS, 2, fleet=Fleet(domains=ZONES, unavailable={"n2": "NotReady"}))["problems"] == []


def test_a_converged_host_takes_no_room_and_goes_after_the_canary():
    plan = batch_plan(HOSTS, 1, fleet=Fleet(pending={"n2": False, "n5": False}))
    assert plan["batches"] == [["n1"], ["n3", "n2", "n5"], ["n4"], ["n6"]] and plan["converged"] == ["n2", "n5"]
    assert batch_plan(HOSTS, 1, fleet=Fleet(pending={host: False for host in HOSTS}))["batches"] == [HOSTS]


def test_serial_stays_a_batch_size_nodes_unavailable_before_count_only_against_max_unavailable():
    nodes = {"items": [node("n1"), node("n2", unschedulable=True), node("n3", ready="False")]}
    plan = rollout_plan(["n1", "n2", "n3"], serial=1, nodes=nodes)
    assert plan["problems"] == [] and plan["batches"] == [["n1"], ["n2"], ["n3"]] and plan["skipped"] == {}
    plan = rollout_plan(["n1", "n2", "n3"], max_unavailable=1, nodes=nodes)
    assert plan["batches"] == [] and plan["problems"][0].startswith("kubelet_numa_rollout_max_unavailable: 1 allows 1 unavailable node(s) in the fleet, and 2")


def test_serial_stands_in_for_an_empty_max_unavailable_with_its_own_words():
    assert rollout_plan(HOSTS, max_unavailable="", serial=3)["batches"] == [["n1"], ["n2", "n3", "n4"], ["n5", "n6"]]
    assert rollout_plan(HOSTS, max_unavailable=None, serial="50%", canary=0)["sizes"] == [3, 3]
    assert rollout_plan(HOSTS, max_unavailable=2, serial=3, canary=0)["sizes"] == [2, 2, 2]
    assert rollout_plan(HOSTS, serial="half")["problems"] == [
        "kubelet_numa_rollout_serial: 'half' (str) is neither a count (1, 2, ...) nor a percentage (1% to 100%)"
    ]


@pytest.mark.parametrize(
    ("canary", "max_failures", "problem"),
    [
        (-1, 0, "kubelet_numa_rollout_canary: -1 must be 0 or more"),
        ("one", 0, "kubelet_numa_rollout_canary: 'one' (str) is not a whole number"),
        (1, -1, "kubelet_numa_rollout_max_failures: -1 must be 0 or more"),
        (1, 0.5, "kubelet_numa_rollout_max_failures: 0.5 (float) is not a whole number"),
    ],
)
def test_a_bad_canary_or_failure_budget_is_refused(canary, max_failures, problem):
    assert batch_plan(HOSTS, 2, canary=canary, max_failures=max_failures)["problems"] == [problem]


def node(name, ready="True", unschedulable=False, labels=None):
    return {
        "metadata": {"name": name, "labels": labels or {}},
        "spec": {"unschedulable": True} if unschedulable else {},
        "status": {"conditions": [{"type": "MemoryPressure", "status": "False"}] + ([{"type": "Ready", "status": ready}] if ready else [])},
    }


def test_nodes_not_ready_or_cordoned_are_unavailable_and_labels_are_domains():
    nodes = {
        "kind": "NodeList",
        "items": [
            node("n1", labels={"zone": "a"}),
            node("n2.internal", ready="False", labels={"zone": "a"}),
            node("n3", unschedulable=True, labels={"zone": "b"}),
            node("n4", ready="Unknown", unschedulable=True, labels={"zone": "b"}),
            node("n5", ready=None, labels={"zone": "b"}),
        ],
    }
    names = {"n1": "n1", "n2": "n2.internal", "n3": "n3", "n4": "n4", "n5": "n5"}
    domains, unavailable, problems = node_availability(nodes, names, "zone")
    assert problems == []
    assert domains == {"n1": "a", "n2": "a", "n3": "b", "n4": "b", "n5": "b"}
    assert unavailable == {"n2": "NotReady", "n3": "cordoned", "n4": "Ready is Unknown, cordoned", "n5": "Ready is not reported"}


def test_a_node_without_the_label_or_missing_is_refused_naming_host_node_and_label():
    nodes = {"items": [node("n1", labels={"topology.kubernetes.io/zone": "a"}), node("n2.internal")]}
    domains, unavailable, problems = node_availability(nodes, {"n1": "n1", "n2": "n2.internal", "n3": "n3"}, "topology.kubernetes.io/zone")
    assert domains == {"n1": "a"} and unavailable == {}
    assert problems == [
        (
            "n2: its Node n2.internal has no label topology.kubernetes.io/zone (kubelet_numa_rollout_failure_domain_label): every targeted Node "
            "needs one, or the rollout could not count it in its failure domain"
        ),
        "n3: its Node n3 is not in the cluster's list of Nodes",
    ]
    assert node_availability("Error from server", {"n1": "n1"}, "")[2] == ["kubectl get nodes: the answer is not a List of Nodes: 'Error from server'"]


def test_rollout_plan_reads_the_nodes_and_refuses_before_any_batch():
    nodes = {"items": [node(host, labels={"zone": ZONES[host]}) for host in HOSTS[:5]] + [node("n6")]}
    plan = rollout_plan(HOSTS, max_unavailable=2, nodes=nodes, domain_label="zone")
    assert plan["batches"] == [] and plan["problems"][0].startswith("n6: its Node n6 has no label zone")
    nodes["items"][5] = node("n6", ready="False", labels={"zone": "b"})
    plan = rollout_plan(HOSTS, max_unavailable=2, canary=0, nodes=json.loads(json.dumps(nodes)), domain_label="zone")
    assert plan["problems"] == [] and plan["skipped"] == {"n6": "NotReady"}
    assert plan["batches"] == [["n1"], ["n2"], ["n3"], ["n4"], ["n5"]]


def test_the_failure_domain_is_one_setting_and_a_label_needs_the_cluster():
    assert rollout_plan(HOSTS, 2, domain_label="zone", domain_groups=["a"])["problems"] == [
        "kubelet_numa_rollout_failure_domain_label and kubelet_numa_rollout_failure_domain_groups are both set: a host has one failure domain, set one of them"
    ]
    assert rollout_plan(HOSTS, 2, domain_label="zone")["problems"] == [
        "kubelet_numa_rollout_failure_domain_label: zone is a Node label, read from the cluster: it needs cluster mode (kubelet_numa_rollout_kubeconfig)"
    ]


def test_inventory_groups_as_failure_domains():
    groups = {"all": HOSTS, "rack_a": ["n1", "n2", "n3"], "rack_b": ["n4", "n5", "n6", "n1"]}
    domains, problems = group_domains(groups, ["rack_a", "rack_b", "rack_c"], ["n1", "n2", "n4", "n7"])
    assert domains == {"n2": "rack_a", "n4": "rack_b"}
    assert problems == [
        "kubelet_numa_rollout_failure_domain_groups: rack_c is not a group of the inventory",
        (
            "n1: it is in rack_a and rack_b of the failure-domain groups rack_a, rack_b, rack_c (kubelet_numa_rollout_failure_domain_groups); "
            "each targeted host must be in exactly one"
        ),
        (
            "n7: it is in none of the failure-domain groups rack_a, rack_b, rack_c (kubelet_numa_rollout_failure_domain_groups); "
            "each targeted host must be in exactly one"
        ),
    ]
    groups["rack_b"].remove("n1")
    plan = rollout_plan(HOSTS, "50%", canary=0, domain_groups=["rack_a", "rack_b"], groups=groups)
    assert plan["domains"] == {host: "rack_" + zone for host, zone in ZONES.items()} and plan["batches"] == [["n1", "n4"], ["n2", "n5"], ["n3", "n6"]]


def test_the_first_failure_halts_by_default_and_a_failed_canary_always():
    plan = batch_plan(HOSTS, 2, max_failures=1)
    assert halt_reason(plan, [], ["n2", "n3"]) == ""
    assert halt_reason(plan, ["n1"], ["n2", "n3"]) == "the canary n1 failed: no later batch starts"
    assert halt_reason(batch_plan(HOSTS, 2), ["n2"], ["n4", "n5"]) == (
        "1 host(s) failed (n2), more than kubelet_numa_rollout_max_failures (0): no later batch starts"
    )
    # One failure within max_failures 1; the failed host still takes room, so a batch of two goes past the budget.
    assert halt_reason(plan, ["n2"], ["n4", "n5"]) == (
        "the batch n4, n5 would make 3 node(s) unavailable in the fleet, over its budget of 2, "
        "with the failed host(s) n2 still unavailable: no later batch starts"
    )
    assert halt_reason(batch_plan(HOSTS, 3, max_failures=1), ["n2"], ["n5", "n6"]) == ""
    assert halt_reason(batch_plan(HOSTS, 3, max_failures=1), ["n2", "n3"], ["n5", "n6"]).startswith("2 host(s) failed (n2, n3), more than")


def test_a_failed_host_counts_in_its_domain_and_converged_hosts_take_no_room():
    plan = batch_plan(HOSTS, 4, canary=0, max_failures=2, fleet=Fleet(domains=ZONES, pending={"n6": False}))
    assert halt_reason(plan, ["n1"], ["n2", "n3", "n6"]) == ""
    plan = batch_plan(HOSTS, "67%", canary=0, max_failures=2, fleet=Fleet(domains=ZONES))
    assert plan["budget"] == {"fleet": 4, "a": 2, "b": 2}
    assert halt_reason(plan, ["n1"], ["n2", "n3"]).startswith("the batch n2, n3 would make 3 node(s) unavailable in failure domain a, over its budget of 2")


@pytest.mark.parametrize("seed", range(40))
def test_no_batch_ever_takes_the_fleet_or_a_domain_past_its_budget(seed):
    rng = random.Random(seed)
    hosts = [f"h{index}" for index in range(rng.randint(1, 30))]
    domains = {host: rng.choice("abc") for host in hosts} if rng.random() < 0.7 else {}
    unavailable = {host: "NotReady" for host in hosts if rng.random() < 0.1}
    pending = {host: rng.random() < 0.8 for host in hosts}
    budget = rng.choice([1, 2, 3, 5, "10%", "25%", "50%", "100%"])
    plan = batch_plan(hosts, budget, canary=rng.randint(0, 3), fleet=Fleet(domains=domains, unavailable=unavailable, pending=pending))
    if plan["problems"]:
        assert plan["batches"] == []
        return
    rolled = list(itertools.chain.from_iterable(plan["batches"]))
    assert sorted(rolled) == sorted(host for host in hosts if host not in unavailable) and plan["sizes"] == [len(batch) for batch in plan["batches"]]
    for batch in plan["batches"]:
        down = [host for host in batch if pending[host]] + list(unavailable)
        assert len(down) <= plan["budget"]["fleet"]
        for domain in set(domains.values()):
            assert sum(1 for host in down if domains[host] == domain) <= plan["budget"][domain]


def test_a_node_cordoned_already_is_rolled_without_more_room_and_counts_the_whole_time():
    plan = batch_plan(HOSTS, 2, canary=1, fleet=Fleet(unavailable={"n3": "cordoned", "n5": "NotReady, cordoned"}))
    assert plan["skipped"] == {"n5": "NotReady, cordoned"} and plan["unavailable"] == {"n3": "cordoned", "n5": "NotReady, cordoned"}
    # 2 - 2 already unavailable leaves no room: refused, naming both.
    assert plan["batches"] == [] and "and 2 already are (n3: cordoned, n5: NotReady, cordoned)" in plan["problems"][0]
    plan = batch_plan(HOSTS, 3, canary=1, fleet=Fleet(unavailable={"n3": "cordoned"}))
    assert plan["batches"] == [["n1"], ["n2", "n4", "n3"], ["n5", "n6"]] and plan["skipped"] == {}
    assert halt_reason(dict(plan, max_failures=1), ["n2"], ["n5", "n6"]).startswith("the batch n5, n6 would make 4 node(s) unavailable in the fleet")


def test_unavailable_nodes_outside_the_rollout_count_against_the_fleet_and_their_zone():
    nodes = {
        "items": [node(host, labels={"zone": ZONES[host]}) for host in HOSTS]
        + [node("other-a", ready="False", labels={"zone": "a"}), node("other-c", unschedulable=True, labels={"zone": "c"}), node("spare", labels={"zone": "b"})]
    }
    assert outside_unavailable(nodes, HOSTS, "zone") == {"other-a": ("NotReady", "a"), "other-c": ("cordoned", "c")}
    assert outside_unavailable(nodes, HOSTS) == {"other-a": ("NotReady", ""), "other-c": ("cordoned", "")}
    plan = rollout_plan(HOSTS, max_unavailable=3, canary=0, nodes=nodes, domain_label="zone")
    assert plan["problems"] == [] and plan["outside"] == {"other-a": {"reason": "NotReady", "domain": "a"}, "other-c": {"reason": "cordoned", "domain": "c"}}
    # The fleet: 3 - 2 outside leaves one at a time; zone c has no targeted host, so no budget of its own.
    assert plan["budget"] == {"fleet": 3, "a": 3, "b": 3} and plan["batches"] == [[host] for host in HOSTS]
    # Zone a: a budget of 1 is used up by other-a, so its hosts could never roll; zone b's could, and nothing starts.
    plan = rollout_plan(HOSTS, max_unavailable="50%", nodes=nodes, domain_label="zone")
    assert plan["batches"] == [] and plan["problems"] == [
        (
            "kubelet_numa_rollout_max_unavailable: 50% allows 1 unavailable node(s) in failure domain a, and 1 already are "
            "(other-a: NotReady (not in the rollout)): n1, n2, n3 could never be rolled. Bring those nodes back, leave them out of the "
            "rollout, or raise the budget"
        )
    ]


def test_unavailable_nodes_outside_count_only_against_an_explicit_max_unavailable():
    nodes = {"items": [node(host) for host in HOSTS] + [node("other", ready="False")]}
    plan = rollout_plan(HOSTS, serial=1, nodes=nodes)
    assert plan["problems"] == [] and plan["outside"] == {} and plan["sizes"] == [1] * 6
    assert rollout_plan(HOSTS, max_unavailable=1, nodes=nodes)["problems"][0].startswith(
        "kubelet_numa_rollout_max_unavailable: 1 allows 1 unavailable node(s) in the fleet, and 1 already are (other: NotReady (not in the rollout))"
    )


def test_a_failed_host_and_an_unavailable_node_outside_together_halt_the_next_batch():
    nodes = {"items": [node(host) for host in HOSTS] + [node("other", ready="False")]}
    plan = rollout_plan(HOSTS, max_unavailable=3, max_failures=1, nodes=nodes)
    assert plan["batches"] == [["n1"], ["n2", "n3"], ["n4", "n5"], ["n6"]]
    assert halt_reason(plan, ["n2"], ["n4", "n5"]) == (
        "the batch n4, n5 would make 4 node(s) unavailable in the fleet, over its budget of 3, "
        "with the failed host(s) n2 still unavailable: no later batch starts"
    )
    assert halt_reason(plan, ["n2"], ["n6"]) == ""
