# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Discovery: which platform a node runs and what to read on it, in as few round trips as the platform allows.

The platform modules say what marks them, what their plan reads and what only a command on the node can tell
(_platform.Platform); this module asks them in order and gathers the facts plan_host (_plan) plans from.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Any, TypedDict

from ._plan_inputs import NodeFiles, PlanError, Variables, absolute_path
from ._platform import Node
from ._platforms import PLATFORM_NAMES, PLATFORMS, platform_named, units_of


class Reads(TypedDict):
    """What to read on a node for its plan: files and directories (paths_to_read)."""

    files: list[str]
    dirs: list[str]


class PlatformReads(Reads):
    """What to read on a node, and its platform (reads)."""

    platform: str


def detect_platform(existing: Collection[str]) -> str:
    """The platform from the paths that exist on the node (kubeadm, RKE2, nodeadm or k3s), or a PlanError."""
    found = {
        platform.name: [path for path in platform.markers if any(seen == path or seen.startswith(path + "/") for seen in existing)] for platform in PLATFORMS
    }
    found = {platform: paths for platform, paths in found.items() if paths}
    if len(found) == 1:
        return next(iter(found))
    if not found:
        raise PlanError(
            [
                "kubelet_numa_platform: cannot detect the platform: none of %s exists on this host; set kubelet_numa_platform "
                "to one of %s" % (detection_paths(), ", ".join(PLATFORM_NAMES))
            ]
        )
    raise PlanError(
        [
            "kubelet_numa_platform: cannot detect the platform: this host looks like %s; set kubelet_numa_platform"
            % " and ".join("%s (%s)" % (platform, ", ".join(paths)) for platform, paths in sorted(found.items()))
        ]
    )


def detection_paths() -> list[str]:
    """Every path detect_platform looks at."""
    return [path for platform in PLATFORMS for path in platform.markers]


def paths_to_read(variables: Variables, platform: str, files: NodeFiles | None = None) -> Reads:
    """Files and directories the plan of this platform reads on the node: {"files": [...], "dirs": [...]}.

    With the files already read (kubeadm), the drop-in directory a --config-dir flag names is added.
    """
    root_dir, problems = absolute_path(variables, "kubelet_numa_kubelet_root_dir")
    wanted, dirs, found = platform_named(platform).paths_to_read(variables, files)
    problems += found
    if root_dir:
        wanted = [*wanted, root_dir + "/memory_manager_state", root_dir + "/cpu_manager_state"]
    if problems:
        raise PlanError(problems)
    return {"files": [path for path in wanted if path], "dirs": [path for path in dirs if path]}


def reads(variables: Variables | None, existing: Iterable[str] | None = None, files: NodeFiles | None = None) -> PlatformReads:
    """What to read on the host: {"platform": ..., "files": [...], "dirs": [...]}.

    existing: the detection paths that exist on the host (used when kubelet_numa_platform is unset);
    files: what was read so far (a kubeadm --config-dir flag names one more directory).
    """
    variables = dict(variables or {})
    platform = variables.get("kubelet_numa_platform") or None
    if platform is None:
        platform = detect_platform(set(existing or ()))
    elif platform not in PLATFORM_NAMES:
        raise PlanError(["kubelet_numa_platform: %r is not one of %s" % (platform, ", ".join(PLATFORM_NAMES))])
    return {**paths_to_read(variables, platform, files), "platform": platform}


def units_to_guard(variables: Variables | None) -> list[str]:
    """The systemd units a plan of this host may restart: kubelet_numa_platform's, or every platform's while the platform
    is still to be detected (or is not a platform's name, which reads() refuses). The role reads their state and their
    checkpoint guard's files before the plan names one."""
    platform = (variables or {}).get("kubelet_numa_platform") or ""
    return units_of(platform if platform in PLATFORM_NAMES else "")


def discover(
    variables: Variables | None,
    node: Node,
    also_read: Iterable[str] = (),
    also_units: Iterable[str] = (),
    lablabs: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Everything plan_host needs from one node, read through `node` in as few round trips as the platform allows.

    node answers read(paths, dirs, topology) like numa.kubelet.node_files ({"files", "existing", "attributes"}, and
    "topology" when asked), topology() like numa.kubelet.numa_facts, rke2_version() (`rke2 --version`), k3s_version() (`k3s --version`),
    unit_file_state(unit) (systemd's UnitFileState, None when unknown), instance_type() and user_data() (IMDSv2; the
    user data is "" when the instance has none). Nothing is read
    that a variable already gives: kubelet_numa_node_files replaces every file read, kubelet_numa_topology the
    topology, kubelet_numa_platform the detection, and so on. also_read paths are read with the files (what the caller
    writes besides the plan's files); also_units are systemd units whose state is read with them (facts["unit_states"]).
    Returns (facts, attributes): the facts for plan_host and the mode, owner and
    group of every path read. lablabs: what lablabs.rke2 knows of the host (rke2_type, rke2_version, its group
    membership, its kubelet variables; the plan_node option); its role and, when numa.kubelet hands over to it, its
    version spare the reads. Raises PlanError when the platform cannot be told.
    """
    lablabs = dict(lablabs or {})
    variables = dict(variables or {})
    wants_topology = not variables.get("kubelet_numa_topology")
    if variables.get("kubelet_numa_node_files"):
        found = _given(variables, node, wants_topology)
    else:
        found = _read(variables, node, list(also_read), also_units, wants_topology)
    files, attributes, topology, read_existing, unit_states = found.files, found.attributes, found.topology, found.existing, found.unit_states
    platform = found.platform
    # node_files reports a directory as existing, without content: one we would write as a file is refused in planning.
    directories = sorted({path for path in read_existing if path not in files})
    facts = {
        "directories": directories,
        "numa_nodes": topology.get("numa_nodes") or [],
        "numa_memory_capacity_bytes": topology.get("numa_memory_capacity_bytes") or 0,
        "platform": platform,
        "files": files,
        "rke2_version": "",
        "rke2_role": "",
        "k3s_version": "",
        "k3s_role": "",
        "instance_type": "",
        "unit_states": unit_states,
        "lablabs": lablabs,
    }
    facts.update(platform_named(platform).discover(variables, node, files, lablabs))
    return facts, attributes


@dataclass
class _Found:
    """What discovery found on a node: its platform, the files read ({path: text or None}) and their attributes, the
    topology, the paths that exist and the state of the units asked for."""

    platform: str
    files: dict[str, Any]
    attributes: dict[str, Any] = field(default_factory=dict)
    topology: dict[str, Any] = field(default_factory=dict)
    existing: list[str] = field(default_factory=list)
    unit_states: dict[str, Any] = field(default_factory=dict)


def _given(variables: Variables, node: Node, wants_topology: bool) -> _Found:
    """kubelet_numa_node_files replaces every file read: only the topology may still come from the node."""
    given_files = variables["kubelet_numa_node_files"]
    todo = reads(variables, list(given_files))
    return _Found(todo["platform"], dict(given_files), topology=node.topology() if wants_topology else {})


def _read(variables: Variables, node: Node, also_read: list[str], also_units: Iterable[str], wants_topology: bool) -> _Found:
    """The detection paths (unless kubelet_numa_platform is set), then the platform's files, also_read, the topology and
    also_units' states in one read, then the drop-in directory a kubeadm --config-dir flag names, if any."""
    existing = None if variables.get("kubelet_numa_platform") else node.read(detection_paths(), [], False)["existing"]
    todo = reads(variables, existing)
    answer = node.read(todo["files"] + [path for path in also_read if path not in todo["files"]], todo["dirs"], wants_topology, also_units)
    found = _Found(todo["platform"], dict(answer["files"]), dict(answer["attributes"]), answer.get("topology") or {})
    found.existing = list(answer.get("existing") or [])
    found.unit_states = dict(answer.get("units") or {})
    # A kubeadm --config-dir flag names its drop-in directory only in the files just read.
    more = [path for path in reads(variables, existing, found.files)["dirs"] if path not in todo["dirs"]]
    if more:
        answer = node.read([], more, False)
        found.files.update(answer["files"])
        found.attributes.update(answer["attributes"])
        found.existing += answer.get("existing") or []
    return found
