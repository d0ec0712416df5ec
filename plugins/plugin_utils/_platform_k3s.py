# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""k3s: how k3s runs the kubelet, and where numa.kubelet's settings go (docs/k3s.md, docs/kubelet-facts.md section 4).

k3s runs the same agent code as RKE2 (_k3s_agent) with its own names:
- config /etc/rancher/k3s/config.yaml and config.yaml.d/ (pkg/configfilearg/defaultparser.go:
  "/etc/rancher/" + version.Program + "/config.yaml"); data directory /var/lib/rancher/k3s for root
  (pkg/datadir/datadir.go DefaultDataDir); the kubelet's root directory stays the kubelet's default /var/lib/kubelet
  (pkg/agent/config/config.go sets AgentConfig.RootDir, and so --root-dir, only for rootless k3s).
- k3s >= 1.32 writes <data-dir>/agent/etc/kubelet.conf.d/00-k3s-defaults.conf and runs the kubelet with --config-dir
  there, so ours is a 50- drop-in; before 1.32 ours go as `kubelet-arg+` items in config.yaml.d.
- install.sh names the systemd unit k3s.service for a server and k3s-agent.service for an agent
  (https://github.com/k3s-io/k3s/blob/master/install.sh, setup_env: SYSTEM_NAME) and installs the binary in
  /usr/local/bin, or /opt/bin where /usr/local/bin is read-only.
Unlike RKE2 there is no lablabs.rke2 hand-over: numa.kubelet always writes its file.
"""

from __future__ import annotations

from typing import Any

from ._flags import kubelet_flags
from ._k3s_agent import AgentInputs, paths_to_read, version_minor, with_default_thresholds
from ._plan_inputs import KubeletLayers, NodeFiles, Variables, dropin_document
from ._platform import FileEntry, Layout, LayoutInputs, Node, Platform

# install.sh: a server is SYSTEM_NAME=k3s, any other command k3s-<command> (k3s-agent).
K3S_UNITS = {"server": "k3s.service", "agent": "k3s-agent.service"}


def _paths_to_read(variables: Variables, files: NodeFiles | None) -> tuple[list[str], list[str], list[str]]:
    return paths_to_read(variables, "k3s")


def _discover(variables: Variables, node: Node, files: NodeFiles, lablabs: dict[str, Any]) -> dict[str, Any]:
    facts = {}
    if not variables.get("kubelet_numa_k3s_version"):
        facts["k3s_version"] = node.k3s_version()
    if not variables.get("kubelet_numa_k3s_role"):
        # The unit install.sh enabled on this node; a server also runs an agent's kubelet.
        facts["k3s_role"] = next((role for role, unit in K3S_UNITS.items() if node.unit_file_state(unit) in ("enabled", "enabled-runtime")), "")
    return facts


def _layout(inputs: LayoutInputs) -> tuple[Layout | None, list[str]]:
    variables, facts = inputs.variables, inputs.facts
    version = variables.get("kubelet_numa_k3s_version") or facts.get("k3s_version")
    minor, problems = version_minor(version, "kubelet_numa_k3s_version", "a k3s version such as v1.32.5+k3s1")
    role = variables.get("kubelet_numa_k3s_role") or facts.get("k3s_role")
    # A role that is not a string (a list or mapping in the variable) is refused like any other, not a TypeError.
    unit = K3S_UNITS.get(role) if isinstance(role, str) else None
    if unit is None:
        problems.append(
            f"kubelet_numa_k3s_role: {role!r} is not one of server, agent (the k3s service this node runs: k3s.service for a server, "
            "k3s-agent.service for an agent)"
        )
    if problems or minor is None or unit is None:
        return None, problems
    agent = AgentInputs("k3s", minor, variables["kubelet_numa_k3s_config_dir"], variables["kubelet_numa_k3s_data_dir"], inputs.files)
    ours_fragment = f"{agent.fragment_dir}/{inputs.dropin_name}.yaml"
    ours_dropin = f"{agent.dropin_dir}/{inputs.dropin_name}.conf"
    problems = agent.problems + ([] if agent.uses_dropins else agent.replacing_fragments(ours_fragment, "k3s"))
    if problems:
        return None, problems

    def our_items(settings: dict[str, Any]) -> list[str]:
        return [flag[2:] for flag in kubelet_flags(with_default_thresholds(settings, []))]

    def layers_for(settings: dict[str, Any]) -> KubeletLayers:
        if agent.uses_dropins:
            return agent.layers_from(agent.current_sources, (ours_dropin, dropin_document(settings)), "dropin")
        sources = [source for source in agent.current_sources if source[0] != ours_fragment]
        sources.append((ours_fragment, {"kubelet-arg+": our_items(settings)}))
        sources.sort(key=lambda item: (item[0] != agent.config_path, item[0]))
        return agent.layers_from(sources, ours="flags")

    entries: list[FileEntry]
    if agent.uses_dropins:
        entries = [{"path": ours_dropin, "template": "k3s.j2", "mode": "0644", "content_for": dropin_document}]
        directories = [agent.dropin_dir]
    else:
        entries = [{"path": ours_fragment, "template": "k3s.j2", "mode": "0600", "content_for": lambda settings: {"kubelet-arg+": our_items(settings)}}]
        directories = [agent.fragment_dir]

    def report_for(settings: dict[str, Any], _outputs: dict[str, Any] | None) -> dict[str, Any]:
        return {"kubelet_args": our_items(settings)}

    before = agent.layers_from(agent.current_sources)
    return Layout(
        unit=unit,
        apply_unit=None,
        files=entries,
        directories=directories,
        before=before,
        layers_for=layers_for,
        report_key="k3s",
        report={"version": version, "role": role, "form": "dropin" if agent.uses_dropins else "config.yaml.d"},
        report_for=report_for,
        kubelet_version=f"1.{minor}",
    ), before.problems


K3S = Platform(
    name="k3s",
    markers=("/etc/rancher/k3s", "/usr/local/bin/k3s", "/opt/bin/k3s"),
    units=tuple(K3S_UNITS.values()),
    paths_to_read=_paths_to_read,
    discover=_discover,
    layout=_layout,
)
