# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""EKS AL2 node classes: the kubelet flags for bootstrap.sh's --kubelet-extra-args (KUBELET_EXTRA_ARGS).

bootstrap.sh (awslabs/amazon-eks-ami templates/al2/runtime/bootstrap.sh, read at
9e910f8743d16ac4704092ac54766fc84d375c53) writes kubelet-config.json with its own kubeReserved and eviction defaults;
the flags go over it, planned with _split and checked with _validation on that base (docs/eks.md section 4).
"""

from __future__ import annotations

import shlex
from typing import Any

from ._config import API_VERSION, KIND, MEMORY_MANAGER_STATIC, KubeletConfigError
from ._effective import effective_kubelet_config, merge_patch
from ._eks import EksError, kube_reserved
from ._eks_node_class import header_comment, percentage_memory_problems
from ._flags import kubelet_flags
from ._plan_inputs import PlanError, topology_from, vcpu_count
from ._platform_nodeadm import NODEADM_EVICTION_HARD
from ._split import reserved_memory
from ._validation import check_kubelet_config


def al2_base_config(pods: int, vcpus: int, use_max_pods: bool = True) -> dict:
    """kubelet-config.json's memory-relevant fields after bootstrap.sh (templates/al2/runtime/bootstrap.sh)."""
    base: dict[str, Any] = {"apiVersion": API_VERSION, "kind": KIND, "evictionHard": dict(NODEADM_EVICTION_HARD)}
    base["kubeReserved"] = kube_reserved(max_pods=pods, vcpus=vcpus)
    if use_max_pods:
        base["maxPods"] = pods
    return base


def _al2_flags_settings(intent: dict, base: dict) -> dict:
    # A map flag replaces the file's whole map: carry bootstrap.sh's keys along with the intent's.
    settings = {}
    for field, value in intent.items():
        if field in ("kubeReserved", "systemReserved", "evictionHard") and isinstance(value, dict):
            value = merge_patch(base.get(field) or {}, value)
        settings[field] = value
    return settings


def systemd_escape(text: str) -> str:
    """bootstrap.sh puts the extra args into Environment='KUBELET_EXTRA_ARGS=...', where systemd resolves %-specifiers."""
    return text.replace("%", "%%")


def al2_class_problems(node_class: dict, path: str) -> list[str]:
    """What an AL2 class may not carry: the cluster and Karpenter are AL2023's."""
    if node_class.get("cluster") is not None or "cluster_in_another_part" in node_class:
        return [f"{path}.cluster: only for ami_family AL2023 (the NodeConfig's spec.cluster); bootstrap.sh takes the cluster as arguments"]
    if "karpenter" in node_class:
        return [
            (
                f"{path}.karpenter: only for ami_family AL2023; Karpenter's AL2 user data runs its own bootstrap.sh, use the "
                "AL2 kubelet extra args in a launch template instead"
            )
        ]
    use_max_pods = node_class.get("use_max_pods", True)
    if not isinstance(use_max_pods, bool):
        return [f"{path}.use_max_pods: {use_max_pods!r} must be true or false (bootstrap.sh --use-max-pods)"]
    return []


def _al2_flags(node_class: dict, path: str, pods: int) -> tuple[dict | None, list[str]]:
    """The flags over bootstrap.sh's base, and what the kubelet will run with, or the problems."""
    intent, split = node_class["intent"], node_class.get("split", "even")
    try:
        nodes, capacity = topology_from({"kubelet_numa_topology": node_class.get("topology")}, {})
        vcpus = vcpu_count(nodes)
        if vcpus is None:
            raise PlanError(["the topology lists no CPUs; bootstrap.sh reserves CPU by the node's nproc, so give cpus per NUMA node"])
        base = al2_base_config(pods, vcpus, node_class.get("use_max_pods", True))
        settings = _al2_flags_settings(intent, base)
        effective = effective_kubelet_config(base, [], kubelet_flags(settings))
        percentage = percentage_memory_problems(effective, path)
        if percentage:
            return None, percentage
        if effective.get("memoryManagerPolicy") == MEMORY_MANAGER_STATIC:
            settings["reservedMemory"] = reserved_memory(effective, nodes, split, capacity)
        flags = kubelet_flags(settings)
        effective = effective_kubelet_config(base, [], flags)
        # Checked as defaulted by the class's kubelet, so a value the user wrote is judged as that kubelet reads it.
        kubelet_version = node_class.get("kubelet_version")
        checked = effective_kubelet_config(base, [], flags, kubelet_version)
        report = check_kubelet_config(checked, nodes, capacity, kubelet_version, defaulted_by=kubelet_version)
        if report.errors:
            raise KubeletConfigError(report.errors)
    except (KubeletConfigError, EksError) as exc:
        return None, [f"{path}: {problem}" for problem in getattr(exc, "problems", [str(exc)])]
    return {
        "kubelet_config": effective,
        "reserved_memory": settings.get("reservedMemory") or [],
        "flags": flags,
        "base_config": base,
        "warnings": report.warnings,
        "numa_nodes": [node["id"] for node in nodes],
    }, []


def render_al2(node_class: dict, name: str, path: str, pods: int, header: str | None) -> tuple[dict | None, list[str]]:
    """({"files", "details"}, []) of one AL2 class, or (None, problems): <name>.kubelet-extra-args.sh and the plan."""
    planned, problems = _al2_flags(node_class, path, pods)
    if planned is None:
        return None, problems
    value = systemd_escape(" ".join(planned["flags"]))
    details = {
        "kubelet_config": planned["kubelet_config"],
        "reserved_memory": planned["reserved_memory"],
        "flags": planned["flags"],
        "kubelet_extra_args": value,
        "bootstrap_args": f"--kubelet-extra-args {shlex.quote(value)}",
        "base_config": planned["base_config"],
        "warnings": planned["warnings"],
        "numa_nodes": planned["numa_nodes"],
    }
    files = {f"{name}.kubelet-extra-args.sh": f"{header_comment(header)}KUBELET_EXTRA_ARGS={shlex.quote(value)}\n"}
    return {"files": files, "details": details}, []
