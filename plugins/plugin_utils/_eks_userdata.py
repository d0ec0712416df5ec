# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""EKS node classes to launch-time configuration: every class checked, then rendered by its AMI family's module.

Nodes started by Karpenter or a launch template cannot be reached over ssh, so what the kubelet_numa role would write is
rendered ahead of time: AL2023 NodeConfig user data and Karpenter EC2NodeClasses (_eks_al2023, _eks_karpenter), AL2
bootstrap.sh kubelet extra args (_eks_al2), Bottlerocket TOML settings (_eks_bottlerocket). Nothing is returned while any class has a problem.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._allocatable import memory_reservation
from ._config import plain_data
from ._eks_al2 import al2_class_problems, render_al2
from ._eks_al2023 import al2023_class_problems, al2023_karpenter_inputs, mime_user_data, render_al2023
from ._eks_boot_split import BOOT_SPLIT_KEYS, boot_split_problems, render_types, single_type_classes
from ._eks_bottlerocket import bottlerocket_class_problems, bottlerocket_karpenter_inputs, render_bottlerocket
from ._eks_karpenter import ec2nodeclass
from ._eks_node_class import AMI_FAMILIES, EksUserDataError, class_max_pods, class_path, identity_problems, shape_problems

if TYPE_CHECKING:
    from collections.abc import Callable

    _KarpenterInputs = Callable[[dict, str], tuple[dict | None, dict | None, list[str]]]
    _Renderer = Callable[[dict, str, str, int, tuple[dict, dict], str | None], tuple[dict | None, list[str]]]

_CLASS_PROBLEMS = {"AL2": al2_class_problems, "AL2023": al2023_class_problems, "Bottlerocket": bottlerocket_class_problems}


def _family_class_problems(node_class: dict, path: str, family: str) -> list[str]:
    return _CLASS_PROBLEMS[family](node_class, path)


def _class_problems(node_class: Any, path: str, taken: set) -> list[str]:
    """Everything wrong with a class before it is planned: its identity, its shape, then what its AMI family forbids."""
    problems = identity_problems(node_class, path, taken)
    family = node_class.get("ami_family", "AL2023") if isinstance(node_class, dict) else None
    if family not in AMI_FAMILIES:
        return problems
    if family == "Bottlerocket" and any(key in node_class for key in BOOT_SPLIT_KEYS):
        return problems + bottlerocket_class_problems(node_class, path)
    boot_split = boot_split_problems(node_class, path, family)
    if boot_split:
        return problems + boot_split
    shape = next(filter(None, (shape_problems(single, path) for _name, single in single_type_classes(node_class))), [])
    return problems + (shape or _family_class_problems(node_class, path, family))


def _render_class(node_class: dict, path: str, header: str | None) -> tuple[dict | None, list[str]]:
    """({"files", "details"}, []) of one checked class, or (None, problems)."""
    name, family = node_class["name"], node_class.get("ami_family", "AL2023")
    if family == "AL2":
        pods, problems = class_max_pods(node_class, path)
        if pods is None:
            return None, problems
        rendered, problems = render_al2(node_class, name, path, pods, header)
        if rendered is not None:
            rendered["details"] = dict(rendered["details"], ami_family=family, max_pods=pods)
            rendered["details"]["reservation"] = str(memory_reservation(rendered["details"]["kubelet_config"]).total)
        return rendered, problems
    if family == "Bottlerocket":
        return _render_single_type_class(node_class, path, header, family)
    if any(key in node_class for key in BOOT_SPLIT_KEYS):
        _kubelet, spec, _problems = al2023_karpenter_inputs(node_class, path)
        return render_types(
            node_class,
            path,
            lambda single, single_path: _render_single_type_class(single, single_path, header, "AL2023"),
            lambda nodeconfig, script: mime_user_data(nodeconfig, header, script),
            lambda karpenter_kubelet, user_data: ec2nodeclass(name, spec or {}, karpenter_kubelet, user_data, header),
        )
    return _render_single_type_class(node_class, path, header, "AL2023")


# Per AMI family that renders one class of one instance type: (its Karpenter inputs, its renderer).
_SINGLE_TYPE_RENDERERS: dict[str, tuple[_KarpenterInputs, _Renderer]] = {
    "AL2023": (al2023_karpenter_inputs, render_al2023),
    "Bottlerocket": (bottlerocket_karpenter_inputs, render_bottlerocket),
}


def _render_single_type_class(node_class: dict, path: str, header: str | None, family: str) -> tuple[dict | None, list[str]]:
    """One AL2023 or Bottlerocket class of one instance type (one NUMA layout)."""
    karpenter_inputs, render = _SINGLE_TYPE_RENDERERS[family]
    pods, problems = class_max_pods(node_class, path)
    karpenter_kubelet, spec, karpenter_problems = karpenter_inputs(node_class, path)
    problems += karpenter_problems
    if pods is None or karpenter_kubelet is None or spec is None or problems:
        return None, problems
    rendered, problems = render(node_class, node_class["name"], path, pods, (karpenter_kubelet, spec), header)
    if rendered is not None:
        rendered["details"] = dict(rendered["details"], ami_family=family, max_pods=pods)
    return rendered, problems


def render_node_classes(node_classes: Any, header: Any = None) -> dict:
    """Plan and render every node class, or raise EksUserDataError with every problem of every class.

    Returns {"files": {file name: text}, "classes": {name: details}}; the file names are <name>.user-data.mime and
    <name>.ec2nodeclass.yaml (AL2023), <name>.kubelet-extra-args.sh (AL2), <name>.user-data.toml and
    <name>.ec2nodeclass.yaml (Bottlerocket). header (ansible_managed) opens each file
    as comments (the MIME preamble for the user data).
    """
    if isinstance(node_classes, (str, dict)) or not isinstance(node_classes, (list, tuple)) or not node_classes:
        raise EksUserDataError([f"node_classes: {node_classes!r} must be a non-empty list of node classes"])
    if header is not None and not isinstance(header, str):
        raise EksUserDataError([f"header: {header!r} must be a string (ansible_managed)"])
    node_classes, header = plain_data(node_classes), plain_data(header)
    problems: list[str] = []
    names: set = set()
    files: dict[str, str] = {}
    classes: dict[str, dict] = {}
    for index, node_class in enumerate(node_classes):
        path = class_path(node_class, index)
        class_problems = _class_problems(node_class, path, names)
        if isinstance(node_class, dict) and isinstance(node_class.get("name"), str):
            names.add(node_class["name"])
        if class_problems:
            problems += class_problems
            continue
        rendered, class_problems = _render_class(node_class, path, header)
        problems += class_problems
        if rendered is not None:
            files.update(rendered["files"])
            classes[node_class["name"]] = rendered["details"]
    if problems:
        raise EksUserDataError(problems)
    return {"files": dict(sorted(files.items())), "classes": dict(sorted(classes.items()))}


def al2_kubelet_extra_args(node_class: Any) -> str:
    """The KUBELET_EXTRA_ARGS value (systemd-escaped) for one AL2 node class."""
    if not isinstance(node_class, dict):
        raise EksUserDataError([f"node class: {node_class!r} must be a mapping"])
    rendered = render_node_classes([dict(node_class, ami_family="AL2")])
    return next(iter(rendered["classes"].values()))["kubelet_extra_args"]
