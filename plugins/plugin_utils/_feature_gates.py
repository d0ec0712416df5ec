# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How a config's featureGates resolve on the kubelet's gates (k8s.io/component-base/featuregate).

resolve_feature_gates(featureGates) does what featuregate SetFromMap does: an explicit value wins, AllAlpha / AllBeta
set the unset gates of their stage, a locked gate set to the other value and an unknown gate are errors, and (from
v1.35) a gate enabled while a gate it depends on is disabled is an error. The kubelet runs SetFromMap while it
defaults the config file and panics on any error (v1.31 reports it as a start error instead). Values that are not
booleans fail the config's decoding first (_kubelet_fields); here they count as unset. The gates of each kubelet
version: _feature_gate_table.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field

from ._feature_gate_table import (
    ALL_ALPHA,
    ALL_BETA,
    ALPHA,
    BETA,
    DEFAULT_KUBELET_VERSION,
    FEATURE_GATES,
    GATE_DEPENDENCIES,
    GateSpec,
    gate_table,
    kubelet_minor,
)


@dataclass
class GateResolution:
    """The gates a config runs with, and what the kubelet would say about its featureGates."""

    table: Mapping[str, GateSpec] = field(default_factory=dict)
    explicit: Mapping[str, bool] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def enabled(self, name: str) -> bool | None:
        """Enabled(name) after SetFromMap; None for a gate this kubelet version does not know."""
        return _resolved_value(self.table, self.explicit, name) if name in self.table else None


def _explicit_gates(gates: object) -> dict[str, bool]:
    """The featureGates entries the kubelet decodes; anything else is the decoding's problem (_kubelet_fields)."""
    if not isinstance(gates, Mapping):
        return {}
    return {str(name): value for name, value in gates.items() if isinstance(value, bool)}


def _resolved_value(table: Mapping[str, GateSpec], explicit: Mapping[str, bool], name: str) -> bool:
    spec = table[name]
    if spec.locked:
        return spec.default
    if name in explicit:
        return explicit[name]
    special = {ALPHA: ALL_ALPHA, BETA: ALL_BETA}.get(spec.stage)
    if special is not None and special in explicit:
        return explicit[special]
    return spec.default


def gate_enabled(gates: object, name: str, kubelet_version: str | None = None) -> bool:
    """localFeatureGate.Enabled(name) after SetFromMap(featureGates); False for a gate that version does not know."""
    table = gate_table(kubelet_version)
    if table is None or name not in table:
        return False
    return _resolved_value(table, _explicit_gates(gates), name)


def _unknown_gate(name: str, table: Mapping[str, GateSpec], minor: str) -> str:
    guess = difflib.get_close_matches(name, sorted(table), n=1, cutoff=0.8)
    hint = f'; did you mean "{guess[0]}"?' if guess else ""
    return f"featureGates.{name}: unrecognized feature gate: {name} (not a gate of kubelet v{minor}){hint}"


def resolve_feature_gates(gates: object, kubelet_version: str | None = None) -> GateResolution:
    """featuregate SetFromMap(featureGates) on the kubelet's gates of that version: the gates it runs with and its errors.

    Errors carry the kubelet's text (feature_gate.go unsafeSetFromMap): "unrecognized feature gate: X",
    "cannot set feature gate X to false, feature is locked to true", "X is enabled, but depends on features that are
    disabled: [Y]". For a version without a table, or a gate missing from an older version's table, a warning says
    the collection cannot check it.
    """
    minor = kubelet_minor(kubelet_version)
    table = FEATURE_GATES.get(minor or "")
    explicit = _explicit_gates(gates)
    if table is None:
        if explicit:
            return GateResolution(
                warnings=[
                    "featureGates: the collection has no feature-gate table for kubelet %s (it knows %s); these gates are not checked"
                    % (kubelet_version, ", ".join(sorted(FEATURE_GATES)))
                ]
            )
        return GateResolution()
    resolution = GateResolution(table, explicit)
    for name, value in explicit.items():
        spec = table.get(name)
        if spec is None:
            if minor == DEFAULT_KUBELET_VERSION:
                resolution.errors.append(_unknown_gate(name, table, minor))
            else:
                resolution.warnings.append(
                    "featureGates.%s: not in the collection's table of kubelet v%s gates, so it cannot be checked for that version; "
                    "a kubelet refuses a gate it does not know (unrecognized feature gate: %s)" % (name, minor, name)
                )
        elif spec.locked and value != spec.default:
            resolution.errors.append(
                "featureGates.%s: cannot set feature gate %s to %s, feature is locked to %s; the kubelet stops at start (v%s %s)"
                % (name, name, _go_bool(value), _go_bool(spec.default), minor, "panics while defaulting its config" if minor != "1.31" else "refuses it")
            )
    if resolution.errors:
        # unsafeSetFromMap checks dependencies only once every gate was set.
        return resolution
    for feature, dependencies in GATE_DEPENDENCIES.get(minor or "", {}).items():
        if not resolution.enabled(feature):
            continue
        disabled = [dependency for dependency in dependencies if not resolution.enabled(dependency)]
        if disabled:
            resolution.errors.append("featureGates: %s is enabled, but depends on features that are disabled: [%s]" % (feature, " ".join(disabled)))
    return resolution


def _go_bool(value: bool) -> str:
    return "true" if value else "false"


def feature_gate_problems(config: Mapping, kubelet_version: str | None = None) -> list[str]:
    """The errors the kubelet reports for the config's featureGates (docs/troubleshooting.md, feature gates)."""
    return resolve_feature_gates(config.get("featureGates"), kubelet_version).errors


def feature_gate_warnings(config: Mapping, kubelet_version: str | None = None) -> list[str]:
    """The featureGates the collection cannot check for that kubelet version."""
    return resolve_feature_gates(config.get("featureGates"), kubelet_version).warnings
