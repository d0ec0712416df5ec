# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""NUMA alignment of a node's pod containers: the NUMA node(s) the kubelet's Memory Manager assigned to each
container (memory_manager_state) against what the kernel enforces on the container's process
(Cpus_allowed_list and Mems_allowed_list of /proc/PID/status), and the kubelet's admission refusals.

The input is what the module numa.kubelet.container_numa reads on the node. The Memory Manager records a container
in its checkpoint when it allocates memory for it (Guaranteed pods under the Static policy):
https://github.com/kubernetes/kubernetes/blob/v1.36.2/pkg/kubelet/cm/memorymanager/state/checkpoint.go
and pins the container's cpuset.mems to those nodes when the container is created:
https://github.com/kubernetes/kubernetes/blob/v1.36.2/pkg/kubelet/cm/memorymanager/memory_manager.go
(GetMemoryNUMANodes, used by the internal container lifecycle's PreCreateContainer). The CPU Manager records the
container's exclusive CPUs in cpu_manager_state and keeps the container's cpuset.cpus in line with them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any, TypedDict

# klog's structured key="value" pairs (values are Go-quoted strings).
_KLOG_PAIR = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')
# The kubelet's line when it refuses a pod at admission (pkg/kubelet/kubelet.go, HandlePodAdditions -> rejectPod).
_ADMISSION_DENIED = '"Pod admission denied"'
_LIST_PART = re.compile(r"^(\d+)(?:-(\d+))?$")


class AlignmentError(Exception):
    """The node's view cannot be read as the kubelet's checkpoints and the kernel's lists."""


class NumaNode(TypedDict):
    id: int
    cpus: list[int]


class RunningContainer(TypedDict):
    """A pod container's first process as numa.kubelet.container_numa reads it (/proc/PID/status)."""

    pod_uid: str
    namespace: str
    pod: str
    container: str
    pid: int | None
    cpus_allowed_list: str
    mems_allowed_list: str


class NodeView(TypedDict, total=False):
    """What numa.kubelet.container_numa returns: the kubelet's checkpoints (text), the topology, the containers."""

    memory_manager_state: str | None
    cpu_manager_state: str | None
    numa_nodes: list[NumaNode]
    containers: list[RunningContainer]
    admission_denials: list[str]


class Denial(TypedDict):
    pod: str
    reason: str
    message: str


class ContainerAlignment(TypedDict):
    """One container the Memory Manager holds memory for, with the kernel's view of its process when it runs."""

    pod_uid: str
    container: str
    numa_nodes: list[int]
    pod: str | None
    pid: int | None
    cpus_allowed_list: str | None
    mems_allowed_list: str | None
    exclusive_cpus: str | None
    problems: list[str]


class Alignment(TypedDict):
    containers: list[ContainerAlignment]
    refused: list[Denial]
    lines: list[str]
    problems: list[str]


def parse_cpu_list(text: str | None) -> set[int]:
    """Expand a kernel or cpuset list such as '0-3,8' into a set of ints ('' is the empty set)."""
    numbers: set[int] = set()
    for part in (text or "").strip().split(","):
        if not part:
            continue
        match = _LIST_PART.match(part)
        if not match or int(match.group(2) or match.group(1)) < int(match.group(1)):
            raise AlignmentError(f"{text!r} is not a CPU or NUMA node list")
        numbers.update(range(int(match.group(1)), int(match.group(2) or match.group(1)) + 1))
    return numbers


def format_list(numbers: Iterable[int]) -> str:
    """The kernel's compact list form of a set of ints: {0, 1, 2, 5} -> '0-2,5'."""
    ranges: list[list[int]] = []
    for number in sorted(numbers):
        if ranges and number == ranges[-1][1] + 1:
            ranges[-1][1] = number
        else:
            ranges.append([number, number])
    return ",".join(str(a) if a == b else "%d-%d" % (a, b) for a, b in ranges)


def _checkpoint(text: str | None, name: str) -> dict[str, Any] | None:
    if text is None:
        return None
    try:
        state = json.loads(text)
    except ValueError as exc:
        raise AlignmentError(f"{name} is not JSON: {exc}") from exc
    if not isinstance(state, dict):
        raise AlignmentError(f"{name} is not a JSON object")
    return state


def admission_denials(lines: Iterable[str] | None) -> list[Denial]:
    """The kubelet's "Pod admission denied" log lines as [{pod, reason, message}], the last one per pod, in order."""
    denied: dict[str, Denial] = {}
    for line in lines or []:
        if _ADMISSION_DENIED not in line:
            continue
        pairs = {key: json.loads(f'"{value}"') for key, value in _KLOG_PAIR.findall(line.split(_ADMISSION_DENIED, 1)[1])}
        if "pod" in pairs:
            denied.pop(pairs["pod"], None)
            denied[pairs["pod"]] = {"pod": pairs["pod"], "reason": pairs.get("reason", ""), "message": pairs.get("message", "")}
    return list(denied.values())


def _memory_nodes(blocks: list[dict[str, Any]] | None) -> set[int]:
    """The NUMA nodes of a container's memory blocks (memory and hugepages) in memory_manager_state."""
    nodes: set[int] = set()
    for block in blocks or []:
        nodes.update(block.get("numaAffinity") or [])
    return nodes


def _checked(row: ContainerAlignment, seen: dict[str, Any], nodes: set[int], node_cpus: dict[int, set[int]]) -> tuple[str | None, list[str]]:
    """Fills row from the container's running process: (the report line when it is aligned, else None; its problems)."""
    row["pod"] = "%s/%s" % (seen["namespace"], seen["pod"])
    row["pid"] = seen["pid"]
    row["cpus_allowed_list"] = seen["cpus_allowed_list"]
    row["mems_allowed_list"] = seen["mems_allowed_list"]
    cpus, mems = parse_cpu_list(seen["cpus_allowed_list"]), parse_cpu_list(seen["mems_allowed_list"])
    nodes_cpus = set().union(*(node_cpus.get(node, set()) for node in nodes))
    where = "pod %s container %s (PID %s)" % (row["pod"], row["container"], seen["pid"])
    if mems != nodes:
        row["problems"].append(
            "the memory manager assigned NUMA node %s, but the kernel's Mems_allowed_list is %s" % (format_list(nodes), seen["mems_allowed_list"])
        )
    if not cpus <= nodes_cpus:
        row["problems"].append(
            "Cpus_allowed_list %s is not on NUMA node %s (its CPUs: %s)" % (seen["cpus_allowed_list"], format_list(nodes), format_list(nodes_cpus) or "none")
        )
    if row["exclusive_cpus"] and parse_cpu_list(row["exclusive_cpus"]) != cpus:
        row["problems"].append(
            "the CPU manager assigned CPUs %s, but the kernel's Cpus_allowed_list is %s" % (row["exclusive_cpus"], seen["cpus_allowed_list"])
        )
    if row["problems"]:
        return None, ["alignment: %s: %s" % (where, problem) for problem in row["problems"]]
    line = "alignment: %s: NUMA node %s (memory_manager_state); kernel: Cpus_allowed_list %s, Mems_allowed_list %s: aligned" % (
        where,
        format_list(nodes),
        seen["cpus_allowed_list"],
        seen["mems_allowed_list"],
    )
    return line, []


def _static_rows(
    memory_state: dict[str, Any], cpu_state: dict[str, Any], running: dict[tuple[str, str], Any], node_cpus: dict[int, set[int]]
) -> tuple[list[ContainerAlignment], list[str], list[str]]:
    """(a row per pod container memory_manager_state assigns NUMA nodes to, report lines, problems) under the Static policy."""
    entries = memory_state.get("entries") or {}
    exclusive = cpu_state.get("entries") or {}
    rows: list[ContainerAlignment] = []
    lines: list[str] = []
    problems: list[str] = []
    for uid in sorted(entries):
        for name in sorted(entries[uid]):
            nodes = _memory_nodes(entries[uid][name])
            row: ContainerAlignment = {
                "pod_uid": uid,
                "container": name,
                "numa_nodes": sorted(nodes),
                "pod": None,
                "pid": None,
                "cpus_allowed_list": None,
                "mems_allowed_list": None,
                "exclusive_cpus": exclusive.get(uid, {}).get(name),
                "problems": [],
            }
            rows.append(row)
            seen = running.get((uid, name))
            if seen is None:
                lines.append(
                    "alignment: pod %s container %s: NUMA node %s in memory_manager_state, no running process (not checked)" % (uid, name, format_list(nodes))
                )
                continue
            line, found = _checked(row, seen, nodes, node_cpus)
            lines += [line] if line else []
            problems += found
    if not rows:
        lines.append("alignment: no pod container holds memory in memory_manager_state (no Guaranteed pod runs here): nothing to prove")
    return rows, lines, problems


def alignment(view: NodeView) -> Alignment:
    """Compare, per pod container the Memory Manager assigned NUMA nodes to, the checkpoint with the kernel.

    view: {"memory_manager_state": text or None, "cpu_manager_state": text or None,
           "numa_nodes": [{"id": N, "cpus": [...]}], "containers": [{"pod_uid", "namespace", "pod", "container",
           "pid", "cpus_allowed_list", "mems_allowed_list"}], "admission_denials": [journal lines]}
    Returns {"containers": [...], "refused": [...], "lines": [report lines], "problems": [lines]}: a problem when
    the kernel's Mems_allowed_list is not the assigned nodes, when Cpus_allowed_list has CPUs outside them, or when
    it differs from the CPU Manager's exclusive CPUs for the container.
    """
    memory_state = _checkpoint(view.get("memory_manager_state"), "memory_manager_state")
    cpu_state = _checkpoint(view.get("cpu_manager_state"), "cpu_manager_state") or {}
    node_cpus = {int(node["id"]): set(node["cpus"]) for node in view.get("numa_nodes") or []}
    running = {(c["pod_uid"], c["container"]): c for c in view.get("containers") or []}
    refused = admission_denials(view.get("admission_denials"))
    rows: list[ContainerAlignment] = []
    problems: list[str] = []
    if memory_state is None:
        lines = ["alignment: no memory_manager_state: the kubelet has not started with its Memory Manager, nothing to prove"]
    elif memory_state.get("policyName") != "Static":
        lines = ["alignment: memory manager policy %s: the kubelet assigns no NUMA nodes, nothing to prove" % memory_state.get("policyName")]
    else:
        rows, lines, problems = _static_rows(memory_state, cpu_state, running, node_cpus)
    lines.extend("alignment: pod %s was refused by the kubelet: %s: %s" % (denial["pod"], denial["reason"], denial["message"]) for denial in refused)
    return {"containers": rows, "refused": refused, "lines": lines, "problems": problems}
