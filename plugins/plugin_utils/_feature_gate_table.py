# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet's feature gates per version: FEATURE_GATES holds, per kubelet minor version, every gate the kubelet
registers with its stage, default and lock at that version (the latest versioned spec whose version is <= the
kubelet's), read from the tables of _feature_gates_v1_36, _v1_33 and _v1_31; GATE_DEPENDENCIES_V1_36 the dependencies
the v1.36 kubelet enforces. How a config's featureGates resolve on them: _feature_gates.

Sources: FEATURE_GATES_SOURCE (kube_features.go and feature_gate.go; names, stages, defaults and locks as the released
kubelets v1.36.2, v1.33.13 and v1.31.14 report them); docs/kubelet-facts.md, feature gates.
"""

from __future__ import annotations

from typing import NamedTuple

from . import _feature_gates_v1_31, _feature_gates_v1_33, _feature_gates_v1_36

FEATURE_GATES_SOURCE = (
    "kubernetes/kubernetes pkg/features/kube_features.go (defaultVersionedKubernetesFeatureGates and "
    "defaultKubernetesFeatureGateDependencies, https://github.com/kubernetes/kubernetes/blob/v1.36.2/pkg/features/kube_features.go; "
    "the v1.33 layout compared at b0b89d3bd251db932ed5a7bef66039fb88acab64), with the gates it takes from k8s.io/apiserver, "
    "apiextensions-apiserver, controller-manager, component-base zpages and logs, and client-go; "
    "staging/src/k8s.io/component-base/featuregate/feature_gate.go at 00c2fffd238f216a4f8820f27fa47c3a6a86c1be (SetFromMap, "
    "unsafeSetFromMap and their texts). Each table holds the gates the released kubelet of that version knows (v1.36.2, "
    "v1.33.13, v1.31.14): alpha and beta gates with their defaults as its `kubelet --help` lists them, GA and deprecated "
    "gates and every lock as it reports them when a config sets the gate (its 'setting GA feature gate' warning and its "
    "'feature is locked to' error). OpenShift's own gates (RouteExternalCertificate, MinimumKubeletVersion, "
    "StoragePerformantSecurityPolicy) are left out: upstream kubelets do not know them."
)

DEFAULT_KUBELET_VERSION = "1.36"
ALPHA, BETA, GA, DEPRECATED = "Alpha", "Beta", "GA", "Deprecated"
ALL_ALPHA, ALL_BETA = "AllAlpha", "AllBeta"


class GateSpec(NamedTuple):
    """A gate's state at one kubelet version: stage, default, and whether it is locked to that default."""

    stage: str
    default: bool
    locked: bool


def _parse_table(text: str) -> dict[str, GateSpec]:
    table = {}
    for line in text.strip().splitlines():
        name, stage, default, *lock = line.split()
        table[name] = GateSpec(stage, default == "true", lock == ["locked"])
    return table


FEATURE_GATES: dict[str, dict[str, GateSpec]] = {
    "1.36": _parse_table(_feature_gates_v1_36.GATES),
    "1.33": _parse_table(_feature_gates_v1_33.GATES),
    "1.31": _parse_table(_feature_gates_v1_31.GATES),
}
GATE_DEPENDENCIES_V1_36: dict[str, tuple[str, ...]] = _feature_gates_v1_36.DEPENDENCIES
GATE_DEPENDENCIES: dict[str, dict[str, tuple[str, ...]]] = {"1.36": GATE_DEPENDENCIES_V1_36}


def kubelet_minor(kubelet_version: str | None) -> str | None:
    """ "1.33", "v1.33.13" or "1.33.13+rke2r1" -> "1.33"; None -> the default (1.36). None when not a version."""
    if kubelet_version is None:
        return DEFAULT_KUBELET_VERSION
    parts = str(kubelet_version).strip().lstrip("v").split(".")
    if len(parts) < 2 or not parts[0].isdigit():
        return None
    minor = "".join(ch for ch in parts[1] if ch.isdigit()) if parts[1][:1].isdigit() else ""
    return f"{parts[0]}.{minor}" if minor else None


def gate_table(kubelet_version: str | None = None) -> dict[str, GateSpec] | None:
    """The gates of that kubelet version, or None when the collection has no table for it."""
    return FEATURE_GATES.get(kubelet_minor(kubelet_version) or "")
