# -*- coding: utf-8 -*-
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fleet rollout and verification rules: what numa.kubelet.rollout refuses before the first drain, and drift.

- serial: Ansible's play keyword takes a count or a percentage of the play's hosts; anything else would only be
  noticed when the rollout play starts (or be read as a count by int()), so it is refused up front.
- Conflicting intent between groups: a host in two groups that both set kubelet_numa_config (or the split or the
  platform) gets one of the values by Ansible's group order (depth, ansible_group_priority, then name), silently.
  A child group overriding its parent, or a higher ansible_group_priority, is a deliberate choice and accepted.
- Drift: the files numa.kubelet writes, as they are on the node, against a fresh plan, field by field, and the
  live memory_manager_state against the plan's expected_state.
- Configz drift: the running kubelet's effective config, as its /configz answers it ({"kubeletconfig": {...}}, the
  v1beta1 JSON of the config it started with), against the effective config the plan computed, for the fields
  numa.kubelet is responsible for. Quantities are compared by value ("589299712" and "562Mi" are equal). The
  kubelet v1.36.2 prints them as written (tests/unit/fixtures/configz/README.md), but another version or a
  config management tool may write another form of the same value.
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
import re
import time

import yaml

from ._config import KubeletConfigError, plain_data
from ._manager_inputs import state_problems
from ._quantity import Quantity, QuantityError

# The variables that state a host's intent; set by two unrelated groups with different values, they conflict.
INTENT_VARIABLES = ("kubelet_numa_config", "kubelet_numa_reserved_memory_split", "kubelet_numa_platform")

_COUNT = re.compile(r"^[1-9][0-9]*$")
_PERCENT = re.compile(r"^([1-9][0-9]?|100)%$")


def serial_problems(serial):
    """Problems with a rollout batch size: a count >= 1 or a percentage of 1-100 %."""
    if isinstance(serial, bool) or not (
        (isinstance(serial, int) and serial >= 1) or (isinstance(serial, str) and (_COUNT.match(serial) or _PERCENT.match(serial)))
    ):
        return [
            "kubelet_numa_rollout_serial: %r (%s) is neither a count (1, 2, ...) nor a percentage (1%% to 100%%)"
            % (plain_data(serial), _builtin_type_name(serial))
        ]
    return []


def _builtin_type_name(value):
    """str, int, ...: Ansible hands filters subclasses of the builtin types (e.g. _AnsibleTaggedStr)."""
    return next(cls.__name__ for cls in type(value).__mro__ if cls.__module__ == "builtins")


def _group_parents(inventory):
    parents = {}
    for group, data in inventory.items():
        if group == "_meta" or not isinstance(data, dict):
            continue
        for child in data.get("children") or []:
            parents.setdefault(child, set()).add(group)
    return parents


def _ancestors(group, parents):
    seen, todo = set(), [group]
    while todo:
        for parent in parents.get(todo.pop(), ()):
            if parent not in seen:
                seen.add(parent)
                todo.append(parent)
    return seen


def _host_groups(inventory, host, parents):
    direct = {group for group, data in inventory.items() if group != "_meta" and isinstance(data, dict) and host in (data.get("hosts") or [])}
    found = set(direct)
    for group in direct:
        found |= _ancestors(group, parents)
    return found


def intent_conflicts(inventory, hosts):
    """Hosts whose intent variables come from two unrelated groups with different values.

    inventory: the output of `ansible-inventory --list --export` (group vars per group, host vars without them).
    """
    if not isinstance(inventory, dict):
        raise KubeletConfigError(["inventory: %r must be the mapping `ansible-inventory --list --export` prints" % (inventory,)])
    if isinstance(hosts, (str, dict)) or not isinstance(hosts, (list, tuple)):
        raise KubeletConfigError(["hosts: %r must be a list of inventory host names" % (hosts,)])
    parents = _group_parents(inventory)
    host_vars = (inventory.get("_meta") or {}).get("hostvars") or {}
    problems = []
    for host in hosts:
        groups = _host_groups(inventory, host, parents)
        for name in INTENT_VARIABLES:
            if name in (host_vars.get(host) or {}):
                continue  # a host variable wins over every group, on purpose
            setters = sorted(group for group in groups if name in ((inventory.get(group) or {}).get("vars") or {}))
            # A child group overrides its ancestors deliberately: keep only the most specific setters.
            specific = [group for group in setters if not any(group in _ancestors(other, parents) for other in setters)]
            priorities = {group: (inventory[group].get("vars") or {}).get("ansible_group_priority", 1) for group in specific}
            top = max(priorities.values(), default=1)
            contenders = [group for group in specific if priorities[group] == top]
            values = {repr(inventory[group]["vars"][name]) for group in contenders}
            if len(values) > 1:
                problems.append(
                    "%s: %s is set differently by groups %s, neither a child of the other and of equal "
                    "ansible_group_priority; Ansible would pick %s by name order. Set it in one place, in a "
                    "host variable, or give one group a higher ansible_group_priority" % (host, name, " and ".join(contenders), contenders[-1])
                )
    return problems


def _field_differences(path, on_disk, planned):
    if not isinstance(on_disk, dict):
        return ["%s: is not a YAML mapping on the node; the plan writes %s" % (path, sorted(planned))]
    problems = []
    for field in sorted(set(on_disk) | set(planned), key=str):
        if field not in planned:
            problems.append("%s: %s is on the node (%r) but not in the plan" % (path, field, on_disk[field]))
        elif field not in on_disk:
            problems.append("%s: %s is missing on the node; the plan has %r" % (path, field, planned[field]))
        elif on_disk[field] != planned[field]:
            problems.append("%s: %s is %r on the node, the plan %r" % (path, field, on_disk[field], planned[field]))
    return problems


def file_drift(plan):
    """How the files the plan writes differ on the node (each plan file's 'previous' is what the node has)."""
    problems = []
    for entry in plan.get("files") or []:
        path, previous = entry["path"], entry.get("previous")
        if previous is None:
            problems.append("%s: missing on the node" % path)
        elif "text" in entry:
            if previous != entry["text"]:
                problems.append("%s: is %r on the node, the plan %r" % (path, previous, entry["text"]))
        else:
            try:
                on_disk = yaml.safe_load(previous)
            except yaml.YAMLError as exc:
                problems.append("%s: is not YAML on the node (%s)" % (path, exc))
                continue
            problems.extend(_field_differences(path, on_disk, entry["content"]))
    return problems


def drift(plan, state_text):
    """Every difference between the node and a fresh plan: its files, then its memory_manager_state."""
    return file_drift(plan) + state_problems(state_text, plan["expected_state"])


# The fields of the kubelet's config that numa.kubelet plans; anything else on /configz is not its business.
CONFIGZ_POLICY_FIELDS = ("memoryManagerPolicy", "cpuManagerPolicy", "topologyManagerPolicy", "topologyManagerScope")
CONFIGZ_RESERVATION_FIELDS = ("kubeReserved", "systemReserved", "evictionHard")


def _cpuset(text):
    """The CPUs of a cpuset list such as "0-3,8" (k8s.io/utils/cpuset Parse), or None when it is not one."""
    cpus = set()
    for part in text.split(",") if text else []:
        first, dash, last = part.partition("-")
        if not first.isdigit() or (dash and not last.isdigit()):
            return None
        low, high = int(first), int(last) if dash else int(first)
        if high < low:
            return None
        cpus.update(range(low, high + 1))
    return frozenset(cpus)


def _as_the_kubelet_runs_it(planned):
    """kubeReserved and systemReserved after the kubelet's own rewrite for reservedSystemCPUs.

    cmd/kubelet/app/server.go (v1.36.2, logged as "Option --reserved-cpus is specified, it will overwrite the cpu
    setting in KubeReserved and SystemReserved"): with reserved CPUs it deletes kubeReserved.cpu and sets
    systemReserved.cpu to their count, and /configz shows the result (tests/unit/fixtures/configz/).
    """
    reserved = dict(kubeReserved=dict(planned.get("kubeReserved") or {}), systemReserved=dict(planned.get("systemReserved") or {}))
    cpus = _cpuset(str(planned.get("reservedSystemCPUs") or ""))
    if cpus:
        reserved["kubeReserved"].pop("cpu", None)
        reserved["systemReserved"]["cpu"] = str(len(cpus))
    return reserved


def _differs(field, running, planned):
    return "/configz: %s is %s in the running kubelet, the plan %s" % (
        field,
        "not set" if running is None else running,
        "not set" if planned is None else planned,
    )


def _same_quantity(running, planned):
    """Equal as Quantity values when both parse (percentages and other text compare as written)."""
    try:
        return Quantity.parse(str(running)) == Quantity.parse(str(planned))
    except QuantityError:
        return str(running) == str(planned)


def _map_drift(field, running, planned):
    if not isinstance(running, dict):
        return [_differs(field, running, planned)]
    return [
        _differs("%s[%s]" % (field, key), running.get(key), planned.get(key))
        for key in sorted(set(running) | set(planned))
        if key not in running or key not in planned or not _same_quantity(running[key], planned[key])
    ]


def _reserved_memory_limits(entries):
    """{(numaNode, resource): limit} of a reservedMemory list; None when it is not one."""
    if not isinstance(entries, list):
        return None
    limits = {}
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("limits"), dict):
            return None
        for resource, limit in entry["limits"].items():
            limits[(entry.get("numaNode"), resource)] = limit
    return limits


def _reserved_memory_drift(running, planned):
    running_limits, planned_limits = _reserved_memory_limits(running or []), _reserved_memory_limits(planned or [])
    if running_limits is None:
        return ["/configz: reservedMemory is %r in the running kubelet, not a list of numaNode and limits" % (running,)]
    return [
        _differs("reservedMemory[numaNode=%s][%s]" % key, running_limits.get(key), planned_limits.get(key))
        for key in sorted(set(running_limits) | set(planned_limits), key=str)
        if key not in running_limits or key not in planned_limits or not _same_quantity(running_limits[key], planned_limits[key])
    ]


def parse_configz(answer):
    """The kubeletconfig mapping of a /configz answer (its JSON text or already decoded), or a problem line."""
    if isinstance(answer, (str, bytes)):
        try:
            answer = json.loads(answer)
        except ValueError as exc:
            return None, "/configz: the answer is not JSON (%s): %.200r" % (exc, answer)
    if not isinstance(answer, dict) or not isinstance(answer.get("kubeletconfig"), dict):
        return None, ('/configz: the answer has no kubeletconfig mapping (the kubelet answers {"kubeletconfig": {...}}): %.200r' % (plain_data(answer),))
    return answer["kubeletconfig"], None


def configz_drift(plan, configz):
    """How the running kubelet's config (a /configz answer) differs from the plan's effective config; [] when not.

    Compares the policies of the memory, CPU and topology managers and the topology manager's scope,
    reservedMemory per NUMA node and resource, kubeReserved, systemReserved and evictionHard per key (quantities
    by value), and reservedSystemCPUs when the plan sets it. A malformed answer is one problem line.
    """
    running, problem = parse_configz(configz)
    if problem:
        return [problem]
    planned = plan["kubelet_config"]
    problems = []
    for field in CONFIGZ_POLICY_FIELDS:
        if running.get(field) != planned.get(field):
            problems.append(_differs(field, running.get(field), planned.get(field)))
    problems.extend(_reserved_memory_drift(running.get("reservedMemory"), planned.get("reservedMemory")))
    reservations = _as_the_kubelet_runs_it(planned)
    reservations["evictionHard"] = planned.get("evictionHard") or {}
    for field in CONFIGZ_RESERVATION_FIELDS:
        problems.extend(_map_drift(field, running.get(field) or {}, reservations[field]))
    if planned.get("reservedSystemCPUs"):
        cpus = running.get("reservedSystemCPUs")
        if cpus is None or _cpuset(str(cpus)) != _cpuset(str(planned["reservedSystemCPUs"])):
            problems.append(_differs("reservedSystemCPUs", cpus, planned["reservedSystemCPUs"]))
    return problems


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


def read_progress(text) -> tuple[dict | None, str]:
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


def roll_decision(record_text, *, cluster: bool, cordoned: bool, pending: bool, digest: str) -> dict:
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
    verify: the rollout's cordon lifted, the record removed). Also the summary's words: message, resumed, problem.
    """
    record, problem = read_progress(record_text)
    if not cluster:
        return _node_local_decision(record, problem, pending, digest)
    owner = None
    if cordoned:
        owner = BY_ROLLOUT if record is not None and record["by"] == BY_ROLLOUT else BY_OTHER
    drain = pending
    annotations = {"metadata": {"annotations": {PROGRESS_ANNOTATION: None}}}
    start = applied = finish = None
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
        "message": message,
        "resumed": _resumed(record, digest, cordoned, cluster),
        "problem": problem,
    }


def _node_local_decision(record: dict | None, problem: str, pending: bool, digest: str) -> dict:
    """Node-local: no cordon; the file says a roll was cut short, and is removed once the node is verified."""
    return {
        "owner": None,
        "drain": False,
        "wait_ready": False,
        "start": _record(None, digest, "apply") if pending else None,
        "applied": None,
        "finish": "remove" if pending or record is not None or problem else None,
        "message": "node-local",
        "resumed": _resumed(record, digest, False, False),
        "problem": problem,
    }


def _api_time(text) -> float | None:
    """Seconds since the epoch of an API timestamp (RFC 3339 in UTC, whole seconds: "2026-11-28T02:13:52Z")."""
    try:
        return float(calendar.timegm(time.strptime(str(text), "%Y-%m-%dT%H:%M:%SZ")))
    except ValueError:
        return None


def ready_since(node, started_at) -> dict:
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


def process_started_at(text) -> float:
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


# What a failed step left behind, when the host was reachable (the role's rescue rolls an apply back).
_LEFT_AFTER_FAILED_STEP = {"drain": ", nothing applied", "apply": ", rolled back by the role"}
SUMMARY_HEADER = ("HOST", "PLATFORM", "NUMA SPLIT", "RESULT")


def _flag(value: object) -> bool:
    """A record's boolean as Ansible may have templated it (True, or "True" from a non-native template)."""
    return value is True or (isinstance(value, str) and value.strip().lower() in ("true", "yes", "1"))


def result_text(record: dict) -> str:
    """The RESULT column of one host, from its kubelet_numa_rollout_result record ({} when the roll never reached it)."""
    if record.get("result") == "applied":
        return f"applied, {record.get('message', '')}"
    if record.get("result") == "failed":
        step = str(record.get("step", ""))
        left = ", unreachable (not rolled back)" if _flag(record.get("unreachable")) else _LEFT_AFTER_FAILED_STEP.get(step, "")
        return f"FAILED at {step}{left}{', left cordoned' if _flag(record.get('cordoned')) else ''}"
    return "untouched (not reached)"


def numa_split(reserved_memory: list | None) -> str:
    """The NUMA SPLIT column: the plan's reservedMemory as NODE=LIMIT pairs, or "-" for a host without a plan."""
    return " ".join(f"{entry['numaNode']}={entry['limits']['memory']}" for entry in reserved_memory or []) or "-"


def summary_lines(hosts: list[dict]) -> list[str]:
    """The rollout's summary table, one line per host in the play's order, each column as wide as its longest cell;
    then one line per host that healed itself since the collection's last change.

    hosts: [{host, platform, reserved_memory, result, healed}]: the host's name, its plan's platform and reservedMemory
    ("" and [] without a plan), its kubelet_numa_rollout_result record ({} when not reached) and its self-heal text ("").
    """
    rows = [SUMMARY_HEADER] + [
        (str(host["host"]), str(host.get("platform") or "-"), numa_split(host.get("reserved_memory")), result_text(host.get("result") or {})) for host in hosts
    ]
    widths = [max(len(row[column]) for row in rows) for column in range(len(SUMMARY_HEADER) - 1)]
    table = ["  ".join([*(row[column].ljust(width) for column, width in enumerate(widths)), row[-1]]) for row in rows]
    return table + [f"{host['host']}: {host['healed']}" for host in hosts if host.get("healed")]


def host_problems(host: dict) -> list[str]:
    """What the rollout's first play refuses on one host besides its plan, one line each.

    host: {name, config, plan_problems, kubeconfig, kubeconfig_exists, control_host, node_name, node_rc, node_stderr}:
    the host's name and kubelet_numa_config, the lines of its failed plan, the rollout's kubeconfig (""
    node-local) and whether the control host has it, and the answer of `kubectl get node` for its Node (rc 0 when not
    asked). The Node is looked for only through a kubeconfig that exists.
    """
    name = host["name"]
    problems = [] if host.get("config") else [f"{name}: kubelet_numa_config is empty: there is nothing to roll out on this host"]
    problems += [f"{name}: {problem}" for problem in host.get("plan_problems") or []]
    if host.get("kubeconfig") and not _flag(host.get("kubeconfig_exists")):
        problems.append(f"kubelet_numa_rollout_kubeconfig: {host['kubeconfig']} does not exist on the control host {host['control_host']}")
    elif int(host.get("node_rc") or 0) != 0:
        stderr = str(host.get("node_stderr") or "").strip()
        problems.append(f"{name}: its Node {host['node_name']} cannot be read from the cluster: {stderr}")
    return problems
