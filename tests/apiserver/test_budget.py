# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""numa.kubelet.rollout's unavailability budget and canary, on the three test hosts of conftest.py and a real kube-apiserver.

"Never more unavailable than allowed at any moment" is proved from the API server's own record, not from the plan:
a `kubectl get nodes --watch` runs through each rollout and receives every change of every Node in the order the API
server stored them (resourceVersion order, one watch). Replayed event by event, the set of unavailable Nodes
(cordoned, or Ready not True) after each event is every state the cluster went through; the test bounds each one.
"""

from __future__ import annotations

import json
import subprocess
import threading
import time

import yaml
from conftest import FAIL_MARKER, HOSTS, unit
from test_rollout import ROLL_TASK, cluster_vars, failure_messages, flat

ZONE = "topology.kubernetes.io/zone"
PLAN_TASK = "TASK [numa.kubelet.kubelet_numa_rollout : Say how the rollout will go, batch by batch]"
ZONES = {"rollout-n1": "zone-a", "rollout-n2": "zone-a", "rollout-n3": "zone-b"}
NO_LABEL = (
    "rollout-n3: its Node rollout-n3 has no label topology.kubernetes.io/zone (kubelet_numa_rollout_failure_domain_label): "
    "every targeted Node needs one, or the rollout could not count it in its failure domain"
)


class NodeWatch:
    """Every change of every Node the API server stored while the watch ran, replayed as the states it went through."""

    def __init__(self, fleet):
        self.process = subprocess.Popen(
            ["kubectl", "--kubeconfig=" + fleet.kubeconfig, "get", "nodes", "--watch", "--output-watch-events", "--output=json"],
            stdout=subprocess.PIPE,
            text=True,
        )
        self.text = ""
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        # The watch starts with an ADDED event per existing Node: the starting state.
        deadline = time.time() + 20
        while len(self.events()) < len(HOSTS):
            assert time.time() < deadline, f"the Node watch did not start: {self.text[-2000:]!r}"
            time.sleep(0.2)

    def _read(self):
        for line in self.process.stdout:
            self.text += line

    def events(self):
        decoder, events, index = json.JSONDecoder(), [], 0
        text = self.text
        while True:
            while index < len(text) and text[index].isspace():
                index += 1
            if index >= len(text):
                return events
            try:
                event, index = decoder.raw_decode(text, index)
            except ValueError:
                return events  # the last object is still being written
            events.append(event)

    def stop(self):
        time.sleep(2)  # the last uncordon reaches the watch
        self.process.terminate()
        self.process.wait(timeout=10)
        self.reader.join(timeout=10)
        return self.states()

    def states(self):
        """The unavailable Nodes (name -> why) after each event, in the API server's order."""
        current, states = {}, []
        for event in self.events():
            node = event["object"]
            name = node["metadata"]["name"]
            if event["type"] == "DELETED":
                current.pop(name, None)
            else:
                ready = [c["status"] for c in node.get("status", {}).get("conditions", []) if c["type"] == "Ready"]
                reasons = (["cordoned"] if node.get("spec", {}).get("unschedulable") else []) + ([] if ready == ["True"] else ["NotReady"])
                current[name] = reasons
            # The states start once the watch listed every Node (its first events are one ADDED per Node).
            if set(HOSTS) <= set(current):
                states.append({name: reasons for name, reasons in current.items() if reasons})
        return states


def label_zones(fleet, zones):
    for host in HOSTS:
        if host in zones:
            fleet.kubectl("label", "node", host, f"{ZONE}={zones[host]}", "--overwrite")
        else:
            fleet.kubectl("label", "node", host, ZONE + "-")


def budget_vars(fleet, *extra):
    return cluster_vars(fleet, "-e", "kubelet_numa_rollout_failure_domain_label=" + ZONE, *extra)


def batch_lines(output):
    """The lines the rollout prints about its batches before the first drain, after the budget's own line."""
    section = output.split(PLAN_TASK)[1].split("TASK [")[0].splitlines()
    start = next(index for index, line in enumerate(section) if line.startswith("ok: ["))
    lines = yaml.safe_load("\n".join(line[4:] for line in section[start + 1 :] if line.startswith("    ")))["msg"]
    assert lines[0].startswith("numa.kubelet.rollout budget: "), lines
    return lines[1:]


def row_text(output, host):
    """A host's summary row, whitespace made single (the YAML callback folds and quotes a long row)."""
    table = flat(output).rsplit("HOST PLATFORM NUMA SPLIT RESULT", maxsplit=1)[-1].split("TASK [")[0]
    (row,) = [item.strip().strip("'") for item in table.split(" - ") if item.strip().strip("'").startswith(host + " ")]
    return row


def test_the_budget_holds_across_the_fleet_and_in_each_zone_at_every_moment(fleet):
    fleet.reset()
    label_zones(fleet, ZONES)
    # 67% of the fleet's 3 Nodes rounds down to 2, of zone-a's 2 to 1, of zone-b's 1 to 0, raised to 1. No canary:
    # the first batch takes as many as the budget allows, rollout-n1 and rollout-n3 (rollout-n2 would be zone-a's second).
    watch = NodeWatch(fleet)
    result = fleet.playbook(
        "numa.kubelet.rollout", *budget_vars(fleet, "-e", "kubelet_numa_rollout_max_unavailable=67%", "-e", "kubelet_numa_rollout_canary=0")
    )
    states = watch.stop()
    assert result.returncode == 0, result.stdout + result.stderr
    assert batch_lines(result.stdout) == ["batch 1: rollout-n1, rollout-n3", "batch 2: rollout-n2"], result.stdout
    for host in HOSTS:
        assert row_text(result.stdout, host).endswith("applied, uncordoned"), flat(result.stdout)
    # The API server's record: every Node was cordoned at some point, never more than 2 at once, never both of
    # zone-a, and 2 at once did happen (a batch of two, not one host at a time).
    cordoned = {name for state in states for name, reasons in state.items() if "cordoned" in reasons}
    assert cordoned == set(HOSTS), states
    assert max(len(state) for state in states) == 2, states
    assert all(sum(1 for name in state if ZONES[name] == "zone-a") <= 1 for state in states), states
    assert states[-1] == {}, states[-1]


def test_a_node_not_ready_before_the_rollout_counts_against_the_budget_and_is_left_alone(fleet):
    fleet.reset()
    label_zones(fleet, ZONES)
    fleet.sh("rollout-n3", "systemctl stop " + unit("rollout-n3"))
    deadline = time.time() + 30
    while fleet.ready("rollout-n3"):
        assert time.time() < deadline, "rollout-n3 still Ready"
        time.sleep(0.5)
    n3_before = fleet.snapshot("rollout-n3")
    # Budget 2 with rollout-n3 NotReady leaves room for one at a time: without counting it, rollout-n1 and rollout-n2
    # would go together (canary 0) and 3 Nodes would be unavailable at once.
    watch = NodeWatch(fleet)
    result = fleet.playbook("numa.kubelet.rollout", *budget_vars(fleet, "-e", "kubelet_numa_rollout_max_unavailable=2", "-e", "kubelet_numa_rollout_canary=0"))
    states = watch.stop()
    assert result.returncode == 0, result.stdout + result.stderr
    assert batch_lines(result.stdout) == [
        "batch 1: rollout-n1",
        "batch 2: rollout-n2",
        "rollout-n3: not rolled, unavailable before the rollout (NotReady); counted against the budget",
    ], result.stdout
    assert row_text(result.stdout, "rollout-n3").endswith("untouched, unavailable before the rollout (NotReady)"), flat(result.stdout)
    assert all(row_text(result.stdout, host).endswith("applied, uncordoned") for host in ("rollout-n1", "rollout-n2")), flat(result.stdout)
    # The API server's record: rollout-n3 NotReady throughout, and with it never more than 2 unavailable.
    assert all(state.get("rollout-n3") == ["NotReady"] for state in states), states
    assert max(len(state) for state in states) == 2, states
    assert not any({"rollout-n1", "rollout-n2"} <= set(state) for state in states), states
    # rollout-n3 untouched: no cordon, no file, no kubelet start.
    assert fleet.snapshot("rollout-n3") == n3_before
    assert "rollout-n3" not in [line.split("[")[-1].rstrip("]") for line in result.stdout.splitlines() if "changed: [" in line]


def test_a_failed_canary_halts_before_the_second_batch_whatever_the_failure_budget(fleet):
    fleet.reset()
    label_zones(fleet, ZONES)
    fleet.sh("rollout-n1", "touch " + FAIL_MARKER)
    before = {host: fleet.snapshot(host) for host in ("rollout-n2", "rollout-n3")}
    watch = NodeWatch(fleet)
    result = fleet.playbook(
        "numa.kubelet.rollout",
        *budget_vars(fleet, "-e", "kubelet_numa_rollout_max_unavailable=2", "-e", "kubelet_numa_rollout_max_failures=2"),
    )
    states = watch.stop()
    assert result.returncode != 0
    assert batch_lines(result.stdout) == ["batch 1 (canary): rollout-n1", "batch 2: rollout-n2, rollout-n3"], result.stdout
    assert "FAILED at apply, rolled back by the role, left cordoned" in row_text(result.stdout, "rollout-n1"), flat(result.stdout)
    for host in ("rollout-n2", "rollout-n3"):
        assert row_text(result.stdout, host).endswith("untouched, halted before its batch: the canary rollout-n1 failed: no later batch starts"), flat(
            result.stdout
        )
        assert fleet.snapshot(host) == before[host], host
    assert "numa.kubelet.rollout halted at rollout-n1 (apply)" in result.stdout
    # The API server's record: only the canary was ever cordoned.
    assert {name for state in states for name in state} == {"rollout-n1"}, states


def test_a_failed_host_within_the_failure_budget_still_holds_its_room(fleet):
    fleet.reset()
    label_zones(fleet, ZONES)
    # Budget 1, one failure allowed, no canary: rollout-n2 fails and stays cordoned, so rollout-n3's batch would make
    # 2 unavailable: the rollout halts there instead.
    fleet.sh("rollout-n2", "touch " + FAIL_MARKER)
    n3_before = fleet.snapshot("rollout-n3")
    watch = NodeWatch(fleet)
    result = fleet.playbook(
        "numa.kubelet.rollout",
        *budget_vars(fleet, "-e", "kubelet_numa_rollout_max_unavailable=1", "-e", "kubelet_numa_rollout_max_failures=1", "-e", "kubelet_numa_rollout_canary=0"),
    )
    states = watch.stop()
    assert result.returncode != 0
    assert row_text(result.stdout, "rollout-n1").endswith("applied, uncordoned"), flat(result.stdout)
    assert "FAILED at apply" in row_text(result.stdout, "rollout-n2"), flat(result.stdout)
    assert row_text(result.stdout, "rollout-n3").endswith(
        "untouched, halted before its batch: the batch rollout-n3 would make 2 node(s) unavailable in the fleet, over its budget of 1, "
        "with the failed host(s) rollout-n2 still unavailable: no later batch starts"
    ), flat(result.stdout)
    assert fleet.snapshot("rollout-n3") == n3_before
    assert max(len(state) for state in states) == 1, states
    # The last lines say what happened: rollout-n2's failure was allowed, the budget halted the rollout.
    out = flat(result.stdout)
    assert (
        "numa.kubelet.rollout: rollout-n2 failed at apply, failure 1 of the 1 that kubelet_numa_rollout_max_failures allows "
        "(the rollout did not halt at it): " in out
    ), out
    assert "numa.kubelet.rollout halted at" not in out
    assert "numa.kubelet.rollout halted before rollout-n3's batch: the batch rollout-n3 would make 2 node(s) unavailable" in out, out


def test_a_node_outside_the_rollout_unavailable_already_counts_against_the_fleet_and_its_zone(fleet):
    fleet.reset()
    label_zones(fleet, ZONES)
    # A cordoned Node of zone-a that the inventory does not have (a worker of another pool): no node agent posts for
    # it, so it stays as created (cordoned, no Ready condition), out of service for the whole rollout.
    outside = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "outside-a", "labels": {ZONE: "zone-a"}},
        "spec": {"unschedulable": True},
    }
    fleet.kubectl("create", "--filename=-", stdin=json.dumps(outside))
    try:
        before = {host: fleet.snapshot(host) for host in HOSTS}
        # Budget 1: outside-a uses it up; refused before the first drain, naming it.
        result = fleet.playbook("numa.kubelet.rollout", *budget_vars(fleet, "-e", "kubelet_numa_rollout_max_unavailable=1"))
        assert result.returncode != 0
        assert (
            "kubelet_numa_rollout_max_unavailable: 1 allows 1 unavailable node(s) in the fleet, and 1 already are "
            "(outside-a: Ready is not reported, cordoned (not in the rollout)): rollout-n1, rollout-n2, rollout-n3 could never be rolled."
            in flat(result.stdout)
        ), flat(result.stdout)
        assert all(fleet.snapshot(host) == before[host] for host in HOSTS)
        # Budget 2, no canary: with outside-a counted, one host at a time (without it, rollout-n1 and rollout-n3 together).
        watch = NodeWatch(fleet)
        result = fleet.playbook(
            "numa.kubelet.rollout", *budget_vars(fleet, "-e", "kubelet_numa_rollout_max_unavailable=2", "-e", "kubelet_numa_rollout_canary=0")
        )
        states = watch.stop()
        assert result.returncode == 0, result.stdout + result.stderr
        assert batch_lines(result.stdout) == [
            "batch 1: rollout-n1",
            "batch 2: rollout-n2",
            "batch 3: rollout-n3",
            "outside-a: not in the rollout, unavailable (Ready is not reported, cordoned); counted against the budget of the fleet and of zone-a",
        ], result.stdout
        assert all(row_text(result.stdout, host).endswith("applied, uncordoned") for host in HOSTS), flat(result.stdout)
        # The API server's record: outside-a cordoned throughout, and with it never more than 2 unavailable.
        assert all(state.get("outside-a") == ["cordoned", "NotReady"] for state in states), states
        assert max(len(state) for state in states) == 2, states
    finally:
        fleet.kubectl("delete", "node", "outside-a", check=False)


def test_bad_budget_input_is_refused_before_any_node_is_touched(fleet):
    fleet.reset()
    label_zones(fleet, {"rollout-n1": "zone-a", "rollout-n2": "zone-a"})
    before = {host: fleet.snapshot(host) for host in HOSTS}
    for value, problems in [
        (
            "120%",
            [
                NO_LABEL,
                "kubelet_numa_rollout_max_unavailable: 120% must not be greater than 100%",
            ],
        ),
        (
            "0",
            [
                NO_LABEL,
                "kubelet_numa_rollout_max_unavailable: 0 allows no node to be unavailable, so no node could ever be rolled; the budget is at least 1 (or 1%)",
            ],
        ),
    ]:
        result = fleet.playbook("numa.kubelet.rollout", *budget_vars(fleet, "-e", "kubelet_numa_rollout_max_unavailable=" + value))
        assert result.returncode != 0
        out = result.stdout + result.stderr
        refusals = [
            msg for msg in failure_messages(out) if isinstance(msg, list) and msg[:1] == ["numa.kubelet.rollout refused; nothing was drained or changed:"]
        ]
        assert refusals == [["numa.kubelet.rollout refused; nothing was drained or changed:"] + problems], flat(out)
        assert ROLL_TASK + "Cordon and drain" not in out
    for host in HOSTS:
        assert fleet.snapshot(host) == before[host], host
        assert not fleet.cordoned(host)
