# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""RKE2: how RKE2 runs the kubelet, and where numa.kubelet's settings go (docs/kubelet-facts.md section 4).

RKE2 runs k3s's agent code (_k3s_agent: config.yaml / config.yaml.d, kubelet-arg, the 1.32 drop-in gate).
RKE2 >= 1.32 runs the kubelet with --config-dir <data-dir>/agent/etc/kubelet.conf.d only; RKE2 writes its
00-rke2-defaults.conf there and leaves other files alone, so ours is a 50- drop-in. Before 1.32 RKE2 passes its
defaults as flags and ours go as `kubelet-arg+` items in config.yaml.d. User `kubelet-arg` items are flags and
override every file. With lablabs.rke2 (which writes only config.yaml) the items are handed over instead
(_platform_rke2_lablabs).
"""

from __future__ import annotations

import json
from typing import Any

from ._flags import kubelet_flags
from ._k3s_agent import CLI_CONFIG_DROPIN, AgentInputs, paths_to_read, version_minor, with_default_thresholds
from ._plan_inputs import KubeletLayers, NodeFiles, Variables, dropin_document
from ._platform import FileEntry, Layout, Node, Platform
from ._platform_rke2_lablabs import LABLABS_KUBELET_CONFIG, LablabsInputs, lablabs_hand_over, lablabs_inputs, lablabs_kubelet_config

RKE2_ROLES = ("server", "agent")
RKE2_UNITS = {role: f"rke2-{role}.service" for role in RKE2_ROLES}


def _paths_to_read(variables: Variables, files: NodeFiles | None, problems: list[str]) -> tuple[list[str], list[str]]:
    # kubelet-config.yaml: where lablabs.rke2 writes rke2_kubelet_config, read by the kubelet through a config= item.
    return paths_to_read(variables, "rke2", problems, config_files=(LABLABS_KUBELET_CONFIG,))


def _discover(variables: Variables, node: Node, files: NodeFiles, lablabs: dict[str, Any]) -> dict[str, Any]:
    facts = {}
    hand_over = variables.get("kubelet_numa_rke2_write_files") is False
    if not variables.get("kubelet_numa_rke2_version"):
        # lablabs.rke2 installs rke2_version before the kubelet runs with what it hands over (its tasks/rke2.yml).
        facts["rke2_version"] = lablabs.get("rke2_version") if hand_over and lablabs.get("rke2_version") else node.rke2_version()
    if not variables.get("kubelet_numa_rke2_role"):
        # The service the RKE2 installer enabled on this node; a server also runs an agent's kubelet.
        facts["rke2_role"] = lablabs_role(lablabs) or next(
            (role for role in RKE2_ROLES if node.unit_file_state(RKE2_UNITS[role]) in ("enabled", "enabled-runtime")), ""
        )
    return facts


def lablabs_role(lablabs: dict[str, Any] | None) -> str:
    """server / agent as lablabs.rke2 decides it: rke2_type, else the host's group (its rke2_type default); '' when neither."""
    lablabs = lablabs or {}
    if lablabs.get("rke2_type") in RKE2_ROLES:
        return lablabs["rke2_type"]
    if lablabs.get("in_servers_group"):
        return "server"
    if lablabs.get("in_agents_group"):
        return "agent"
    return ""


def _layout(  # noqa: C901 - one decision per RKE2 version and role, read top to bottom
    variables: Variables, facts: dict[str, Any], files: NodeFiles, intent: dict[str, Any], dropin_name: str, nodes: list[dict[str, Any]], problems: list[str]
) -> Layout | None:
    version = variables.get("kubelet_numa_rke2_version") or facts.get("rke2_version")
    minor = version_minor(version, "kubelet_numa_rke2_version", "an RKE2 version such as v1.32.5+rke2r1", problems)
    role = variables.get("kubelet_numa_rke2_role") or facts.get("rke2_role")
    unit = RKE2_UNITS.get(role) if isinstance(role, str) else None
    if unit is None:
        problems.append(
            f"kubelet_numa_rke2_role: {role!r} is not one of server, agent (the RKE2 service this node runs: rke2-server or rke2-agent; "
            "with lablabs.rke2: rke2_type, or the host in its rke2_servers_group_name / rke2_agents_group_name group)"
        )
    # No default of its own: the role's defaults are the only ones (true).
    write_files = variables.get("kubelet_numa_rke2_write_files")
    if not isinstance(write_files, bool):
        problems.append(f"kubelet_numa_rke2_write_files: {write_files!r} must be true or false")
    if problems or minor is None or unit is None:
        return None
    agent = AgentInputs("rke2", minor, variables["kubelet_numa_rke2_config_dir"], variables["kubelet_numa_rke2_data_dir"], files, problems)
    config_path, fragments, dropin_dir = agent.config_path, agent.fragments, agent.dropin_dir
    ours_fragment = f"{agent.fragment_dir}/{dropin_name}.yaml"
    ours_dropin = f"{dropin_dir}/{dropin_name}.conf"
    use_dropin = write_files and agent.uses_dropins
    if problems:
        return None
    lablabs: LablabsInputs | None = None
    if write_files:
        agent.replacing_fragments(ours_fragment, "RKE2")
    else:
        lablabs = lablabs_inputs(
            facts.get("lablabs") or {"in_servers_group": role == "server", "in_agents_group": role == "agent"},
            variables["kubelet_numa_rke2_config_dir"],
            problems,
        )
    if problems:
        return None
    layers_from, current_sources = agent.layers_from, agent.current_sources
    other_items = [] if lablabs is None else list(lablabs["kubelet_arg"] or [])

    def our_items(settings: dict[str, Any]) -> list[str]:
        return [flag[2:] for flag in kubelet_flags(with_default_thresholds(settings, other_items))]

    def layers_for(settings: dict[str, Any]) -> KubeletLayers:
        if use_dropin:
            return layers_from(current_sources, (ours_dropin, dropin_document(settings)), "dropin")
        if write_files or lablabs is None:
            sources = [source for source in current_sources if source[0] != ours_fragment] + [(ours_fragment, {"kubelet-arg+": our_items(settings)})]
            sources.sort(key=lambda item: (item[0] != config_path, item[0]))
            return layers_from(sources, ours="flags")
        if lablabs["form"] == "kubelet_config":
            items = lablabs["kubelet_arg_with_config"]
            document = lablabs_kubelet_config(lablabs, settings, problems)
            if agent.uses_dropins:
                return layers_from([(config_path, {"kubelet-arg": items})] + fragments, (dropin_dir + "/" + CLI_CONFIG_DROPIN, document), "dropin")
            return layers_from([(config_path, {"kubelet-arg": items})] + fragments, (lablabs["kubelet_config_path"], document), "main")
        return layers_from([(config_path, {"kubelet-arg": other_items + our_items(settings)})] + fragments, ours="flags")

    before = layers_from(current_sources)
    entries: list[FileEntry]
    directories: list[str]
    if use_dropin:
        entries = [{"path": ours_dropin, "template": "rke2.j2", "mode": "0644", "content_for": dropin_document}]
        directories = [dropin_dir]
    elif write_files:
        entries = [{"path": ours_fragment, "template": "rke2.j2", "mode": "0600", "content_for": lambda settings: {"kubelet-arg+": our_items(settings)}}]
        directories = [agent.fragment_dir]
    else:
        entries, directories = [], []
    form = "dropin" if use_dropin else ("config.yaml.d" if write_files else "lablabs")

    def hand_over(settings: dict[str, Any], before_config: dict[str, Any], effective: dict[str, Any], capacity: int) -> tuple[dict[str, Any], bool, list[str]]:
        if lablabs is None:
            raise AssertionError("Layout.hand_over is given only when lablabs.rke2 writes the files")
        return lablabs_hand_over(lablabs, settings, our_items(settings), config_path, before_config, effective, capacity, problems)

    def report_for(settings: dict[str, Any], outputs: dict[str, Any] | None) -> dict[str, Any]:
        items = our_items(settings)
        # For lablabs.rke2's rke2_server_options / rke2_agent_options: one "option: value" line, copied verbatim into
        # config.yaml; a JSON list is valid YAML and keeps ';' and '<' quoted.
        options_form = outputs is None or outputs["form"] == "options"
        report: dict[str, Any] = {"kubelet_args": items, "options": [f"kubelet-arg: {json.dumps(items)}"] if options_form else []}
        if outputs is not None:
            report["lablabs"] = outputs
        return report

    return Layout(
        unit=unit,
        apply_unit=None,
        files=entries,
        directories=directories,
        before=before,
        layers_for=layers_for,
        report_key="rke2",
        report={"version": version, "role": role, "form": form},
        hand_over=None if lablabs is None else hand_over,
        report_for=report_for,
        kubelet_version=f"1.{minor}",
    )


RKE2 = Platform(
    name="rke2",
    markers=("/etc/rancher/rke2", "/usr/local/bin/rke2", "/usr/bin/rke2"),
    units=tuple(RKE2_UNITS.values()),
    paths_to_read=_paths_to_read,
    discover=_discover,
    layout=_layout,
)
