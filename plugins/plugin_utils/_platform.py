# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one interface between the plan and a platform (kubeadm, RKE2, nodeadm, k3s): what a platform module declares.

Each _platform_<name>.py builds one Platform; _platforms lists them in detection order. Discovery (_discovery) asks a
Platform what marks it and what to read; the plan (_plan) asks it for a Layout of the node; everything after that
(the reservation, the checks, the restart decision, the files' content) is common and lives in _plan.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypedDict

from ._plan_inputs import KubeletLayers, NodeFiles, Variables

# The kubelet's own systemd unit, as kubeadm's packages and the EKS AMIs (nodeadm) install it.
KUBELET_UNIT = "kubelet.service"


class Node(Protocol):
    """What discovery asks of a node (plan_node's reader): files and topology through numa.kubelet's modules, the
    RKE2 and k3s versions, a unit's UnitFileState (None when unknown), and the EC2 instance type and user data."""

    def read(self, paths: list[str], dirs: list[str], topology: bool, units: Iterable[str] = ...) -> dict[str, Any]: ...

    def topology(self) -> dict[str, Any]: ...

    def rke2_version(self) -> str: ...

    def k3s_version(self) -> str: ...

    def unit_file_state(self, unit: str) -> str | None: ...

    def instance_type(self) -> str: ...

    def user_data(self) -> str: ...


class _FileEntryBase(TypedDict):
    path: str
    mode: str


class FileEntry(_FileEntryBase, total=False):
    """A file numa.kubelet writes: its content rendered by `template` from content_for(settings), or `text` as is."""

    template: str
    content_for: Callable[[dict[str, Any]], dict[str, Any]]
    text: str


@dataclass(frozen=True)
class Platform:
    """A platform: its name, how to tell it on a node, what to read there, and how it layers the kubelet's inputs.

    markers: paths its installer leaves on a node (one that exists, or a path under it, tells the platform).
    units: every systemd unit a plan on this platform may restart (Layout.unit): discovery reads their state, and their
      checkpoint guard's files, before the plan names one.
    paths_to_read(variables, files) -> (files, dirs, problems): what its plan reads on the node, besides the kubelet's
      root directory, and the problems with the variables that name them; files is what was read so far (None before
      the first read) when a file names another directory.
    discover(variables, node, files, lablabs) -> {fact: value}: the facts only a command on the node can tell (a version,
      the unit enabled, the instance metadata); {} when the variables already give them.
    layout(LayoutInputs) -> (Layout, problems): the Layout, or None with the problems that refuse the node (the problems
      also come with a Layout: reading its `before` found them).
    """

    name: str
    markers: tuple[str, ...]
    units: tuple[str, ...]
    paths_to_read: Callable[[Variables, NodeFiles | None], tuple[Sequence[str | None], Sequence[str | None], list[str]]]
    discover: Callable[[Variables, Node, NodeFiles, dict[str, Any]], dict[str, Any]]
    layout: Callable[[LayoutInputs], tuple[Layout | None, list[str]]]


@dataclass(frozen=True)
class LayoutInputs:
    """What the plan gives a platform's layout: the host's variables, what discovery found (facts, the node's files),
    the user's intent (kubelet_numa_config), the name of numa.kubelet's own file, and the NUMA nodes."""

    variables: Variables
    facts: dict[str, Any]
    files: NodeFiles
    intent: dict[str, Any]
    dropin_name: str
    nodes: list[dict[str, Any]]


@dataclass(frozen=True)
class Layout:
    """How one node's kubelet gets its inputs on this platform, before and with numa.kubelet's settings.

    unit: the systemd unit restarted to apply the files; apply_unit: one run before it that rebuilds the kubelet's
    inputs from ours (nodeadm-run), or None.
    files: what numa.kubelet writes: {path, mode, template or text, content_for(settings) -> document} entries.
    directories: the directories those files go in (created when missing).
    before: the KubeletLayers the kubelet runs with now; layers_for(settings): those it runs with our settings (each
      carries the problems found in reading them).
    warnings: what the platform warns of before planning (None: nothing to say, and no early warnings entry).
    report_key, report: the platform's own part of the plan (plan[report_key]), or None.
    hand_over(settings, before, effective, capacity) -> (outputs, restart_held, warnings, problems): when another tool
      writes and starts what carries our settings (lablabs.rke2), its inputs; restart_held when the unit must not be
      restarted yet.
    report_for(settings, outputs) -> the entries added to the platform's report once the plan holds.
    kubelet_version: the version of the kubelet the platform runs ("1.32"), whose rules judge the config; None when the
      platform does not tell it (the kubelet the project checks against, 1.36).
    """

    unit: str
    apply_unit: str | None
    files: list[FileEntry]
    directories: list[str]
    before: KubeletLayers
    layers_for: Callable[[dict[str, Any]], KubeletLayers]
    warnings: list[str] | None = None
    report_key: str | None = None
    report: dict[str, Any] | None = None
    hand_over: Callable[[dict[str, Any], dict[str, Any], dict[str, Any], int], tuple[dict[str, Any], bool, list[str], list[str]]] | None = None
    report_for: Callable[[dict[str, Any], dict[str, Any] | None], dict[str, Any]] | None = None
    kubelet_version: str | None = None
