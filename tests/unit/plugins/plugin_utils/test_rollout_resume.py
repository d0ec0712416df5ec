# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rollout's resume decision for a node at every step a lost controller can leave it, and Ready from the new kubelet."""

from __future__ import annotations

import json

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._config import KubeletConfigError
from ansible_collections.numa.kubelet.plugins.plugin_utils._rollout_resume import (
    PROGRESS_ANNOTATION,
    PROGRESS_FILE,
    intent_digest,
    process_started_at,
    read_progress,
    ready_since,
    roll_decision,
)

DIGEST = "0123456789abcdef"
CORDON = {"spec": {"unschedulable": True}}
CLEAR = {"metadata": {"annotations": {PROGRESS_ANNOTATION: None}}}
UNCORDON = {"metadata": {"annotations": {PROGRESS_ANNOTATION: None}}, "spec": {"unschedulable": False}}


def record(by, step, digest=DIGEST):
    return json.dumps({"by": by, "digest": digest, "step": step})


def annotation(by, step):
    return {"metadata": {"annotations": {PROGRESS_ANNOTATION: json.dumps({"by": by, "digest": DIGEST, "step": step}, sort_keys=True)}}}


def cluster(text, cordoned, pending):
    return roll_decision(text, cluster=True, cordoned=cordoned, pending=pending, digest=DIGEST)


def test_a_node_to_change_is_cordoned_with_its_record_in_one_write_and_uncordoned_at_the_end():
    # Also the re-run after a controller lost before the drain: nothing was recorded or cordoned yet.
    decided = cluster("", cordoned=False, pending=True)
    assert decided["owner"] == "rollout" and decided["drain"] and decided["wait_ready"]
    assert decided["start"] == dict(annotation("rollout", "drain"), **CORDON)
    assert decided["applied"] == annotation("rollout", "ready")
    assert decided["finish"] == UNCORDON
    assert (decided["message"], decided["resumed"], decided["problem"]) == ("uncordoned", "", "")


def test_lost_mid_drain_the_node_is_drained_again_and_uncordoned():
    decided = cluster(record("rollout", "drain"), cordoned=True, pending=True)
    assert decided["owner"] == "rollout" and decided["drain"]
    assert decided["start"] == annotation("rollout", "drain")  # already cordoned: the record only
    assert decided["finish"] == UNCORDON and decided["message"] == "uncordoned"
    assert decided["resumed"] == ("resumed: an interrupted roll of this plan had reached drain (it had cordoned the node, before or during the drain)")


@pytest.mark.parametrize("step", ["drain", "ready"])
def test_lost_after_the_apply_or_after_verify_the_converged_node_is_checked_and_uncordoned(step):
    # "drain": lost after the apply changed the node and before its record said so; "ready": lost after the apply
    # or after verify, before the uncordon. The node is converged: no drain, but Ready, verify and the uncordon.
    decided = cluster(record("rollout", step), cordoned=True, pending=False)
    assert decided["owner"] == "rollout" and not decided["drain"] and decided["wait_ready"]
    assert decided["start"] is None and decided["applied"] is None
    assert decided["finish"] == UNCORDON and decided["message"] == "uncordoned"
    assert decided["resumed"].startswith(f"resumed: an interrupted roll of this plan had reached {step} (")


def test_a_converged_node_without_a_record_is_left_alone():
    decided = cluster("", cordoned=False, pending=False)
    assert decided == {
        "owner": None,
        "drain": False,
        "wait_ready": False,
        "start": None,
        "applied": None,
        "finish": None,
        "progress_record": None,
        "remove": [],
        "message": "already converged, not drained",
        "resumed": "",
        "problem": "",
    }


def test_a_node_cordoned_by_someone_else_is_rolled_and_left_cordoned():
    decided = cluster("", cordoned=True, pending=True)
    assert decided["owner"] == "someone else" and decided["drain"]
    assert decided["start"] == annotation("someone else", "drain")  # no cordon of the rollout's own
    assert decided["applied"] == annotation("someone else", "ready")
    assert decided["finish"] == CLEAR  # the record goes, the cordon stays
    assert decided["message"] == "drained, left cordoned (cordoned by someone else, not by the rollout)"


def test_a_converged_node_cordoned_by_someone_else_is_not_touched_and_reported():
    decided = cluster("", cordoned=True, pending=False)
    assert decided["owner"] == "someone else" and not decided["drain"] and not decided["wait_ready"]
    assert (decided["start"], decided["finish"]) == (None, None)
    assert decided["message"] == "left cordoned (cordoned by someone else, not by the rollout)"


def test_resumed_on_a_node_someone_else_had_cordoned_it_stays_cordoned():
    decided = cluster(record("someone else", "ready"), cordoned=True, pending=False)
    assert decided["owner"] == "someone else" and decided["wait_ready"]
    assert decided["finish"] == CLEAR
    assert decided["resumed"].startswith("resumed: an interrupted roll of this plan had reached ready")


def test_a_record_on_a_node_uncordoned_since_licenses_no_uncordon():
    decided = cluster(record("rollout", "ready"), cordoned=False, pending=False)
    assert decided["owner"] is None and decided["finish"] == CLEAR
    assert decided["message"] == "already converged, not drained"
    assert decided["resumed"].endswith("; the node was uncordoned since")
    # With something to change, it is a fresh roll: the rollout cordons it again.
    assert cluster(record("rollout", "drain"), cordoned=False, pending=True)["start"] == dict(annotation("rollout", "drain"), **CORDON)


def test_a_record_of_another_plan_is_named_and_still_says_who_cordoned():
    decided = cluster(record("rollout", "drain", digest="fedcba9876543210"), cordoned=True, pending=True)
    assert decided["owner"] == "rollout" and decided["finish"] == UNCORDON
    assert f"an earlier plan (fedcba9876543210), now {DIGEST}" in decided["resumed"]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("{not json", "the rollout's record is not JSON"),
        (json.dumps({"by": "rollout", "digest": DIGEST, "step": "reboot"}), "the rollout's record is not one it writes"),
        (json.dumps({"by": "rollout", "step": "drain"}), "the rollout's record has no plan digest"),
    ],
)
def test_a_record_the_rollout_did_not_write_is_not_trusted_to_uncordon(text, problem):
    decided = cluster(text, cordoned=True, pending=False)
    assert decided["owner"] == "someone else" and decided["finish"] is None
    assert decided["problem"].startswith(problem), decided["problem"]
    assert read_progress(text)[0] is None


def test_node_local_the_record_is_a_file_written_before_the_apply_and_removed_after_verify():
    fresh = roll_decision(None, cluster=False, cordoned=False, pending=True, digest=DIGEST)
    assert json.loads(fresh["start"]) == {"by": None, "digest": DIGEST, "step": "apply"}
    assert (fresh["finish"], fresh["drain"], fresh["owner"], fresh["message"], fresh["resumed"]) == ("remove", False, None, "node-local", "")
    # The restart's transaction writes it and its final verdict removes it (restart_kubelet's options).
    assert fresh["progress_record"] == {"path": PROGRESS_FILE, "content": fresh["start"]} and fresh["remove"] == [PROGRESS_FILE]
    resumed = roll_decision(fresh["start"], cluster=False, cordoned=False, pending=False, digest=DIGEST)
    assert resumed["start"] is None and resumed["finish"] == "remove"
    assert resumed["progress_record"] is None and resumed["remove"] == [PROGRESS_FILE]
    assert resumed["resumed"] == "resumed: an interrupted roll of this plan had reached apply (it was about to change the node, or changing it)"
    converged = roll_decision("", cluster=False, cordoned=False, pending=False, digest=DIGEST)
    assert (converged["start"], converged["finish"], converged["resumed"]) == (None, None, "")
    assert (converged["progress_record"], converged["remove"]) == (None, [])


def test_cluster_mode_keeps_its_record_on_the_node_object_not_in_a_file():
    decided = cluster(None, cordoned=False, pending=True)
    assert decided["start"] is not None and (decided["progress_record"], decided["remove"]) == (None, [])


def test_the_digest_is_the_hosts_intent_whatever_its_order():
    intent = {"config": {"memoryManagerPolicy": "Static", "kubeReserved": {"memory": "1Gi"}}, "split": "even", "platform": ""}
    reordered = {"platform": "", "split": "even", "config": {"kubeReserved": {"memory": "1Gi"}, "memoryManagerPolicy": "Static"}}
    changed = dict(intent, split="first")
    assert intent_digest(intent) == intent_digest(reordered) != intent_digest(changed)
    assert len(intent_digest(intent)) == 16


# 2026-11-28T02:13:49.500Z: the kubelet's process started then (1795832029.5 seconds since the epoch).
STARTED = "1795832030.5 1000.0 ExecMainStartTimestampMonotonic=999000000"


def node(status, heartbeat, reason="KubeletReady", message="kubelet is posting ready status"):
    condition = {"type": "Ready", "status": status, "lastHeartbeatTime": heartbeat, "reason": reason, "message": message}
    return json.dumps({"status": {"conditions": [{"type": "MemoryPressure", "status": "False"}, condition]}})


def test_the_kubelets_start_is_the_nodes_clock_minus_uptime_plus_the_units_start():
    assert process_started_at(STARTED) == pytest.approx(1795832029.5)
    with pytest.raises(KubeletConfigError, match="the kubelet's unit has no running main process"):
        process_started_at("1795832030.5 1000.0 ExecMainStartTimestampMonotonic=0")
    with pytest.raises(KubeletConfigError, match="cannot be read from"):
        process_started_at("1795832030.5")


def test_a_ready_of_the_stopped_kubelet_does_not_count():
    found = ready_since(node("True", "2026-11-28T02:13:40Z"), process_started_at(STARTED))
    assert found == {
        "ready": False,
        "reason": "the Node's Ready condition (True, heartbeat 2026-11-28T02:13:40Z) is older than the kubelet's process, "
        "started 2026-11-28T02:13:49Z: no heartbeat of the new kubelet yet",
    }


def test_a_heartbeat_stamped_in_the_second_the_kubelet_started_may_be_the_old_ones():
    assert not ready_since(node("True", "2026-11-28T02:13:49Z"), process_started_at(STARTED))["ready"]
    assert ready_since(node("True", "2026-11-28T02:13:50Z"), process_started_at(STARTED)) == {
        "ready": True,
        "reason": "Ready, heartbeat 2026-11-28T02:13:50Z of the kubelet started 2026-11-28T02:13:49Z",
    }


def test_the_new_kubelet_reporting_not_ready_says_why():
    found = ready_since(node("False", "2026-11-28T02:13:55Z", "KubeletNotReady", "container runtime is down"), process_started_at(STARTED))
    assert found == {"ready": False, "reason": "the new kubelet reports the Node not Ready: KubeletNotReady: container runtime is down"}


@pytest.mark.parametrize(
    ("answer", "reason"),
    [("{}", "the Node has no Ready condition"), ("not json", "the Node is not JSON"), ({"status": {"conditions": []}}, "the Node has no Ready condition")],
)
def test_a_node_without_a_ready_condition_is_not_ready(answer, reason):
    found = ready_since(answer, process_started_at(STARTED))
    assert not found["ready"] and found["reason"].startswith(reason)
