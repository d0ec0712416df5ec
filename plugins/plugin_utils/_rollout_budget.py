# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Budgeted batches (docs/rollout.md, "Budget and canary"): which hosts roll together, and when the rollout halts.

A budget is Kubernetes' maxUnavailable as an IntOrString: a count, or a percentage of the nodes it bounds, which
the Deployment controller scales rounding down and, with no surge, raises to at least 1 (ResolveFenceposts in
pkg/controller/deployment/util/deployment_util.go; GetScaledValueFromIntOrPercent in
staging/src/k8s.io/apimachinery/pkg/util/intstr/intstr.go). The rollout has no surge: a node it takes out of
service is not replaced, so it rounds down too (never more unavailable than the percentage says) and at least 1.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ._config import plain_data
from ._rollout import builtin_type_name, serial_problems

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
        return [f"{name}: {plain_data(value)!r} ({builtin_type_name(value)}) is neither a count (1, 2, ...) nor a percentage (1% to 100%)"]
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
        return [f"{name}: {plain_data(value)!r} ({builtin_type_name(value)}) is not a whole number"]
    if int(value) < minimum:
        return [f"{name}: {int(value)} must be {minimum} or more"]
    return []


@dataclass
class Fleet:
    """What is known of the Nodes before the rollout, beside the targeted hosts' names.

    domains: each targeted host's failure domain (empty: the fleet is the only one). unavailable: why a targeted
    host's Node is unavailable already (NotReady, cordoned). pending: false for a converged host (nothing to change).
    outside: the cluster's Nodes the rollout does not target that are unavailable already, as {name: (reason,
    failure domain, "" when it has none)}: they count against the budget of the fleet and of their domain.
    """

    domains: dict[str, str] = field(default_factory=dict)
    unavailable: dict[str, str] = field(default_factory=dict)
    pending: dict[str, bool] = field(default_factory=dict)
    outside: dict[str, tuple[str, str]] = field(default_factory=dict)


def _nodes_by_name(nodes: object) -> dict[str, dict[str, Any]] | None:
    """The Nodes of `kubectl get nodes --output=json` by name; None when the answer is not a List of Nodes."""
    items = nodes.get("items") if isinstance(nodes, dict) else None
    if not isinstance(items, list):
        return None
    return {str((item.get("metadata") or {}).get("name")): item for item in items if isinstance(item, dict)}


def _label(node: dict[str, Any], label: str) -> str | None:
    value = ((node.get("metadata") or {}).get("labels") or {}).get(label)
    return None if value is None else str(value)


def node_availability(nodes: object, node_names: dict[str, str], label: str = "") -> tuple[dict[str, str], dict[str, str], list[str]]:
    """Each host's failure domain (its Node's `label`) and why a host's Node is unavailable already.

    nodes: the answer of `kubectl get nodes --output=json` (a List of Nodes). A Node is unavailable when its Ready
    condition is not True (NotReady, or Unknown when the node stopped posting) or when it is cordoned
    (spec.unschedulable). Returns (domains, unavailable, problems); domains is empty without a label.
    """
    by_name = _nodes_by_name(nodes)
    if by_name is None:
        return {}, {}, [f"kubectl get nodes: the answer is not a List of Nodes: {plain_data(nodes)!r:.200}"]
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
        value = _label(node, label) if label else ""
        if value is None:
            problems.append(
                f"{host}: its Node {node_name} has no label {label} ({DOMAIN_LABEL}): every targeted Node needs one, "
                "or the rollout could not count it in its failure domain"
            )
        elif label:
            domains[host] = value
    return domains, unavailable, problems


def outside_unavailable(nodes: object, targeted: list[str], label: str = "") -> dict[str, tuple[str, str]]:
    """The cluster's Nodes outside the rollout (not in `targeted`, Node names) that are unavailable already.

    {name: (why, its failure domain: its `label`'s value, "" without a label or a value)}; {} for an answer that is
    not a List of Nodes (node_availability refuses it).
    """
    by_name = _nodes_by_name(nodes) or {}
    outside: dict[str, tuple[str, str]] = {}
    for name, node in sorted(by_name.items()):
        reasons = _unavailable_reasons(node)
        if name not in targeted and reasons:
            outside[name] = (", ".join(reasons), (_label(node, label) or "") if label else "")
    return outside


def _unavailable_reasons(node: dict[str, Any]) -> list[str]:
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


def _in_scope(scope: str, domain: str | None) -> bool:
    return scope == "fleet" or domain == scope


def _budgets(hosts: list[str], max_unavailable: int | str, domains: dict[str, str]) -> dict[str, int]:
    """The room of the fleet (scaled over every targeted host) and of each domain (over its own targeted hosts)."""
    budget = {"fleet": scaled_budget(max_unavailable, len(hosts))}
    for domain in dict.fromkeys(domains[host] for host in hosts if host in domains):
        budget[domain] = scaled_budget(max_unavailable, sum(1 for host in hosts if domains.get(host) == domain))
    return budget


def _down_already(fleet: Fleet, hosts: list[str]) -> dict[str, str]:
    """Every Node unavailable before the rollout, targeted or not, with its reason ("(not in the rollout)" outside)."""
    down = {host: fleet.unavailable[host] for host in hosts if host in fleet.unavailable}
    down.update({name: f"{reason} (not in the rollout)" for name, (reason, _domain) in fleet.outside.items()})
    return down


def _domain_of(fleet: Fleet, name: str) -> str | None:
    """The failure domain of a targeted host or of an unavailable Node outside the rollout (None: the fleet's only)."""
    if name in fleet.outside:
        return fleet.outside[name][1] or None
    return fleet.domains.get(name)


def batch_plan(
    hosts: list[str],
    max_unavailable: int | str,
    canary: int | str = 1,
    max_failures: int | str = 0,
    fleet: Fleet | None = None,
    budget_name: str = MAX_UNAVAILABLE,
) -> dict[str, Any]:
    """Which hosts roll in which batch, so that no more nodes than the budget are unavailable at any moment.

    hosts: the targeted hosts in the play's order. The budget bounds, at every moment, the unavailable nodes of the
    fleet (scaled over the targeted hosts) and of each failure domain (scaled over its targeted hosts). A Node
    unavailable already (fleet.unavailable, fleet.outside) counts against it the whole time; a targeted NotReady one
    is not rolled (skipped), a cordoned one is, taking no more room. A converged host (fleet.pending false) is
    neither drained nor restarted: it takes no room and goes with the first batch after the canary. The canary
    batch (the first `canary` hosts that fit, 0: none) goes first on its own. budget_name: the variable the budget
    comes from (kubelet_numa_rollout_serial stands in when max_unavailable is not set, refused with its own words).

    Returns {"batches", "sizes", "order", "canary", "converged", "skipped", "unavailable", "outside", "budget",
    "max_failures", "domains", "problems"}; with problems, no batch: the rollout refuses before any node is touched.
    """
    fleet = fleet or Fleet()
    budget_check = serial_problems(max_unavailable) if budget_name == SERIAL else budget_problems(max_unavailable, budget_name)
    problems = budget_check + _count_problems(canary, CANARY, 0) + _count_problems(max_failures, MAX_FAILURES, 0)
    plan: dict[str, Any] = dict(batches=[], sizes=[], order=[], canary=[], converged=[], skipped={}, budget={}, max_failures=0, problems=problems)
    plan.update(domains=dict(fleet.domains), outside={name: {"reason": reason, "domain": domain} for name, (reason, domain) in fleet.outside.items()})
    if problems:
        return plan
    budget = _budgets(hosts, max_unavailable, fleet.domains)
    down = _down_already(fleet, hosts)
    used = {scope: sum(1 for name in down if _in_scope(scope, _domain_of(fleet, name))) for scope in budget}
    # A NotReady Node cannot pass the roll's Ready wait: it is left alone. A cordoned one is rolled (and left cordoned
    # unless the rollout's own record says it cordoned it); it is out of service already, so its roll takes no room.
    skipped = {host: fleet.unavailable[host] for host in hosts if fleet.unavailable.get(host, "cordoned") != "cordoned"}
    to_roll = [host for host in hosts if host not in skipped]
    busy = [host for host in to_roll if fleet.pending.get(host, True) and host not in fleet.unavailable]
    free = [host for host in to_roll if host not in busy]
    problems.extend(_room_problems(busy, budget, used, fleet, f"{budget_name}: {max_unavailable}", down))
    plan.update(budget=budget, max_failures=int(max_failures), converged=free, skipped=skipped)
    plan["unavailable"] = {host: fleet.unavailable[host] for host in hosts if host in fleet.unavailable}
    if not problems:
        plan.update(_placed(_fill(busy, budget, used, fleet.domains, first_size=int(canary)), free, int(canary)))
    return plan


def _placed(batches: list[list[str]], free: list[str], canary: int) -> dict[str, Any]:
    """The plan's batches, sizes, order and canary: the converged hosts go with the first batch after the canary."""
    canary_hosts = batches[0] if canary and batches else []
    batches = list(batches)
    if free:
        after_canary = 1 if canary_hosts else 0
        if len(batches) > after_canary:
            batches[after_canary] = batches[after_canary] + free
        else:
            batches.append(free)
    return {"batches": batches, "sizes": [len(batch) for batch in batches], "order": [host for batch in batches for host in batch], "canary": canary_hosts}


def _room_problems(busy: list[str], budget: dict[str, int], used: dict[str, int], fleet: Fleet, setting: str, down: dict[str, str]) -> list[str]:
    """A scope (the fleet or a domain) with hosts to roll and no room left: nothing could ever roll them."""
    problems = []
    for scope, allowed in budget.items():
        waiting = [host for host in busy if _in_scope(scope, fleet.domains.get(host))]
        if waiting and used[scope] >= allowed:
            already = sorted(name for name in down if _in_scope(scope, _domain_of(fleet, name)))
            where = "the fleet" if scope == "fleet" else f"failure domain {scope}"
            problems.append(
                f"{setting} allows {allowed} unavailable node(s) in {where}, and {used[scope]} already are "
                f"({', '.join(f'{name}: {down[name]}' for name in already)}): {', '.join(waiting)} could never be rolled. "
                "Bring those nodes back, leave them out of the rollout, or raise the budget"
            )
    return problems


def _fill(busy: list[str], budget: dict[str, int], used: dict[str, int], domains: dict[str, str], first_size: int) -> list[list[str]]:
    """Greedy batches in the play's order: each takes every waiting host its fleet and domain still have room for."""
    batches: list[list[str]] = []
    waiting = list(busy)
    while waiting:
        room = {scope: allowed - used[scope] for scope, allowed in budget.items()}
        limit = first_size if first_size and not batches else room["fleet"]
        batch: list[str] = []
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


def halt_reason(plan: dict[str, Any], failed: list[str], batch: list[str]) -> str:
    """Why the batch about to start must not start; "" when it may.

    failed: the hosts whose roll failed so far. A failed canary halts, whatever the failure budget; so do more
    failed hosts than max_failures. A failed host stays unavailable (it is left cordoned, or its kubelet failed), so
    the batch also halts when it would take the fleet or a domain past its budget with them (and with the Nodes
    unavailable before the rollout, targeted or not).
    """
    failed = sorted(set(failed))
    if not failed:
        return ""
    canary_failed = [host for host in failed if host in plan.get("canary", [])]
    if canary_failed:
        return f"the canary {', '.join(canary_failed)} failed: no later batch starts"
    if len(failed) > plan.get("max_failures", 0):
        return f"{len(failed)} host(s) failed ({', '.join(failed)}), more than {MAX_FAILURES} ({plan.get('max_failures', 0)}): no later batch starts"
    domains = dict(plan.get("domains") or {})
    outside = plan.get("outside") or {}
    domains.update({name: entry["domain"] for name, entry in outside.items() if entry.get("domain")})
    out = set(plan.get("unavailable") or plan.get("skipped") or {}) | set(failed) | set(outside)
    starting = [host for host in batch if host not in out and host not in (plan.get("converged") or [])]
    for scope, allowed in (plan.get("budget") or {}).items():
        count = sum(1 for host in list(out) + starting if _in_scope(scope, domains.get(host)))
        if count > allowed:
            where = "the fleet" if scope == "fleet" else f"failure domain {scope}"
            return (
                f"the batch {', '.join(batch)} would make {count} node(s) unavailable in {where}, over its budget of {allowed}, "
                f"with the failed host(s) {', '.join(failed)} still unavailable: no later batch starts"
            )
    return ""


def _failure_domains(
    hosts: list[str], nodes: object, domain_label: str, domain_groups: list[str], groups: dict[str, list[str]]
) -> tuple[dict[str, str], list[str]]:
    """The failure domains from inventory groups, or the problems with the domain settings ({} for a Node label)."""
    if domain_label and domain_groups:
        return {}, [f"{DOMAIN_LABEL} and {DOMAIN_GROUPS} are both set: a host has one failure domain, set one of them"]
    if domain_label and nodes is None:
        return {}, [f"{DOMAIN_LABEL}: {domain_label} is a Node label, read from the cluster: it needs cluster mode (kubelet_numa_rollout_kubeconfig)"]
    if domain_groups:
        return group_domains(groups, domain_groups, hosts)
    return {}, []


# Eleven keyword parameters: one per variable of the rollout that shapes its plan, as the filter _rollout_plan takes them.
def rollout_plan(  # noqa: PLR0913 - one keyword per rollout variable, as the filter passes them
    hosts: list[str],
    max_unavailable: Any = "",
    serial: Any = 1,
    canary: Any = 1,
    max_failures: Any = 0,
    nodes: object = None,
    node_names: dict[str, str] | None = None,
    domain_label: str = "",
    domain_groups: list[str] | None = None,
    groups: dict[str, list[str]] | None = None,
    pending: dict[str, bool] | None = None,
) -> dict[str, Any]:
    """The rollout's batch plan from its variables and what the cluster says (batch_plan's result).

    Without max_unavailable ("" or None) the budget is kubelet_numa_rollout_serial, as before it existed. nodes: the
    answer of `kubectl get nodes --output=json` in cluster mode, None node-local (no Node can be read, so none is
    known to be unavailable). The failure domain is a Node label (cluster mode) or one of domain_groups (inventory
    groups, either mode), not both. With max_unavailable, the cluster's Nodes that are unavailable already count
    against it, targeted or not (an untargeted one in its label's domain).
    """
    use_serial = max_unavailable is None or (isinstance(max_unavailable, str) and not max_unavailable.strip())
    domains, problems = _failure_domains(hosts, nodes, domain_label, list(domain_groups or []), groups or {})
    fleet = Fleet(domains=domains, pending=dict(pending or {}))
    if nodes is not None and not problems:
        names = {host: (node_names or {}).get(host) or host for host in hosts}
        label_domains, unavailable, found = node_availability(nodes, names, domain_label)
        fleet.domains = domains or label_domains
        problems.extend(found)
        # kubelet_numa_rollout_serial keeps its meaning, a batch size: Nodes unavailable before the rollout count only
        # against an explicit max_unavailable (a node cordoned by hand would otherwise use up serial 1 and stop it).
        if not use_serial:
            fleet.unavailable = unavailable
            fleet.outside = outside_unavailable(nodes, list(names.values()), domain_label)
    budget, name = (serial, SERIAL) if use_serial else (max_unavailable, MAX_UNAVAILABLE)
    plan = batch_plan(hosts, budget, canary=canary, max_failures=max_failures, fleet=fleet, budget_name=name)
    if problems:
        plan.update(batches=[], sizes=[], order=[], canary=[])
    plan["problems"] = problems + plan["problems"]
    return plan
