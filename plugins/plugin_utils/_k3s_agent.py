# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What k3s's agent does with the kubelet's inputs; k3s and RKE2 (built on k3s's agent) both run this code.

Only the program name differs (k3s `version.Program`: "k3s" or "rke2"): it names the config directory
/etc/rancher/<program>, the data directory /var/lib/rancher/<program> and the defaults drop-in 00-<program>-defaults.conf.
- config.yaml, then config.yaml.d/*.yaml in lexical order: a later `kubelet-arg` replaces every item before it,
  `kubelet-arg+` appends (k3s pkg/configfilearg/parser.go readConfigFile,
  https://github.com/k3s-io/k3s/blob/master/pkg/configfilearg/parser.go).
- Each item is one `--key=value` kubelet argument; an item replaces the default with the same key, repeated items
  repeat, the result is sorted (k3s pkg/daemons/config GetArgs).
- From the 1.32 minor the agent writes its defaults to <data-dir>/agent/etc/kubelet.conf.d/00-<program>-defaults.conf
  and runs the kubelet with --config-dir there and no --config; a kubelet-arg config= file is copied in as
  10-cli-config.conf (k3s pkg/daemons/agent/agent.go startKubelet, extractConfigArgs, writeKubeletConfig;
  https://github.com/k3s-io/k3s/blob/master/pkg/daemons/agent/agent.go, k3s#10433, validated on v1.32.1 in
  https://github.com/k3s-io/k3s/issues/2116; the version gate: https://docs.k3s.io/installation/configuration).
  Before 1.32 the same thresholds are --eviction-hard / --eviction-minimum-reclaim flags (pkg/daemons/agent/agent_linux.go kubeletArgs).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from ._config import API_VERSION, KIND
from ._effective import parse_kubelet_flags
from ._flags import flag_key
from ._kubelet_fields import type_name
from ._plan_inputs import Dropin, KubeletLayers, NodeFiles, OurLayer, Variables, absolute_paths, dir_files, dropins_in, load_mapping, walk_order

# The oldest minor whose agent writes the kubelet's defaults as a drop-in (k3s#10433; docs/kubelet-facts.md section 4).
DROPIN_MINOR = 32
# The agent's disk eviction thresholds: flags before 1.32, the defaults drop-in from 1.32 (agent_linux.go / agent.go defaultKubeletConfig).
EVICTION_HARD = {"imagefs.available": "5%", "nodefs.available": "5%"}
EVICTION_MINIMUM_RECLAIM = {"imagefs.available": "10%", "nodefs.available": "10%"}
# agent.go extractConfigArgs (from 1.32): a kubelet-arg config= file is copied into the drop-in directory under this name.
CLI_CONFIG_DROPIN = "10-cli-config.conf"

_VERSION = re.compile(r"v?(\d+)\.(\d+)\.(\d+)")

# A config.yaml or config.yaml.d file of the agent: (path, its mapping, or None when missing or unreadable).
ConfigSource = tuple[str, dict[str, Any] | None]


def paths_to_read(variables: Variables, program: str, config_files: tuple[str, ...] = ()) -> tuple[list[str], list[str], list[str]]:
    """What the agent of PROGRAM (k3s, rke2) reads: config.yaml (and CONFIG_FILES beside it) and config.yaml.d in
    kubelet_numa_<program>_config_dir, and the kubelet's drop-in directory in kubelet_numa_<program>_data_dir; then
    the problems with those variables."""
    wanted: list[str] = []
    dirs: list[str] = []
    (config_dir, data_dir), problems = absolute_paths(variables, (f"kubelet_numa_{program}_config_dir", f"kubelet_numa_{program}_data_dir"))
    if config_dir:
        wanted += [f"{config_dir}/{name}" for name in ("config.yaml",) + tuple(config_files)]
        dirs.append(config_dir + "/config.yaml.d")
    if data_dir:
        dirs.append(data_dir + "/agent/etc/kubelet.conf.d")
    return wanted, dirs, problems


def version_minor(version: object, variable: str, example: str) -> tuple[int | None, list[str]]:
    """(the Kubernetes minor of a k3s / RKE2 version string (v1.32.5+k3s1 -> 32), []), or (None, [why not])."""
    if version is not None and not isinstance(version, str):
        return None, [f"{variable}: {version!r} ({type_name(version)}) is not {example}: write it as a quoted string (YAML reads 1.30 as the number 1.3)"]
    match = _VERSION.search(version or "")
    if not match or match.group(1) != "1":
        return None, [f"{variable}: {version!r} is not {example}"]
    return int(match.group(2)), []


def _config_items(data: dict[str, Any], path: str) -> tuple[dict[str, list[str]], list[str]]:
    result: dict[str, list[str]] = {}
    problems: list[str] = []
    for key in ("kubelet-arg", "kubelet-arg+"):
        if key not in data:
            continue
        value = data[key]
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
            problems.append(f"{path}: {key} must be a list of 'flag=value' strings, got {value!r}")
            continue
        result[key] = items
    return result, problems


def config_kubelet_args(sources: list[ConfigSource]) -> tuple[list[str], list[str]]:
    """(the kubelet-arg items of config.yaml then config.yaml.d/*.yaml, the problems with them): a later `kubelet-arg`
    replaces, `kubelet-arg+` appends."""
    items: list[str] = []
    problems: list[str] = []
    for path, data in sources:
        found, wrong = _config_items(data or {}, path)
        problems += wrong
        if "kubelet-arg" in found:
            items = list(found["kubelet-arg"])
        items += found.get("kubelet-arg+", [])
    return items, problems


def kubelet_argv(defaults: Mapping[str, str], items: list[str]) -> list[str]:
    """k3s GetArgs: a user item replaces the agent's default of the same key; repeated items repeat; sorted by key."""
    initial = dict(defaults)
    multi: dict[str, list[str]] = {}
    for item in items:
        key, found, value = item.lstrip("-").partition("=")
        if not found:
            value = "true"
        initial.pop(key, None)
        multi.setdefault(key, []).append(value)
    pairs = list(initial.items()) + [(key, value) for key, values in multi.items() for value in values]
    return ["--%s=%s" % pair for pair in sorted(pairs, key=lambda pair: pair[0])]


def default_args(minor: int, dropin_dir: str) -> dict[str, str]:
    """The agent's own kubelet flags that matter to the reservation: --config-dir from 1.32, the eviction flags before."""
    if minor >= DROPIN_MINOR:
        return {"config-dir": dropin_dir}
    return {
        "eviction-hard": ",".join("%s<%s" % item for item in sorted(EVICTION_HARD.items())),
        "eviction-minimum-reclaim": ",".join("%s=%s" % item for item in sorted(EVICTION_MINIMUM_RECLAIM.items())),
    }


def with_default_thresholds(settings: Mapping[str, Any], other_items: list[str]) -> dict[str, Any]:
    """The agent's disk eviction thresholds kept where a flag would replace them (docs/kubelet-facts.md sections 2 and 4).

    Before 1.32 a kubelet-arg eviction-hard replaces the agent's own --eviction-hard; from 1.32 the flag replaces the map
    of the defaults drop-in. So when ours or another item sets the flag, ours carries the thresholds that nobody set.
    """
    result = dict(settings)
    for field_name, flag, defaults in (
        ("evictionHard", "eviction-hard", EVICTION_HARD),
        ("evictionMinimumReclaim", "eviction-minimum-reclaim", EVICTION_MINIMUM_RECLAIM),
    ):
        theirs = [item for item in other_items if flag_key(item) == flag]
        if field_name not in settings and not theirs:
            continue
        covered = set(settings.get(field_name) or {})
        for field, value, _kind, _word in parse_kubelet_flags(["--" + item.lstrip("-") for item in theirs]).overrides:
            covered |= set(value) if field == field_name and isinstance(value, dict) else set()
        missing = {key: value for key, value in defaults.items() if key not in covered}
        if missing:
            result[field_name] = dict(missing, **(settings.get(field_name) or {}))
    return result


class AgentInputs:
    """The kubelet inputs the agent builds on one node from its config files, its version and its data directory.

    program: "k3s" or "rke2" (names the defaults drop-in); files: what was read on the node. `problems`: those of
    config.yaml and config.yaml.d's files; the layers carry the problems found in reading them.
    """

    def __init__(self, program: str, minor: int, config_dir: str, data_dir: str, files: NodeFiles) -> None:
        self.minor = minor
        self.files = files
        self.problems: list[str] = []
        self.dropin_dir = data_dir + "/agent/etc/kubelet.conf.d"
        self.config_path = config_dir + "/config.yaml"
        self.fragment_dir = config_dir + "/config.yaml.d"
        self.fragments: list[ConfigSource] = []
        for path in dir_files(files, self.fragment_dir, (".yaml", ".yml")):
            fragment, problems = load_mapping(path, files[path])
            self.fragments.append((path, fragment))
            self.problems += problems
        config, problems = load_mapping(self.config_path, files.get(self.config_path))
        self.config = config or {}
        self.problems += problems
        self.defaults_dropin = (
            self.dropin_dir + f"/00-{program}-defaults.conf",
            {"apiVersion": API_VERSION, "kind": KIND, "evictionHard": dict(EVICTION_HARD), "evictionMinimumReclaim": dict(EVICTION_MINIMUM_RECLAIM)},
        )

    @property
    def uses_dropins(self) -> bool:
        return self.minor >= DROPIN_MINOR

    @property
    def current_sources(self) -> list[ConfigSource]:
        """config.yaml and config.yaml.d's files as (path, mapping), in the order the agent reads them."""
        return [(self.config_path, self.config)] + self.fragments

    def replacing_fragments(self, ours_fragment: str, product: str) -> list[str]:
        """A config.yaml.d file after ours with `kubelet-arg` (no '+') drops our items: one problem each."""
        return [
            f"{path} sets kubelet-arg without '+', which replaces every kubelet-arg before it, numa.kubelet's included; "
            f"write it as kubelet-arg+ ({product} config.yaml.d rule)"
            for path, data in self.fragments
            if path > ours_fragment and "kubelet-arg" in (data or {})
        ]

    def dropins_with(self, replace: Dropin | None = None) -> tuple[list[Dropin], list[str]]:
        if not self.uses_dropins:
            return [], []
        dropins, problems = dropins_in(self.files, self.dropin_dir, replace=replace)
        if self.defaults_dropin[0] not in [path for path, _document in dropins]:
            # The agent writes its defaults drop-in at every start; a node planned before its first start has none yet.
            dropins = sorted(dropins + [self.defaults_dropin], key=lambda item: walk_order(item[0]))
        return dropins, problems

    def layers_from(self, sources: list[ConfigSource], replace: Dropin | None = None, ours: Literal["dropin", "main", "flags"] | None = None) -> KubeletLayers:
        """The kubelet the agent runs from these config.yaml sources (startKubelet: extractConfigArgs, then GetArgs).

        replace: (path, document) of our drop-in or main file; ours: "dropin", "main", "flags" or None (before).
        """
        items, problems = config_kubelet_args(sources)
        named = [item for item in items if flag_key(item) == "config"]
        items = [item for item in items if flag_key(item) not in ("config", "config-dir")]
        argv = kubelet_argv(default_args(self.minor, self.dropin_dir), items)
        if self.uses_dropins:
            # From 1.32 a config= file is copied into the drop-in directory as 10-cli-config.conf, never loaded as --config.
            dropins, found = self.dropins_with(replace)
            position = [path for path, _document in dropins].index(replace[0]) if ours == "dropin" and replace is not None else None
            layer: OurLayer | None = None if ours is None else ("dropin" if ours == "dropin" else "flags", position)
            return KubeletLayers(None, None, dropins, argv, ours=layer, problems=problems + found)
        if named:
            path = named[-1].partition("=")[2]
            main, found = (replace[1], []) if ours == "main" and replace is not None else load_mapping(path, self.files.get(path))
            return KubeletLayers(path, main or {}, [], argv, ours=None if ours is None else (ours, None), problems=problems + found)
        return KubeletLayers(None, None, [], argv, ours=None if ours is None else ("flags", None), problems=problems)
