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
            f"kubelet_numa_rollout_serial: {plain_data(serial)!r} ({_builtin_type_name(serial)}) is neither a count (1, 2, ...) nor a percentage (1% to 100%)"
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
        raise KubeletConfigError([f"inventory: {inventory!r} must be the mapping `ansible-inventory --list --export` prints"])
    if isinstance(hosts, (str, dict)) or not isinstance(hosts, (list, tuple)):
        raise KubeletConfigError([f"hosts: {hosts!r} must be a list of inventory host names"])
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
        _differs(f"{field}[{key}]", running.get(key), planned.get(key))
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
    if record.get("result") == "untouched":
        # Left alone on purpose: halted before its batch, or unavailable before the rollout (docs/rollout.md, "Budget and canary").
        return f"untouched, {record.get('message', '')}"
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


# -- Budgeted batches (docs/rollout.md, "Budget and canary") ---------------------------------------------------------
# A budget is Kubernetes' maxUnavailable as an IntOrString: a count, or a percentage of the nodes it bounds, which
# the Deployment controller scales rounding down and, with no surge, raises to at least 1 (ResolveFenceposts in
# pkg/controller/deployment/util/deployment_util.go; GetScaledValueFromIntOrPercent in
# staging/src/k8s.io/apimachinery/pkg/util/intstr/intstr.go). The rollout has no surge: a node it takes out of
# service is not replaced, so it rounds down too (never more unavailable than the percentage says) and at least 1.

SERIAL = "kubelet_numa_rollout_serial"
MAX_UNAVAILABLE = "kubelet_numa_rollout_max_unavailable"
MAX_FAILURES = "kubelet_numa_rollout_max_failures"
CANARY = "kubelet_numa_rollout_canary"
DOMAIN_LABEL = "kubelet_numa_rollout_failure_domain_label"
DOMAIN_GROUPS = "kubelet_numa_rollout_failure_domain_groups"
_PERCENT_TEXT = re.compile(r"^([0-9]+)%$")


def budget_problems(value: object, name: str = MAX_UNAVAILABLE) -> list[str]:
    """Problems with a budget: a count of at least 1, or a percentage from 1% to 100%."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        return [f"{name}: {plain_data(value)!r} ({_builtin_type_name(value)}) is neither a count (1, 2, ...) nor a percentage (1% to 100%)"]
    text = str(value).strip()
    percent = _PERCENT_TEXT.match(text)
    if percent:
        number = int(percent.group(1))
        if number > 100:
            return [f"{name}: {text} must not be greater than 100%"]
        if number == 0:
            return [f"{name}: {text} allows no node to be unavailable, so no node could ever be rolled; the budget is at least 1 (or 1%)"]
        return []
    if isinstance(value, int) or re.match(r"^-?[0-9]+$", text):
        if int(text) < 1:
            return [f"{name}: {text} allows no node to be unavailable, so no node could ever be rolled; the budget is at least 1 (or 1%)"]
        return []
    return [f"{name}: {text!r} is neither a count (1, 2, ...) nor a percentage (1% to 100%)"]


def scaled_budget(value: int | str, total: int) -> int:
    """A valid budget over `total` nodes: a count as it is, a percentage rounded down, and at least 1."""
    text = str(value).strip()
    if text.endswith("%"):
        return max(1, int(text[:-1]) * total // 100)
    return max(1, int(text))


def _count_problems(value: object, name: str, minimum: int) -> list[str]:
    if isinstance(value, bool) or not (isinstance(value, int) or (isinstance(value, str) and re.match(r"^-?[0-9]+$", value.strip()))):
        return [f"{name}: {plain_data(value)!r} ({_builtin_type_name(value)}) is not a whole number"]
    if int(value) < minimum:
        return [f"{name}: {int(value)} must be {minimum} or more"]
    return []


def node_availability(nodes: object, node_names: dict[str, str], label: str = "") -> tuple[dict[str, str], dict[str, str], list[str]]:
    """Each host's failure domain (its Node's `label`) and why a host's Node is unavailable already.

    nodes: the answer of `kubectl get nodes --output=json` (a List of Nodes). A Node is unavailable when its Ready
    condition is not True (NotReady, or Unknown when the node stopped posting) or when it is cordoned
    (spec.unschedulable). Returns (domains, unavailable, problems); domains is empty without a label.
    """
    items = nodes.get("items") if isinstance(nodes, dict) else None
    if not isinstance(items, list):
        return {}, {}, [f"kubectl get nodes: the answer is not a List of Nodes: {plain_data(nodes)!r:.200}"]
    by_name = {(item.get("metadata") or {}).get("name"): item for item in items if isinstance(item, dict)}
    domains: dict[str, str] = {}
    unavailable: dict[str, str] = {}
    problems: list[str] = []
    for host, node_name in node_names.items():
        node = by_name.get(node_name)
        if node is None:
            problems.append(f"{host}: its Node {node_name} is not in the cluster's list of Nodes")
            continue
        reasons = _unavailable_reasons(node)
        if reasons:
            unavailable[host] = ", ".join(reasons)
        if label:
            value = ((node.get("metadata") or {}).get("labels") or {}).get(label)
            if value is None:
                problems.append(
                    f"{host}: its Node {node_name} has no label {label} ({DOMAIN_LABEL}): every targeted Node needs one, "
                    "or the rollout could not count it in its failure domain"
                )
            else:
                domains[host] = value
    return domains, unavailable, problems


def _unavailable_reasons(node: dict) -> list[str]:
    conditions = (node.get("status") or {}).get("conditions") or []
    ready = next((condition.get("status") for condition in conditions if isinstance(condition, dict) and condition.get("type") == "Ready"), None)
    reasons = []
    if ready != "True":
        reasons.append("NotReady" if ready == "False" else f"Ready is {ready or 'not reported'}")
    if (node.get("spec") or {}).get("unschedulable"):
        reasons.append("cordoned")
    return reasons


def group_domains(groups: dict[str, list[str]], domain_groups: list[str], hosts: list[str]) -> tuple[dict[str, str], list[str]]:
    """Each host's failure domain as the one inventory group of `domain_groups` it belongs to."""
    problems = [f"{DOMAIN_GROUPS}: {group} is not a group of the inventory" for group in domain_groups if group not in groups]
    domains: dict[str, str] = {}
    for host in hosts:
        found = [group for group in domain_groups if host in (groups.get(group) or [])]
        if len(found) == 1:
            domains[host] = found[0]
        else:
            problems.append(
                f"{host}: it is in {' and '.join(found) if found else 'none'} of the failure-domain groups {', '.join(domain_groups)} "
                f"({DOMAIN_GROUPS}); each targeted host must be in exactly one"
            )
    return domains, problems


def batch_plan(
    hosts: list[str],
    max_unavailable: int | str,
    canary: int | str = 1,
    max_failures: int | str = 0,
    domains: dict[str, str] | None = None,
    unavailable: dict[str, str] | None = None,
    pending: dict[str, bool] | None = None,
    budget_name: str = MAX_UNAVAILABLE,
) -> dict:
    """Which hosts roll in which batch, so that no more nodes than the budget are unavailable at any moment.

    hosts: the targeted hosts in the play's order. The budget bounds, at every moment, the unavailable nodes among
    them (scaled over all of them) and among each failure domain's (scaled over that domain's); domains maps each
    host to its domain (empty: the fleet is the only one). A host in `unavailable` counts against the budget the
    whole time; a NotReady one is not rolled (skipped), a cordoned one is, taking no more room. A host whose `pending` is false
    is converged: the roll neither drains nor restarts it, so it takes no room and goes with the first batch after
    the canary. The canary batch (the first `canary` hosts that fit, 0: none) goes first on its own.

    budget_name: the variable the budget comes from (kubelet_numa_rollout_serial stands in when max_unavailable is
    not set, and is refused with its own words).

    Returns {"batches", "sizes", "order", "canary", "converged", "skipped", "budget", "max_failures", "domains",
    "problems"}; with problems, no batch: the rollout refuses before any node is touched.
    """
    domains = dict(domains or {})
    unavailable = dict(unavailable or {})
    pending = dict(pending or {})
    budget_check = serial_problems(max_unavailable) if budget_name == SERIAL else budget_problems(max_unavailable, budget_name)
    problems = budget_check + _count_problems(canary, CANARY, 0) + _count_problems(max_failures, MAX_FAILURES, 0)
    plan = dict(batches=[], sizes=[], order=[], canary=[], converged=[], skipped={}, budget={}, max_failures=0, domains=domains, problems=problems)
    if problems:
        return plan
    members: dict[str, list[str]] = {}
    for host in hosts:
        members.setdefault(domains.get(host, ""), []).append(host)
    budget = {"fleet": scaled_budget(max_unavailable, len(hosts))}
    if domains:
        budget.update({domain: scaled_budget(max_unavailable, len(names)) for domain, names in members.items()})
    used = {scope: sum(1 for host in unavailable if host in hosts and (scope == "fleet" or domains.get(host) == scope)) for scope in budget}
    # A NotReady Node cannot pass the roll's Ready wait: it is left alone. A cordoned one is rolled (and left cordoned
    # unless the rollout's own record says it cordoned it); it is out of service already, so its roll takes no room.
    skipped = {host: reason for host, reason in unavailable.items() if reason != "cordoned"}
    to_roll = [host for host in hosts if host not in skipped]
    busy = [host for host in to_roll if pending.get(host, True) and host not in unavailable]
    free = [host for host in to_roll if host not in busy]
    problems.extend(_room_problems(busy, budget, used, domains, unavailable, f"{budget_name}: {max_unavailable}"))
    plan.update(
        budget=budget,
        max_failures=int(max_failures),
        converged=free,
        unavailable={host: unavailable[host] for host in hosts if host in unavailable},
        skipped={host: skipped[host] for host in hosts if host in skipped},
    )
    if problems:
        return plan
    batches = _fill(busy, budget, used, domains, first_size=int(canary))
    canary_hosts = batches[0] if int(canary) and batches else []
    if free:
        after_canary = 1 if canary_hosts else 0
        if len(batches) > after_canary:
            batches[after_canary] = batches[after_canary] + free
        else:
            batches.append(free)
    plan.update(batches=batches, sizes=[len(batch) for batch in batches], order=[host for batch in batches for host in batch], canary=canary_hosts)
    return plan


def _room_problems(busy, budget, used, domains, unavailable, setting) -> list[str]:
    """A scope (the fleet or a domain) with hosts to roll and no room left: nothing could ever roll them."""
    problems = []
    for scope, allowed in budget.items():
        waiting = [host for host in busy if scope == "fleet" or domains.get(host) == scope]
        if waiting and used[scope] >= allowed:
            already = sorted(host for host in unavailable if scope == "fleet" or domains.get(host) == scope)
            where = "the fleet" if scope == "fleet" else f"failure domain {scope}"
            problems.append(
                f"{setting} allows {allowed} unavailable node(s) in {where}, and {used[scope]} already are "
                f"({', '.join(f'{host}: {unavailable[host]}' for host in already)}): {', '.join(waiting)} could never be rolled. "
                "Bring those nodes back, leave them out of the rollout, or raise the budget"
            )
    return problems


def _fill(busy, budget, used, domains, first_size):
    """Greedy batches in the play's order: each takes every waiting host its fleet and domain still have room for."""
    batches, waiting = [], list(busy)
    while waiting:
        room = {scope: allowed - used[scope] for scope, allowed in budget.items()}
        limit = first_size if first_size and not batches else room["fleet"]
        batch = []
        for host in waiting:
            domain = domains.get(host)
            if len(batch) < limit and room["fleet"] > 0 and (domain is None or room[domain] > 0):
                batch.append(host)
                room["fleet"] -= 1
                if domain is not None:
                    room[domain] -= 1
        batches.append(batch)
        waiting = [host for host in waiting if host not in batch]
    return batches


def halt_reason(plan: dict, failed: list[str], batch: list[str]) -> str:
    """Why the batch about to start must not start; "" when it may.

    failed: the hosts whose roll failed so far. A failed canary halts, whatever the failure budget; so do more
    failed hosts than max_failures. A failed host stays unavailable (it is left cordoned, or its kubelet failed), so
    the batch also halts when it would take the fleet or a domain past its budget with them.
    """
    failed = sorted(set(failed))
    if not failed:
        return ""
    canary_failed = [host for host in failed if host in plan.get("canary", [])]
    if canary_failed:
        return f"the canary {', '.join(canary_failed)} failed: no later batch starts"
    if len(failed) > plan.get("max_failures", 0):
        return f"{len(failed)} host(s) failed ({', '.join(failed)}), more than {MAX_FAILURES} ({plan.get('max_failures', 0)}): no later batch starts"
    domains = plan.get("domains") or {}
    out = set(plan.get("unavailable") or plan.get("skipped") or {}) | set(failed)
    starting = [host for host in batch if host not in out and host not in (plan.get("converged") or [])]
    for scope, allowed in (plan.get("budget") or {}).items():
        count = sum(1 for host in list(out) + starting if scope == "fleet" or domains.get(host) == scope)
        if count > allowed:
            where = "the fleet" if scope == "fleet" else f"failure domain {scope}"
            return (
                f"the batch {', '.join(batch)} would make {count} node(s) unavailable in {where}, over its budget of {allowed}, "
                f"with the failed host(s) {', '.join(failed)} still unavailable: no later batch starts"
            )
    return ""


def rollout_plan(
    hosts: list[str],
    max_unavailable: object = "",
    serial: object = 1,
    canary: object = 1,
    max_failures: object = 0,
    nodes: object = None,
    node_names: dict[str, str] | None = None,
    domain_label: str = "",
    domain_groups: list[str] | None = None,
    groups: dict[str, list[str]] | None = None,
    pending: dict[str, bool] | None = None,
) -> dict:
    """The rollout's batch plan from its variables and what the cluster says (batch_plan's result).

    Without max_unavailable ("" or None) the budget is kubelet_numa_rollout_serial, as before it existed. nodes: the
    answer of `kubectl get nodes --output=json` in cluster mode, None node-local (no Node can be read, so none is
    known to be unavailable). The failure domain is a Node label (cluster mode) or one of domain_groups (inventory
    groups, either mode), not both.
    """
    domain_groups = list(domain_groups or [])
    use_serial = max_unavailable is None or (isinstance(max_unavailable, str) and not max_unavailable.strip())
    problems: list[str] = []
    domains: dict[str, str] = {}
    unavailable: dict[str, str] = {}
    if domain_label and domain_groups:
        problems.append(f"{DOMAIN_LABEL} and {DOMAIN_GROUPS} are both set: a host has one failure domain, set one of them")
    elif domain_label and nodes is None:
        problems.append(f"{DOMAIN_LABEL}: {domain_label} is a Node label, read from the cluster: it needs cluster mode (kubelet_numa_rollout_kubeconfig)")
    elif domain_groups:
        domains, found = group_domains(groups or {}, domain_groups, hosts)
        problems.extend(found)
    if nodes is not None and not problems:
        label_domains, unavailable, found = node_availability(nodes, {host: (node_names or {}).get(host) or host for host in hosts}, domain_label)
        domains = domains or label_domains
        problems.extend(found)
        # kubelet_numa_rollout_serial keeps its meaning, a batch size: Nodes unavailable before the rollout count only
        # against an explicit max_unavailable (a node cordoned by hand would otherwise use up serial 1 and stop it).
        if use_serial:
            unavailable = {}
    plan = batch_plan(
        hosts,
        serial if use_serial else max_unavailable,
        canary=canary,
        max_failures=max_failures,
        domains=domains,
        unavailable=unavailable,
        pending=pending,
        budget_name=SERIAL if use_serial else MAX_UNAVAILABLE,
    )
    if problems:
        plan.update(batches=[], sizes=[], order=[], canary=[])
    plan["problems"] = problems + plan["problems"]
    return plan
