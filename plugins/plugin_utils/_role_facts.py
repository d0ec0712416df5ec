# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The facts the role keeps for a planned host besides kubelet_numa_discovered and kubelet_numa_plan, decided once here.

numa.kubelet.plan_node returns them as `role_facts`, so that the role's set_fact (roles/kubelet_numa/tasks/plan.yml)
only copies them: each expression the set_fact templates is compiled again for every host (docs/performance.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# lablabs.rke2's variables the plan may hand over (plan.rke2.lablabs), each kept as kubelet_numa_<name>.
HANDED_OVER = ("rke2_server_options", "rke2_agent_options", "rke2_kubelet_arg", "rke2_kubelet_config")


def role_facts(plan: Mapping[str, Any]) -> dict[str, Any]:
    """{fact: value} of a planned host: kubelet_numa_healed when the node reported a self-heal (plan.apply.healed), the
    RKE2 plan's kubelet_numa_rke2_kubelet_args and kubelet_numa_rke2_options, and kubelet_numa_<name> for each of
    HANDED_OVER that the plan's lablabs.rke2 hand-over holds. A fact that does not apply is absent (the role omits it)."""
    facts: dict[str, Any] = {}
    healed = (plan.get("apply") or {}).get("healed")
    if healed:
        facts["kubelet_numa_healed"] = healed
    rke2 = plan.get("rke2") or {}
    if plan.get("platform") == "rke2":
        facts["kubelet_numa_rke2_kubelet_args"] = rke2["kubelet_args"]
        facts["kubelet_numa_rke2_options"] = rke2["options"]
    handed_over = rke2.get("lablabs") or {}
    facts.update({f"kubelet_numa_{name}": handed_over[name] for name in HANDED_OVER if name in handed_over})
    return facts
