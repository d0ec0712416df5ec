# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""RKE2 installed by lablabs.rke2: numa.kubelet writes no file and hands its settings to lablabs.rke2's variables.

lablabs.rke2 1.53.0 (https://github.com/lablabs/ansible-role-rke2, defaults/main.yml, tasks/first_server.yml and
templates/config.yaml.j2) writes only config.yaml: rke2_server_options / rke2_agent_options copied verbatim, one
kubelet-arg key from rke2_kubelet_arg, and rke2_kubelet_config in a file of its own. This module reads what the
planning play sees of those variables, refuses what would lose a setting, and merges numa.kubelet's settings in, for
_platform_rke2 (which plans the kubelet RKE2 then runs).
"""

from __future__ import annotations

import json
from typing import Any, Literal, TypedDict

import yaml

from ._effective import merge_patch, parse_kubelet_flags
from ._flags import flag_key
from ._manager_inputs import manager_summary
from ._plan_inputs import dropin_document

# Its group names and where it writes rke2_kubelet_config.
LABLABS_SERVERS_GROUP = "masters"
LABLABS_AGENTS_GROUP = "workers"
LABLABS_KUBELET_CONFIG = "kubelet-config.yaml"


class LablabsInputs(TypedDict):
    """What the lablabs.rke2 play will render for one host (lablabs_inputs), and how numa.kubelet's settings join it:
    form "kubelet_config" (merged into rke2_kubelet_config), "kubelet_arg" (appended to rke2_kubelet_arg) or "options"
    (a kubelet-arg line in rke2_server_options / rke2_agent_options)."""

    servers_group: str
    agents_group: str
    in_servers_group: bool
    in_agents_group: bool
    kubelet_config_path: str
    rke2_server_options: list[str | dict[str, Any]] | None
    rke2_agent_options: list[str | dict[str, Any]] | None
    kubelet_arg: list[str] | None
    kubelet_config: dict[str, Any]
    form: Literal["kubelet_config", "kubelet_arg", "options"]
    kubelet_arg_with_config: list[str]


def _sets_kubelet_arg(option: object) -> bool:
    """Whether one rke2_server_options / rke2_agent_options item renders a kubelet-arg key (copied verbatim, or key: value)."""
    data = option
    if isinstance(option, str):
        try:
            data = yaml.safe_load(option)
        except yaml.YAMLError:
            return option.lstrip().startswith("kubelet-arg")
    return isinstance(data, dict) and any(str(key).rstrip("+") == "kubelet-arg" for key in data)


def _user_lists(lablabs: dict[str, Any]) -> tuple[dict[str, list[str | dict[str, Any]] | None], list[str] | None, dict[str, Any], list[str]]:
    """lablabs.rke2's rke2_server_options / rke2_agent_options, rke2_kubelet_arg and rke2_kubelet_config as the planning
    play sees them, each None (or {}) where it is not of the type lablabs.rke2 renders; then the problems."""
    problems: list[str] = []
    options: dict[str, list[str | dict[str, Any]] | None] = {}
    for name in ("rke2_server_options", "rke2_agent_options"):
        value = lablabs.get(name)
        if value is not None and (not isinstance(value, list) or not all(isinstance(item, (str, dict)) for item in value)):
            problems.append(f"{name}: {value!r} must be a list of 'option: value' strings or mappings (lablabs.rke2)")
            value = None
        options[name] = value
    kubelet_arg = lablabs.get("rke2_kubelet_arg")
    if kubelet_arg is not None and (not isinstance(kubelet_arg, list) or not all(isinstance(item, str) for item in kubelet_arg)):
        problems.append(f"rke2_kubelet_arg: {kubelet_arg!r} must be a list of 'flag=value' strings (lablabs.rke2)")
        kubelet_arg = None
    kubelet_config = lablabs.get("rke2_kubelet_config") or {}
    if not isinstance(kubelet_config, dict):
        problems.append(f"rke2_kubelet_config: {kubelet_config!r} must be a KubeletConfiguration mapping (lablabs.rke2)")
        kubelet_config = {}
    return options, kubelet_arg, kubelet_config, problems


def _kubelet_arg_problems(items: list[str], form: str, kubelet_config_path: str) -> list[str]:
    """rke2_kubelet_arg items that name a kubelet config numa.kubelet cannot plan on."""
    problems = []
    for item in items:
        key = flag_key(item)
        if key == "config-dir" or (key == "config" and form != "kubelet_config"):
            problems.append(
                "rke2_kubelet_arg item %r names kubelet config numa.kubelet cannot plan on; give the settings as "
                "rke2_kubelet_config (lablabs.rke2 writes it to %s) and numa.kubelet merges its own into it" % (item, kubelet_config_path)
            )
        elif key == "config" and item.partition("=")[2] != kubelet_config_path:
            problems.append(
                "rke2_kubelet_arg item %r: lablabs.rke2 writes rke2_kubelet_config to %s; name that file or leave the item "
                "out (numa.kubelet adds it)" % (item, kubelet_config_path)
            )
    return problems


def lablabs_inputs(lablabs: dict[str, Any], config_dir: str) -> tuple[LablabsInputs, list[str]]:
    """What the lablabs.rke2 play will render for this host, from its own variables as the planning play sees them; then
    the problems that would lose a setting."""
    servers_group = lablabs.get("servers_group") or LABLABS_SERVERS_GROUP
    agents_group = lablabs.get("agents_group") or LABLABS_AGENTS_GROUP
    in_group = {"rke2_server_options": bool(lablabs.get("in_servers_group")), "rke2_agent_options": bool(lablabs.get("in_agents_group"))}
    kubelet_config_path = config_dir + "/" + LABLABS_KUBELET_CONFIG
    options, kubelet_arg, kubelet_config, problems = _user_lists(lablabs)
    form: Literal["kubelet_config", "kubelet_arg", "options"] = (
        "kubelet_config" if kubelet_config else ("kubelet_arg" if kubelet_arg is not None else "options")
    )
    rendered = [name for name in in_group if in_group[name]]
    for name in rendered:
        for index, option in enumerate(options[name] or []):
            if _sets_kubelet_arg(option):
                problems.append(
                    "%s[%d] %r sets kubelet-arg: lablabs.rke2 would render it beside numa.kubelet's kubelet-arg and RKE2 keeps only "
                    "the later key, so one of them would be lost; move its items to rke2_kubelet_arg (numa.kubelet merges "
                    "them and plans on them) or into kubelet_numa_config" % (name, index, option)
                )
    if form == "options" and not rendered:
        problems.append(
            "this host is in neither lablabs.rke2 group %r (rke2_servers_group_name) nor %r (rke2_agents_group_name): "
            "lablabs.rke2 renders rke2_server_options only for the first and rke2_agent_options only for the second, so "
            "numa.kubelet's kubelet-arg would not reach config.yaml; add the host to its group" % (servers_group, agents_group)
        )
    items = list(kubelet_arg or [])
    problems += _kubelet_arg_problems(items, form, kubelet_config_path)
    if form == "kubelet_config" and not any(flag_key(item) == "config" for item in items):
        items.append("--config=" + kubelet_config_path)
    inputs: LablabsInputs = {
        "servers_group": servers_group,
        "agents_group": agents_group,
        "in_servers_group": in_group["rke2_server_options"],
        "in_agents_group": in_group["rke2_agent_options"],
        "kubelet_config_path": kubelet_config_path,
        "rke2_server_options": options["rke2_server_options"],
        "rke2_agent_options": options["rke2_agent_options"],
        "kubelet_arg": kubelet_arg,
        "kubelet_config": kubelet_config,
        "form": form,
        "kubelet_arg_with_config": items,
    }
    return inputs, problems


def _conflicting_items(user_items: list[str], ours: list[str]) -> list[tuple[str, str]]:
    """User kubelet-arg items that contradict ours: the same scalar or list flag, or the same key of a map flag."""
    found: list[tuple[str, str]] = []
    for item in user_items:
        parsed = parse_kubelet_flags(["--" + item.lstrip("-")]).overrides
        for field_name, value, kind, _word in parsed:
            for our_field, our_value, _our_kind, our_word in parse_kubelet_flags(["--" + our for our in ours]).overrides:
                if our_field != field_name:
                    continue
                if kind.startswith("map") and isinstance(value, dict) and isinstance(our_value, dict) and not set(value) & set(our_value):
                    continue  # repeated map flags add up (docs/kubelet-facts.md section 2): theirs and ours both apply
                found.append((item, our_word[2:]))
    return found


def lablabs_kubelet_config(lablabs: LablabsInputs, settings: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The user's rke2_kubelet_config with numa.kubelet's settings merged in; a field both set differently is refused
    (the problems)."""
    user = lablabs["kubelet_config"]
    problems: list[str] = []
    for name, value in settings.items():
        if name not in user or user[name] == value:
            continue
        if name == "reservedMemory":
            problems.append("rke2_kubelet_config.reservedMemory: computed by numa.kubelet; leave it out")
        elif isinstance(user[name], dict) and isinstance(value, dict):
            for key in sorted(set(user[name]) & set(value)):
                if user[name][key] != value[key]:
                    problems.append(f"rke2_kubelet_config.{name}.{key} is {user[name][key]!r}, kubelet_numa_config says {value[key]!r}: set it in one place")
        else:
            problems.append(f"rke2_kubelet_config.{name} is {user[name]!r}, kubelet_numa_config says {value!r}: set it in one place")
    document = merge_patch({key: value for key, value in user.items() if key not in ("apiVersion", "kind")}, settings)
    return dropin_document(document), problems


def lablabs_outputs(lablabs: LablabsInputs, settings: dict[str, Any], ours: list[str]) -> tuple[dict[str, Any], list[str]]:
    """lablabs.rke2's variables for this host: the user's own values with numa.kubelet's merged in, for one wiring;
    then the problems (a user's setting that contradicts ours)."""
    problems: list[str] = []
    line = f"kubelet-arg: {json.dumps(ours)}"
    server = list(lablabs["rke2_server_options"] or [])
    agent = list(lablabs["rke2_agent_options"] or [])
    outputs: dict[str, Any] = {"form": lablabs["form"], "rke2_kubelet_config": lablabs["kubelet_config"]}
    user_items = lablabs["kubelet_arg"] or []
    if lablabs["form"] == "options":
        if lablabs["in_servers_group"]:
            server.append(line)
        else:
            agent.append(line)
    elif lablabs["form"] == "kubelet_arg":
        for item, our in _conflicting_items(user_items, ours):
            problems.append(
                f"rke2_kubelet_arg item {item!r} contradicts numa.kubelet's {our!r} (both reach the kubelet; the later wins): move the "
                "setting into kubelet_numa_config"
            )
        outputs["rke2_kubelet_arg"] = list(user_items) + ours
    else:
        outputs["rke2_kubelet_arg"] = lablabs["kubelet_arg_with_config"]
        document, conflicts = lablabs_kubelet_config(lablabs, settings)
        problems += conflicts
        outputs["rke2_kubelet_config"] = {key: value for key, value in document.items() if key not in ("apiVersion", "kind")}
    outputs.update(rke2_server_options=server, rke2_agent_options=agent)
    return outputs, problems


def lablabs_not_carried(config_path: str, before: dict[str, Any], effective: dict[str, Any], capacity: int) -> tuple[list[str], list[str]]:
    """(why config.yaml does not carry our settings yet, warnings), both empty when it does: then the restart waits.

    lablabs.rke2 owns config.yaml: restarting RKE2 before config.yaml carries our settings would check an old config,
    so while the kubelet would run with other manager inputs than planned, the restart is lablabs.rke2's.
    """
    if before == effective:
        return [], []
    not_carried = [
        "%s does not give the kubelet numa.kubelet's settings: with it the kubelet would run with %s, the plan is %s. Pass "
        "kubelet_numa_rke2_server_options, _agent_options, _kubelet_arg and _kubelet_config to lablabs.rke2 as "
        "examples/lablabs-rke2.yml does, and set no rke2_kubelet_arg or rke2_*_options where the planning play cannot see "
        "them (the lablabs.rke2 play's or task's vars): lablabs renders them as a later kubelet-arg key, which RKE2 keeps"
        % (config_path, manager_summary(before, capacity), manager_summary(effective, capacity))
    ]
    warning = (
        "%s does not carry numa.kubelet's kubelet settings yet: lablabs.rke2 writes them from kubelet_numa_rke2_* (examples/lablabs-rke2.yml)" % config_path
    )
    return not_carried, [warning]
