# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Karpenter's EC2NodeClass (karpenter.k8s.aws/v1) around a node class's user data: what its CRD and spec.kubelet take.

Karpenter merges its own kubelet settings (spec.kubelet) after the user data, so they win on the node; it also schedules
with the overhead they give (aws/karpenter-provider-aws pkg/providers/instancetype/types.go). The class's reservation is
therefore carried into spec.kubelet (reservation_view) and an intent that spec.kubelet would override is refused
(conflicts). The AMI family's module decides what the user data is.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from ._eks_node_class import header_comment, mapping_or_problem, yaml_text

EC2NODECLASS_API_VERSION = "karpenter.k8s.aws/v1"
EC2NODECLASS_KIND = "EC2NodeClass"
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
# What Karpenter must know of the node's memory reservation to schedule with the same overhead as the node reserves
# (aws/karpenter-provider-aws pkg/providers/instancetype/types.go: kubeReservedResources, systemReservedResources and
# evictionThreshold read these three from spec.kubelet, else use their own formula and defaults).
KARPENTER_RESERVATION = (("kubeReserved", "memory"), ("systemReserved", "memory"), ("evictionHard", "memory.available"))
# EC2NodeClass (karpenter.k8s.aws/v1) CRD: required spec fields and the selector lists that may not be empty
# (pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml).
EC2NODECLASS_REQUIRED_TERMS = ("amiSelectorTerms", "subnetSelectorTerms", "securityGroupSelectorTerms")
_KARPENTER_KEYS = ("kubelet", "spec")


@dataclass(frozen=True)
class KarpenterAmi:
    """How an EC2NodeClass names the AMI family whose user data the class renders."""

    ami_family: str  # spec.amiFamily
    alias_prefix: str  # amiSelectorTerms alias, e.g. al2023@latest
    user_data: str  # what the user data is and who reads it, for the refusal
    extra_keys: tuple[str, ...] = ()  # keys of the class's karpenter mapping besides kubelet and spec


def _ami_problems(spec: dict, path: str, ami: KarpenterAmi) -> tuple[list[Any], list[str]]:
    """(the amiSelectorTerms aliases, the problems of spec's AMI family for this user data)."""
    family_field = spec.get("amiFamily")
    aliases = [term.get("alias") for term in spec.get("amiSelectorTerms") or [] if isinstance(term, dict) and term.get("alias")]
    if family_field not in (None, ami.ami_family) or any(not str(alias).startswith(ami.alias_prefix) for alias in aliases):
        return aliases, [
            (
                f"{path}: amiFamily {family_field!r} / amiSelectorTerms aliases {aliases}: the user data is {ami.user_data}; "
                f"use amiFamily {ami.ami_family} or an {ami.alias_prefix} alias"
            )
        ]
    return aliases, []


def ec2nodeclass_spec_problems(spec: dict, path: str, aliases: list, ami: KarpenterAmi) -> list[str]:
    """What the EC2NodeClass CRD (karpenter.k8s.aws/v1) refuses, so a class the API server would refuse is never written."""
    problems = []
    if ("role" in spec) == ("instanceProfile" in spec):
        problems.append(
            f"{path}: give exactly one of role and instanceProfile (the EC2NodeClass CRD: \"must specify exactly one of ['role', "
            f"'instanceProfile']\"); it has {'both' if 'role' in spec else 'neither'}"
        )
    for field in ("role", "instanceProfile"):
        if field in spec and (not isinstance(spec[field], str) or not spec[field]):
            problems.append(f"{path}.{field}: {spec[field]!r} must be a non-empty string")
    for field in EC2NODECLASS_REQUIRED_TERMS:
        terms = spec.get(field)
        if not isinstance(terms, list) or not terms or not all(isinstance(term, dict) and term for term in terms):
            problems.append(f"{path}.{field}: {terms!r} must be a non-empty list of selector terms (required by the EC2NodeClass CRD)")
    if not aliases and "amiFamily" not in spec:
        problems.append(
            f"{path}: amiSelectorTerms has no alias, so amiFamily is required (the EC2NodeClass CRD); "
            f"use amiFamily {ami.ami_family} or an {ami.alias_prefix} alias"
        )
    if aliases and len(spec.get("amiSelectorTerms") or []) != 1:
        problems.append(f"{path}.amiSelectorTerms: an alias term must be the only term (the EC2NodeClass CRD)")
    return problems


def _spec_kubelet_problems(kubelet: dict, spec: dict, path: str) -> list[str]:
    problems = [
        f"{path}.karpenter.kubelet.{field}: EC2NodeClass spec.kubelet ({EC2NODECLASS_API_VERSION}) has no such field (it takes "
        f"{', '.join(KARPENTER_KUBELET_FIELDS)}); put it in intent, which goes into the user data"
        for field in sorted(set(kubelet) - set(KARPENTER_KUBELET_FIELDS), key=str)
    ]
    for field in ("userData", "kubelet"):
        if field in spec:
            problems.append(
                f"{path}.karpenter.spec.{field}: rendered by numa.kubelet; {'leave it out' if field == 'userData' else 'give it as karpenter.kubelet'}"
            )
    return problems


def karpenter_inputs(node_class: dict, path: str, ami: KarpenterAmi) -> tuple[dict | None, dict | None, list[str]]:
    """(spec.kubelet, the rest of the spec, problems) of a class's karpenter key; ({}, {}, []) without one."""
    karpenter = node_class.get("karpenter")
    if karpenter is None:
        return {}, {}, []
    karpenter, problems = mapping_or_problem(karpenter, path + ".karpenter")
    if karpenter is None:
        return None, None, problems
    unknown = sorted(set(karpenter) - set(_KARPENTER_KEYS + ami.extra_keys), key=str)
    if unknown:
        extra = "".join(f", {key}" for key in ami.extra_keys)
        problems.append(f"{path}.karpenter: unknown keys {unknown}; use kubelet (EC2NodeClass spec.kubelet) and spec (the rest of the spec){extra}")
    kubelet, kubelet_problems = mapping_or_problem(karpenter.get("kubelet"), path + ".karpenter.kubelet")
    spec, spec_problems = mapping_or_problem(karpenter.get("spec"), path + ".karpenter.spec")
    problems += kubelet_problems + spec_problems
    if kubelet is None or spec is None:
        return None, None, problems
    problems += _spec_kubelet_problems(kubelet, spec, path)
    aliases, ami_problems = _ami_problems(spec, path + ".karpenter.spec", ami)
    problems += ami_problems + ec2nodeclass_spec_problems(spec, path + ".karpenter.spec", aliases, ami)
    return kubelet, spec, problems


def conflicts(intent: dict, karpenter_kubelet: dict, path: str) -> list[str]:
    """Fields of the intent that Karpenter's kubelet settings, merged after the user data, would silently replace."""
    problems = []
    for field in KARPENTER_ALWAYS_SETS:
        if field in intent and field not in karpenter_kubelet:
            problems.append(
                f"{path}.intent.{field}: Karpenter's own NodeConfig, merged after the user data, always sets {field}; set it in "
                f"karpenter.kubelet instead{'' if field != 'registerWithTaints' else ' (taints go in the NodePool)'}"
            )
    for field, theirs in karpenter_kubelet.items():
        if field not in intent:
            continue
        ours = intent[field]
        if isinstance(ours, dict) and isinstance(theirs, dict):
            clashes = sorted(key for key in set(ours) & set(theirs) if str(ours[key]) != str(theirs[key]))
            problems.extend(
                f"{path}: intent.{field}.{key} is {ours[key]} but karpenter.kubelet.{field}.{key} is {theirs[key]}; Karpenter's NodeConfig is merged "
                "last and wins, so the user data's value would be ignored: set one of them"
                for key in clashes
            )
        elif ours != theirs:
            problems.append(
                f"{path}: intent.{field} is {ours!r} but karpenter.kubelet.{field} is {theirs!r}; "
                "Karpenter's NodeConfig is merged last and wins: set one of them"
            )
    return problems


def reservation_view(karpenter_kubelet: dict, effective: dict) -> dict:
    """spec.kubelet with the node's kubeReserved, systemReserved and evictionHard memory, so that Karpenter's scheduling
    overhead is what the node reserves; Karpenter's settings are merged last, so the node keeps these values."""
    view = copy.deepcopy(karpenter_kubelet)
    for field, key in KARPENTER_RESERVATION:
        value = (effective.get(field) or {}).get(key)
        if value is not None:
            view[field] = dict(view.get(field) or {}, **{key: value})
    return view


def ec2nodeclass(name: str, spec: dict, karpenter_kubelet: dict, user_data: str, header: str | None) -> str:
    """The EC2NodeClass document: the user's spec, then spec.kubelet and the rendered userData."""
    body: dict[str, Any] = dict(spec)
    if karpenter_kubelet:
        body["kubelet"] = karpenter_kubelet
    body["userData"] = user_data
    document = {"apiVersion": EC2NODECLASS_API_VERSION, "kind": EC2NODECLASS_KIND, "metadata": {"name": name}, "spec": body}
    return header_comment(header) + yaml_text(document)
