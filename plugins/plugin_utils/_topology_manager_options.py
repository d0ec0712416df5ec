# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the kubelet refuses in its topology manager's fields and when it builds the manager, with its own texts.

Sources (kubernetes/kubernetes, read at the release tags v1.31.14, v1.33.13 and v1.36.2; docs/kubelet-facts.md):
pkg/kubelet/apis/config/validation/validation.go (topology policy and scope names),
pkg/kubelet/cm/topologymanager/topology_manager.go (the NUMA node limit) and policy_options.go. Option names and
maturity differ by kubelet version; the table below is each version's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ._config import TOPOLOGY_MANAGER_POLICIES, lookalike_hint
from ._cpuset import go_atoi, go_parse_bool
from ._go_text import go_quote
from ._manager_options import ALPHA, BETA, STABLE, manager_policy, option_gate_enabled, policy_options

PREFER_CLOSEST_NUMA_NODES = "prefer-closest-numa-nodes"
MAX_ALLOWABLE_NUMA_NODES = "max-allowable-numa-nodes"
# topologymanager/policy_options.go of each version.
TOPOLOGY_POLICY_OPTIONS = {
    "1.31": {PREFER_CLOSEST_NUMA_NODES: BETA, MAX_ALLOWABLE_NUMA_NODES: BETA},
    "1.33": {PREFER_CLOSEST_NUMA_NODES: STABLE, MAX_ALLOWABLE_NUMA_NODES: BETA},
    "1.36": {PREFER_CLOSEST_NUMA_NODES: STABLE, MAX_ALLOWABLE_NUMA_NODES: STABLE},
}
DEFAULT_MAX_ALLOWABLE_NUMA_NODES = 8
# pkg/kubelet/apis/config/types.go ContainerTopologyManagerScope, PodTopologyManagerScope.
TOPOLOGY_MANAGER_SCOPES = ("container", "pod")
_TOPOLOGY_GATES = {ALPHA: "TopologyManagerPolicyAlphaOptions", BETA: "TopologyManagerPolicyBetaOptions"}


def _topology_availability(name: str, version: str, config: Mapping) -> str | None:
    table = TOPOLOGY_POLICY_OPTIONS.get(version)
    if table is None:
        return None
    maturity = table.get(name)
    if maturity is None:
        return f"unknown Topology Manager Policy option: {go_quote(name)}"
    if maturity in _TOPOLOGY_GATES and not option_gate_enabled(config, _TOPOLOGY_GATES[maturity], version):
        level = "Alpha" if maturity == ALPHA else "Beta"
        text = f"Topology Manager Policy {level}-level Options not enabled"
        # From 1.33 the kubelet writes this one in lower case.
        if version != "1.31":
            text = text.lower()
        return f"{text}, but option {go_quote(name)} provided"
    return None


def _topology_field_problems(config: Mapping) -> list[str]:
    """validation.go: the policy and the scope are each one of a fixed list (an empty value is defaulted)."""
    problems = []
    policy = config.get("topologyManagerPolicy")
    if isinstance(policy, str) and policy and policy not in TOPOLOGY_MANAGER_POLICIES:
        allowed = " ".join(go_quote(name) for name in TOPOLOGY_MANAGER_POLICIES)
        problems.append(
            f"topologyManagerPolicy: invalid configuration: topologyManagerPolicy (--topology-manager-policy) {go_quote(policy)} "
            f"must be one of: [{allowed}]{lookalike_hint(policy)}"
        )
    scope = config.get("topologyManagerScope")
    if isinstance(scope, str) and scope and scope not in TOPOLOGY_MANAGER_SCOPES:
        problems.append(
            f"topologyManagerScope: invalid configuration: topologyManagerScope (--topology-manager-scope) {go_quote(scope)} "
            f'must be one of: "container", or "pod"{lookalike_hint(scope)}'
        )
    return problems


def topology_manager_problems(config: Mapping, nodes: Sequence | None = None, kubelet_version: str = "1.36") -> list[str]:
    """What the kubelet refuses in the topology manager's fields (validation.go) and when it builds the manager.

    The options are read only under a policy other than none.
    """
    version = kubelet_version
    problems = _topology_field_problems(config)
    policy = manager_policy(config, "topologyManagerPolicy")
    if policy not in TOPOLOGY_MANAGER_POLICIES or policy == "none":
        return problems
    limit: int | None = DEFAULT_MAX_ALLOWABLE_NUMA_NODES
    for name, value in sorted(policy_options(config, "topologyManagerPolicyOptions").items()):
        path = f"topologyManagerPolicyOptions.{name}"
        refusal = _topology_availability(name, version, config)
        if refusal is not None:
            problems.append(f"{path}: {refusal}")
            limit = None if name == MAX_ALLOWABLE_NUMA_NODES else limit
            continue
        try:
            if name == PREFER_CLOSEST_NUMA_NODES:
                go_parse_bool(value)
            elif name == MAX_ALLOWABLE_NUMA_NODES:
                limit = None
                try:
                    number = go_atoi(value)
                except ValueError as exc:
                    problems.append(f"{path}: unable to convert policy option to integer {go_quote(name)}: {exc}")
                    continue
                if number < DEFAULT_MAX_ALLOWABLE_NUMA_NODES:
                    problems.append(f"{path}: the minimum value of {go_quote(name)} should not be less than {DEFAULT_MAX_ALLOWABLE_NUMA_NODES}")
                    continue
                limit = number
        except ValueError as exc:
            problems.append(f"{path}: bad value for option {go_quote(name)}: {exc}")
    if nodes and limit is not None and len(nodes) > limit:
        given = MAX_ALLOWABLE_NUMA_NODES in policy_options(config, "topologyManagerPolicyOptions")
        path = f"topologyManagerPolicyOptions.{MAX_ALLOWABLE_NUMA_NODES}" if given else "topologyManagerPolicy"
        problems.append(
            f"{path}: unsupported on machines with more than {limit} NUMA Nodes (this node has {len(nodes)}; "
            f'set topologyManagerPolicyOptions {{{MAX_ALLOWABLE_NUMA_NODES}: "{len(nodes)}"}})'
        )
    return problems
