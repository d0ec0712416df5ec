# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What every platform's plan reads and checks the same way: paths and names from variables, the topology, the node's
files, YAML and KubeletConfiguration files, EnvironmentFiles, and the layers (main file, drop-ins, flags) of one kubelet.

The platform modules (_platform_*.py), discovery (_discovery) and the plan (_plan) build on these; this module imports
none of them.
"""

from __future__ import annotations

import copy
import functools
import posixpath
import re
from collections.abc import Collection, Mapping
from typing import Any, Literal, TypeGuard, cast

import yaml

from ._config import API_VERSION, KIND, KubeletConfigError
from ._effective import effective_kubelet_config, parse_kubelet_flags, walk_order
from ._kubelet_fields import field_type_problems, type_name
from ._split import numa_nodes_from
from ._yaml_text import load_yaml, yaml_error_text

_SAFE_PATH = re.compile(r"^/[A-Za-z0-9._/+@:=-]*$")
_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")

# The play's variables for one host (hostvars), as Ansible gives them to the plan.
Variables = Mapping[str, Any]
# The node's files: {absolute path: text, or None for a file that is missing}.
NodeFiles = dict[str, str | None]
# A KubeletConfiguration file read from the node or written by numa.kubelet: (path, document).
Dropin = tuple[str, dict[str, Any]]
# Which layer of a kubelet's inputs carries numa.kubelet's settings, and a drop-in's position among the drop-ins.
OurLayer = tuple[Literal["dropin", "main", "flags"], int | None]


class PlanError(KubeletConfigError):
    """One or more reasons a host cannot be planned; nothing may change on it."""


def safe_path(value: object) -> TypeGuard[str]:
    """True for an absolute path of plain characters whose every part is a name: no '.', '..', '//', not '/' alone."""
    return isinstance(value, str) and bool(_SAFE_PATH.fullmatch(value)) and all(part not in ("", ".", "..") for part in value[1:].rstrip("/").split("/"))


def absolute_path(variables: Variables, name: str) -> tuple[str | None, list[str]]:
    """(the variable `name` as a normalized absolute path, []), or (None, [why it is not a safe one])."""
    value = variables.get(name)
    if not safe_path(value):
        return None, [f"{name}: {value!r} must be an absolute path of plain characters (letters, digits, . _ - + @ : = /), without '.' or '..' parts"]
    return posixpath.normpath(value), []


def absolute_paths(variables: Variables, names: Collection[str]) -> tuple[list[str | None], list[str]]:
    """absolute_path of each variable in `names`: (their paths, None for each refused one; every problem)."""
    found = [absolute_path(variables, name) for name in names]
    return [path for path, _problems in found], [problem for _path, problems in found for problem in problems]


def file_name(variables: Variables, name: str) -> tuple[str | None, list[str]]:
    """(the variable `name` as a plain file name, []), or (None, [why it is not one])."""
    value = variables.get(name)
    if not isinstance(value, str) or not _SAFE_NAME.match(value):
        return None, [f"{name}: {value!r} must be a plain file name (letters, digits, . _ -), not a path"]
    return value, []


def topology_from(variables: Variables, facts: object) -> tuple[list[dict[str, Any]], int]:
    """The NUMA nodes and memory capacity: kubelet_numa_topology when set, else what numa_facts discovered."""
    given = variables.get("kubelet_numa_topology") or {}
    source = "kubelet_numa_topology" if given else "numa_facts"
    topology = given if given else facts
    if not isinstance(topology, dict):
        raise PlanError(["kubelet_numa_topology: %r must be a mapping {numa_nodes: [...], numa_memory_capacity_bytes: N}" % (topology,)])
    nodes = topology.get("numa_nodes")
    capacity = topology.get("numa_memory_capacity_bytes")
    problems = []
    if not nodes:
        problems.append("%s: numa_nodes is missing or empty; set kubelet_numa_topology or let the role run numa.kubelet.numa_facts on the host" % source)
    if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity <= 0:
        problems.append("%s: numa_memory_capacity_bytes %r must be a positive integer (MemTotal of /proc/meminfo x 1024)" % (source, capacity))
    if problems:
        raise PlanError(problems)
    if not isinstance(nodes, list):
        raise PlanError(["%s: numa_nodes %r (%s) must be a list of NUMA nodes {id, memory_bytes, cpus}" % (source, nodes, type_name(nodes))])
    for index, node in enumerate(nodes):
        if not isinstance(node, dict):
            raise PlanError(["%s: numa_nodes[%d] %r must be a mapping {id, memory_bytes, cpus}" % (source, index, node)])
    unknown = sorted(str(key) for key in topology if key not in ("numa_nodes", "numa_memory_capacity_bytes"))
    if unknown and given:
        raise PlanError(["%s: unknown keys %s; it has only numa_nodes and numa_memory_capacity_bytes" % (source, ", ".join(unknown))])
    try:
        numa_nodes_from(nodes)
    except KubeletConfigError as exc:
        raise PlanError(["%s: %s" % (source, problem) for problem in exc.problems]) from None
    return nodes, cast(int, capacity)  # a positive int: checked above


def node_files(files: object) -> NodeFiles:
    """The node's files {absolute path: text, or null when missing}, as numa.kubelet.node_files reads them or
    kubelet_numa_node_files gives them."""
    if files is None:
        return {}
    if not isinstance(files, dict):
        raise PlanError([f"kubelet_numa_node_files: {files!r} ({type_name(files)}) must be a mapping {{absolute path on the node: file content}}"])
    problems = []
    for path, text in files.items():
        if not isinstance(path, str) or not path.startswith("/"):
            problems.append(f"kubelet_numa_node_files: the key {path!r} must be an absolute path on the node")
        elif text is not None and not isinstance(text, str):
            problems.append(
                f"kubelet_numa_node_files[{path}]: {text!r} ({type_name(text)}) must be the file's text (a string; null for a missing file): "
                "write a YAML file's content as a block scalar (|)"
            )
    if problems:
        raise PlanError(problems)
    return dict(files)


def vcpu_count(nodes: list[dict[str, Any]]) -> int | None:
    """The number of CPUs the NUMA nodes list, or None when they list none."""
    cpus = [cpu for node in nodes for cpu in (node.get("cpus") or [])]
    return len(cpus) or None


def parse_env_file(text: str | None) -> dict[str, str]:
    """A systemd EnvironmentFile: KEY=VALUE lines, '#' comments, optional single or double quotes around VALUE."""
    values = {}
    for line in (text or "").splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")) or "=" not in line:
            continue
        key, _separator, value = line.partition("=")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        values[key.strip()] = value
    return values


def env_words(text: str | None, names: Collection[str] | None = None) -> list[str]:
    """The kubelet words an EnvironmentFile contributes; systemd splits an unbraced $VAR on whitespace."""
    values = parse_env_file(text)
    return [word for key, value in values.items() if names is None or key in names for word in value.split()]


def load_mapping(path: str, text: str | None) -> tuple[dict[str, Any] | None, list[str]]:
    """(a YAML/JSON file's mapping ({} when empty), []); (None, []) when the file is missing; (None, [why]) when it is
    not YAML or not a mapping."""
    if text is None:
        return None, []
    data, problems = _parsed_mapping(path, text)
    return copy.deepcopy(data), list(problems)


@functools.lru_cache(maxsize=256)
def _parsed_mapping(path: str, text: str) -> tuple[dict[str, Any] | None, tuple[str, ...]]:
    """load_mapping's answer, parsed once per text: a plan reads each drop-in in several layerings (before the change,
    and twice with it), and a pure-Python parser takes milliseconds per file. Callers get a copy."""
    try:
        data = load_yaml(text)
    except yaml.YAMLError as exc:
        return None, (f"{path}: not valid YAML/JSON: {yaml_error_text(exc)}",)
    if data is not None and not isinstance(data, dict):
        return None, ("%s: must hold a mapping, got %s" % (path, type(data).__name__),)
    return data or {}, ()


def load_kubelet_config(path: str, text: str | None, *, dropin: bool) -> tuple[dict[str, Any] | None, list[str]]:
    """A KubeletConfiguration file (the main config, or a drop-in of --config-dir) read as the kubelet decodes it, with
    the problems of its kind and field types."""
    data, problems = load_mapping(path, text)
    if text is None or data is None:
        return data, problems
    refusal = _decode_refusal(path, text, data, dropin)
    if refusal:
        return data, [f"{path}: {refusal}"]
    for key, expected in (("apiVersion", API_VERSION), ("kind", KIND)):
        if data[key] != expected:
            problems.append(f"{path}: {key} {data[key]!r} is not {expected!r}; the kubelet refuses a file of another kind here")
    problems.extend(field_type_problems(data, f"{path}: "))
    return data, problems


def _decode_refusal(path: str, text: str, data: Mapping[str, Any], dropin: bool) -> str | None:
    """The kubelet's refusal of an empty file or one without kind or apiVersion, in its words (the real kubelet v1.36.2
    refuses each at start: cmd/kubelet/app/server.go loadConfigFile and mergeKubeletConfigurations, over
    pkg/kubelet/kubeletconfig/configfiles and apimachinery's "Object 'Kind' is missing"); None when it decodes."""
    if text == "":
        reason = f'kubelet config file "{path}" was empty'
    elif "kind" not in data:
        reason = f"Object 'Kind' is missing in '{text}'"
    elif "apiVersion" not in data:
        if dropin:
            return f"failed to load kubelet dropin file, path: {path}, unknown apiVersion/kind: /, Kind={data['kind']}"
        reason = f"Object 'apiVersion' is missing in '{text}'"
    else:
        return None
    if dropin:
        return f"failed to load kubelet dropin file, path: {path}, error: {reason}"
    decode = reason if text == "" else f"failed to decode: {reason}"
    return f"failed to load kubelet config file, path: {path}, error: failed to load Kubelet config file {path}, error {decode}"


def dir_files(files: NodeFiles, directory: str, suffixes: tuple[str, ...]) -> list[str]:
    """The files read directly in `directory` whose names end with one of `suffixes`, in lexical order."""
    prefix = directory.rstrip("/") + "/"
    return sorted(
        path for path, text in files.items() if text is not None and path.startswith(prefix) and "/" not in path[len(prefix) :] and path.endswith(suffixes)
    )


def dropin_document(settings: Mapping[str, Any]) -> dict[str, Any]:
    """A KubeletConfiguration document holding the settings (a drop-in, or the config lablabs.rke2 writes)."""
    return dict({"apiVersion": API_VERSION, "kind": KIND}, **settings)


class KubeletLayers:
    """The inputs of one kubelet: main file, drop-ins (path, document) in order, flags; with `ours` marking our layer,
    and the problems found in reading them."""

    def __init__(
        self,
        main_path: str | None = None,
        main: dict[str, Any] | None = None,
        dropins: list[Dropin] | None = None,
        flags: list[str] | None = None,
        ours: OurLayer | None = None,
        problems: list[str] | None = None,
    ) -> None:
        self.main_path, self.main = main_path, main
        self.dropins = list(dropins or [])
        self.flags = list(flags or [])
        self.ours = ours
        self.problems = list(problems or [])

    def effective(self, kubelet_version: str | None = None) -> dict[str, Any]:
        """The config this kubelet runs with, defaulted as kubelet_version (None: 1.36) defaults it."""
        return effective_kubelet_config(self.main, [document for _path, document in self.dropins], self.flags, kubelet_version)

    def describe(self) -> dict[str, Any]:
        return {
            "config": None if self.main_path is None else {"path": self.main_path, "content": self.main or {}},
            "dropins": [{"path": path, "content": document} for path, document in self.dropins],
            "flags": parse_kubelet_flags(self.flags).config_flags,
        }


def dropin_paths(files: NodeFiles, directory: str) -> list[str]:
    """The drop-ins the kubelet merges from its --config-dir `directory`: every file ending in .conf at any depth, in
    filepath.Walk's order (cmd/kubelet/app/server.go mergeKubeletConfigurations walks the directory down)."""
    prefix = directory.rstrip("/") + "/"
    return sorted((path for path, text in files.items() if text is not None and path.startswith(prefix) and path.endswith(".conf")), key=walk_order)


def dropins_in(files: NodeFiles, directory: str, replace: Dropin | None = None) -> tuple[list[Dropin], list[str]]:
    """(the drop-ins of `directory` as (path, document) in the kubelet's order, the problems in reading them);
    replace=(path, document) puts one in its place."""
    documents: list[Dropin] = []
    problems: list[str] = []
    for path in dropin_paths(files, directory):
        document, found = load_kubelet_config(path, files[path], dropin=True)
        documents.append((path, document or {}))
        problems += found
    if replace is not None:
        documents = [(path, document) for path, document in documents if path != replace[0]] + [replace]
        documents.sort(key=lambda item: walk_order(item[0]))
    return documents, problems
