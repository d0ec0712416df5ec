# -*- coding: utf-8 -*-
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""EKS node classes to launch-time configuration: AL2023 NodeConfig user data + Karpenter EC2NodeClass, AL2 flags.

Nodes started by Karpenter or a launch template cannot be reached over ssh, so what the kubelet_numa role would write is
rendered ahead of time, planned by the same engine as a node (_plan.plan_host for AL2023, _split and _validation for AL2)
on the config the node will run with: nodeadm's base, the user data's parts, then Karpenter v1's own NodeConfig, which
wins (_plan_al2023, _karpenter_view). The merge order and AL2's bootstrap.sh (read at
9e910f8743d16ac4704092ac54766fc84d375c53): docs/eks.md sections 3 and 4.
"""

from __future__ import annotations

import copy
import re
import shlex

import yaml

from ._allocatable import memory_reservation
from ._config import API_VERSION, KIND, MEMORY_MANAGER_STATIC, KubeletConfigError, plain_data
from ._effective import effective_kubelet_config, merge_patch
from ._eks import EksError, kube_reserved, kube_reserved_memory_mebibytes
from ._eks import max_pods as table_max_pods
from ._eks_nodeadm import NODECONFIG_CONTENT_TYPE, cluster_problems
from ._flags import kubelet_flags
from ._plan import plan_host
from ._plan_inputs import PlanError, topology_from, vcpu_count
from ._platform_nodeadm import NODEADM_EVICTION_HARD
from ._split import SPLIT_STRATEGIES, reserved_memory
from ._validation import check_kubelet_config, checked_kubelet_version

AMI_FAMILIES = ("AL2023", "AL2")
EC2NODECLASS_API_VERSION = "karpenter.k8s.aws/v1"
EC2NODECLASS_KIND = "EC2NodeClass"
# Fixed, so the same input gives the same bytes; it cannot occur in the part (a NodeConfig holds no "--==").
MIME_BOUNDARY = "==NUMA-KUBELET-BOUNDARY=="
# EC2NodeClass spec.kubelet (karpenter.k8s.aws/v1 KubeletConfiguration): the only fields Karpenter accepts there.
KARPENTER_KUBELET_FIELDS = (
    "clusterDNS",
    "maxPods",
    "podsPerCore",
    "systemReserved",
    "kubeReserved",
    "evictionHard",
    "evictionSoft",
    "evictionSoftGracePeriod",
    "evictionMaxPodGracePeriod",
    "imageGCHighThresholdPercent",
    "imageGCLowThresholdPercent",
    "cpuCFSQuota",
)
# Karpenter's own NodeConfig always carries these (maxPods resolved per instance type, the unregistered taint, the
# cluster DNS): an intent value would lose to it silently.
KARPENTER_ALWAYS_SETS = ("maxPods", "clusterDNS", "registerWithTaints")
_NODE_CLASS_KEYS = (
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
)
# What Karpenter must know of the node's memory reservation to schedule with the same overhead as the node reserves
# (aws/karpenter-provider-aws pkg/providers/instancetype/types.go: kubeReservedResources, systemReservedResources and
# evictionThreshold read these three from spec.kubelet, else use their own formula and defaults).
KARPENTER_RESERVATION = (("kubeReserved", "memory"), ("systemReserved", "memory"), ("evictionHard", "memory.available"))
# EC2NodeClass (karpenter.k8s.aws/v1) CRD: required spec fields and the selector lists that may not be empty
# (pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml).
EC2NODECLASS_REQUIRED_TERMS = ("amiSelectorTerms", "subnetSelectorTerms", "securityGroupSelectorTerms")
_KARPENTER_KEYS = ("kubelet", "spec")
_NAME = re.compile(r"^[a-z0-9]([-.a-z0-9]{0,61}[a-z0-9])?$")
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


class EksUserDataError(KubeletConfigError):
    """Every problem of every node class; nothing may be written while there is one."""


class _LiteralDumper(yaml.SafeDumper):
    """YAML with multi-line strings (userData) as literal blocks, so the MIME document reads and diffs line by line."""


def _represent_str(dumper, value):
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if "\n" in value else None)


_LiteralDumper.add_representer(str, _represent_str)


def yaml_text(data):
    """Stable YAML: keys in the order given (the input's, then ours), block style, two-space indent, like to_nice_yaml."""
    return yaml.dump(data, Dumper=_LiteralDumper, indent=2, default_flow_style=False, sort_keys=False, allow_unicode=True, width=1000)


def _comment(header):
    return "".join("# %s\n" % line if line else "#\n" for line in (header or "").splitlines())


def mime_user_data(nodeconfig, header=None):
    """The MIME multi-part user data with one application/node.eks.aws part; the header goes in the preamble."""
    preamble = _comment(header) + "\n" if header else ""
    return ('MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="%s"\n\n%s--%s\nContent-Type: %s\n\n---\n%s--%s--\n') % (
        MIME_BOUNDARY,
        preamble,
        MIME_BOUNDARY,
        NODECONFIG_CONTENT_TYPE,
        yaml_text(nodeconfig),
        MIME_BOUNDARY,
    )


def nodeconfig_parts(user_data):
    """The NodeConfig documents of a MIME user data, in order (as nodeadm reads them; used to check our own output)."""
    import email  # pylint: disable=import-outside-toplevel

    message = email.message_from_string(user_data)
    return [yaml.safe_load(part.get_payload()) for part in message.walk() if part.get_content_type() == NODECONFIG_CONTENT_TYPE]


# ------------------------------------------------------------------------------------------------ input checks
def _mapping(value, path, problems, required=False):
    if value is None and not required:
        return {}
    if not isinstance(value, dict):
        problems.append("%s: %r must be a mapping" % (path, value))
        return None
    return value


def _max_pods(node_class, path, problems):
    """(maxPods for the kubeReserved formula, how it was found) or None after recording the problem."""
    instance_type, pods = node_class.get("instance_type"), node_class.get("max_pods")
    if instance_type is not None and pods is not None:
        problems.append(
            "%s: give instance_type (maxPods from the EKS table) or max_pods (for a type missing from it, or a maxPodsExpression result), not both" % path
        )
        return None
    try:
        if pods is not None:
            kube_reserved_memory_mebibytes(pods)
            return pods
        if instance_type is None:
            problems.append("%s: instance_type or max_pods is required: kubeReserved.memory is 11*maxPods+255 MiB on EKS" % path)
            return None
        return table_max_pods(instance_type)
    except EksError as exc:
        problems.append("%s: %s" % (path, exc))
        return None


def _karpenter(node_class, family, path, problems):
    karpenter = node_class.get("karpenter")
    if karpenter is None:
        return {}, {}
    if family != "AL2023":
        problems.append(
            "%s.karpenter: only for ami_family AL2023; Karpenter's AL2 user data runs its own bootstrap.sh, use the "
            "AL2 kubelet extra args in a launch template instead" % path
        )
        return None, None
    if _mapping(karpenter, path + ".karpenter", problems) is None:
        return None, None
    unknown = sorted(set(karpenter) - set(_KARPENTER_KEYS), key=str)
    if unknown:
        problems.append("%s.karpenter: unknown keys %s; use kubelet (EC2NodeClass spec.kubelet) and spec (the rest of the spec)" % (path, unknown))
    kubelet = _mapping(karpenter.get("kubelet"), path + ".karpenter.kubelet", problems)
    spec = _mapping(karpenter.get("spec"), path + ".karpenter.spec", problems)
    if kubelet is None or spec is None:
        return None, None
    for field in sorted(set(kubelet) - set(KARPENTER_KUBELET_FIELDS), key=str):
        problems.append(
            "%s.karpenter.kubelet.%s: EC2NodeClass spec.kubelet (%s) has no such field (it takes %s); put it in intent, "
            "which goes into the user data" % (path, field, EC2NODECLASS_API_VERSION, ", ".join(KARPENTER_KUBELET_FIELDS))
        )
    for field in ("userData", "kubelet"):
        if field in spec:
            problems.append(
                "%s.karpenter.spec.%s: rendered by numa.kubelet; %s" % (path, field, "leave it out" if field == "userData" else "give it as karpenter.kubelet")
            )
    family_field = spec.get("amiFamily")
    aliases = [term.get("alias") for term in spec.get("amiSelectorTerms") or [] if isinstance(term, dict) and term.get("alias")]
    if family_field not in (None, "AL2023") or any(not str(alias).startswith("al2023@") for alias in aliases):
        problems.append(
            "%s.karpenter.spec: amiFamily %r / amiSelectorTerms aliases %s: the user data is a NodeConfig, read only by "
            "AL2023 (nodeadm); use amiFamily AL2023 or an al2023@ alias" % (path, family_field, aliases)
        )
    problems.extend(_ec2nodeclass_spec_problems(spec, path + ".karpenter.spec", aliases))
    return kubelet, spec


def _ec2nodeclass_spec_problems(spec, path, aliases):
    """What the EC2NodeClass CRD (karpenter.k8s.aws/v1) refuses, so a class the API server would refuse is never written."""
    problems = []
    if ("role" in spec) == ("instanceProfile" in spec):
        problems.append(
            "%s: give exactly one of role and instanceProfile (the EC2NodeClass CRD: \"must specify exactly one of ['role', "
            "'instanceProfile']\"); it has %s" % (path, "both" if "role" in spec else "neither")
        )
    for field in ("role", "instanceProfile"):
        if field in spec and (not isinstance(spec[field], str) or not spec[field]):
            problems.append("%s.%s: %r must be a non-empty string" % (path, field, spec[field]))
    for field in EC2NODECLASS_REQUIRED_TERMS:
        terms = spec.get(field)
        if not isinstance(terms, list) or not terms or not all(isinstance(term, dict) and term for term in terms):
            problems.append("%s.%s: %r must be a non-empty list of selector terms (required by the EC2NodeClass CRD)" % (path, field, terms))
    if not aliases and "amiFamily" not in spec:
        problems.append("%s: amiSelectorTerms has no alias, so amiFamily is required (the EC2NodeClass CRD); use amiFamily AL2023 or an al2023@ alias" % path)
    if aliases and len(spec.get("amiSelectorTerms") or []) != 1:
        problems.append("%s.amiSelectorTerms: an alias term must be the only term (the EC2NodeClass CRD)" % path)
    return problems


def _conflicts(intent, karpenter_kubelet, path):
    """Fields of the intent that Karpenter's NodeConfig, merged after the user data, would silently replace."""
    problems = []
    for field in KARPENTER_ALWAYS_SETS:
        if field in intent and field not in karpenter_kubelet:
            problems.append(
                "%s.intent.%s: Karpenter's own NodeConfig, merged after the user data, always sets %s; set it in "
                "karpenter.kubelet instead%s" % (path, field, field, "" if field != "registerWithTaints" else " (taints go in the NodePool)")
            )
    for field, theirs in karpenter_kubelet.items():
        if field not in intent:
            continue
        ours = intent[field]
        if isinstance(ours, dict) and isinstance(theirs, dict):
            clashes = sorted(key for key in set(ours) & set(theirs) if str(ours[key]) != str(theirs[key]))
            for key in clashes:
                problems.append(
                    "%s: intent.%s.%s is %s but karpenter.kubelet.%s.%s is %s; Karpenter's NodeConfig is merged last and wins, "
                    "so the user data's value would be ignored: set one of them" % (path, field, key, ours[key], field, key, theirs[key])
                )
        elif ours != theirs:
            problems.append(
                "%s: intent.%s is %r but karpenter.kubelet.%s is %r; Karpenter's NodeConfig is merged last and wins: set one of them"
                % (path, field, ours, field, theirs)
            )
    return problems


def _percentage_memory(config, path):
    threshold = str((config.get("evictionHard") or {}).get("memory.available", ""))
    if threshold.endswith("%"):
        return [
            "%s: evictionHard memory.available is %s: a percentage is taken of the node's exact MemTotal, which is not known when "
            "user data is rendered, so no reservedMemory can be computed for it; use a quantity such as 100Mi" % (path, threshold)
        ]
    return []


# ------------------------------------------------------------------------------------------------ AL2023 / Karpenter
def _plan_al2023(node_class, path, pods, user_data_parts, problems):
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
        problems.extend("%s: %s" % (path, problem) for problem in exc.problems)
        return None
    percentage = _percentage_memory(plan["kubelet_config"], path)
    if percentage:
        problems.extend(percentage)
        return None
    return plan


def _karpenter_view(karpenter_kubelet, effective):
    """spec.kubelet with the node's kubeReserved, systemReserved and evictionHard memory, so that Karpenter's scheduling
    overhead is what the node reserves; Karpenter's NodeConfig is merged last, so the node keeps these values."""
    view = copy.deepcopy(karpenter_kubelet)
    for field, key in KARPENTER_RESERVATION:
        value = (effective.get(field) or {}).get(key)
        if value is not None:
            view[field] = dict(view.get(field) or {}, **{key: value})
    return view


def _nodeconfig_with_cluster(plan, cluster):
    nodeconfig = copy.deepcopy(plan["files"][0]["content"])
    if cluster:
        nodeconfig["spec"] = dict({"cluster": cluster}, **nodeconfig["spec"])
    return nodeconfig


def _ec2nodeclass(name, spec, karpenter_kubelet, user_data, header):
    body = dict(spec)
    if karpenter_kubelet:
        body["kubelet"] = karpenter_kubelet
    body["userData"] = user_data
    document = {"apiVersion": EC2NODECLASS_API_VERSION, "kind": EC2NODECLASS_KIND, "metadata": {"name": name}, "spec": body}
    return _comment(header) + yaml_text(document)


# ------------------------------------------------------------------------------------------------ AL2 / bootstrap.sh
def al2_base_config(pods, vcpus, use_max_pods=True):
    """kubelet-config.json's memory-relevant fields after bootstrap.sh (templates/al2/runtime/bootstrap.sh)."""
    base = {"apiVersion": API_VERSION, "kind": KIND, "evictionHard": dict(NODEADM_EVICTION_HARD), "kubeReserved": kube_reserved(max_pods=pods, vcpus=vcpus)}
    if use_max_pods:
        base["maxPods"] = pods
    return base


def _al2_flags_settings(intent, base):
    # A map flag replaces the file's whole map: carry bootstrap.sh's keys along with the intent's.
    settings = {}
    for field, value in intent.items():
        if field in ("kubeReserved", "systemReserved", "evictionHard") and isinstance(value, dict):
            value = merge_patch(base.get(field) or {}, value)
        settings[field] = value
    return settings


def systemd_escape(text):
    """bootstrap.sh puts the extra args into Environment='KUBELET_EXTRA_ARGS=...', where systemd resolves %-specifiers."""
    return text.replace("%", "%%")


def _plan_al2(node_class, path, pods, problems):
    intent = node_class.get("intent")
    split = node_class.get("split", "even")
    use_max_pods = node_class.get("use_max_pods", True)
    if not isinstance(use_max_pods, bool):
        problems.append("%s.use_max_pods: %r must be true or false (bootstrap.sh --use-max-pods)" % (path, use_max_pods))
        return None
    try:
        nodes, capacity = topology_from({"kubelet_numa_topology": node_class.get("topology")}, {})
        vcpus = vcpu_count(nodes)
        if vcpus is None:
            raise PlanError(["the topology lists no CPUs; bootstrap.sh reserves CPU by the node's nproc, so give cpus per NUMA node"])
        base = al2_base_config(pods, vcpus, use_max_pods)
        settings = _al2_flags_settings(intent, base)
        effective = effective_kubelet_config(base, [], kubelet_flags(settings))
        percentage = _percentage_memory(effective, path)
        if percentage:
            problems.extend(percentage)
            return None
        if effective.get("memoryManagerPolicy") == MEMORY_MANAGER_STATIC:
            settings["reservedMemory"] = reserved_memory(effective, nodes, split, capacity)
        flags = kubelet_flags(settings)
        effective = effective_kubelet_config(base, [], flags)
        report = check_kubelet_config(effective, nodes, capacity, node_class.get("kubelet_version"))
        if report.errors:
            raise KubeletConfigError(report.errors)
    except (KubeletConfigError, EksError) as exc:
        problems.extend("%s: %s" % (path, problem) for problem in getattr(exc, "problems", [str(exc)]))
        return None
    value = systemd_escape(" ".join(flags))
    return {
        "kubelet_config": effective,
        "reserved_memory": settings.get("reservedMemory") or [],
        "flags": flags,
        "kubelet_extra_args": value,
        "bootstrap_args": "--kubelet-extra-args %s" % shlex.quote(value),
        "base_config": base,
        "warnings": report.warnings,
        "numa_nodes": [node["id"] for node in nodes],
    }


def _render_al2023(node_class, name, path, pods, karpenter_kubelet, spec, header, problems):
    """Files and details of one AL2023 class: user data, and for Karpenter the EC2NodeClass with its view of the node."""
    is_karpenter = "karpenter" in node_class
    if is_karpenter:
        conflicts = _conflicts(node_class["intent"], karpenter_kubelet, path)
        if conflicts:
            problems.extend(conflicts)
            return None
        plan = _plan_al2023(node_class, path, pods, [None, karpenter_kubelet], problems)
        if plan is None:
            return None
        # Karpenter v1 appends its own NodeConfig, spec.kubelet, after the user data: plan again with what we put there.
        karpenter_kubelet = _karpenter_view(karpenter_kubelet, plan["kubelet_config"])
        planned = plan
        plan = _plan_al2023(node_class, path, pods, [None, karpenter_kubelet], problems)
        if plan is None:
            return None
        if plan["kubelet_config"] != planned["kubelet_config"]:
            problems.append(
                "%s: carrying the reservation into spec.kubelet changes the node's kubelet config; refused rather than let "
                "Karpenter schedule with another overhead than the node reserves" % path
            )
            return None
    else:
        plan = _plan_al2023(node_class, path, pods, [None], problems)
        if plan is None:
            return None
    nodeconfig = _nodeconfig_with_cluster(plan, node_class.get("cluster"))
    user_data = mime_user_data(nodeconfig, header)
    files = {"%s.user-data.mime" % name: user_data}
    if is_karpenter:
        files["%s.ec2nodeclass.yaml" % name] = _ec2nodeclass(name, spec, karpenter_kubelet, user_data, header)
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
    return {"files": files, "details": details}


# ------------------------------------------------------------------------------------------------ the entry point
def _cluster_ok(node_class, path, problems):
    """spec.cluster as nodeadm will read it; complete where no other part can supply it (a launch template without
    Karpenter, unless the class says another part does)."""
    cluster, elsewhere = node_class.get("cluster"), node_class.get("cluster_in_another_part", False)
    before = len(problems)
    if not isinstance(elsewhere, bool):
        problems.append("%s.cluster_in_another_part: %r must be true or false" % (path, elsewhere))
    elif elsewhere and "karpenter" in node_class:
        problems.append(
            "%s.cluster_in_another_part: only for a launch template without Karpenter; Karpenter's own NodeConfig always carries the cluster" % path
        )
    complete = "karpenter" not in node_class and not elsewhere
    if cluster is None and complete:
        problems.append(
            "%s.cluster: required for a launch template without Karpenter: nothing else gives nodeadm the cluster, and it "
            "refuses to start without name, apiServerEndpoint, certificateAuthority and cidr; give them, set karpenter for a "
            "Karpenter class, or set cluster_in_another_part: true if another user data part (a managed node group's) "
            "supplies them" % path
        )
    elif cluster is not None:
        problems.extend(cluster_problems(cluster, path + ".cluster", complete=complete))
    return len(problems) == before


def _check_class(node_class, index, names, problems):
    path = "node_classes[%d]" % index
    if not isinstance(node_class, dict):
        problems.append("%s: %r must be a mapping {name, instance_type or max_pods, topology, intent, ...}" % (path, node_class))
        return None
    name = node_class.get("name")
    if isinstance(name, str):
        path = "node_classes[%d] (%s)" % (index, name)
    if not isinstance(name, str) or not _NAME.match(name):
        problems.append(
            "%s: name %r must be a lower-case DNS label (letters, digits, '-', '.'; at most 63): it names the EC2NodeClass and the files" % (path, name)
        )
    elif name in names:
        problems.append("%s: name %r is used by another node class; each class writes its own files" % (path, name))
    names.add(name)
    unknown = sorted(set(node_class) - set(_NODE_CLASS_KEYS), key=str)
    if unknown:
        problems.append("%s: unknown keys %s (known: %s)" % (path, unknown, ", ".join(_NODE_CLASS_KEYS)))
    family = node_class.get("ami_family", "AL2023")
    if family not in AMI_FAMILIES:
        problems.append("%s: ami_family %r is not one of %s" % (path, family, ", ".join(AMI_FAMILIES)))
        return None
    try:
        checked_kubelet_version(node_class.get("kubelet_version"))
    except KubeletConfigError as exc:
        problems.extend(f"{path}: {problem}" for problem in exc.problems)
        return None
    intent = node_class.get("intent")
    if not isinstance(intent, dict) or not intent:
        problems.append(
            "%s: intent %r must be a non-empty KubeletConfiguration fragment (memoryManagerPolicy, topologyManagerPolicy, kubeReserved, ...)" % (path, intent)
        )
        return None
    if "reservedMemory" in intent:
        problems.append(
            "%s: intent.reservedMemory is computed by the collection for what wins on the node; leave it out and choose the spread with split" % path
        )
        return None
    if not isinstance(node_class.get("topology"), dict) or not node_class["topology"].get("numa_nodes"):
        problems.append(
            "%s: topology %r must be {numa_nodes: [{id, memory_bytes, cpus}, ...], numa_memory_capacity_bytes: N} "
            "(the instance's NUMA nodes; the EKS table has no NUMA data)" % (path, node_class.get("topology"))
        )
        return None
    split = node_class.get("split", "even")
    if not isinstance(split, dict) and split not in SPLIT_STRATEGIES:
        problems.append("%s: split %r is not one of %s or a mapping {numa_id: quantity}" % (path, split, ", ".join(SPLIT_STRATEGIES)))
        return None
    if family == "AL2023" and not _cluster_ok(node_class, path, problems):
        return None
    if family == "AL2" and (node_class.get("cluster") is not None or "cluster_in_another_part" in node_class):
        problems.append("%s.cluster: only for ami_family AL2023 (the NodeConfig's spec.cluster); bootstrap.sh takes the cluster as arguments" % path)
        return None
    return path, name, family


def render_node_classes(node_classes, header=None):
    """Plan and render every node class, or raise EksUserDataError with every problem of every class.

    Returns {"files": {file name: text}, "classes": {name: details}}; the file names are <name>.user-data.mime and
    <name>.ec2nodeclass.yaml (AL2023), <name>.kubelet-extra-args.sh (AL2). header (ansible_managed) opens each file
    as comments (the MIME preamble for the user data).
    """
    if isinstance(node_classes, (str, dict)) or not isinstance(node_classes, (list, tuple)) or not node_classes:
        raise EksUserDataError(["node_classes: %r must be a non-empty list of node classes" % (node_classes,)])
    if header is not None and not isinstance(header, str):
        raise EksUserDataError(["header: %r must be a string (ansible_managed)" % (header,)])
    node_classes, header = plain_data(node_classes), plain_data(header)
    problems, names, files, classes = [], set(), {}, {}
    for index, node_class in enumerate(node_classes):
        before = len(problems)
        checked = _check_class(node_class, index, names, problems)
        if checked is None or len(problems) > before:
            continue
        path, name, family = checked
        pods = _max_pods(node_class, path, problems)
        karpenter_kubelet, spec = _karpenter(node_class, family, path, problems)
        if pods is None or karpenter_kubelet is None or len(problems) > before:
            continue
        if family == "AL2":
            result = _plan_al2(node_class, path, pods, problems)
            if result is not None:
                files["%s.kubelet-extra-args.sh" % name] = "%sKUBELET_EXTRA_ARGS=%s\n" % (_comment(header), shlex.quote(result["kubelet_extra_args"]))
                classes[name] = dict(result, ami_family=family, max_pods=pods)
            continue
        result = _render_al2023(node_class, name, path, pods, karpenter_kubelet, spec, header, problems)
        if result is not None:
            files.update(result["files"])
            classes[name] = dict(result["details"], ami_family=family, max_pods=pods)
    if problems:
        raise EksUserDataError(problems)
    for details in classes.values():
        if details["ami_family"] == "AL2":
            details["reservation"] = str(memory_reservation(details["kubelet_config"]).total)
    return {"files": dict(sorted(files.items())), "classes": dict(sorted(classes.items()))}


def al2_kubelet_extra_args(node_class):
    """The KUBELET_EXTRA_ARGS value (systemd-escaped) for one AL2 node class."""
    if not isinstance(node_class, dict):
        raise EksUserDataError(["node class: %r must be a mapping" % (node_class,)])
    rendered = render_node_classes([dict(node_class, ami_family="AL2")])
    return next(iter(rendered["classes"].values()))["kubelet_extra_args"]
