# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""plan and state_problems: careless input is a named error, never a Python error."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.numa.kubelet.plugins.filter.plan import FilterModule

# The filters by the names playbooks call them.
plan = FilterModule().filters()["plan"]
state_problems = FilterModule().filters()["state_problems"]


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: plan([1], {}), "variables must be a mapping"),
        (lambda: plan({}, []), "facts must be a mapping"),
        (lambda: plan(None, None), "kubelet_numa_platform: None is not one of"),
        (lambda: state_problems(None, []), "must be a plan's expected_state"),
        (lambda: state_problems(5, {"policyName": "Static", "systemReserved": {}}), "5 (integer) must be the checkpoint file's text"),
    ],
)
def test_filters_name_a_list_none_or_string_where_a_mapping_belongs(call, message):
    with pytest.raises(AnsibleFilterError) as raised:
        call()
    assert message in str(raised.value) and "_Ansible" not in str(raised.value)


def test_a_checkpoint_of_another_shape_is_one_problem_line():
    expected = {"policyName": "Static", "systemReserved": {"0": 1}}
    assert state_problems("[1]", expected) == ["memory_manager_state is not a memory manager checkpoint (a JSON object with policyName and machineState)"]
    assert state_problems('{"policyName": "Static", "machineState": {"0": [1]}}', expected) == [
        "memory_manager_state reserves {} bytes per NUMA node, the plan {'0': 1}"
    ]
