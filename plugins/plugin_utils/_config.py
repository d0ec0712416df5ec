# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Reading typed values out of a KubeletConfiguration dict, with the kubelet's own parsing rules.

Every reader raises KubeletConfigError naming the field path, the bad value and the rule, quoting the kubelet's
message where the kubelet has one. The config dict uses the kubelet's own field names
(kubelet.config.k8s.io/v1beta1, as in /var/lib/kubelet/config.yaml).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any

from ._go_text import go_quote
from ._quantity import Quantity, QuantityError

API_VERSION = "kubelet.config.k8s.io/v1beta1"
KIND = "KubeletConfiguration"

# pkg/kubelet/cm/memorymanager/policy*.go: policy names are case-sensitive.
MEMORY_MANAGER_STATIC = "Static"
MEMORY_MANAGER_NONE = "None"
# pkg/kubelet/cm/memorymanager/policy_best_effort_other.go: BestEffort exists only on Windows.
MEMORY_MANAGER_WINDOWS_ONLY = "BestEffort"
# pkg/kubelet/cm/cpumanager/policy_{none,static}.go: lower case, unlike the memory manager's.
CPU_MANAGER_POLICIES = ("none", "static")
# pkg/kubelet/cm/topologymanager/topology_manager.go
TOPOLOGY_MANAGER_POLICIES = ("none", "best-effort", "restricted", "single-numa-node")
# Topology policies under which a Static memory manager can actually keep a pod on one NUMA node.
NUMA_ALIGNING_TOPOLOGY_POLICIES = ("restricted", "single-numa-node")

# pkg/kubelet/apis/config/validation/validation_reserved_memory.go: only these limit types are accepted.
MEMORY_TYPE = "memory"
HUGEPAGES_PREFIX = "hugepages-"

# pkg/kubelet/cm/container_manager.go ParseResourceList: the only resources kube/systemReserved may hold.
RESERVABLE_RESOURCES = ("cpu", "memory", "ephemeral-storage", "pid")


def lookalike_hint(value: object) -> str:
    """For a refused name that holds non-ASCII characters (a Cyrillic a in "Static" looks right and is not): which ones."""
    if not isinstance(value, str) or value.isascii():
        return ""
    found = [
        "%r U+%04X %s at position %d" % (char, ord(char), unicodedata.name(char, "UNNAMED"), index + 1)
        for index, char in enumerate(value)
        if not char.isascii()
    ]
    return " (it holds non-ASCII characters that look like plain letters: %s; type the name in ASCII)" % ", ".join(found[:5])


class KubeletConfigError(ValueError):
    """One or more problems that would make the kubelet refuse (or silently misread) a config."""

    def __init__(self, problems: Iterable[str]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


def is_memory_type(resource_name: str) -> bool:
    """True for the resource types the memory manager manages (memory and hugepages-<size>)."""
    return resource_name == MEMORY_TYPE or resource_name.startswith(HUGEPAGES_PREFIX)


def parse_quantity(value: object, path: str) -> Quantity:
    """Parse a quantity written in YAML: a string, or an integer as Kubernetes' JSON decoding also accepts."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        # A float has already lost the digits the user wrote; Kubernetes would parse the original text.
        raise KubeletConfigError(
            [f'{path}: {value!r} ({type(value).__name__}) is not a Kubernetes quantity: write it as a string such as "1Gi" or an integer number of bytes']
        )
    try:
        return Quantity.parse(str(value))
    except QuantityError as exc:
        raise KubeletConfigError([f"{path}: {exc}"]) from exc


def parse_capacity(memory_capacity: object) -> int | None:
    """The node's memory capacity in bytes (MemTotal of /proc/meminfo x 1024), given as bytes or a quantity."""
    if memory_capacity is None:
        return None
    capacity = parse_quantity(memory_capacity, "memory_capacity")
    capacity_bytes = capacity.as_int64()
    if capacity.sign() <= 0 or capacity_bytes is None:
        raise KubeletConfigError([f"memory_capacity: {memory_capacity!r} must be a positive whole number of bytes (MemTotal of /proc/meminfo x 1024)"])
    return capacity_bytes


def mapping_field(config: Mapping[str, Any], field: str) -> dict[str, Any]:
    """A map-valued top-level field; absent or null gives {}."""
    value = config.get(field)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise KubeletConfigError([f"{field}: must be a mapping, got {type(value).__name__} {value!r}"])
    return value


def reserved_resource_list(config: Mapping[str, Any], field: str) -> dict[str, Quantity]:
    """kubeReserved / systemReserved parsed as the kubelet's ParseResourceList does, as {name: Quantity}.

    The texts are cmd/kubelet/app/server.go parseResourceList's inside run's `--kube-reserved value failed to parse: `
    (or `--system-reserved`).
    """
    flag = "--kube-reserved" if field == "kubeReserved" else "--system-reserved"
    problems: list[str] = []
    parsed: dict[str, Quantity] = {}
    for name, text in mapping_field(config, field).items():
        path = f"{field}.{name}"
        refused = f"{path}: {flag} value failed to parse: "
        if name not in RESERVABLE_RESOURCES:
            reason = ""
            if isinstance(name, str) and name.startswith(HUGEPAGES_PREFIX):
                reason = " (hugepages cannot be reserved this way, so reservedMemory cannot hold hugepages either)"
            problems.append(f'{refused}cannot reserve "{name}" resource{reason}')
            continue
        if isinstance(text, str):
            try:
                quantity = Quantity.parse(text)
            except QuantityError as exc:
                problems.append(f'{refused}failed to parse quantity {go_quote(text)} for "{name}" resource: {exc.kubernetes_error}')
                continue
        else:
            try:
                quantity = parse_quantity(text, path)
            except KubeletConfigError as exc:
                problems.extend(exc.problems)
                continue
        if quantity.sign() < 0:
            problems.append(f'{refused}resource quantity for "{name}" cannot be negative: {text}')
            continue
        parsed[name] = quantity
    if problems:
        raise KubeletConfigError(problems)
    return parsed


def string_field(config: Mapping[str, Any], field: str) -> str | None:
    """A string-valued top-level field, or None when absent."""
    value = config.get(field)
    if value is not None and not isinstance(value, str):
        raise KubeletConfigError([f"{field}: must be a string, got {type(value).__name__} {value!r}"])
    return value


def bool_field(config: Mapping[str, Any], field: str) -> bool:
    """A boolean top-level field; absent gives False."""
    value = config.get(field, False)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise KubeletConfigError([f"{field}: must be true or false, got {type(value).__name__} {value!r}"])
    return value


def plain_data(value: Any) -> Any:
    """The value with builtin types only: Ansible hands the engine str/dict subclasses that carry its tags, whose
    repr() and YAML form differ from the builtin ones."""
    if isinstance(value, dict):
        return {plain_data(key): plain_data(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain_data(item) for item in value]
    for kind in (bool, int, float, str):
        if isinstance(value, kind):
            return kind(value)
    return value
