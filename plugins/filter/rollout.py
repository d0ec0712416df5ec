# -*- coding: utf-8 -*-
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

# The private filters of numa.kubelet's own verify and rollout (the underscore: see docs/contributing.md, "Naming"), beside
# their engine _rollout.py. Each documents itself in its own sidecar (_drift.yml, _configz_drift.yml,
# _rollout_problems.yml, _roll_decision.yml, _ready_since.yml): ansible-doc reads a sidecar only when the .py has no DOCUMENTATION.
from ansible.errors import AnsibleFilterError

from ansible_collections.numa.kubelet.plugins.plugin_utils._config import KubeletConfigError, plain_data
from ansible_collections.numa.kubelet.plugins.plugin_utils._kubelet_fields import type_name
from ansible_collections.numa.kubelet.plugins.plugin_utils._rollout import (
    configz_drift,
    drift,
    host_problems,
    intent_conflicts,
    intent_digest,
    process_started_at,
    ready_since,
    roll_decision,
    serial_problems,
    summary_lines,
)


def drift_filter(plan, state_text):
    """Differences between the node and the plan."""
    if not isinstance(plan, dict) or "expected_state" not in plan:
        raise AnsibleFilterError("_drift: the input must be a numa.kubelet.plan result, got %r (%s)" % (plain_data(plan), type_name(plan)))
    try:
        return drift(plain_data(plan), plain_data(state_text))
    except (KubeletConfigError, KeyError, TypeError, AttributeError) as exc:
        raise AnsibleFilterError("_drift: the input must be a numa.kubelet.plan result and the text of memory_manager_state: %s" % exc) from exc


def configz_drift_filter(plan, configz):
    """Differences between the running kubelet's config (its /configz answer) and the plan."""
    if not isinstance(plan, dict) or not isinstance(plan.get("kubelet_config"), dict):
        raise AnsibleFilterError("_configz_drift: the input must be a numa.kubelet.plan result, got %r (%s)" % (plain_data(plan), type_name(plan)))
    return configz_drift(plan, configz)


def rollout_problems_filter(serial, inventory=None, hosts=None):
    """What numa.kubelet.rollout refuses before the first drain, beyond the per-host plans."""
    try:
        return serial_problems(serial) + intent_conflicts({} if inventory is None else plain_data(inventory), [] if hosts is None else plain_data(hosts))
    except KubeletConfigError as exc:
        raise AnsibleFilterError("_rollout_problems: %s" % exc) from exc


def roll_decision_filter(record, intent=None, cluster=True, cordoned=False, pending=True):
    """What numa.kubelet.rollout does with a node, from its recorded progress and its state now."""
    if not isinstance(intent, dict):
        raise AnsibleFilterError(
            "_roll_decision: intent must be a mapping of the host's intent variables, got %r (%s)" % (plain_data(intent), type_name(intent))
        )
    digest = intent_digest(plain_data(intent))
    return roll_decision(plain_data(record), cluster=bool(cluster), cordoned=bool(cordoned), pending=bool(pending), digest=digest)


def ready_since_filter(node, started):
    """Whether the Node is Ready by a heartbeat of the kubelet process that started as `started` says."""
    try:
        return ready_since(plain_data(node), process_started_at(plain_data(started)))
    except KubeletConfigError as exc:
        raise AnsibleFilterError("_ready_since: %s" % exc) from exc


def rollout_summary_filter(hosts):
    """The rollout's summary table, line by line."""
    hosts = plain_data(hosts)
    if not isinstance(hosts, list) or not all(isinstance(host, dict) and "host" in host for host in hosts):
        raise AnsibleFilterError(
            f"_rollout_summary: the input must be a list of {{host, platform, reserved_memory, result, healed}}, got {hosts!r} ({type_name(hosts)})"
        )
    try:
        return summary_lines(hosts)
    except (KeyError, TypeError, AttributeError) as exc:
        raise AnsibleFilterError(f"_rollout_summary: a host's entry is not as documented (a missing key or a wrong type) in {hosts!r}") from exc


def rollout_host_problems_filter(host):
    """What the rollout's first play refuses on one host besides its plan."""
    host = plain_data(host)
    if not isinstance(host, dict) or "name" not in host:
        raise AnsibleFilterError(f"_rollout_host_problems: the input must be a mapping with the host's name and checks, got {host!r} ({type_name(host)})")
    try:
        return host_problems(host)
    except (KeyError, TypeError, ValueError) as exc:
        raise AnsibleFilterError(f"_rollout_host_problems: the host's checks are not as documented (a missing key or a wrong type) in {host!r}") from exc


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
        }
