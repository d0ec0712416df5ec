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
from dataclasses import dataclass
from typing import Any, cast

from ._flags import kubelet_flags
from ._k3s_agent import CLI_CONFIG_DROPIN, AgentInputs, paths_to_read, version_minor, with_default_thresholds
from ._plan_inputs import KubeletLayers, NodeFiles, Variables, dropin_document
from ._platform import FileEntry, Layout, LayoutInputs, Node, Platform
from ._platform_rke2_lablabs import LABLABS_KUBELET_CONFIG, LablabsInputs, lablabs_inputs, lablabs_kubelet_config, lablabs_not_carried, lablabs_outputs

RKE2_ROLES = ("server", "agent")
RKE2_UNITS = {role: f"rke2-{role}.service" for role in RKE2_ROLES}


def _paths_to_read(variables: Variables, files: NodeFiles | None) -> tuple[list[str], list[str], list[str]]:
    # kubelet-config.yaml: where lablabs.rke2 writes rke2_kubelet_config, read by the kubelet through a config= item.
    return paths_to_read(variables, "rke2", config_files=(LABLABS_KUBELET_CONFIG,))


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


@dataclass(frozen=True)
class _Rke2Node:
    """The RKE2 a node runs, as the variables or discovery tell it, and whether numa.kubelet writes its files."""

    version: str
    minor: int
    role: str
    unit: str
    write_files: bool


def _rke2_node(variables: Variables, facts: dict[str, Any]) -> tuple[_Rke2Node | None, list[str]]:
    version = variables.get("kubelet_numa_rke2_version") or facts.get("rke2_version")
    minor, problems = version_minor(version, "kubelet_numa_rke2_version", "an RKE2 version such as v1.32.5+rke2r1")
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
    if problems or minor is None or unit is None or not isinstance(write_files, bool):
        return None, problems
    # version and role are strings: version_minor reads only a string, and only a string role names a unit.
    return _Rke2Node(cast(str, version), minor, cast(str, role), unit, write_files), []


@dataclass(frozen=True)
class _Rke2Wiring:
    """How our settings reach the kubelet: a drop-in (use_dropin), a config.yaml.d fragment, or lablabs.rke2's variables."""

    agent: AgentInputs
    lablabs: LablabsInputs | None
    ours_fragment: str
    ours_dropin: str
    write_files: bool

    @property
    def use_dropin(self) -> bool:
        return self.write_files and self.agent.uses_dropins

    @property
    def form(self) -> str:
        return "dropin" if self.use_dropin else ("config.yaml.d" if self.write_files else "lablabs")

    def our_items(self, settings: dict[str, Any]) -> list[str]:
        other_items = [] if self.lablabs is None else list(self.lablabs["kubelet_arg"] or [])
        return [flag[2:] for flag in kubelet_flags(with_default_thresholds(settings, other_items))]

    def layers_for(self, settings: dict[str, Any]) -> KubeletLayers:
        agent, lablabs = self.agent, self.lablabs
        if self.use_dropin:
            return agent.layers_from(agent.current_sources, (self.ours_dropin, dropin_document(settings)), "dropin")
        if self.write_files or lablabs is None:
            sources = [source for source in agent.current_sources if source[0] != self.ours_fragment]
            sources.append((self.ours_fragment, {"kubelet-arg+": self.our_items(settings)}))
            sources.sort(key=lambda item: (item[0] != agent.config_path, item[0]))
            return agent.layers_from(sources, ours="flags")
        if lablabs["form"] != "kubelet_config":
            other_items = list(lablabs["kubelet_arg"] or [])
            return agent.layers_from([(agent.config_path, {"kubelet-arg": other_items + self.our_items(settings)}), *agent.fragments], ours="flags")
        sources = [(agent.config_path, {"kubelet-arg": lablabs["kubelet_arg_with_config"]}), *agent.fragments]
        document, problems = lablabs_kubelet_config(lablabs, settings)
        if agent.uses_dropins:
            layers = agent.layers_from(sources, (agent.dropin_dir + "/" + CLI_CONFIG_DROPIN, document), "dropin")
        else:
            layers = agent.layers_from(sources, (lablabs["kubelet_config_path"], document), "main")
        layers.problems[:0] = problems
        return layers

    def files(self) -> tuple[list[FileEntry], list[str]]:
        if self.use_dropin:
            return [{"path": self.ours_dropin, "template": "rke2.j2", "mode": "0644", "content_for": dropin_document}], [self.agent.dropin_dir]
        if self.write_files:
            entry: FileEntry = {"path": self.ours_fragment, "template": "rke2.j2", "mode": "0600", "content_for": self._fragment}
            return [entry], [self.agent.fragment_dir]
        return [], []

    def _fragment(self, settings: dict[str, Any]) -> dict[str, Any]:
        return {"kubelet-arg+": self.our_items(settings)}

    def hand_over(
        self, settings: dict[str, Any], before: dict[str, Any], effective: dict[str, Any], capacity: int
    ) -> tuple[dict[str, Any], bool, list[str], list[str]]:
        if self.lablabs is None:
            raise AssertionError("Layout.hand_over is given only when lablabs.rke2 writes the files")
        outputs, problems = lablabs_outputs(self.lablabs, settings, self.our_items(settings))
        outputs["not_carried"], warnings = lablabs_not_carried(self.agent.config_path, before, effective, capacity)
        return outputs, bool(outputs["not_carried"]), warnings, problems

    def report_for(self, settings: dict[str, Any], outputs: dict[str, Any] | None) -> dict[str, Any]:
        items = self.our_items(settings)
        # For lablabs.rke2's rke2_server_options / rke2_agent_options: one "option: value" line, copied verbatim into
        # config.yaml; a JSON list is valid YAML and keeps ';' and '<' quoted.
        options_form = outputs is None or outputs["form"] == "options"
        report: dict[str, Any] = {"kubelet_args": items, "options": [f"kubelet-arg: {json.dumps(items)}"] if options_form else []}
        if outputs is not None:
            report["lablabs"] = outputs
        return report


def _layout(inputs: LayoutInputs) -> tuple[Layout | None, list[str]]:
    variables = inputs.variables
    node, problems = _rke2_node(variables, inputs.facts)
    if node is None:
        return None, problems
    agent = AgentInputs("rke2", node.minor, variables["kubelet_numa_rke2_config_dir"], variables["kubelet_numa_rke2_data_dir"], inputs.files)
    ours_fragment = f"{agent.fragment_dir}/{inputs.dropin_name}.yaml"
    if agent.problems:
        return None, agent.problems
    lablabs: LablabsInputs | None = None
    if node.write_files:
        problems = agent.replacing_fragments(ours_fragment, "RKE2")
    else:
        default_groups = {"in_servers_group": node.role == "server", "in_agents_group": node.role == "agent"}
        lablabs, problems = lablabs_inputs(inputs.facts.get("lablabs") or default_groups, variables["kubelet_numa_rke2_config_dir"])
    if problems:
        return None, problems
    wiring = _Rke2Wiring(agent, lablabs, ours_fragment, f"{agent.dropin_dir}/{inputs.dropin_name}.conf", node.write_files)
    before = agent.layers_from(agent.current_sources)
    entries, directories = wiring.files()
    layout = Layout(
        unit=node.unit,
        apply_unit=None,
        files=entries,
        directories=directories,
        before=before,
        layers_for=wiring.layers_for,
        report_key="rke2",
        report={"version": node.version, "role": node.role, "form": wiring.form},
        hand_over=None if lablabs is None else wiring.hand_over,
        report_for=wiring.report_for,
        kubelet_version=f"1.{node.minor}",
    )
    return layout, before.problems


RKE2 = Platform(
    name="rke2",
    markers=("/etc/rancher/rke2", "/usr/local/bin/rke2", "/usr/bin/rke2"),
    units=tuple(RKE2_UNITS.values()),
    paths_to_read=_paths_to_read,
    discover=_discover,
    layout=_layout,
)
