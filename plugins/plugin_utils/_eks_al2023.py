# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""EKS AL2023 node classes: NodeConfig user data for nodeadm, and with Karpenter the EC2NodeClass around it.

Planned by the same engine as a node (_plan.plan_host) on the config the node will run with: nodeadm's base, the user
data's parts, then Karpenter v1's own NodeConfig, which wins (render_al2023 plans twice: once to learn the reservation,
once with it carried into spec.kubelet). The merge order: docs/eks.md sections 3 and 4.
"""

from __future__ import annotations

import copy
from typing import Any

from ._allocatable import memory_reservation
from ._boot_split_bundle import SHELLSCRIPT_CONTENT_TYPE
from ._config import KubeletConfigError
from ._eks_karpenter import KarpenterAmi, conflicts, ec2nodeclass, karpenter_inputs, reservation_view
from ._eks_node_class import header_comment, percentage_memory_problems, yaml_text
from ._eks_nodeadm import NODECONFIG_CONTENT_TYPE, cluster_problems
from ._plan import plan_host
from ._yaml_text import load_yaml

# Fixed, so the same input gives the same bytes; it cannot occur in the part (a NodeConfig holds no "--==").
MIME_BOUNDARY = "==NUMA-KUBELET-BOUNDARY=="
KARPENTER_AL2023 = KarpenterAmi("AL2023", "al2023@", "a NodeConfig, read only by AL2023 (nodeadm)")
# The fixed layout of an AL2023 EKS AMI the plan models (our user data part, then Karpenter's, as two NodeConfig sources in
# order); nodeadm-run.service is the AMI's unit that applies them (awslabs/amazon-eks-ami
# templates/al2023/runtime/rootfs/etc/systemd/system/nodeadm-run.service). A fact of the AMI, not the role's default: user
# data has no role to take defaults from.
_AL2023_NODE = {
    "kubelet_numa_kubelet_root_dir": "/var/lib/kubelet",
    "kubelet_numa_nodeadm_config_dir": "/etc/eks/nodeadm.d",
    "kubelet_numa_nodeadm_kubelet_config": "/etc/kubernetes/kubelet/config.json",
    "kubelet_numa_nodeadm_kubelet_dropin_dir": "/etc/kubernetes/kubelet/config.json.d",
    "kubelet_numa_nodeadm_kubelet_environment": "/etc/eks/kubelet/environment",
    "kubelet_numa_nodeadm_apply_service": "nodeadm-run.service",
}
_USER_DATA_PART = "10-user-data"


def mime_user_data(nodeconfig: dict, header: str | None = None, script: str | None = None) -> str:
    """The MIME multi-part user data with one application/node.eks.aws part; the header goes in the preamble. A script
    (the boot-time split's installer, _eks_boot_split) comes first, as a text/x-shellscript part."""
    preamble = header_comment(header) + "\n" if header else ""
    shell = f"--{MIME_BOUNDARY}\nContent-Type: {SHELLSCRIPT_CONTENT_TYPE}\n\n{script}" if script else ""
    return (
        f'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="{MIME_BOUNDARY}"\n\n{preamble}{shell}--{MIME_BOUNDARY}\n'
        f"Content-Type: {NODECONFIG_CONTENT_TYPE}\n\n---\n{yaml_text(nodeconfig)}--{MIME_BOUNDARY}--\n"
    )


def nodeconfig_parts(user_data: str) -> list[Any]:
    """The NodeConfig documents of a MIME user data, in order (as nodeadm reads them; used to check our own output)."""
    import email  # pylint: disable=import-outside-toplevel

    message = email.message_from_string(user_data)
    return [load_yaml(str(part.get_payload())) for part in message.walk() if part.get_content_type() == NODECONFIG_CONTENT_TYPE]


def al2023_class_problems(node_class: dict, path: str) -> list[str]:
    """spec.cluster as nodeadm will read it; complete where no other part can supply it (a launch template without
    Karpenter, unless the class says another part does)."""
    cluster, elsewhere = node_class.get("cluster"), node_class.get("cluster_in_another_part", False)
    problems = []
    if not isinstance(elsewhere, bool):
        problems.append(f"{path}.cluster_in_another_part: {elsewhere!r} must be true or false")
    elif elsewhere and "karpenter" in node_class:
        problems.append(f"{path}.cluster_in_another_part: only for a launch template without Karpenter; Karpenter's own NodeConfig always carries the cluster")
    complete = "karpenter" not in node_class and not elsewhere
    if cluster is None and complete:
        problems.append(
            f"{path}.cluster: required for a launch template without Karpenter: nothing else gives nodeadm the cluster, and it "
            "refuses to start without name, apiServerEndpoint, certificateAuthority and cidr; give them, set karpenter for a "
            "Karpenter class, or set cluster_in_another_part: true if another user data part (a managed node group's) "
            "supplies them"
        )
    elif cluster is not None:
        problems.extend(cluster_problems(cluster, path + ".cluster", complete=complete))
    return problems


def al2023_karpenter_inputs(node_class: dict, path: str) -> tuple[dict | None, dict | None, list[str]]:
    """(spec.kubelet, the rest of the spec, problems) of the class's karpenter key, for an al2023 AMI."""
    return karpenter_inputs(node_class, path, KARPENTER_AL2023)


def _plan_al2023(node_class: dict, path: str, pods: int, user_data_parts: list) -> tuple[dict | None, list[str]]:
    """The node as nodeadm builds it at boot: base config.json, then the user data parts in order (ours is None)."""
    variables = dict(
        _AL2023_NODE,
        kubelet_numa_platform="nodeadm",
        kubelet_numa_dropin_name=_USER_DATA_PART,
        kubelet_numa_config=node_class.get("intent"),
        kubelet_numa_reserved_memory_split=node_class.get("split", "even"),
        kubelet_numa_topology=node_class.get("topology"),
        kubelet_numa_max_pods=pods,
        kubelet_numa_kubelet_version=node_class.get("kubelet_version"),
    )
    try:
        plan = plan_host(variables, {"files": {}, "nodeadm_user_data_parts": user_data_parts})
    except KubeletConfigError as exc:
        return None, [f"{path}: {problem}" for problem in exc.problems]
    percentage = percentage_memory_problems(plan["kubelet_config"], path)
    return (None, percentage) if percentage else (plan, [])


def _plan_with_karpenter(node_class: dict, path: str, pods: int, karpenter_kubelet: dict) -> tuple[dict | None, dict, list[str]]:
    """(plan, spec.kubelet carrying the reservation, problems): Karpenter v1 appends its own NodeConfig, spec.kubelet,
    after the user data, so plan once to learn the reservation and again with it carried into spec.kubelet."""
    problems = conflicts(node_class["intent"], karpenter_kubelet, path)
    if problems:
        return None, karpenter_kubelet, problems
    planned, problems = _plan_al2023(node_class, path, pods, [None, karpenter_kubelet])
    if planned is None:
        return None, karpenter_kubelet, problems
    karpenter_kubelet = reservation_view(karpenter_kubelet, planned["kubelet_config"])
    plan, problems = _plan_al2023(node_class, path, pods, [None, karpenter_kubelet])
    if plan is not None and plan["kubelet_config"] != planned["kubelet_config"]:
        return (
            None,
            karpenter_kubelet,
            [
                (
                    f"{path}: carrying the reservation into spec.kubelet changes the node's kubelet config; refused rather than let "
                    "Karpenter schedule with another overhead than the node reserves"
                )
            ],
        )
    return plan, karpenter_kubelet, problems


def _nodeconfig_with_cluster(plan: dict, cluster: dict | None) -> dict:
    nodeconfig = copy.deepcopy(plan["files"][0]["content"])
    if cluster:
        nodeconfig["spec"] = dict({"cluster": cluster}, **nodeconfig["spec"])
    return nodeconfig


def render_al2023(node_class: dict, name: str, path: str, pods: int, karpenter: tuple[dict, dict], header: str | None) -> tuple[dict | None, list[str]]:
    """({"files", "details"}, []) of one AL2023 class, or (None, problems): user data, and for Karpenter the EC2NodeClass
    with its view of the node; karpenter is (spec.kubelet, the rest of the spec) from al2023_karpenter_inputs."""
    karpenter_kubelet, spec = karpenter
    is_karpenter = "karpenter" in node_class
    if is_karpenter:
        plan, karpenter_kubelet, problems = _plan_with_karpenter(node_class, path, pods, karpenter_kubelet)
    else:
        plan, problems = _plan_al2023(node_class, path, pods, [None])
    if plan is None:
        return None, problems
    nodeconfig = _nodeconfig_with_cluster(plan, node_class.get("cluster"))
    user_data = mime_user_data(nodeconfig, header)
    files = {f"{name}.user-data.mime": user_data}
    if is_karpenter:
        files[f"{name}.ec2nodeclass.yaml"] = ec2nodeclass(name, spec, karpenter_kubelet, user_data, header)
    details = {
        "nodeconfig": nodeconfig,
        "kubelet_config": plan["kubelet_config"],
        "kubelet_inputs": plan["kubelet_inputs"],
        "reserved_memory": plan["reserved_memory"],
        "numa_nodes": plan["numa_nodes"],
        "warnings": plan["warnings"],
        "reservation": str(memory_reservation(plan["kubelet_config"]).total),
        "launch": "karpenter" if is_karpenter else "launch template",
    }
    if is_karpenter:
        details["karpenter_kubelet"] = karpenter_kubelet
    return {"files": files, "details": details}, []
