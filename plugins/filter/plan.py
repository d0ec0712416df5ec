# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.numa.kubelet.plugins.plugin_utils._config import KubeletConfigError, plain_data
from ansible_collections.numa.kubelet.plugins.plugin_utils._manager_inputs import state_problems
from ansible_collections.numa.kubelet.plugins.plugin_utils._plan import plan_host


def plan(variables, facts):
    """The plan for one host."""
    try:
        return plan_host(plain_data(variables), plain_data(facts))
    except KubeletConfigError as exc:
        raise AnsibleFilterError(f"plan: {exc}") from exc


def state_problems_filter(state_text, expected_state):
    """How a memory_manager_state differs from a plan's expected_state."""
    try:
        return state_problems(plain_data(state_text), plain_data(expected_state))
    except KubeletConfigError as exc:
        raise AnsibleFilterError(f"state_problems: {exc}") from exc


class FilterModule:
    """Node planning."""

    def filters(self):
        return {"plan": plan, "state_problems": state_problems_filter}
