# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""An EKS node class as the user gives it, and what every AMI family's files share.

A node class is one instance shape (instance type or maxPods, NUMA topology) with the kubelet intent for it; the AMI
family modules (_eks_al2, _eks_al2023) turn it into launch-time configuration. Functions here return their problems
rather than record them, so each family's module can gather all of them before anything is written.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from ._config import KubeletConfigError
from ._eks import EksError, kube_reserved_memory_mebibytes
from ._eks import max_pods as table_max_pods
from ._split import SPLIT_STRATEGIES
from ._validation import checked_kubelet_version

AMI_FAMILIES = ("AL2023", "AL2", "Bottlerocket")
NODE_CLASS_KEYS = (
    "name",
    "ami_family",
    "instance_type",
    "max_pods",
    "topology",
    "intent",
    "split",
    "karpenter",
    "cluster",
    "cluster_in_another_part",
    "use_max_pods",
    "kubelet_version",
    "instance_types",
    "boot_split",
)
_NAME = re.compile(r"^[a-z0-9]([-.a-z0-9]{0,61}[a-z0-9])?$")


class EksUserDataError(KubeletConfigError):
    """Every problem of every node class; nothing may be written while there is one."""


class _LiteralDumper(yaml.SafeDumper):
    """YAML with multi-line strings (userData) as literal blocks, so the MIME document reads and diffs line by line."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if "\n" in value else None)


_LiteralDumper.add_representer(str, _represent_str)


def yaml_text(data: Any) -> str:
    """Stable YAML: keys in the order given (the input's, then ours), block style, two-space indent, like to_nice_yaml."""
    return yaml.dump(data, Dumper=_LiteralDumper, indent=2, default_flow_style=False, sort_keys=False, allow_unicode=True, width=1000)


def header_comment(header: str | None) -> str:
    """The header (ansible_managed) as '#' comment lines, empty without one."""
    return "".join(f"# {line}\n" if line else "#\n" for line in (header or "").splitlines())


def mapping_or_problem(value: Any, path: str) -> tuple[dict | None, list[str]]:
    """(the mapping, []) with None read as {}, or (None, [the problem])."""
    if value is None:
        return {}, []
    if not isinstance(value, dict):
        return None, [f"{path}: {value!r} must be a mapping"]
    return value, []


def class_max_pods(node_class: dict, path: str) -> tuple[int | None, list[str]]:
    """(maxPods for the kubeReserved formula, []) or (None, [the problem])."""
    instance_type, pods = node_class.get("instance_type"), node_class.get("max_pods")
    if instance_type is not None and pods is not None:
        return None, [
            f"{path}: give instance_type (maxPods from the EKS table) or max_pods (for a type missing from it, or a maxPodsExpression result), not both"
        ]
    try:
        if pods is not None:
            kube_reserved_memory_mebibytes(pods)
            return pods, []
        if instance_type is None:
            return None, [f"{path}: instance_type or max_pods is required: kubeReserved.memory is 11*maxPods+255 MiB on EKS"]
        return table_max_pods(instance_type), []
    except EksError as exc:
        return None, [f"{path}: {exc}"]


def percentage_memory_problems(config: dict, path: str) -> list[str]:
    """A percentage memory.available cannot be split ahead of time: it is a share of the node's exact MemTotal."""
    threshold = str((config.get("evictionHard") or {}).get("memory.available", ""))
    if threshold.endswith("%"):
        return [
            (
                f"{path}: evictionHard memory.available is {threshold}: a percentage is taken of the node's exact MemTotal, which is not known when "
                "user data is rendered, so no reservedMemory can be computed for it; use a quantity such as 100Mi"
            )
        ]
    return []


def class_path(node_class: Any, index: int) -> str:
    """How problems name a class: its index, and its name when it has one."""
    name = node_class.get("name") if isinstance(node_class, dict) else None
    return f"node_classes[{index}] ({name})" if isinstance(name, str) else f"node_classes[{index}]"


def _name_problems(name: Any, path: str, taken: set) -> list[str]:
    if not isinstance(name, str) or not _NAME.match(name):
        return [f"{path}: name {name!r} must be a lower-case DNS label (letters, digits, '-', '.'; at most 63): it names the EC2NodeClass and the files"]
    if name in taken:
        return [f"{path}: name {name!r} is used by another node class; each class writes its own files"]
    return []


def shape_problems(node_class: dict, path: str) -> list[str]:
    """The first problem of the kubelet version, intent, topology or split (the later checks need the earlier ones)."""
    try:
        checked_kubelet_version(node_class.get("kubelet_version"))
    except KubeletConfigError as exc:
        return [f"{path}: {problem}" for problem in exc.problems]
    intent = node_class.get("intent")
    if not isinstance(intent, dict) or not intent:
        return [f"{path}: intent {intent!r} must be a non-empty KubeletConfiguration fragment (memoryManagerPolicy, topologyManagerPolicy, kubeReserved, ...)"]
    if "reservedMemory" in intent:
        return [f"{path}: intent.reservedMemory is computed by the collection for what wins on the node; leave it out and choose the spread with split"]
    if not isinstance(node_class.get("topology"), dict) or not node_class["topology"].get("numa_nodes"):
        return [
            (
                f"{path}: topology {node_class.get('topology')!r} must be {{numa_nodes: [{{id, memory_bytes, cpus}}, ...], numa_memory_capacity_bytes: N}} "
                "(the instance's NUMA nodes; the EKS table has no NUMA data)"
            )
        ]
    split = node_class.get("split", "even")
    if not isinstance(split, dict) and split not in SPLIT_STRATEGIES:
        return [f"{path}: split {split!r} is not one of {', '.join(SPLIT_STRATEGIES)} or a mapping {{numa_id: quantity}}"]
    return []


def identity_problems(node_class: Any, path: str, taken: set) -> list[str]:
    """A class's name, keys and AMI family; taken holds the names of the classes before it."""
    if not isinstance(node_class, dict):
        return [f"{path}: {node_class!r} must be a mapping {{name, instance_type or max_pods, topology, intent, ...}}"]
    problems = _name_problems(node_class.get("name"), path, taken)
    unknown = sorted(set(node_class) - set(NODE_CLASS_KEYS), key=str)
    if unknown:
        problems.append(f"{path}: unknown keys {unknown} (known: {', '.join(NODE_CLASS_KEYS)})")
    family = node_class.get("ami_family", "AL2023")
    if family not in AMI_FAMILIES:
        problems.append(f"{path}: ami_family {family!r} is not one of {', '.join(AMI_FAMILIES)}")
    return problems
