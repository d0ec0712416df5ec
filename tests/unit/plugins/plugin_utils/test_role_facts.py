# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""_role_facts: what the role's set_fact keeps of a planned host besides the discovery and the plan (the self-heal's
report, lablabs.rke2's hand-over), each fact absent where the role omits it."""

from __future__ import annotations

from ansible_collections.numa.kubelet.plugins.plugin_utils._pending import guard_paths, role_writes
from ansible_collections.numa.kubelet.plugins.plugin_utils._role_facts import role_facts
from ansible_collections.numa.kubelet.tests.unit.plugins.plugin_utils.test_pending import heal_record, kubeadm_plan, render
from ansible_collections.numa.kubelet.tests.unit.plugins.plugin_utils.test_plan import lablabs_plan, plan


def with_apply(result, files=None):
    """The plan as plan_node returns it with pending=true: what applying it writes, as `apply`."""
    return dict(result, apply=role_writes(result, files or {}, {}, True, False, render))


def test_a_converged_kubeadm_host_keeps_nothing_besides_its_plan():
    assert role_facts(with_apply(kubeadm_plan())) == {}


def test_the_self_heal_the_node_recorded_is_kept():
    planned = with_apply(kubeadm_plan(), {guard_paths("kubelet.service")["healed"]: heal_record()})
    assert planned["apply"]["healed"].startswith("numa.kubelet: kubelet.service failed 3 time(s)")
    assert role_facts(planned) == {"kubelet_numa_healed": planned["apply"]["healed"]}


def test_an_rke2_plan_that_writes_its_files_hands_over_its_kubelet_args_and_options_only():
    planned = plan("rke2", {}, kubelet_numa_rke2_version="v1.32.5+rke2r1", kubelet_numa_rke2_role="server")
    assert "lablabs" not in planned["rke2"]
    assert role_facts(planned) == {"kubelet_numa_rke2_kubelet_args": planned["rke2"]["kubelet_args"], "kubelet_numa_rke2_options": planned["rke2"]["options"]}


def test_the_lablabs_hand_over_keeps_each_variable_the_plan_hands_over():
    planned = lablabs_plan({"in_servers_group": True, "rke2_server_options": ["node-ip: 192.0.2.11"], "rke2_agent_options": ["node-label: [gpu=true]"]})
    handed = planned["rke2"]["lablabs"]
    # Nothing to render as rke2_kubelet_arg: absent, so the role leaves lablabs' own unset.
    assert "rke2_kubelet_arg" not in handed
    assert role_facts(planned) == {
        "kubelet_numa_rke2_kubelet_args": planned["rke2"]["kubelet_args"],
        "kubelet_numa_rke2_options": planned["rke2"]["options"],
        "kubelet_numa_rke2_server_options": handed["rke2_server_options"],
        "kubelet_numa_rke2_agent_options": handed["rke2_agent_options"],
        "kubelet_numa_rke2_kubelet_config": handed["rke2_kubelet_config"],
    }
    kubelet_arg = lablabs_plan({"in_agents_group": True, "rke2_kubelet_arg": ["max-pods=58"]})
    assert role_facts(kubelet_arg)["kubelet_numa_rke2_kubelet_arg"] == kubelet_arg["rke2"]["lablabs"]["rke2_kubelet_arg"]
