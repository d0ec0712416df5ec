# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fleet rollout and verification rules: what numa.kubelet.rollout refuses before the first drain, and drift.

- serial: Ansible's play keyword takes a count or a percentage of the play's hosts; anything else would only be
  noticed when the rollout play starts (or be read as a count by int()), so it is refused up front.
- Conflicting intent between groups: a host in two groups that both set kubelet_numa_config (or the split or the
  platform) gets one of the values by Ansible's group order (depth, ansible_group_priority, then name), silently.
  A child group overriding its parent, or a higher ansible_group_priority, is a deliberate choice and accepted.
- A host's own problems: no intent, its plan's lines, a kubeconfig or Node the control host cannot read.
- Drift: the files numa.kubelet writes, as they are on the node, against a fresh plan, field by field, and the
  live memory_manager_state against the plan's expected_state.

The rest of the rollout lives beside it: _rollout_budget (budgeted batches, halts), _rollout_resume (decisions from
the recorded progress, Ready from the new kubelet), _rollout_summary (each host's result record and the summary) and
_rollout_configz (the running kubelet's /configz against the plan).
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from ._config import KubeletConfigError, plain_data
from ._manager_inputs import state_problems
from ._yaml_text import load_yaml

# The variables that state a host's intent; set by two unrelated groups with different values, they conflict.
INTENT_VARIABLES = ("kubelet_numa_config", "kubelet_numa_reserved_memory_split", "kubelet_numa_platform")

_COUNT = re.compile(r"^[1-9][0-9]*$")
_PERCENT = re.compile(r"^([1-9][0-9]?|100)%$")


def serial_problems(serial: object) -> list[str]:
    """Problems with a rollout batch size: a count >= 1 or a percentage of 1-100 %."""
    if isinstance(serial, bool) or not (
        (isinstance(serial, int) and serial >= 1) or (isinstance(serial, str) and (_COUNT.match(serial) or _PERCENT.match(serial)))
    ):
        return [
            f"kubelet_numa_rollout_serial: {plain_data(serial)!r} ({builtin_type_name(serial)}) is neither a count (1, 2, ...) nor a percentage (1% to 100%)"
        ]
    return []


def builtin_type_name(value: object) -> str:
    """str, int, ...: Ansible hands filters subclasses of the builtin types (e.g. _AnsibleTaggedStr)."""
    return next(cls.__name__ for cls in type(value).__mro__ if cls.__module__ == "builtins")


def _group_parents(inventory: dict[str, Any]) -> dict[str, set[str]]:
    parents: dict[str, set[str]] = {}
    for group, data in inventory.items():
        if group == "_meta" or not isinstance(data, dict):
            continue
        for child in data.get("children") or []:
            parents.setdefault(child, set()).add(group)
    return parents


def _ancestors(group: str, parents: dict[str, set[str]]) -> set[str]:
    seen: set[str] = set()
    todo = [group]
    while todo:
        for parent in parents.get(todo.pop(), ()):
            if parent not in seen:
                seen.add(parent)
                todo.append(parent)
    return seen


def _host_groups(inventory: dict[str, Any], host: str, parents: dict[str, set[str]]) -> set[str]:
    direct = {group for group, data in inventory.items() if group != "_meta" and isinstance(data, dict) and host in (data.get("hosts") or [])}
    found = set(direct)
    for group in direct:
        found |= _ancestors(group, parents)
    return found


def intent_conflicts(inventory: object, hosts: object) -> list[str]:
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


def _field_differences(path: str, on_disk: object, planned: dict[str, Any]) -> list[str]:
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


def file_drift(plan: dict[str, Any]) -> list[str]:
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
                on_disk = load_yaml(previous)
            except yaml.YAMLError as exc:
                problems.append("%s: is not YAML on the node (%s)" % (path, exc))
                continue
            problems.extend(_field_differences(path, on_disk, entry["content"]))
    return problems


def drift(plan: dict[str, Any], state_text: str | None) -> list[str]:
    """Every difference between the node and a fresh plan: its files, then its memory_manager_state."""
    return file_drift(plan) + state_problems(state_text, plan["expected_state"])


def flag(value: object) -> bool:
    """A record's boolean as Ansible may have templated it (True, or "True" from a non-native template)."""
    return value is True or (isinstance(value, str) and value.strip().lower() in ("true", "yes", "1"))


def host_problems(host: dict[str, Any]) -> list[str]:
    """What the rollout's first play refuses on one host besides its plan, one line each.

    host: {name, config, plan_problems, kubeconfig, kubeconfig_exists, control_host, node_name, node_rc, node_stderr}:
    the host's name and kubelet_numa_config, the lines of its failed plan, the rollout's kubeconfig (""
    node-local) and whether the control host has it, and the answer of `kubectl get node` for its Node (rc 0 when not
    asked). The Node is looked for only through a kubeconfig that exists.
    """
    name = host["name"]
    problems = [] if host.get("config") else [f"{name}: kubelet_numa_config is empty: there is nothing to roll out on this host"]
    problems += [f"{name}: {problem}" for problem in host.get("plan_problems") or []]
    if host.get("kubeconfig") and not flag(host.get("kubeconfig_exists")):
        problems.append(f"kubelet_numa_rollout_kubeconfig: {host['kubeconfig']} does not exist on the control host {host['control_host']}")
    elif int(host.get("node_rc") or 0) != 0:
        stderr = str(host.get("node_stderr") or "").strip()
        problems.append(f"{name}: its Node {host['node_name']} cannot be read from the cluster: {stderr}")
    return problems
