# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""plan_node's node: what `rke2 --version` / `k3s --version` print, and a host failure saying what to set when they fail;
the variables it hands the role's templates."""

from __future__ import annotations

import copy

import pytest

from ansible_collections.numa.kubelet.plugins.action.plan_node import K3S_PATH, RKE2_PATH, _Node, _NodeFailure, _ShallowCopied


class FakeAction:
    """The action's connection: the command lines it ran, and one answer for all of them."""

    def __init__(self, rc, stdout="", stderr=""):
        self.answer = {"rc": rc, "stdout": stdout, "stderr": stderr}
        self.commands = []

    def _low_level_execute_command(self, command):
        self.commands.append(command)
        return dict(self.answer)


@pytest.mark.parametrize(("program", "path"), [("rke2", RKE2_PATH), ("k3s", K3S_PATH)])
def test_the_version_is_what_the_program_prints_on_the_node(program, path):
    action = FakeAction(0, stdout=f"{program} version v1.32.5+{program}1 (abc)\ngo version go1.23.8\n")
    version = getattr(_Node(action, {}, None), program + "_version")()
    assert version == action.answer["stdout"]
    assert action.commands == [f"PATH={path} {program} --version"]


@pytest.mark.parametrize(
    ("program", "message"),
    [
        (
            "rke2",
            (
                "plan_node: `rke2 --version` failed (rc 127): sh: 1: rke2: not found; before RKE2 is installed, give the version to "
                "install: kubelet_numa_rke2_version, or lablabs.rke2's rke2_version"
            ),
        ),
        (
            "k3s",
            "plan_node: `k3s --version` failed (rc 127): sh: 1: k3s: not found; before k3s is installed, give the version to install: kubelet_numa_k3s_version",
        ),
    ],
)
def test_a_missing_program_fails_the_host_saying_which_variable_to_set(program, message):
    action = FakeAction(127, stderr=f"sh: 1: {program}: not found\n")
    with pytest.raises(_NodeFailure) as failure:
        getattr(_Node(action, {}, None), program + "_version")()
    assert failure.value.result == {"failed": True, "rc": 127, "stdout": "", "stderr": f"sh: 1: {program}: not found\n", "msg": message}


def test_the_template_lookups_copy_of_the_task_variables_is_shallow():
    # ansible.builtin.template's lookup deep-copies its variables for every template, then adds the template_* ones.
    task_vars = {"kubelet_numa_config": {"kubeReserved": {"memory": "1Gi"}}, "ansible_search_path": ["/role"]}
    copied = copy.deepcopy(_ShallowCopied(task_vars))
    copied.update(template_path="kubeadm.j2")
    assert not isinstance(copied, _ShallowCopied) and copied["kubelet_numa_config"] is task_vars["kubelet_numa_config"]
    assert "template_path" not in task_vars
