# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubeadm: how a kubeadm node's kubelet gets its config, and where numa.kubelet's settings go (docs/kubelet-facts.md section 4).

The main config /var/lib/kubelet/config.yaml belongs to kubeadm (`kubeadm upgrade` rewrites it), so our settings go
in a --config-dir drop-in; the flag comes from kubeadm-flags.env or /etc/default/kubelet (kubeadm's 10-kubeadm.conf
passes $KUBELET_KUBEADM_ARGS then $KUBELET_EXTRA_ARGS) and is added to the latter where missing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._effective import ParsedFlags, parse_kubelet_flags
from ._plan_inputs import (
    KubeletLayers,
    NodeFiles,
    Variables,
    absolute_paths,
    dropin_document,
    dropins_in,
    env_words,
    load_kubelet_config,
    parse_env_file,
    safe_path,
)
from ._platform import KUBELET_UNIT, FileEntry, Layout, LayoutInputs, Node, Platform


def _paths_to_read(variables: Variables, files: NodeFiles | None) -> tuple[list[str | None], list[str | None], list[str]]:
    names = ("kubelet_numa_kubeadm_config_file", "kubelet_numa_kubeadm_flags_file", "kubelet_numa_kubeadm_extra_args_file", "kubelet_numa_kubeadm_config_dir")
    paths, problems = absolute_paths(variables, names)
    wanted, dirs = paths[:3], paths[3:]
    if files and not problems:
        # The drop-in directory a --config-dir flag names, once the flag files are read.
        named = _kubeadm_layers(variables, files).config_dir
        if safe_path(named) and named not in dirs:
            dirs.append(named)
    return wanted, dirs, problems


def _discover(variables: Variables, node: Node, files: NodeFiles, lablabs: dict[str, Any]) -> dict[str, Any]:
    return {}


@dataclass(frozen=True)
class _KubeadmLayers:
    """What a kubeadm node's kubelet reads now: its main config, its flags (kubeadm's, then KUBELET_EXTRA_ARGS: `flags`,
    parsed, and the extra ones alone), the drop-in directory they name (or the variable's), and the problems found."""

    main: dict[str, Any] | None
    flags: list[str]
    parsed: ParsedFlags
    config_dir: str
    extra_words: list[str]
    problems: list[str]


def _kubeadm_layers(variables: Variables, files: NodeFiles) -> _KubeadmLayers:
    config_file = variables["kubelet_numa_kubeadm_config_file"]
    flags_file = variables["kubelet_numa_kubeadm_flags_file"]
    extra_file = variables["kubelet_numa_kubeadm_extra_args_file"]
    main, problems = load_kubelet_config(config_file, files.get(config_file), dropin=False)
    if files.get(config_file) is None:
        problems.append(f"{config_file} does not exist: this is not a kubeadm node that has joined its cluster (kubelet_numa_kubeadm_config_file)")
    # 10-kubeadm.conf: $KUBELET_KUBECONFIG_ARGS $KUBELET_CONFIG_ARGS $KUBELET_KUBEADM_ARGS $KUBELET_EXTRA_ARGS
    kubeadm_words = env_words(files.get(flags_file), ("KUBELET_KUBEADM_ARGS",))
    extra_env = parse_env_file(files.get(extra_file))
    extra_words = extra_env.get("KUBELET_EXTRA_ARGS", "").split()
    flags = kubeadm_words + extra_words
    parsed = parse_kubelet_flags(flags)
    config_dir = parsed.config_dir or variables["kubelet_numa_kubeadm_config_dir"]
    return _KubeadmLayers(main, flags, parsed, config_dir, extra_words, problems)


def _env_file_with(text: str | None, name: str, words: list[str]) -> str:
    """The EnvironmentFile text with NAME set to the words; other lines kept as they are."""
    line = '%s="%s"' % (name, " ".join(words))
    lines = (text or "").splitlines()
    for index, existing in enumerate(lines):
        if existing.strip().startswith(name + "="):
            lines[index] = line
            break
    else:
        lines.append(line)
    return "\n".join(lines) + "\n"


def _extra_args_file_problems(variables: Variables, config_dir: str, ours_path: str) -> list[str]:
    """The EnvironmentFile numa.kubelet rewrites to add --config-dir must not be another of the kubelet's inputs."""
    extra_file = variables["kubelet_numa_kubeadm_extra_args_file"]
    inputs = {
        variables["kubelet_numa_kubeadm_config_file"]: "kubelet_numa_kubeadm_config_file (the kubelet's main config)",
        variables["kubelet_numa_kubeadm_flags_file"]: "kubelet_numa_kubeadm_flags_file (kubeadm's flags)",
        ours_path: "numa.kubelet's drop-in",
    }
    if extra_file in inputs or extra_file == config_dir or extra_file.startswith(config_dir.rstrip("/") + "/"):
        return [
            "kubelet_numa_kubeadm_extra_args_file: %s is %s; numa.kubelet would replace it with KUBELET_EXTRA_ARGS "
            "(it must be the kubelet's own EnvironmentFile, such as /etc/default/kubelet or /etc/sysconfig/kubelet)"
            % (extra_file, inputs.get(extra_file, "in the kubelet's drop-in directory %s" % config_dir))
        ]
    return []


def _layout(inputs: LayoutInputs) -> tuple[Layout | None, list[str]]:
    variables, files = inputs.variables, inputs.files
    now = _kubeadm_layers(variables, files)
    problems, parsed, config_dir = list(now.problems), now.parsed, now.config_dir
    if problems:
        return None, problems
    main_path = variables["kubelet_numa_kubeadm_config_file"]
    if parsed.config and parsed.config != main_path:
        problems.append("the kubelet flags name --config=%s, but kubelet_numa_kubeadm_config_file is %s" % (parsed.config, main_path))
    if not safe_path(config_dir):
        problems.append(
            "--config-dir=%s in the kubelet flags is not a path numa.kubelet can write to safely (an absolute path of "
            "plain characters without '.' or '..' parts)" % config_dir
        )
        return None, problems
    ours_path = "%s/%s.conf" % (config_dir, inputs.dropin_name)
    extra_file = variables["kubelet_numa_kubeadm_extra_args_file"]
    needs_flag = parsed.config_dir is None
    new_flags = now.flags + (["--config-dir=%s" % config_dir] if needs_flag else [])
    before_dropins, found = dropins_in(files, config_dir) if parsed.config_dir else ([], [])
    problems += found

    def layers_for(settings: dict[str, Any]) -> KubeletLayers:
        dropins, found = dropins_in(files, config_dir, replace=(ours_path, dropin_document(settings)))
        position = [path for path, _document in dropins].index(ours_path)
        return KubeletLayers(main_path, now.main, dropins, new_flags, ours=("dropin", position), problems=found)

    entries: list[FileEntry] = [{"path": ours_path, "template": "kubeadm.j2", "mode": "0644", "content_for": dropin_document}]
    if needs_flag:
        refused = _extra_args_file_problems(variables, config_dir, ours_path)
        if refused:
            return None, problems + refused
        text = _env_file_with(files.get(extra_file), "KUBELET_EXTRA_ARGS", now.extra_words + ["--config-dir=%s" % config_dir])
        entries.append({"path": extra_file, "mode": "0644", "text": text})
    before = KubeletLayers(main_path, now.main, before_dropins, now.flags)
    return Layout(unit=KUBELET_UNIT, apply_unit=None, files=entries, directories=[config_dir], before=before, layers_for=layers_for), problems


KUBEADM = Platform(
    name="kubeadm",
    markers=("/var/lib/kubelet/kubeadm-flags.env", "/var/lib/kubelet/config.yaml"),
    units=(KUBELET_UNIT,),
    paths_to_read=_paths_to_read,
    discover=_discover,
    layout=_layout,
)
