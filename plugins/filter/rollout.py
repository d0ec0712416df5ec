# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

# The private filters of numa.kubelet's own verify and rollout (the underscore: see docs/contributing.md, "Naming"), beside
# their engine _rollout.py. Each documents itself in its own sidecar (_drift.yml, _configz_drift.yml,
# _rollout_problems.yml, _roll_decision.yml, _ready_since.yml, _rollout_plan.yml, _rollout_halt.yml): ansible-doc reads a
# sidecar only when the .py has no DOCUMENTATION.
import json

from ansible.errors import AnsibleFilterError

from ansible_collections.numa.kubelet.plugins.plugin_utils._config import KubeletConfigError, plain_data
from ansible_collections.numa.kubelet.plugins.plugin_utils._kubelet_fields import type_name
from ansible_collections.numa.kubelet.plugins.plugin_utils._rollout import drift, host_problems, intent_conflicts, serial_problems
from ansible_collections.numa.kubelet.plugins.plugin_utils._rollout_budget import halt_reason, rollout_plan
from ansible_collections.numa.kubelet.plugins.plugin_utils._rollout_configz import configz_drift
from ansible_collections.numa.kubelet.plugins.plugin_utils._rollout_resume import intent_digest, process_started_at, ready_since, roll_decision
from ansible_collections.numa.kubelet.plugins.plugin_utils._rollout_summary import (
    failed_record,
    failure_lines,
    halted_record,
    rolled_record,
    summary_lines,
    with_halts,
)


def drift_filter(plan, state_text):
    """Differences between the node and the plan."""
    if not isinstance(plan, dict) or "expected_state" not in plan:
        raise AnsibleFilterError(f"_drift: the input must be a numa.kubelet.plan result, got {plain_data(plan)!r} ({type_name(plan)})")
    try:
        return drift(plain_data(plan), plain_data(state_text))
    except (KubeletConfigError, KeyError, TypeError, AttributeError) as exc:
        raise AnsibleFilterError(f"_drift: the input must be a numa.kubelet.plan result and the text of memory_manager_state: {exc}") from exc


def configz_drift_filter(plan, configz):
    """Differences between the running kubelet's config (its /configz answer) and the plan."""
    if not isinstance(plan, dict) or not isinstance(plan.get("kubelet_config"), dict):
        raise AnsibleFilterError(f"_configz_drift: the input must be a numa.kubelet.plan result, got {plain_data(plan)!r} ({type_name(plan)})")
    return configz_drift(plan, configz)


def rollout_problems_filter(serial, inventory=None, hosts=None):
    """What numa.kubelet.rollout refuses before the first drain, beyond the per-host plans."""
    try:
        return serial_problems(serial) + intent_conflicts({} if inventory is None else plain_data(inventory), [] if hosts is None else plain_data(hosts))
    except KubeletConfigError as exc:
        raise AnsibleFilterError(f"_rollout_problems: {exc}") from exc


def roll_decision_filter(record, intent=None, cluster=True, cordoned=False, pending=True):
    """What numa.kubelet.rollout does with a node, from its recorded progress and its state now."""
    if not isinstance(intent, dict):
        raise AnsibleFilterError(f"_roll_decision: intent must be a mapping of the host's intent variables, got {plain_data(intent)!r} ({type_name(intent)})")
    digest = intent_digest(plain_data(intent))
    return roll_decision(plain_data(record), cluster=bool(cluster), cordoned=bool(cordoned), pending=bool(pending), digest=digest)


def ready_since_filter(node, started):
    """Whether the Node is Ready by a heartbeat of the kubelet process that started as `started` says."""
    try:
        return ready_since(plain_data(node), process_started_at(plain_data(started)))
    except KubeletConfigError as exc:
        raise AnsibleFilterError(f"_ready_since: {exc}") from exc


def rollout_summary_filter(hosts, skipped=None):
    """The rollout's summary table, line by line."""
    hosts = plain_data(hosts)
    if not isinstance(hosts, list) or not all(isinstance(host, dict) and "host" in host for host in hosts):
        raise AnsibleFilterError(
            f"_rollout_summary: the input must be a list of {{host, platform, reserved_memory, result, healed}}, got {hosts!r} ({type_name(hosts)})"
        )
    try:
        return summary_lines(hosts, {str(host): str(reason) for host, reason in (plain_data(skipped) or {}).items()})
    except (KeyError, TypeError, AttributeError) as exc:
        raise AnsibleFilterError(f"_rollout_summary: a host's entry is not as documented (a missing key or a wrong type) in {hosts!r}") from exc


def rollout_result_filter(facts):
    """A host's kubelet_numa_rollout_result record, from what its roll holds."""
    facts = plain_data(facts)
    if not isinstance(facts, dict) or not ({"halt", "failure", "decision"} & set(facts)):
        raise AnsibleFilterError(f"_rollout_result: the input must be a mapping with halt, failure or decision, got {facts!r} ({type_name(facts)})")
    try:
        if "halt" in facts:
            return halted_record(str(facts["halt"]))
        if "failure" in facts:
            return failed_record(facts["failure"] or {}, facts.get("decision") or {}, facts.get("probe") or {})
        return rolled_record(facts["decision"] or {}, list(facts.get("control_lost") or []), str(facts.get("control_host") or ""))
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        raise AnsibleFilterError(f"_rollout_result: the input is not as documented (a missing key or a wrong type) in {facts!r}") from exc


def rollout_failures_filter(results, max_failures=0, canary=None):
    """The lines of the rollout's final failure, per host."""
    results = plain_data(results)
    if not isinstance(results, dict) or not all(isinstance(record, dict) for record in results.values()):
        raise AnsibleFilterError(f"_rollout_failures: the input must map each host to its record, got {results!r} ({type_name(results)})")
    return failure_lines(results, int(max_failures or 0), [str(host) for host in plain_data(canary) or []])


def rollout_host_problems_filter(host):
    """What the rollout's first play refuses on one host besides its plan."""
    host = plain_data(host)
    if not isinstance(host, dict) or "name" not in host:
        raise AnsibleFilterError(f"_rollout_host_problems: the input must be a mapping with the host's name and checks, got {host!r} ({type_name(host)})")
    try:
        return host_problems(host)
    except (KeyError, TypeError, ValueError) as exc:
        raise AnsibleFilterError(f"_rollout_host_problems: the host's checks are not as documented (a missing key or a wrong type) in {host!r}") from exc


# Eleven parameters: the filter's documented keyword arguments, one per variable of the rollout that shapes the plan.
def rollout_plan_filter(  # noqa: PLR0913 - the filter's documented keyword arguments
    hosts,
    max_unavailable="",
    serial=1,
    canary=1,
    max_failures=0,
    nodes=None,
    node_names=None,
    domain_label="",
    domain_groups=None,
    groups=None,
    converged=None,
):
    """The rollout's batches under its unavailability budget; problems instead when it must refuse."""
    if isinstance(hosts, (str, dict)) or not isinstance(hosts, (list, tuple)):
        raise AnsibleFilterError(f"_rollout_plan: the input must be the list of targeted hosts, got {plain_data(hosts)!r} ({type_name(hosts)})")
    if isinstance(nodes, str):
        try:
            nodes = json.loads(nodes)
        except ValueError as exc:
            raise AnsibleFilterError(f"_rollout_plan: nodes is not the JSON of kubectl get nodes --output=json ({exc}): {nodes:.200}") from exc
    return rollout_plan(
        list(plain_data(hosts)),
        max_unavailable=plain_data(max_unavailable),
        serial=plain_data(serial),
        canary=plain_data(canary),
        max_failures=plain_data(max_failures),
        nodes=plain_data(nodes),
        node_names={host: _node_name(answer) for host, answer in plain_data(node_names or {}).items()},
        domain_label=str(domain_label or ""),
        domain_groups=list(plain_data(domain_groups or [])),
        groups=plain_data(groups or {}),
        pending=dict.fromkeys(plain_data(converged or []), False),
    )


def _node_name(answer):
    """The Node's name from the answer of kubectl get node NAME (--output=json, or --output=name: node/NAME)."""
    text = str(answer or "").strip()
    if text.startswith("{"):
        try:
            return str(json.loads(text)["metadata"]["name"])
        except (ValueError, KeyError, TypeError):
            return ""
    return text.removeprefix("node/")


def rollout_halt_filter(plan, failed, batch):
    """Why the next batch must not start ("" when it may)."""
    if not isinstance(plan, dict) or "batches" not in plan:
        raise AnsibleFilterError(f"_rollout_halt: the input must be a _rollout_plan result, got {plain_data(plan)!r} ({type_name(plan)})")
    return halt_reason(plain_data(plan), list(plain_data(failed or [])), list(plain_data(batch or [])))


def rollout_halted_filter(results, plan=None):
    """Each host's record, with the halted record of a host whose batch the rollout halted before."""
    results = plain_data(results)
    if not isinstance(results, dict) or not all(isinstance(record, dict) for record in results.values()):
        raise AnsibleFilterError(f"_rollout_halted: the input must map each host to its record, got {results!r} ({type_name(results)})")
    plan = plain_data(plan) or {}
    if not isinstance(plan, dict):
        raise AnsibleFilterError(f"_rollout_halted: plan must be a _rollout_plan result, got {plan!r} ({type_name(plan)})")
    return with_halts(results, plan)


class FilterModule:
    """Fleet rollout and verification."""

    def filters(self):
        return {
            "_drift": drift_filter,
            "_configz_drift": configz_drift_filter,
            "_rollout_problems": rollout_problems_filter,
            "_roll_decision": roll_decision_filter,
            "_ready_since": ready_since_filter,
            "_rollout_summary": rollout_summary_filter,
            "_rollout_host_problems": rollout_host_problems_filter,
            "_rollout_plan": rollout_plan_filter,
            "_rollout_halt": rollout_halt_filter,
            "_rollout_result": rollout_result_filter,
            "_rollout_failures": rollout_failures_filter,
            "_rollout_halted": rollout_halted_filter,
        }
