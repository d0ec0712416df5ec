# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""_rollout_summary: each host's record (roles/kubelet_numa_rollout/tasks/roll_host.yml keeps it), the summary table
(templates/summary.j2 prints it) and the lines of the rollout's final failure (tasks/summary.yml)."""

from __future__ import annotations

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._rollout_summary import (
    MAX_FAILURES,
    failed_record,
    failure_lines,
    halted_record,
    numa_split,
    result_text,
    rolled_record,
    summary_lines,
    with_halts,
)

SPLIT = [{"numaNode": 0, "limits": {"memory": "1Gi"}}, {"numaNode": 1, "limits": {"memory": "512Mi"}}]


@pytest.mark.parametrize(
    "record, text",
    [
        ({"result": "applied", "message": "uncordoned"}, "applied, uncordoned"),
        ({"result": "applied", "message": "already converged, not drained"}, "applied, already converged, not drained"),
        ({"result": "failed", "step": "drain", "unreachable": False, "cordoned": True}, "FAILED at drain, nothing applied, left cordoned"),
        ({"result": "failed", "step": "apply", "unreachable": False, "cordoned": True}, "FAILED at apply, rolled back by the role, left cordoned"),
        ({"result": "failed", "step": "apply", "unreachable": False, "cordoned": False}, "FAILED at apply, rolled back by the role"),
        ({"result": "failed", "step": "apply", "unreachable": True, "cordoned": True}, "FAILED at apply, unreachable (not rolled back), left cordoned"),
        ({"result": "failed", "step": "verify", "unreachable": False, "cordoned": True}, "FAILED at verify, left cordoned"),
        # As a template that is not native renders the booleans.
        ({"result": "failed", "step": "ready", "unreachable": "False", "cordoned": "True"}, "FAILED at ready, left cordoned"),
        ({}, "untouched (not reached)"),
    ],
)
def test_the_result_says_what_the_record_says_happened(record, text):
    assert result_text(record) == text


def test_the_split_is_each_numa_nodes_limit_or_a_dash():
    assert numa_split(SPLIT) == "0=1Gi 1=512Mi"
    assert numa_split([]) == numa_split(None) == "-"


def test_each_column_is_as_wide_as_its_longest_cell_and_healed_hosts_follow():
    hosts = [
        {"host": "kubeadm-node-01", "platform": "kubeadm", "reserved_memory": SPLIT, "result": {"result": "applied", "message": "uncordoned"}, "healed": ""},
        {
            "host": "n2",
            "platform": "rke2",
            "reserved_memory": SPLIT[:1],
            "result": {"result": "failed", "step": "apply", "unreachable": False, "cordoned": True},
        },
        {"host": "n3", "platform": "", "reserved_memory": [], "result": {}, "healed": "kubelet.service healed itself"},
    ]
    assert summary_lines(hosts) == [
        "HOST             PLATFORM  NUMA SPLIT     RESULT",
        "kubeadm-node-01  kubeadm   0=1Gi 1=512Mi  applied, uncordoned",
        "n2               rke2      0=1Gi          FAILED at apply, rolled back by the role, left cordoned",
        "n3               -         -              untouched (not reached)",
        "n3: kubelet.service healed itself",
    ]


def test_no_host_leaves_the_header_alone():
    assert summary_lines([]) == ["HOST  PLATFORM  NUMA SPLIT  RESULT"]


def test_a_host_the_plan_skipped_and_the_roll_never_reached_says_why():
    hosts = [{"host": "n1", "result": {}}, {"host": "n2", "result": {"result": "applied", "message": "uncordoned"}}]
    lines = summary_lines(hosts, skipped={"n1": "NotReady", "n2": "cordoned"})
    assert lines[1].endswith("untouched, unavailable before the rollout (NotReady)") and lines[2].endswith("applied, uncordoned")


DECISION = {"owner": "rollout", "message": "uncordoned", "resumed": "", "problem": ""}


def test_a_roll_that_ended_is_applied_with_what_it_did_resumed_and_doubted():
    assert rolled_record(DECISION, [], "localhost") == {"result": "applied", "message": "uncordoned"}
    decision = dict(DECISION, resumed="resumed: an interrupted roll", problem="the rollout's record is not JSON")
    assert rolled_record(decision, [], "localhost")["message"] == "uncordoned; resumed: an interrupted roll; the rollout's record is not JSON"


def test_a_control_host_lost_fails_the_host_at_the_first_step_it_was_lost():
    lost = [["ready", {"unreachable": True, "msg": " Failed to connect \n"}], ["uncordon", {"unreachable": True, "msg": "later"}]]
    assert rolled_record(DECISION, lost, "bastion") == {
        "result": "failed",
        "step": "ready",
        "unreachable": False,
        "cordoned": True,
        "message": "the control host bastion could not be reached: Failed to connect",
    }
    assert rolled_record(dict(DECISION, owner=None), lost, "bastion")["cordoned"] is False


def test_a_failure_is_recorded_at_its_step_with_the_words_of_what_failed():
    failure = {"step": "drain", "reraised": False, "result": {"msg": "non-zero return code", "stderr": " error: cannot evict pod \n"}, "inner": {}}
    assert failed_record(failure, DECISION, {"ping": "pong"}) == {
        "result": "failed",
        "step": "drain",
        "unreachable": False,
        "cordoned": True,
        "message": "error: cannot evict pod",
    }
    # Raised again from the roll: the role's own failure is the one recorded.
    failure = {"step": "apply", "reraised": True, "result": {"msg": "failed at the apply step (above)"}, "inner": {"msg": "kubelet refused"}}
    assert failed_record(failure, {"owner": None}, {})["message"] == "kubelet refused"
    assert failed_record(failure, {"owner": None}, {})["cordoned"] is False


def test_a_restart_the_node_rolled_back_failed_the_apply_and_an_unreachable_host_says_so():
    failure = {"step": "verify", "reraised": True, "result": {}, "inner": {"msg": "rolled back", "transaction_failed": True}}
    assert failed_record(failure, DECISION, {})["step"] == "apply"
    record = failed_record(failure, DECISION, {"unreachable": True, "msg": "ssh: connect refused "})
    assert record["unreachable"] is True and record["message"] == "unreachable: ssh: connect refused"


def test_a_halted_host_is_untouched_with_the_reason():
    assert halted_record("the canary n1 failed: no later batch starts") == {
        "result": "untouched",
        "message": "halted before its batch: the canary n1 failed: no later batch starts",
    }
    assert result_text(halted_record("x")) == "untouched, halted before its batch: x"


def test_the_hosts_of_each_batch_the_roll_halted_before_get_the_reason_the_roll_had():
    # As roll_host.yml decides before each batch: the failed hosts of the batches before it. n3 rolled in a batch after
    # a failure within the failure budget; n5 halted after the second failure; n6's batch halted too.
    plan = {"batches": [["n1"], ["n2", "n3"], ["n4"], ["n5"], ["n6"]], "canary": ["n1"], "max_failures": 1}
    results = {"n1": APPLIED, "n2": failed(), "n3": APPLIED, "n4": failed(), "n5": {}, "n6": {}}
    completed = with_halts(results, plan)
    reason = f"2 host(s) failed (n2, n4), more than {MAX_FAILURES} (1): no later batch starts"
    assert completed == dict(results, n5=halted_record(reason), n6=halted_record(reason))
    # A host the roll did record keeps its record; without a plan nothing is worked out; the input is left as it was.
    assert with_halts(dict(results, n5=APPLIED), plan)["n5"] == APPLIED
    assert with_halts(results, {}) == results and results["n5"] == {}


def test_a_failed_canary_halts_every_later_batch():
    completed = with_halts({"n1": failed(), "n2": {}, "n3": {}}, {"batches": [["n1"], ["n2"], ["n3"]], "canary": ["n1"]})
    assert completed["n2"] == completed["n3"] == halted_record("the canary n1 failed: no later batch starts")


def failed(step="apply", message="boom"):
    return {"result": "failed", "step": step, "message": message}


APPLIED = {"result": "applied", "message": "uncordoned"}


def test_the_first_failure_halts_by_default():
    assert failure_lines({"n1": APPLIED, "n2": failed(), "n3": halted_record("1 host(s) failed")}, 0, ["n1"]) == {
        "n2": "numa.kubelet.rollout halted at n2 (apply): boom"
    }


def test_a_failure_within_max_failures_does_not_say_halted():
    lines = failure_lines({"n1": APPLIED, "n2": failed(), "n3": APPLIED}, 1, ["n1"])
    assert lines == {
        "n2": (
            "numa.kubelet.rollout: n2 failed at apply, failure 1 of the 1 that kubelet_numa_rollout_max_failures allows (the rollout did not halt at it): boom"
        )
    }
    # The one past the budget halted it.
    lines = failure_lines({"n1": APPLIED, "n2": failed(), "n3": failed("drain", "pdb"), "n4": halted_record("2 host(s) failed")}, 1, ["n1"])
    assert lines["n2"].startswith("numa.kubelet.rollout: n2 failed at apply, failure 1 of the 1")
    assert lines["n3"] == "numa.kubelet.rollout halted at n3 (drain): pdb" and "n4" not in lines


def test_a_failed_canary_halts_whatever_the_failure_budget():
    assert failure_lines({"n1": failed(), "n2": halted_record("the canary n1 failed")}, 5, ["n1"]) == {"n1": "numa.kubelet.rollout halted at n1 (apply): boom"}


def test_a_halt_no_failure_caused_alone_is_said_at_the_first_host_it_left_untouched():
    reason = "the batch n3 would make 2 node(s) unavailable in the fleet, over its budget of 1"
    lines = failure_lines({"n1": APPLIED, "n2": failed(), "n3": halted_record(reason), "n4": halted_record(reason)}, 1, ["n1"])
    assert lines["n3"] == f"numa.kubelet.rollout halted before n3's batch: {reason}" and "n4" not in lines
    assert failure_lines({"n1": APPLIED}, 0, ["n1"]) == {}
