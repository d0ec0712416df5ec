# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""nodeadm (EKS AL2023): how nodeadm configures the kubelet, and where numa.kubelet's settings go (docs/kubelet-facts.md section 4).

nodeadm rebuilds the drop-in config.json.d/40-nodeadm.conf at every boot (and nodeadm-run) from the user data, then
the /etc/eks/nodeadm.d files (_eks_nodeadm); it goes over its base config.json, whose kubeReserved comes from its
maxPods formula. Ours is a nodeadm.d file, so the plan is that rebuild, never the old drop-in.
"""

from __future__ import annotations

import copy
import posixpath
import re
from collections.abc import Sequence
from typing import Any

from ._config import API_VERSION, KIND, KubeletConfigError
from ._eks import EksError, kube_reserved
from ._eks import max_pods as eks_max_pods
from ._eks_nodeadm import NODECONFIG_API_VERSION, NODECONFIG_KIND, config_files, file_nodeconfigs, kubelet_config, merge_kubelet_configs, user_data_nodeconfigs
from ._feature_gates import kubelet_minor
from ._kubelet_fields import field_type_problems
from ._plan_inputs import KubeletLayers, NodeFiles, Variables, absolute_path, env_words, load_kubelet_config, vcpu_count
from ._platform import KUBELET_UNIT, Layout, Node, Platform

# nodeadm's base config.json as nodeadm writes it on a node of a current EKS version, less what only names the node
# or the cluster (clusterDNS, providerID): defaultKubeletSubConfig, withVersionToggles (feature gate
# DynamicResourceAllocation only for a kubelet >= v1.33: nodeadm_base_feature_gates) and withDefaultReservedResources
# (the reserved cgroups, maxPods and kubeReserved, added from the instance type). The whole config takes part in the
# kubelet's validation, e.g. reservedSystemCPUs is refused next to the reserved cgroups. awslabs/amazon-eks-ami
# nodeadm/internal/kubelet/config.go at 01375496231add8265f3fb1bc6e1e90d083b980b:
# https://github.com/awslabs/amazon-eks-ami/blob/01375496231add8265f3fb1bc6e1e90d083b980b/nodeadm/internal/kubelet/config.go
NODEADM_EVICTION_HARD = {"memory.available": "100Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%"}
NODEADM_BASE_CONFIG: dict[str, Any] = {
    "address": "0.0.0.0",
    "authentication": {
        "anonymous": {"enabled": False},
        "webhook": {"cacheTTL": "2m0s", "enabled": True},
        "x509": {"clientCAFile": "/etc/kubernetes/pki/ca.crt"},
    },
    "authorization": {"mode": "Webhook", "webhook": {"cacheAuthorizedTTL": "5m0s", "cacheUnauthorizedTTL": "30s"}},
    "cgroupDriver": "systemd",
    "cgroupRoot": "/",
    "clusterDomain": "cluster.local",
    "containerRuntimeEndpoint": "unix:///run/containerd/containerd.sock",
    "evictionHard": NODEADM_EVICTION_HARD,
    "featureGates": {"RotateKubeletServerCertificate": True},
    "hairpinMode": "hairpin-veth",
    "kubeReservedCgroup": "/runtime",
    "logging": {"verbosity": 2},
    "protectKernelDefaults": True,
    "readOnlyPort": 0,
    "serializeImagePulls": False,
    "serverTLSBootstrap": True,
    "systemReservedCgroup": "/system",
    "tlsCipherSuites": [
        "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
        "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
        "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305",
        "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
        "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
        "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305",
        "TLS_RSA_WITH_AES_128_GCM_SHA256",
        "TLS_RSA_WITH_AES_256_GCM_SHA384",
    ],
}
NODEADM_DROPIN = "40-nodeadm.conf"


def nodeadm_base_feature_gates(kubelet_version: str | None = None) -> dict[str, bool]:
    """featureGates of nodeadm's base config for that kubelet (None: the newest): withVersionToggles adds
    DynamicResourceAllocation when semver.Compare(KubeletVersion, "v1.33.0") >= 0 ("EKS enables DRA on 1.33+")."""
    minor = kubelet_minor(kubelet_version)
    gates = dict(NODEADM_BASE_CONFIG["featureGates"])
    if minor is None or int(minor.split(".")[1]) >= 33:
        gates["DynamicResourceAllocation"] = True
    return gates


# systemd.unit(5), DESCRIPTION: a unit name is ASCII letters, digits, ":", "-", "_", ".", "\\" and "@" (templates), at most
# 255 characters (https://www.freedesktop.org/software/systemd/man/latest/systemd.unit.html); systemctl adds ".service"
# to a name without a type suffix (systemctl(1), "Parameter Syntax").
_UNIT_NAME = re.compile(r"[A-Za-z0-9:_.@\\-]{1,255}")


def _paths_to_read(variables: Variables, files: NodeFiles | None, problems: list[str]) -> tuple[list[str | None], list[str | None]]:
    wanted = [
        absolute_path(variables, "kubelet_numa_nodeadm_kubelet_config", problems),
        absolute_path(variables, "kubelet_numa_nodeadm_kubelet_environment", problems),
    ]
    dirs = [
        absolute_path(variables, "kubelet_numa_nodeadm_config_dir", problems),
        absolute_path(variables, "kubelet_numa_nodeadm_kubelet_dropin_dir", problems),
    ]
    if variables.get("kubelet_numa_nodeadm_user_data_path"):
        wanted.append(absolute_path(variables, "kubelet_numa_nodeadm_user_data_path", problems))
    return wanted, dirs


def _discover(variables: Variables, node: Node, files: NodeFiles, lablabs: dict[str, Any]) -> dict[str, Any]:
    facts = {}
    if (
        not variables.get("kubelet_numa_instance_type")
        and not variables.get("kubelet_numa_max_pods")
        and files.get(variables.get("kubelet_numa_nodeadm_kubelet_config") or "") is None
    ):
        # Only when nothing else gives kubeReserved: the base config.json that nodeadm wrote holds it (_nodeadm_base).
        facts["instance_type"] = node.instance_type()
    if (
        variables.get("kubelet_numa_nodeadm_user_data_from_imds")
        and not variables.get("kubelet_numa_nodeadm_user_data")
        and not variables.get("kubelet_numa_nodeadm_user_data_path")
    ):
        # What nodeadm itself reads at boot (its user data provider asks IMDS): the plan is then exact.
        facts["nodeadm_user_data"] = node.user_data()
    return facts


def _nodeadm_base(variables: Variables, facts: dict[str, Any], nodes: list[dict[str, Any]], problems: list[str]) -> dict[str, Any] | None:
    instance_type = variables.get("kubelet_numa_instance_type") or facts.get("instance_type")
    max_pods = variables.get("kubelet_numa_max_pods") or None
    vcpus = vcpu_count(nodes)
    if vcpus is None:
        problems.append("nodeadm: the NUMA topology lists no CPUs; nodeadm reserves CPU by the node's online CPU count, so give cpus per NUMA node")
        return None
    try:
        if max_pods:
            reserved = kube_reserved(max_pods=max_pods, vcpus=vcpus)
        elif instance_type:
            reserved = kube_reserved(instance_type, vcpus=vcpus)
            max_pods = eks_max_pods(instance_type)
        else:
            problems.append(
                "kubelet_numa_instance_type: unset and not readable from the instance metadata, and the node has no "
                "nodeadm base config to read kubeReserved from; set it (e.g. m5.large) or kubelet_numa_max_pods"
            )
            return None
    except EksError as exc:
        problems.append(f"kubelet_numa_instance_type: {exc}")
        return None
    gates = nodeadm_base_feature_gates(variables.get("kubelet_numa_kubelet_version") or None)
    return dict(copy.deepcopy(NODEADM_BASE_CONFIG), apiVersion=API_VERSION, kind=KIND, maxPods=max_pods, kubeReserved=reserved, featureGates=gates)


def _nodeconfig(settings: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": NODECONFIG_API_VERSION, "kind": NODECONFIG_KIND, "spec": {"kubelet": {"config": settings}}}


def _nodeadm_file_kubelet(path: str, text: str, problems: list[str]) -> dict[str, Any]:
    try:
        configs = [kubelet_config(document) for document in file_nodeconfigs(path, text)]
    except KubeletConfigError as exc:
        problems.extend(f"{problem}; nodeadm would fail on it and leave the kubelet unconfigured" for problem in exc.problems)
        return {}
    for config in configs:
        problems.extend(field_type_problems(config, f"{path}: spec.kubelet.config."))
    return merge_kubelet_configs(configs)


def _not_set_by(config: dict[str, Any], sources: dict[str, Any]) -> dict[str, Any]:
    """The part of a merged kubelet config that `sources` (merged last) does not set, leaf by leaf."""
    rest: dict[str, Any] = {}
    for key, value in config.items():
        if key not in sources:
            rest[key] = value
        elif isinstance(value, dict) and isinstance(sources[key], dict):
            inner = _not_set_by(value, sources[key])
            if inner:
                rest[key] = inner
    return rest


def _nodeadm_user_data(
    variables: Variables, facts: dict[str, Any], files: NodeFiles, current_dropin: dict[str, Any], nodeadm_d_now: dict[str, Any], problems: list[str]
) -> tuple[Sequence[dict[str, Any] | None], str | None]:
    """(user data kubelet configs in merge order, None standing for ours; what the plan assumed, or None when exact)."""
    if "nodeadm_user_data_parts" in facts:
        return list(facts["nodeadm_user_data_parts"]), None
    text, path = variables.get("kubelet_numa_nodeadm_user_data") or "", variables.get("kubelet_numa_nodeadm_user_data_path") or ""
    if text and path:
        problems.append("kubelet_numa_nodeadm_user_data and kubelet_numa_nodeadm_user_data_path are both set; give the user data once")
        return [], None
    if path:
        if files.get(path) is None:
            problems.append(f"kubelet_numa_nodeadm_user_data_path: {path} does not exist on the node (or is not readable)")
            return [], None
        text, origin = files[path], path
    elif not text and facts.get("nodeadm_user_data") is not None:
        text, origin = facts["nodeadm_user_data"], "the instance's user data (IMDS)"
        if not text:
            return [], None  # the instance has no user data: nodeadm reads none
    else:
        origin = "kubelet_numa_nodeadm_user_data"
    if text:
        if not isinstance(text, str):
            problems.append("kubelet_numa_nodeadm_user_data: %r must be the user data's text (MIME multi-part, NodeConfig YAML or base64)" % (text,))
            return [], None
        try:
            configs = [kubelet_config(document) for document in user_data_nodeconfigs(text, origin)]
        except KubeletConfigError as exc:
            problems.extend("%s; at boot nodeadm cannot use this user data" % problem for problem in exc.problems)
            return [], None
        for config in configs:
            problems.extend(field_type_problems(config, "%s: spec.kubelet.config." % origin))
        return configs, None
    # Not given: what the drop-in holds beyond the nodeadm.d files can only have come from the user data.
    inferred = _not_set_by({key: value for key, value in current_dropin.items() if key not in ("apiVersion", "kind")}, nodeadm_d_now)
    assumption = (
        "the node's user data was not given (kubelet_numa_nodeadm_user_data, kubelet_numa_nodeadm_user_data_path or "
        "kubelet_numa_nodeadm_user_data_from_imds), so the "
        "plan assumes its kubelet settings are those of the current %s that no /etc/eks/nodeadm.d file sets: %s; a user data "
        "value that a nodeadm.d file overrides is not seen. Give the user data to make the plan exact" % (NODEADM_DROPIN, ", ".join(sorted(inferred)) or "none")
    )
    return [inferred] if inferred else [], assumption


def _layout(
    variables: Variables, facts: dict[str, Any], files: NodeFiles, intent: dict[str, Any], dropin_name: str, nodes: list[dict[str, Any]], problems: list[str]
) -> Layout | None:
    base_path = variables["kubelet_numa_nodeadm_kubelet_config"]
    source_dir = variables["kubelet_numa_nodeadm_config_dir"]
    dropin_dir = variables["kubelet_numa_nodeadm_kubelet_dropin_dir"]
    environment = variables["kubelet_numa_nodeadm_kubelet_environment"]
    ours_path = f"{source_dir}/{dropin_name}.yaml"
    # No default of its own: the role's defaults are the only ones (nodeadm-run.service).
    apply_unit = variables.get("kubelet_numa_nodeadm_apply_service")
    if not isinstance(apply_unit, str) or not _UNIT_NAME.fullmatch(apply_unit):
        problems.append(
            f"kubelet_numa_nodeadm_apply_service: {apply_unit!r} must be a systemd unit name (ASCII letters, digits and : - _ . \\ @): "
            f"the unit that applies {source_dir} and starts the kubelet"
        )
    if files.get(base_path) is not None:
        base = load_kubelet_config(base_path, files[base_path], problems)
    else:
        base = _nodeadm_base(variables, facts, nodes, problems)
    if problems:
        return None
    flags = [word for word in env_words(files.get(environment)) if not word.startswith(("--config=", "--config-dir="))]
    dropin_path = dropin_dir + "/" + NODEADM_DROPIN
    current_dropin = load_kubelet_config(dropin_path, files.get(dropin_path), problems) or {}
    # nodeadm.d as it is now (ours included as last written), and as it will be (ours in its lexical place).
    on_disk = {path: _nodeadm_file_kubelet(path, files[path] or "", problems) for path in config_files(files, source_dir)}
    user_data, assumption = _nodeadm_user_data(variables, facts, files, current_dropin, merge_kubelet_configs(on_disk.values()), problems)
    if problems:
        return None
    ours_in_user_data = None in user_data
    nodeadm_d = sorted(
        set(on_disk) - {ours_path} | ({ours_path} if not ours_in_user_data else set()), key=lambda path: posixpath.basename(path).encode("utf-8")
    )
    sources = [(None if config is None else "user data", config) for config in user_data]
    sources += [(None if path == ours_path else path, None if path == ours_path else on_disk[path]) for path in nodeadm_d]
    ours_at = next(index for index, (label, _config) in enumerate(sources) if label is None)
    if not ours_in_user_data:
        for path, config in sources[ours_at + 1 :]:
            written = config or {}
            for name in sorted(set(written) & set(intent) | ({"reservedMemory"} & set(written))):
                problems.append(
                    f"{path} sets {name}, which overrides the value numa.kubelet writes (nodeadm merges /etc/eks/nodeadm.d in lexical "
                    "order); move it into kubelet_numa_config or remove it"
                )

    def layers_for(settings: dict[str, Any]) -> KubeletLayers:
        # 40-nodeadm.conf as nodeadm rebuilds it at the next boot or nodeadm-run: the sources only, in order.
        dropin = merge_kubelet_configs(settings if config is None else config for _label, config in sources)
        return KubeletLayers(base_path, base, [(dropin_path, dict(dropin, apiVersion=API_VERSION, kind=KIND))], flags, ours=("dropin", 0))

    before_dropins = [(dropin_path, current_dropin)] if current_dropin else []
    warnings = [assumption] if assumption else []
    instance_type = variables.get("kubelet_numa_instance_type") or facts.get("instance_type")
    if files.get(base_path) is not None and instance_type and not variables.get("kubelet_numa_max_pods"):
        expected = _nodeadm_base(variables, facts, nodes, [])
        actual = ((base or {}).get("kubeReserved") or {}).get("memory")
        if expected and actual and expected["kubeReserved"]["memory"] != actual:
            warnings.append(
                "%s has kubeReserved.memory %s, but nodeadm's formula gives %s for %s: the node's value is used"
                % (base_path, actual, expected["kubeReserved"]["memory"], instance_type)
            )
    return Layout(
        unit=KUBELET_UNIT,
        apply_unit=apply_unit,
        files=[{"path": ours_path, "template": "nodeadm.j2", "mode": "0644", "content_for": _nodeconfig}],
        directories=[source_dir],
        before=KubeletLayers(base_path, base, before_dropins, flags),
        layers_for=layers_for,
        warnings=warnings,
        report_key="nodeadm",
        report={"user_data": "assumed" if assumption else "given", "sources": [label or "numa.kubelet" for label, _c in sources]},
    )


NODEADM = Platform(
    name="nodeadm",
    markers=("/etc/eks/nodeadm.d", "/etc/kubernetes/kubelet/config.json"),
    units=(KUBELET_UNIT,),
    paths_to_read=_paths_to_read,
    discover=_discover,
    layout=_layout,
)
