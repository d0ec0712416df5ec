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
from typing import Any

from ._config import API_VERSION, KIND, KubeletConfigError
from ._eks import EksError, kube_reserved
from ._eks import max_pods as eks_max_pods
from ._eks_nodeadm import NODECONFIG_API_VERSION, NODECONFIG_KIND, config_files, file_nodeconfigs, kubelet_config, merge_kubelet_configs
from ._feature_gates import kubelet_minor
from ._kubelet_fields import field_type_problems
from ._plan_inputs import KubeletLayers, NodeFiles, Variables, absolute_path, absolute_paths, dropins_in, env_words, load_kubelet_config, vcpu_count
from ._platform import KUBELET_UNIT, Layout, LayoutInputs, Node, Platform
from ._platform_nodeadm_user_data import NODEADM_DROPIN, nodeadm_user_data

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


def _paths_to_read(variables: Variables, files: NodeFiles | None) -> tuple[list[str | None], list[str | None], list[str]]:
    wanted, problems = absolute_paths(variables, ("kubelet_numa_nodeadm_kubelet_config", "kubelet_numa_nodeadm_kubelet_environment"))
    dirs, found = absolute_paths(variables, ("kubelet_numa_nodeadm_config_dir", "kubelet_numa_nodeadm_kubelet_dropin_dir"))
    problems += found
    if variables.get("kubelet_numa_nodeadm_user_data_path"):
        path, found = absolute_path(variables, "kubelet_numa_nodeadm_user_data_path")
        wanted.append(path)
        problems += found
    return wanted, dirs, problems


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


def _nodeadm_base(variables: Variables, facts: dict[str, Any], nodes: list[dict[str, Any]]) -> tuple[dict[str, Any] | None, list[str]]:
    instance_type = variables.get("kubelet_numa_instance_type") or facts.get("instance_type")
    max_pods = variables.get("kubelet_numa_max_pods") or None
    vcpus = vcpu_count(nodes)
    if vcpus is None:
        return None, ["nodeadm: the NUMA topology lists no CPUs; nodeadm reserves CPU by the node's online CPU count, so give cpus per NUMA node"]
    try:
        if max_pods:
            reserved = kube_reserved(max_pods=max_pods, vcpus=vcpus)
        elif instance_type:
            reserved = kube_reserved(instance_type, vcpus=vcpus)
            max_pods = eks_max_pods(instance_type)
        else:
            unset = (
                "kubelet_numa_instance_type: unset and not readable from the instance metadata, and the node has no "
                "nodeadm base config to read kubeReserved from; set it (e.g. m5.large) or kubelet_numa_max_pods"
            )
            return None, [unset]
    except EksError as exc:
        return None, [f"kubelet_numa_instance_type: {exc}"]
    gates = nodeadm_base_feature_gates(variables.get("kubelet_numa_kubelet_version") or None)
    return dict(copy.deepcopy(NODEADM_BASE_CONFIG), apiVersion=API_VERSION, kind=KIND, maxPods=max_pods, kubeReserved=reserved, featureGates=gates), []


def _nodeconfig(settings: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": NODECONFIG_API_VERSION, "kind": NODECONFIG_KIND, "spec": {"kubelet": {"config": settings}}}


def _nodeadm_file_kubelet(path: str, text: str) -> tuple[dict[str, Any], list[str]]:
    try:
        configs = [kubelet_config(document) for document in file_nodeconfigs(path, text)]
    except KubeletConfigError as exc:
        return {}, [f"{problem}; nodeadm would fail on it and leave the kubelet unconfigured" for problem in exc.problems]
    return merge_kubelet_configs(configs), [problem for config in configs for problem in field_type_problems(config, f"{path}: spec.kubelet.config.")]


def _apply_unit_problems(apply_unit: object, source_dir: str) -> list[str]:
    if isinstance(apply_unit, str) and _UNIT_NAME.fullmatch(apply_unit):
        return []
    problem = (
        f"kubelet_numa_nodeadm_apply_service: {apply_unit!r} must be a systemd unit name (ASCII letters, digits and : - _ . \\ @): "
        f"the unit that applies {source_dir} and starts the kubelet"
    )
    return [problem]


def _base_reserved_warnings(inputs: LayoutInputs, base: dict[str, Any] | None) -> list[str]:
    """The node's base config.json keeps a kubeReserved.memory other than nodeadm's formula gives: say which is used."""
    variables, base_path = inputs.variables, inputs.variables["kubelet_numa_nodeadm_kubelet_config"]
    instance_type = variables.get("kubelet_numa_instance_type") or inputs.facts.get("instance_type")
    if inputs.files.get(base_path) is None or not instance_type or variables.get("kubelet_numa_max_pods"):
        return []
    expected, _problems = _nodeadm_base(variables, inputs.facts, inputs.nodes)
    actual = ((base or {}).get("kubeReserved") or {}).get("memory")
    if expected and actual and expected["kubeReserved"]["memory"] != actual:
        return [
            "%s has kubeReserved.memory %s, but nodeadm's formula gives %s for %s: the node's value is used"
            % (base_path, actual, expected["kubeReserved"]["memory"], instance_type)
        ]
    return []


def _sources(inputs: LayoutInputs, ours_path: str, current_dropin: dict[str, Any]) -> tuple[list[tuple[str | None, Any]], list[str], str | None, list[str]]:
    """(the kubelet config sources nodeadm merges into 40-nodeadm.conf, in order, (None, None) standing for ours; the
    problems of nodeadm.d files after ours that override it; what the plan assumed of the user data, or None; the
    problems in reading the sources)."""
    on_disk: dict[str, Any] = {}
    problems: list[str] = []
    # nodeadm.d as it is now (ours included as last written), and as it will be (ours in its lexical place).
    for path in config_files(inputs.files, inputs.variables["kubelet_numa_nodeadm_config_dir"]):
        on_disk[path], found = _nodeadm_file_kubelet(path, inputs.files[path] or "")
        problems += found
    user_data, assumption, found = nodeadm_user_data(inputs.variables, inputs.facts, inputs.files, current_dropin, merge_kubelet_configs(on_disk.values()))
    if problems + found:
        return [], [], None, problems + found
    ours_in_user_data = None in user_data
    nodeadm_d = sorted(
        set(on_disk) - {ours_path} | ({ours_path} if not ours_in_user_data else set()), key=lambda path: posixpath.basename(path).encode("utf-8")
    )
    sources: list[tuple[str | None, Any]] = [(None if config is None else "user data", config) for config in user_data]
    sources += [(None if path == ours_path else path, None if path == ours_path else on_disk[path]) for path in nodeadm_d]
    ours_at = next(index for index, (label, _config) in enumerate(sources) if label is None)
    overrides = [
        f"{path} sets {name}, which overrides the value numa.kubelet writes (nodeadm merges /etc/eks/nodeadm.d in lexical "
        "order); move it into kubelet_numa_config or remove it"
        for path, config in ([] if ours_in_user_data else sources[ours_at + 1 :])
        for name in sorted(set(config or {}) & set(inputs.intent) | ({"reservedMemory"} & set(config or {})))
    ]
    return sources, overrides, assumption, []


def _layout(inputs: LayoutInputs) -> tuple[Layout | None, list[str]]:
    variables, files = inputs.variables, inputs.files
    base_path, source_dir = variables["kubelet_numa_nodeadm_kubelet_config"], variables["kubelet_numa_nodeadm_config_dir"]
    ours_path = f"{source_dir}/{inputs.dropin_name}.yaml"
    # No default of its own: the role's defaults are the only ones (nodeadm-run.service).
    apply_unit = variables.get("kubelet_numa_nodeadm_apply_service")
    problems = _apply_unit_problems(apply_unit, source_dir)
    if files.get(base_path) is not None:
        base, found = load_kubelet_config(base_path, files[base_path], dropin=False)
    else:
        base, found = _nodeadm_base(variables, inputs.facts, inputs.nodes)
    if problems + found:
        return None, problems + found
    flags = [
        word for word in env_words(files.get(variables["kubelet_numa_nodeadm_kubelet_environment"])) if not word.startswith(("--config=", "--config-dir="))
    ]
    # The kubelet's --config-dir is config.json.d: every *.conf at any depth, in the walk's order, 40-nodeadm.conf among them.
    dropin_dir = variables["kubelet_numa_nodeadm_kubelet_dropin_dir"]
    dropin_path = dropin_dir + "/" + NODEADM_DROPIN
    before_dropins, problems = dropins_in(files, dropin_dir)
    current_dropin = dict(before_dropins).get(dropin_path) or {}
    sources, overrides, assumption, found = _sources(inputs, ours_path, current_dropin)
    if problems + found:
        return None, problems + found

    def layers_for(settings: dict[str, Any]) -> KubeletLayers:
        # 40-nodeadm.conf as nodeadm rebuilds it at the next boot or nodeadm-run: the sources only, in order.
        rebuilt = merge_kubelet_configs(settings if config is None else config for _label, config in sources)
        dropins, found = dropins_in(files, dropin_dir, replace=(dropin_path, dict(rebuilt, apiVersion=API_VERSION, kind=KIND)))
        position = [path for path, _document in dropins].index(dropin_path)
        return KubeletLayers(base_path, base, dropins, flags, ours=("dropin", position), problems=found)

    layout = Layout(
        unit=KUBELET_UNIT,
        apply_unit=apply_unit,
        files=[{"path": ours_path, "template": "nodeadm.j2", "mode": "0644", "content_for": _nodeconfig}],
        directories=[source_dir],
        before=KubeletLayers(base_path, base, before_dropins, flags),
        layers_for=layers_for,
        warnings=([assumption] if assumption else []) + _base_reserved_warnings(inputs, base),
        report_key="nodeadm",
        report={"user_data": "assumed" if assumption else "given", "sources": [label or "numa.kubelet" for label, _c in sources]},
    )
    return layout, overrides


NODEADM = Platform(
    name="nodeadm",
    markers=("/etc/eks/nodeadm.d", "/etc/kubernetes/kubelet/config.json"),
    units=(KUBELET_UNIT,),
    paths_to_read=_paths_to_read,
    discover=_discover,
    layout=_layout,
)
