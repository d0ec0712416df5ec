# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""EKS Bottlerocket node classes: TOML settings user data, and with Karpenter the EC2NodeClass around it.

Bottlerocket has no kubelet config file to drop into: its kubelet config is rendered at boot from settings.kubernetes by
the template packages/kubernetes-1.3x/kubelet-config of bottlerocket-os/bottlerocket-core-kit. That template writes
memoryManagerPolicy only when a memory-manager-reserved-memory entry is enabled, and kubeReserved.memory as
11*max-pods+255 Mi when the setting is absent (schnauzer's kube_reserve_memory helper, at boot). So the class's totals
are written as settings, the kubelet config is planned the way the template renders it (rendered_kubelet_config), and
the settings the settings model would refuse (bottlerocket-settings-sdk modeled-types) are refused first. Karpenter
parses the user data into its own BottlerocketKubernetes struct and writes back only the fields it knows, replacing
kube-reserved, system-reserved and eviction-hard whole with spec.kubelet's: docs/kubelet-facts.md section 11.
"""

from __future__ import annotations

import re
from typing import Any

from ._allocatable import memory_reservation
from ._config import API_VERSION, KIND, MEMORY_MANAGER_STATIC, KubeletConfigError
from ._eks import EksError, kube_reserved_cpu_millicores, kube_reserved_memory_mebibytes
from ._eks_karpenter import KARPENTER_ALWAYS_SETS, KarpenterAmi, ec2nodeclass, karpenter_inputs
from ._eks_node_class import header_comment, percentage_memory_problems
from ._plan_inputs import PlanError, topology_from, vcpu_count
from ._split import reserved_memory
from ._toml_text import toml_text
from ._validation import check_kubelet_config

KARPENTER_BOTTLEROCKET = KarpenterAmi("Bottlerocket", "bottlerocket@", "TOML settings, read only by Bottlerocket", ("version",))
# KubeletConfiguration fields a class may set, and the settings.kubernetes key that carries each.
INTENT_SETTINGS = {
    "memoryManagerPolicy": "memory-manager-policy",
    "topologyManagerPolicy": "topology-manager-policy",
    "topologyManagerScope": "topology-manager-scope",
    "cpuManagerPolicy": "cpu-manager-policy",
    "kubeReserved": "kube-reserved",
    "systemReserved": "system-reserved",
    "evictionHard": "eviction-hard",
}
RESERVED_MEMORY_SETTING = "memory-manager-reserved-memory"
# bottlerocket-settings-sdk bottlerocket-settings-models/modeled-types/src/kubernetes.rs: the values each setting takes.
_MODEL_CHOICES = {
    "memory-manager-policy": ("KubernetesMemoryManagerPolicy", ("Static", "static", "None", "none")),
    "topology-manager-policy": ("TopologyManagerPolicy", ("none", "restricted", "best-effort", "single-numa-node")),
    "topology-manager-scope": ("TopologyManagerScope", ("container", "pod")),
    "cpu-manager-policy": ("CpuManagerPolicy", ("static", "Static", "none", "None")),
}
_RESERVED_KEYS = ("cpu", "memory", "ephemeral-storage")  # KubernetesReservedResourceKey
_EVICTION_KEYS = ("memory.available", "nodefs.available", "nodefs.inodesFree", "imagefs.available", "imagefs.inodesFree", "pid.available")
# KUBERNETES_QUANTITY of modeled-types (KubernetesQuantityValue, and KubernetesThresholdValue without a '%').
_MODEL_QUANTITY = re.compile(r"^([+-]?[0-9.]+)((e)?[0-9]*)$|^([+-]?[0-9.]+)((E|P|T|G|M|K)i?)?$|^([+-]?[0-9.]+)(n|u|m|k)?$")
# Karpenter's BottlerocketKubernetes struct (aws/karpenter-provider-aws pkg/providers/amifamily/bootstrap/
# bottlerocketsettings.go) gained memory-manager-policy in #8907 (v1.10.0) and memory-manager-reserved-memory in #9427,
# merged after v1.14.1; MarshalTOML writes only the struct's fields, so an older Karpenter drops them silently.
KARPENTER_FIRST_WITH_POLICY = (1, 10, 0)
KARPENTER_FIRST_WITH_RESERVED_MEMORY = (1, 15, 0)
_VERSION = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)$")
_CLUSTER_SETTINGS = {"name": "cluster-name", "apiServerEndpoint": "api-server", "certificateAuthority": "cluster-certificate"}


def _model_value_problems(setting: str, value: Any) -> list[str]:
    """What Bottlerocket's settings model refuses in one settings.kubernetes value (it would refuse the user data)."""
    where = f"settings.kubernetes.{setting}"
    if setting in _MODEL_CHOICES:
        model_type, choices = _MODEL_CHOICES[setting]
        if value not in choices:
            return [f"{where}: {value!r} is refused by Bottlerocket's settings model ({model_type} takes {', '.join(choices)})"]
        return []
    if not isinstance(value, dict):
        return [f"{where}: {value!r} must be a mapping"]
    keys = _EVICTION_KEYS if setting == "eviction-hard" else _RESERVED_KEYS
    key_type = "KubernetesEvictionKey" if setting == "eviction-hard" else "KubernetesReservedResourceKey"
    problems = [f"{where}.{key}: Bottlerocket's settings model ({key_type}) takes only {', '.join(keys)}" for key in value if key not in keys]
    for key, quantity in value.items():
        text = quantity if isinstance(quantity, str) else None
        if setting == "eviction-hard" and text is not None and text.endswith("%"):
            try:
                percent_ok = 0.0 <= float(text[:-1]) < 100.0
            except ValueError:
                percent_ok = False
            if not percent_ok:
                problems.append(
                    f"{where}.{key}: {quantity!r} is refused by Bottlerocket's settings model (KubernetesThresholdValue: a percentage from 0 to below 100)"
                )
        elif text is None or not _MODEL_QUANTITY.match(text):
            problems.append(f"{where}.{key}: {quantity!r} is refused by Bottlerocket's settings model (a Kubernetes quantity string, KUBERNETES_QUANTITY)")
    return problems


def intent_settings(intent: dict, path: str) -> tuple[dict | None, list[str]]:
    """(settings.kubernetes for the intent's fields, []) or (None, problems): fields without a setting, model refusals."""
    problems = [
        f"{path}.intent.{field}: no Bottlerocket setting carries it here (a Bottlerocket class sets {', '.join(INTENT_SETTINGS)}); "
        "Bottlerocket renders the rest of its kubelet config from its own settings"
        for field in intent
        if field not in INTENT_SETTINGS
    ]
    settings = {INTENT_SETTINGS[field]: value for field, value in intent.items() if field in INTENT_SETTINGS}
    for setting, value in settings.items():
        problems.extend(f"{path}: {problem}" for problem in _model_value_problems(setting, value))
    return (None, problems) if problems else (settings, [])


def rendered_kubelet_config(settings: dict, max_pods: int, vcpus: int) -> dict:
    """The memory- and NUMA-relevant KubeletConfiguration that Bottlerocket's kubelet-config template renders from
    settings.kubernetes (bottlerocket-core-kit packages/kubernetes-1.3x/kubelet-config): kubeReserved with the
    kube_reserve_cpu / kube_reserve_memory defaults, the optional maps, and memoryManagerPolicy with reservedMemory only
    when an entry is enabled."""
    kube = settings.get("kube-reserved") or {}
    config: dict[str, Any] = {"apiVersion": API_VERSION, "kind": KIND}
    if "eviction-hard" in settings:
        config["evictionHard"] = dict(settings["eviction-hard"])
    config["kubeReserved"] = {
        "cpu": kube.get("cpu", f"{kube_reserved_cpu_millicores(vcpus)}m"),
        "memory": kube.get("memory", f"{kube_reserved_memory_mebibytes(max_pods)}Mi"),
        "ephemeral-storage": kube.get("ephemeral-storage", "1Gi"),
    }
    if settings.get("system-reserved"):
        config["systemReserved"] = dict(settings["system-reserved"])
    config["cpuManagerPolicy"] = settings.get("cpu-manager-policy", "none")
    for setting, field in (("topology-manager-scope", "topologyManagerScope"), ("topology-manager-policy", "topologyManagerPolicy")):
        if setting in settings:
            config[field] = settings[setting]
    config["maxPods"] = max_pods
    enabled = {numa: entry for numa, entry in (settings.get(RESERVED_MEMORY_SETTING) or {}).items() if entry.get("enabled")}
    if enabled:
        if "memory-manager-policy" in settings:
            config["memoryManagerPolicy"] = settings["memory-manager-policy"]
        config["reservedMemory"] = [{"numaNode": int(numa), "limits": {"memory": entry["memory"]}} for numa, entry in enabled.items()]
    return config


def karpenter_version_problems(version: Any, path: str) -> list[str]:
    """A Karpenter release that would drop the memory manager settings from the user data, refused by name."""
    match = _VERSION.match(version) if isinstance(version, str) else None
    if match is None:
        return [
            (
                f'{path}.karpenter.version: {version!r} must be the Karpenter release that renders the user data, such as "1.15.0": '
                "Karpenter rewrites Bottlerocket user data through its own settings struct, and releases up to v1.14.1 drop "
                "settings.kubernetes.memory-manager-reserved-memory"
            )
        ]
    release = tuple(int(part) for part in match.groups())
    if release < KARPENTER_FIRST_WITH_POLICY:
        dropped = "memory-manager-policy and memory-manager-reserved-memory (aws/karpenter-provider-aws#8907, v1.10.0, and #9427)"
    elif release < KARPENTER_FIRST_WITH_RESERVED_MEMORY:
        dropped = "memory-manager-reserved-memory (aws/karpenter-provider-aws#9427, merged after v1.14.1)"
    else:
        return []
    return [
        (
            f"{path}.karpenter.version: Karpenter {version} drops settings.kubernetes.{dropped}: its MarshalTOML writes only the "
            "fields of its BottlerocketKubernetes struct, and Bottlerocket then renders no memoryManagerPolicy; use a release "
            "from 1.15.0 on"
        )
    ]


def _cluster_problems(node_class: dict, path: str) -> list[str]:
    cluster, karpenter = node_class.get("cluster"), "karpenter" in node_class
    if "cluster_in_another_part" in node_class:
        return [f"{path}.cluster_in_another_part: only for ami_family AL2023; Bottlerocket user data is one TOML document"]
    if karpenter:
        return [] if cluster is None else [f"{path}.cluster: Karpenter writes the cluster settings into the Bottlerocket user data; leave it out"]
    if not isinstance(cluster, dict) or set(cluster) != set(_CLUSTER_SETTINGS) or not all(isinstance(value, str) and value for value in cluster.values()):
        return [
            (
                f"{path}.cluster: {cluster!r} must be {{name, apiServerEndpoint, certificateAuthority}} (non-empty strings) for a launch "
                "template without Karpenter: Bottlerocket reads them as settings.kubernetes cluster-name, api-server and cluster-certificate"
            )
        ]
    return []


def bottlerocket_class_problems(node_class: dict, path: str) -> list[str]:
    """One instance shape (one NUMA layout) per class, the cluster where Karpenter does not write it, a safe Karpenter."""
    instance_type = node_class.get("instance_types", node_class.get("instance_type"))
    if isinstance(instance_type, (list, tuple, dict)) or "boot_split" in node_class:
        key = next(key for key in ("instance_types", "boot_split", "instance_type") if key in node_class)
        named = ", ".join(map(str, instance_type)) if isinstance(instance_type, (list, tuple, dict)) else str(instance_type)
        return [
            (
                f"{path}.{key}: {named}: a Bottlerocket class is one NUMA layout; splitting "
                "the reservation per instance at boot needs a bootstrap container the collection does not ship yet, so give one "
                "instance type per class (one EC2NodeClass and NodePool each)"
            )
        ]
    problems = _cluster_problems(node_class, path)
    karpenter = node_class.get("karpenter")
    if isinstance(karpenter, dict):
        problems += karpenter_version_problems(karpenter.get("version"), path)
    return problems


def _settings_with_karpenter(intent: dict, karpenter_kubelet: dict, path: str) -> tuple[dict | None, list[str]]:
    """The intent with spec.kubelet's reservation maps: Karpenter replaces those settings whole with spec.kubelet's."""
    problems = [
        f"{path}.intent.{field}: Karpenter always writes it into the Bottlerocket settings; set it in karpenter.kubelet"
        for field in KARPENTER_ALWAYS_SETS
        if field in intent
    ]
    merged = dict(intent)
    for field in ("kubeReserved", "systemReserved", "evictionHard"):
        if field in karpenter_kubelet:
            if field in intent and intent[field] != karpenter_kubelet[field]:
                problems.append(
                    f"{path}: intent.{field} is {intent[field]!r} but karpenter.kubelet.{field} is {karpenter_kubelet[field]!r}; Karpenter "
                    f"replaces settings.kubernetes.{INTENT_SETTINGS[field]} whole with spec.kubelet's: set one of them"
                )
            merged[field] = karpenter_kubelet[field]
    return (None, problems) if problems else (merged, [])


def _plan(node_class: dict, path: str, pods: int, intent: dict) -> tuple[dict | None, list[str]]:
    settings, problems = intent_settings(intent, path)
    if settings is None:
        return None, problems
    try:
        nodes, capacity = topology_from({"kubelet_numa_topology": node_class.get("topology")}, {})
        vcpus = vcpu_count(nodes)
        if vcpus is None:
            raise PlanError(["the topology lists no CPUs; Bottlerocket reserves CPU by the node's CPU count, so give cpus per NUMA node"])
        # The totals go into the settings, so the kubelet does not depend on the max-pods Bottlerocket computes at boot.
        settings["kube-reserved"] = dict(settings.get("kube-reserved") or {})
        settings["kube-reserved"].setdefault("memory", f"{kube_reserved_memory_mebibytes(pods)}Mi")
        config = rendered_kubelet_config(settings, pods, vcpus)
        percentage = percentage_memory_problems(config, path)
        if percentage:
            return None, percentage
        if settings.get("memory-manager-policy") == MEMORY_MANAGER_STATIC:
            config["memoryManagerPolicy"] = MEMORY_MANAGER_STATIC
            reserved = reserved_memory(config, nodes, node_class.get("split", "even"), capacity)
            settings[RESERVED_MEMORY_SETTING] = {str(item["numaNode"]): {"enabled": True, "memory": item["limits"]["memory"]} for item in reserved}
        config = rendered_kubelet_config(settings, pods, vcpus)
        # The template drops a policy without reserved memory; checked as written, so "static" is refused, not lost.
        checked = dict(config, memoryManagerPolicy=settings["memory-manager-policy"]) if "memory-manager-policy" in settings else config
        report = check_kubelet_config(checked, nodes, capacity, node_class.get("kubelet_version"))
        if report.errors:
            raise KubeletConfigError(report.errors)
    except (KubeletConfigError, EksError) as exc:
        return None, [f"{path}: {problem}" for problem in getattr(exc, "problems", [str(exc)])]
    return {"settings": settings, "kubelet_config": config, "warnings": report.warnings, "numa_nodes": [node["id"] for node in nodes]}, []


def _karpenter_view(karpenter_kubelet: dict, settings: dict) -> dict:
    """spec.kubelet with the settings' whole reservation maps: Karpenter writes them back unchanged and schedules with the
    overhead the node reserves (its default eviction threshold is the kubelet's 100Mi, so an absent map stays absent)."""
    view = dict(karpenter_kubelet)
    for field in ("kubeReserved", "systemReserved", "evictionHard"):
        if INTENT_SETTINGS[field] in settings:
            view[field] = dict(settings[INTENT_SETTINGS[field]])
    return view


def bottlerocket_karpenter_inputs(node_class: dict, path: str) -> tuple[dict | None, dict | None, list[str]]:
    """(spec.kubelet, the rest of the spec, problems) of the class's karpenter key, for a bottlerocket AMI."""
    return karpenter_inputs(node_class, path, KARPENTER_BOTTLEROCKET)


def render_bottlerocket(node_class: dict, name: str, path: str, pods: int, karpenter: tuple[dict, dict], header: str | None) -> tuple[dict | None, list[str]]:
    """({"files", "details"}, []) of one Bottlerocket class, or (None, problems): <name>.user-data.toml, and for Karpenter
    <name>.ec2nodeclass.yaml; karpenter is (spec.kubelet, the rest of the spec) from bottlerocket_karpenter_inputs."""
    karpenter_kubelet, spec = karpenter
    is_karpenter = "karpenter" in node_class
    intent = node_class["intent"]
    if is_karpenter:
        intent, problems = _settings_with_karpenter(intent, karpenter_kubelet, path)
        if intent is None:
            return None, problems
    plan, problems = _plan(node_class, path, pods, intent)
    if plan is None:
        return None, problems
    kubernetes = dict(plan["settings"])
    if not is_karpenter:
        kubernetes = dict({setting: node_class["cluster"][field] for field, setting in _CLUSTER_SETTINGS.items()}, **kubernetes)
    user_data = toml_text({"settings": {"kubernetes": kubernetes}}, header_comment(header))
    files = {f"{name}.user-data.toml": user_data}
    details = {
        "settings": plan["settings"],
        "kubelet_config": plan["kubelet_config"],
        "reserved_memory": plan["kubelet_config"].get("reservedMemory", []),
        "numa_nodes": plan["numa_nodes"],
        "warnings": plan["warnings"],
        "reservation": str(memory_reservation(plan["kubelet_config"]).total),
        "launch": "karpenter" if is_karpenter else "launch template",
    }
    if is_karpenter:
        details["karpenter_kubelet"] = _karpenter_view(karpenter_kubelet, plan["settings"])
        files[f"{name}.ec2nodeclass.yaml"] = ec2nodeclass(name, spec, details["karpenter_kubelet"], user_data, header)
    return {"files": files, "details": details}, []
