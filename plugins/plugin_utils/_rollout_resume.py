# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Resume and Ready from the new kubelet.

- Resume: what the rollout does with a node given the progress it recorded there (an annotation on the Node in
  cluster mode, a file on the node node-local) and the node's state now (cordoned, anything to change), so that a
  re-run after a lost controller finishes every node, and uncordons only the nodes the rollout cordoned.
- Ready from the new kubelet: the Node's Ready condition counts only when its heartbeat is not older than the
  kubelet's process start (a stale Ready of the stopped process stays True in the API until the node lifecycle
  controller's grace period ends).
"""

from __future__ import annotations

import calendar
import hashlib
import json
import time
from typing import Any

from ._config import KubeletConfigError, plain_data

# Where the rollout records its progress: this annotation on the Node (cluster mode), this file on the node
# (node-local mode, beside the self-heal's records).
PROGRESS_ANNOTATION = "numa.kubelet/rollout"
PROGRESS_FILE = "/var/lib/numa-kubelet/rollout.json"
# Who holds the node's cordon, as the record says.
BY_ROLLOUT, BY_OTHER = "rollout", "someone else"
# The steps a record names: the roll reached "drain" when it cordoned the node, "apply" when it was about to change
# the node (node-local mode, no drain), "ready" when its apply was done.
RECORDED_STEPS = ("drain", "apply", "ready")
_REACHED = {
    "drain": "it had cordoned the node, before or during the drain",
    "apply": "it was about to change the node, or changing it",
    "ready": "its apply was done",
}


def intent_digest(intent: dict) -> str:
    """A short digest of the host's intent, which its plan is made from (kubelet_numa_config, the split, the
    platform): the same on every run with the same inputs, whatever the node's files are by then."""
    return hashlib.sha256(json.dumps(intent, sort_keys=True, default=str).encode()).hexdigest()[:16]


def read_progress(text: object) -> tuple[dict[str, Any] | None, str]:
    """The recorded progress (an annotation's value or the file's text) and a problem line when it cannot be used.

    Empty: no record. A record that is not the rollout's shape is not trusted (in particular not as a licence to
    uncordon): the node is handled as if nothing was recorded, and the problem is said.
    """
    if text is None or (isinstance(text, str) and not text.strip()):
        return None, ""
    try:
        record = json.loads(text) if isinstance(text, (str, bytes)) else text
    except ValueError as exc:
        return None, f"the rollout's record is not JSON ({exc}): {text!r:.200}"
    if not isinstance(record, dict) or record.get("step") not in RECORDED_STEPS or record.get("by") not in (BY_ROLLOUT, BY_OTHER, None):
        return None, f"the rollout's record is not one it writes: {plain_data(record)!r:.200}"
    if not isinstance(record.get("digest"), str):
        return None, f"the rollout's record has no plan digest: {plain_data(record)!r:.200}"
    return record, ""


def _record(by: str | None, digest: str, step: str) -> str:
    return json.dumps({"by": by, "digest": digest, "step": step}, sort_keys=True)


def _resumed(record: dict | None, digest: str, cordoned: bool, cluster: bool) -> str:
    """What the summary says was resumed; '' when the node had no record."""
    if record is None:
        return ""
    reached = _REACHED[record["step"]]
    plan = "this plan" if record["digest"] == digest else f"an earlier plan ({record['digest']}), now {digest}"
    if cluster and not cordoned:
        return f"resumed: an interrupted roll of {plan} had reached {record['step']} ({reached}); the node was uncordoned since"
    return f"resumed: an interrupted roll of {plan} had reached {record['step']} ({reached})"


def roll_decision(record_text: object, *, cluster: bool, cordoned: bool, pending: bool, digest: str) -> dict:
    """What the roll does with one node, from its recorded progress and its state now.

    record_text: the Node's PROGRESS_ANNOTATION (cluster) or PROGRESS_FILE's text (node-local), '' or None when
    absent. cordoned: the Node's spec.unschedulable (cluster mode). pending: the node has files to change (so its
    kubelet restarts). digest: intent_digest() of the host's intent.

    Who holds the cordon ('owner'): the rollout when its record says so and the node is still cordoned; someone else
    when the node is cordoned and no record of the rollout's own says it cordoned it; nobody otherwise. Only the
    rollout's own cordon is lifted at the end; a node someone else cordoned is rolled (drained when it has something
    to change) and left cordoned.

    Returns the steps: drain (cordon, record, drain), wait_ready (Ready from the new kubelet: after a restart, and on a
    resumed node), and the records as JSON merge patches of the Node (cluster) or the file's text (node-local):
    start (before the drain, with the cordon when the rollout takes it), applied (after the apply), finish (after
    verify: the rollout's cordon lifted, the record removed); node-local also restart_kubelet's progress_record (or
    None) and remove_when_settled (remove). Also the summary's words: message, resumed, problem.
    """
    record, problem = read_progress(record_text)
    if not cluster:
        return _node_local_decision(record, problem, pending, digest)
    owner = None
    if cordoned:
        owner = BY_ROLLOUT if record is not None and record["by"] == BY_ROLLOUT else BY_OTHER
    drain = pending
    annotations: dict[str, Any] = {"metadata": {"annotations": {PROGRESS_ANNOTATION: None}}}
    start: dict[str, Any] | None = None
    applied: dict[str, Any] | None = None
    finish: dict[str, Any] | None = None
    if drain:
        by = owner or BY_ROLLOUT
        start = {"metadata": {"annotations": {PROGRESS_ANNOTATION: _record(by, digest, "drain")}}}
        if owner is None:
            start["spec"] = {"unschedulable": True}  # the cordon and its record in one write: no cordon without a record
        applied = {"metadata": {"annotations": {PROGRESS_ANNOTATION: _record(by, digest, "ready")}}}
        owner = by
    if owner == BY_ROLLOUT:
        finish = dict(annotations, spec={"unschedulable": False})
    elif drain or record is not None:
        finish = annotations
    if owner == BY_ROLLOUT:
        message = "uncordoned"
    elif owner == BY_OTHER:
        message = ("drained, " if drain else "") + "left cordoned (cordoned by someone else, not by the rollout)"
    else:
        message = "already converged, not drained"
    return {
        "owner": owner,
        "drain": drain,
        "wait_ready": drain or record is not None,
        "start": start,
        "applied": applied,
        "finish": finish,
        "progress_record": None,
        "remove": [],
        "message": message,
        "resumed": _resumed(record, digest, cordoned, cluster),
        "problem": problem,
    }


def _node_local_decision(record: dict | None, problem: str, pending: bool, digest: str) -> dict:
    """Node-local: no cordon; the file says a roll was cut short, and is removed once the node is verified."""
    start = _record(None, digest, "apply") if pending else None
    finish = "remove" if pending or record is not None or problem else None
    return {
        "owner": None,
        "drain": False,
        "wait_ready": False,
        "start": start,
        "applied": None,
        "finish": finish,
        "progress_record": {"path": PROGRESS_FILE, "content": start} if start is not None else None,
        "remove": [PROGRESS_FILE] if finish is not None else [],
        "message": "node-local",
        "resumed": _resumed(record, digest, False, False),
        "problem": problem,
    }


def _api_time(text: object) -> float | None:
    """Seconds since the epoch of an API timestamp (RFC 3339 in UTC, whole seconds: "2026-11-28T02:13:52Z")."""
    try:
        return float(calendar.timegm(time.strptime(str(text), "%Y-%m-%dT%H:%M:%SZ")))
    except ValueError:
        return None


def ready_since(node: object, started_at: float) -> dict[str, Any]:
    """Whether the Node is Ready by a heartbeat of the kubelet process that started at started_at (epoch seconds).

    node: the Node object (`kubectl get node -o json`, its text or decoded). The API's timestamps are whole seconds:
    a heartbeat stamped in the very second the process started may be the stopped process's, so it must be stamped
    at or after started_at itself. Returns {"ready": bool, "reason": str}.
    """
    if isinstance(node, (str, bytes)):
        try:
            node = json.loads(node)
        except ValueError as exc:
            return {"ready": False, "reason": f"the Node is not JSON ({exc})"}
    conditions = ((node or {}).get("status") or {}).get("conditions") or [] if isinstance(node, dict) else []
    ready = next((c for c in conditions if isinstance(c, dict) and c.get("type") == "Ready"), None)
    if ready is None:
        return {"ready": False, "reason": "the Node has no Ready condition"}
    heartbeat = _api_time(ready.get("lastHeartbeatTime"))
    started = float(started_at)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started))
    if heartbeat is None or heartbeat < started:
        return {
            "ready": False,
            "reason": f"the Node's Ready condition ({ready.get('status')}, heartbeat {ready.get('lastHeartbeatTime')}) is older "
            f"than the kubelet's process, started {stamp}: no heartbeat of the new kubelet yet",
        }
    if ready.get("status") != "True":
        return {"ready": False, "reason": f"the new kubelet reports the Node not Ready: {ready.get('reason')}: {ready.get('message')}"}
    return {"ready": True, "reason": f"Ready, heartbeat {ready.get('lastHeartbeatTime')} of the kubelet started {stamp}"}


def process_started_at(text: object) -> float:
    """When the unit's main process started, in epoch seconds, from three lines the node prints at one moment.

    `date +%s.%N`, /proc/uptime's first field (seconds since boot) and `systemctl show
    --property=ExecMainStartTimestampMonotonic UNIT` (microseconds since boot, systemd's CLOCK_MONOTONIC, which
    matches uptime on a node that was never suspended): now - uptime + start. Raises KubeletConfigError otherwise.
    """
    fields = str(text).split()
    try:
        now, uptime = float(fields[0]), float(fields[1])
        name, value = fields[2].split("=", 1)
        monotonic = int(value)
    except (IndexError, ValueError) as exc:
        raise KubeletConfigError([f"the kubelet's start time cannot be read from {text!r:.200} ({exc})"]) from exc
    if name != "ExecMainStartTimestampMonotonic" or monotonic <= 0:
        raise KubeletConfigError([f"the kubelet's unit has no running main process ({fields[2]})"])
    return now - uptime + monotonic / 1e6
