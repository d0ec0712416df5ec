# -*- coding: utf-8 -*-
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""roles/kubelet_numa_rollout/tasks/roll_host.yml names the failed step from the failed task's name
(__kubelet_numa_rollout_step_tasks): the table and the tasks must agree, or a renamed task would be reported as the
role's apply."""

from __future__ import annotations

import os

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
ROLL_HOST = os.path.join(REPO, "roles", "kubelet_numa_rollout", "tasks", "roll_host.yml")
STEPS = {"drain", "apply", "ready", "verify", "uncordon"}


def _roll_block():
    with open(ROLL_HOST, encoding="utf-8") as handle:
        tasks = yaml.safe_load(handle)
    (roll,) = [task for task in tasks if task.get("name") == "Roll the host"]
    return roll


def test_every_task_of_the_step_table_is_a_task_of_the_block():
    roll = _roll_block()
    names = {task.get("name") for task in roll["block"]}
    table = roll["vars"]["__kubelet_numa_rollout_step_tasks"]
    assert set(table) <= names, "step table names tasks that roll_host.yml does not have: %s" % sorted(set(table) - names)
    assert set(table.values()) <= STEPS


def test_every_task_of_the_block_has_its_step():
    # A task of the block is a step of its own (in the table), the role's apply (import_role), or verify (its marker).
    roll = _roll_block()
    table = roll["vars"]["__kubelet_numa_rollout_step_tasks"]
    for task in roll["block"]:
        if "ansible.builtin.import_role" in task or "ansible.builtin.import_tasks" in task:
            continue
        if task.get("ansible.builtin.set_fact", {}).get("__kubelet_numa_rollout_step") == "verify":
            continue
        if "ansible.builtin.set_fact" in task and "kubelet_numa_rollout_result" in task["ansible.builtin.set_fact"]:
            continue
        assert task.get("name") in table, "%r has no step in __kubelet_numa_rollout_step_tasks" % task.get("name")
