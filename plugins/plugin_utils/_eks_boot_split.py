# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""AL2023 classes that may launch several instance types, and the per-NUMA split decided on the node at every boot.

instance_types lists what a class may launch (the values of its NodePool's node.kubernetes.io/instance-type
requirement), each with its NUMA topology. Every type is planned as a class of its own. Without boot_split the user
data carries one reservedMemory, so every type must get the same one; otherwise the class is refused with the types
named. With boot_split the totals stay in the NodeConfig and spec.kubelet (what Karpenter schedules with), the user
data carries no reservedMemory, and a text/x-shellscript part installs numa-kubelet-boot-split (_boot_split_bundle),
which writes the split of the node it runs on at every kubelet start; each listed type is still planned, so a type
whose split the engine refuses is refused now, by name.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from ._boot_split_bundle import OTHER_PARTS_ALLOWANCE, SHELLSCRIPT_CONTENT_TYPE, USER_DATA_LIMIT, shell_part

BOOT_SPLIT_KEYS = ("instance_types", "boot_split")
_SINGLE_TYPE_KEYS = ("instance_type", "max_pods", "topology")
# What each instance type plans for itself (nodeadm derives maxPods, and so kubeReserved, from the type): a class with
# several types keeps these per type under by_type, and at its top only those every type shares.
_PER_TYPE_DETAILS = ("max_pods", "numa_nodes", "reservation", "reserved_memory", "kubelet_config", "kubelet_inputs", "warnings")


def boot_split_problems(node_class: dict, path: str, family: str) -> list[str]:
    """The shape of instance_types and boot_split (AL2023 only: the program is installed by a shell part nodeadm's AMI runs)."""
    if not any(key in node_class for key in BOOT_SPLIT_KEYS):
        return []
    if family != "AL2023":
        return [f"{path}: instance_types and boot_split are for ami_family AL2023 (the program runs as the kubelet unit's ExecStartPre there)"]
    problems = []
    if not isinstance(node_class.get("boot_split", False), bool):
        problems.append(f"{path}.boot_split: {node_class['boot_split']!r} must be true or false")
    if "instance_types" in node_class:
        types = node_class["instance_types"]
        if not isinstance(types, dict) or not types or not all(isinstance(name, str) for name in types):
            problems.append(f"{path}.instance_types: {types!r} must be a mapping {{instance type: its topology}} with at least one type")
        both = [key for key in _SINGLE_TYPE_KEYS if key in node_class]
        if both:
            problems.append(f"{path}: instance_types gives each type's topology and maxPods; leave out {', '.join(both)}")
    return problems


def single_type_classes(node_class: dict) -> list[tuple[str | None, dict]]:
    """(instance type, the class for that type alone), one per listed type; the class itself when it lists none."""
    base = {key: value for key, value in node_class.items() if key not in BOOT_SPLIT_KEYS}
    if "instance_types" not in node_class:
        return [(node_class.get("instance_type"), base)]
    return [(name, dict(base, instance_type=name, topology=topology)) for name, topology in node_class["instance_types"].items()]


def _without_reserved_memory(nodeconfig: dict) -> dict:
    trimmed = copy.deepcopy(nodeconfig)
    trimmed["spec"]["kubelet"]["config"].pop("reservedMemory", None)
    return trimmed


def _differ(rendered: dict, key: Callable[[dict], Any]) -> list[list[str]]:
    """The instance types grouped by key(details), in order; one group when all agree."""
    groups: dict[str, list[str]] = {}
    for name, details in rendered.items():
        groups.setdefault(repr(key(details)), []).append(name)
    return list(groups.values())


def _named(groups: list[list[str]], rendered: dict, what: Callable[[dict], Any]) -> str:
    return "; ".join(f"{', '.join(names)}: {what(rendered[names[0]])}" for names in groups)


def _render_each_type(
    node_class: dict, path: str, render_one: Callable[[dict, str], tuple[dict | None, list[str]]]
) -> tuple[dict[str | None, dict], dict, list[str]]:
    """({instance type: its details}, the last type's rendering, problems) of every listed type rendered alone; the
    class's files are the last type's (the types share them once checked), its details come from _class_details."""
    rendered: dict[str | None, dict] = {}
    last: dict = {}
    problems: list[str] = []
    for name, single in single_type_classes(node_class):
        result, type_problems = render_one(single, f"{path} instance type {name}" if "instance_types" in node_class else path)
        problems += type_problems
        if result is not None:
            rendered[name] = result["details"]
            last = result
    return rendered, last, problems


def _class_details(rendered: dict, last: dict) -> dict:
    """The details of a class that lists instance types: every type's own under by_type; at the top what all types
    share, and every type's warnings once."""
    by_type = {name: {key: details[key] for key in _PER_TYPE_DETAILS if key in details} for name, details in rendered.items()}
    summary = {key: value for key, value in last.items() if key not in _PER_TYPE_DETAILS}
    for key in _PER_TYPE_DETAILS:
        values = [details.get(key) for details in rendered.values()]
        if key in last and all(value == values[0] for value in values):
            summary[key] = values[0]
    summary["warnings"] = list(dict.fromkeys(warning for details in rendered.values() for warning in details.get("warnings", [])))
    return dict(summary, instance_types=list(rendered), by_type=by_type)


def _one_split(rendered: dict, last: dict, path: str) -> tuple[dict | None, list[str]]:
    """Without boot_split: the last type's rendering when every type needs the same reservedMemory."""
    by_split = _differ(rendered, lambda details: details["reserved_memory"])
    if len(by_split) > 1:
        return None, [
            (
                f"{path}: its instance types need different reservedMemory ({_named(by_split, rendered, lambda d: d['reserved_memory'])}): "
                "their NUMA layouts or maxPods differ, and the user data carries one; set boot_split: true to decide the split on each node "
                "at every boot, or give each layout its own class"
            )
        ]
    return dict(last, details=_class_details(rendered, last["details"])), []


def _total_problems(rendered: dict, path: str) -> list[str]:
    """With boot_split: every type must reserve the same totals, as one NodeConfig and one spec.kubelet carry them."""
    by_config = _differ(rendered, lambda details: _without_reserved_memory(details["nodeconfig"]))
    by_karpenter = _differ(rendered, lambda details: details.get("karpenter_kubelet"))
    if len(by_config) == 1 and len(by_karpenter) == 1:
        return []
    return [
        (
            f"{path}: its instance types reserve different totals ("
            f"{_named(by_config if len(by_config) > 1 else by_karpenter, rendered, lambda d: d.get('karpenter_kubelet') or d['reservation'])}"
            "); one class carries one NodeConfig and one spec.kubelet: pin kubeReserved.memory (karpenter.kubelet or intent) so that "
            "every type reserves the same total and Karpenter schedules with it"
        )
    ]


def _with_program(
    node_class: dict, path: str, rendered: dict, last: dict, writers: tuple[Callable[[dict, str | None], str], Callable[[dict, str], str]]
) -> tuple[dict | None, list[str]]:
    """The class's files with the program's part in the user data (writers: user_data and ec2nodeclass of render_types)."""
    user_data, ec2nodeclass = writers
    details = last["details"]
    nodeconfig = _without_reserved_memory(details["nodeconfig"])
    text = user_data(nodeconfig, shell_part(node_class.get("split", "even")))
    size = len(text.encode("utf-8"))
    room = USER_DATA_LIMIT - (OTHER_PARTS_ALLOWANCE if details["launch"] == "karpenter" or node_class.get("cluster_in_another_part") else 0)
    if size > room:
        return None, [
            (
                f"{path}: the user data with the boot-time split program is {size} bytes; EC2 takes {USER_DATA_LIMIT} and "
                f"{USER_DATA_LIMIT - room} are kept for the other parts (Karpenter's NodeConfig); shorten the intent or the header"
            )
        ]
    files = {name: text for name in last["files"] if name.endswith(".user-data.mime")}
    if details["launch"] == "karpenter":
        files.update({name: ec2nodeclass(details["karpenter_kubelet"], text) for name in last["files"] if name.endswith(".ec2nodeclass.yaml")})
    summary = dict(
        _class_details(rendered, details),
        nodeconfig=nodeconfig,
        reserved_memory=[],
        boot_split=True,
        reserved_memory_by_type={name: rendered[name]["reserved_memory"] for name in rendered},
        user_data_bytes=size,
    )
    return {"files": dict(sorted(files.items())), "details": summary}, []


def render_types(
    node_class: dict,
    path: str,
    render_one: Callable[[dict, str], tuple[dict | None, list[str]]],
    user_data: Callable[[dict, str | None], str],
    ec2nodeclass: Callable[[dict, str], str],
) -> tuple[dict | None, list[str]]:
    """({"files", "details"}, []) of a class with instance_types or boot_split, or (None, problems).

    render_one(single-type class, path) renders one type as an AL2023 class; user_data(nodeconfig, script) is the MIME
    user data; ec2nodeclass(karpenter_kubelet, user_data) the EC2NodeClass around it.
    """
    rendered, last, problems = _render_each_type(node_class, path, render_one)
    if problems:
        return None, problems
    if not node_class.get("boot_split", False):
        return _one_split(rendered, last, path)
    problems = _total_problems(rendered, path)
    if problems:
        return None, problems
    return _with_program(node_class, path, rendered, last, (user_data, ec2nodeclass))


__all__ = ["BOOT_SPLIT_KEYS", "SHELLSCRIPT_CONTENT_TYPE", "boot_split_problems", "render_types", "single_type_classes"]
