# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Planning one node: from the user's intent and what the node already has to the files to write and how to restart.

The role (roles/kubelet_numa) and the offline renderer (playbooks/render.yml) both call plan_host(). What differs by
platform (where the kubelet's main file, drop-ins and flags come from, what numa.kubelet writes, which unit it
restarts) is the Layout of the platform's module (_platform_kubeadm, _platform_rke2, _platform_nodeadm; the interface
is _platform.Platform); what to read on a node is _discovery's; the manager inputs and checkpoint rules are
_manager_inputs'. What is left here is common to every platform: the intent, the reservation, the checks, the
restart decision and the files' content.

The reservation is always computed on the effective config the kubelet will run with (_effective), never on
the user's fragment alone.
"""

from __future__ import annotations

from collections.abc import Callable, Set
from dataclasses import dataclass
from typing import Any

from ._config import API_VERSION, KIND, MEMORY_MANAGER_STATIC, KubeletConfigError, lookalike_hint
from ._discovery import paths_to_read
from ._effective import parse_kubelet_flags
from ._kubelet_fields import as_kubelet_decodes, field_type_problems, type_name
from ._manager_inputs import expected_state, manager_changes, manager_inputs_digest, state_problems
from ._plan_inputs import KubeletLayers, NodeFiles, PlanError, Variables, absolute_path, file_name, node_files, topology_from
from ._platform import FileEntry, Layout, LayoutInputs
from ._platforms import PLATFORM_NAMES, platform_named
from ._split import SPLIT_STRATEGIES, reserved_memory
from ._validation import check_kubelet_config, checked_kubelet_version


def _platform(variables: Variables, facts: dict[str, Any]) -> tuple[str | None, list[str]]:
    platform = variables.get("kubelet_numa_platform") or facts.get("platform")
    if platform not in PLATFORM_NAMES:
        return None, ["kubelet_numa_platform: %r is not one of %s%s" % (platform, ", ".join(PLATFORM_NAMES), lookalike_hint(platform))]
    return platform, []


def _intent(variables: Variables) -> tuple[dict[str, Any] | None, list[str]]:
    intent = variables.get("kubelet_numa_config")
    if intent is None:
        intent = {}
    if not isinstance(intent, dict):
        return None, ["kubelet_numa_config: must be a KubeletConfiguration fragment (a mapping), got %s %r" % (type(intent).__name__, intent)]
    problems: list[str] = []
    for key in ("apiVersion", "kind"):
        if key in intent and intent[key] != {"apiVersion": API_VERSION, "kind": KIND}[key]:
            problems.append("kubelet_numa_config.%s: %r; leave it out (the collection writes %s %s)" % (key, intent[key], API_VERSION, KIND))
    bad_keys = [key for key in intent if not isinstance(key, str)]
    if bad_keys:
        problems.append("kubelet_numa_config: field names must be strings, got %s" % ", ".join("%r" % (key,) for key in bad_keys))
        return None, problems
    intent = as_kubelet_decodes(intent)
    problems.extend(field_type_problems({key: value for key, value in intent.items() if key not in ("apiVersion", "kind")}, "kubelet_numa_config."))
    if "reservedMemory" in intent:
        problems.append(
            "kubelet_numa_config.reservedMemory: computed by the collection from the effective config; leave it out "
            "and choose the spread with kubelet_numa_reserved_memory_split"
        )
    return {key: value for key, value in intent.items() if key not in ("apiVersion", "kind")}, problems


def _kubelet_version(variables: Variables) -> tuple[str | None, list[str]]:
    """kubelet_numa_kubelet_version when set (validated here, so the problem names the variable), else None."""
    version = variables.get("kubelet_numa_kubelet_version") or None
    try:
        checked_kubelet_version(version)
    except KubeletConfigError as exc:
        return None, [f"kubelet_numa_{problem}" for problem in exc.problems]
    return version, []


def _split(variables: Variables) -> tuple[str | dict[Any, Any] | None, list[str]]:
    # No default here: the role's defaults are the only ones (even); a caller of the filter passes the variable.
    split = variables.get("kubelet_numa_reserved_memory_split")
    if isinstance(split, dict) or split in SPLIT_STRATEGIES:
        return split, []
    return None, ["kubelet_numa_reserved_memory_split: %r is not one of %s or a mapping {numa_id: quantity}" % (split, ", ".join(SPLIT_STRATEGIES))]


def _overrides_of_ours(layers: KubeletLayers, ours_fields: Set[str]) -> list[str]:
    """A later drop-in or a flag that sets a field we write silently wins over us: refuse, naming it."""
    problems: list[str] = []
    if layers.ours is None:
        return problems
    kind, position = layers.ours
    later_dropins = layers.dropins[position + 1 :] if kind == "dropin" and position is not None else []
    for path, document in later_dropins:
        for name in sorted(set(document) & set(ours_fields)):
            problems.append(
                f"{path} sets {name}, which overrides the value numa.kubelet writes (drop-ins are read in lexical order); "
                "move it into kubelet_numa_config or remove it"
            )
    if kind in ("dropin", "main"):
        for field_name, _value, _kind, word in parse_kubelet_flags(layers.flags).overrides:
            if field_name in ours_fields:
                problems.append(
                    f"the kubelet flag {word} overrides {field_name} written by numa.kubelet (flags win over config files); "
                    "remove the flag and set the field in kubelet_numa_config"
                )
    return problems


def plan_host(variables: Variables | None, facts: dict[str, Any] | None) -> dict[str, Any]:
    """Plan one host. variables: the kubelet_numa_* variables; facts: discovered topology, files, versions.

    facts keys: numa_nodes and numa_memory_capacity_bytes (unless kubelet_numa_topology is set), files
    ({absolute path: text or None} as read on the node; an offline render passes kubelet_numa_node_files), and
    platform, rke2_version, rke2_role, k3s_version, k3s_role, instance_type when discovered. Raises PlanError with every problem.
    """
    for name, value in (("variables", variables), ("facts", facts)):
        if value is not None and not isinstance(value, dict):
            raise PlanError(
                [
                    "%s must be a mapping (%s), got %s %r"
                    % (name, "the host's kubelet_numa_* variables" if name == "variables" else "what discovery read", type_name(value), value)
                ]
            )
    variables = dict(variables or {})
    facts = dict(facts or {})
    platform, platform_problems = _platform(variables, facts)
    intent, intent_problems = _intent(variables)
    split, split_problems = _split(variables)
    root_dir, root_dir_problems = absolute_path(variables, "kubelet_numa_kubelet_root_dir")
    dropin_name, dropin_name_problems = file_name(variables, "kubelet_numa_dropin_name")
    kubelet_version, version_problems = _kubelet_version(variables)
    problems = platform_problems + intent_problems + split_problems + root_dir_problems + dropin_name_problems + version_problems
    nodes: list[dict[str, Any]] | None = None
    capacity: int | None = None
    try:
        nodes, capacity = topology_from(variables, facts)
    except KubeletConfigError as exc:
        problems.extend(exc.problems)
    # Each reader returns None only after adding a problem.
    if problems or platform is None or intent is None or split is None or root_dir is None or dropin_name is None or nodes is None or capacity is None:
        raise PlanError(problems)
    paths_to_read(variables, platform)  # validates the platform's path variables
    files = node_files(facts.get("files"))
    layout, problems = platform_named(platform).layout(LayoutInputs(variables, facts, files, intent, dropin_name, nodes))
    if problems or layout is None:
        raise PlanError(problems)
    # The kubelet's version the user gives wins over the platform's (RKE2's and k3s's releases tell theirs).
    host = _Host(platform, intent, split, root_dir, kubelet_version or layout.kubelet_version, nodes, capacity, files, facts.get("directories") or [])
    plan = _finish(layout, host)
    state = (facts.get("unit_states") or {}).get(plan["unit"])
    plan["unit_state"] = state
    # Handed over (lablabs.rke2), the other tool installs and starts the unit itself, after this plan.
    if state is not None and state.get("active_state") != "active" and plan["restart"] == "none" and layout.hand_over is None:
        # A kubelet that does not run is never a converged node: start it (the unit's checkpoint guard resets the
        # checkpoints if the manager inputs changed since its last start), and the restart's checks say why if it fails.
        plan["restart"] = "restart"
        plan["warnings"].append("%s is %s (%s): numa.kubelet starts it" % (plan["unit"], state.get("active_state"), state.get("sub_state")))
    return plan


def _compute(layers_for: Callable[[dict[str, Any]], KubeletLayers], host: _Host) -> tuple[dict[str, Any], KubeletLayers | None, list[str]]:
    """Reservation on the effective config with our settings (reservedMemory left to the kubelet's default first); then
    the problems in reading the layers or in reserving, each once (both layerings read the same files)."""
    settings = dict(host.intent)
    first = layers_for(settings)
    effective = first.effective()
    if effective.get("memoryManagerPolicy") == MEMORY_MANAGER_STATIC:
        try:
            settings["reservedMemory"] = reserved_memory(effective, host.nodes, host.split, host.capacity)
        except KubeletConfigError as exc:
            return settings, None, first.problems + exc.problems
    layers = layers_for(settings)
    return settings, layers, list(dict.fromkeys(first.problems + layers.problems))


def _write_conflicts(plan: dict[str, Any], files: NodeFiles, node_directories: list[str]) -> list[str]:
    """Each file the plan writes is one file: not twice, not a directory on the node nor the directory of another."""
    problems: list[str] = []
    paths = [entry["path"] for entry in plan["files"]]
    directories = set(plan.get("directories") or []) | set(node_directories)
    directories |= {path.rsplit("/", 1)[0] for path in files if "/" in path.strip("/")}
    for index, path in enumerate(paths):
        if path in paths[:index]:
            problems.append(f"{path}: numa.kubelet would write this file twice (check the kubelet_numa_* paths)")
        elif path in directories or any(other.startswith(path + "/") for other in paths + sorted(directories)):
            problems.append(f"{path}: is a directory (on the node or in the plan), so numa.kubelet cannot write it as a file (check the kubelet_numa_* paths)")
    return problems


@dataclass(frozen=True)
class _Host:
    """What plan_host read and checked of one host, for _finish."""

    platform: str
    intent: dict[str, Any]
    split: str | dict[Any, Any]
    root_dir: str
    kubelet_version: str | None
    nodes: list[dict[str, Any]]
    capacity: int
    files: dict[str, str | None]
    node_directories: list[str]


def _restart_kind(before: dict[str, Any], effective: dict[str, Any], capacity: int, state_text: str | None, expected: dict[str, Any]) -> tuple[str, bool]:
    """(restart, reset_cpu_manager_state): "reset" when the memory or CPU manager's inputs changed or the live
    memory_manager_state is not what the plan expects, "restart" when anything else changed, else "none"."""
    memory_changed, cpu_changed = manager_changes(before, effective, capacity)
    if memory_changed or cpu_changed:
        return "reset", cpu_changed
    if state_text is not None and state_problems(state_text, expected):
        return "reset", False
    return ("restart" if before != effective else "none"), False


def _finish(layout: Layout, host: _Host) -> dict[str, Any]:
    """The plan, or a PlanError with every problem found."""
    settings, layers, problems = _compute(layout.layers_for, host)
    if layers is None:
        raise PlanError(problems)
    problems += _overrides_of_ours(layers, set(settings))
    effective = layers.effective()
    # Checked as defaulted by the node's kubelet, so a value the user wrote is judged as that kubelet reads it.
    report = check_kubelet_config(layers.effective(host.kubelet_version), host.nodes, host.capacity, host.kubelet_version, defaulted_by=host.kubelet_version)
    problems.extend(report.errors)
    if problems:
        raise PlanError(problems)
    before = layout.before.effective()
    reserved = settings.get("reservedMemory") or []
    expected = {"policyName": effective.get("memoryManagerPolicy") or "None", "systemReserved": expected_state(reserved)}
    restart, reset_cpu = _restart_kind(before, effective, host.capacity, host.files.get(host.root_dir + "/memory_manager_state"), expected)
    warnings = report.warnings + list(layout.warnings or [])
    hand_over = layout.hand_over(settings, before, effective, host.capacity) if layout.hand_over else None
    handed_over, restart_held, hand_over_warnings, problems = hand_over or (None, False, [], [])
    if problems:
        raise PlanError(problems)
    if restart_held:
        restart = "none"
    warnings += hand_over_warnings
    plan: dict[str, Any] = {"unit": layout.unit, "apply_unit": layout.apply_unit, "files": layout.files, "directories": layout.directories}
    if layout.warnings is not None:
        plan["warnings"] = warnings
    if layout.report_key is not None:
        plan[layout.report_key] = dict(layout.report or {})
    plan.update(
        {
            "platform": host.platform,
            "numa_nodes": [node["id"] for node in host.nodes],
            "reserved_memory": reserved,
            "kubelet_config": effective,
            "kubelet_inputs": layers.describe(),
            "root_dir": host.root_dir,
            "restart": restart,
            "reset_cpu_manager_state": reset_cpu,
            "expected_state": expected,
            "manager_inputs": {"planned": manager_inputs_digest(effective, host.capacity), "current": manager_inputs_digest(before, host.capacity)},
            "health_url": _health_url(effective),
            "warnings": warnings,
        }
    )
    plan["files"] = [_file_entry(entry, settings, host.files) for entry in plan["files"]]
    problems = _write_conflicts(plan, host.files, host.node_directories)
    if problems:
        raise PlanError(problems)
    if layout.report_for is not None and layout.report_key is not None:
        plan[layout.report_key].update(layout.report_for(settings, handed_over))
    return plan


def _health_url(config: dict[str, Any]) -> str | None:
    port = config.get("healthzPort")
    if not port:
        return None
    address = config.get("healthzBindAddress") or "127.0.0.1"
    if address in ("0.0.0.0", "::"):
        address = "127.0.0.1"
    host = f"[{address}]" if ":" in address else address
    return "http://%s:%d/healthz" % (host, port)


def _file_entry(entry: FileEntry, settings: dict[str, Any], files: NodeFiles) -> dict[str, Any]:
    written: dict[str, Any] = dict(entry, previous=files.get(entry["path"]))
    if "content_for" in written:
        written["content"] = written.pop("content_for")(settings)
    return written
