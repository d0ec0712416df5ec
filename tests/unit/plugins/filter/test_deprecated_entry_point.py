# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""_deprecated_entry_point: the warning of the kubelet_numa role's old platform entry points (through ansible-playbook:
tests/playbooks/test_role_on_the_controller.py)."""

from __future__ import annotations

import os
import re

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.numa.kubelet.plugins.filter._deprecated_entry_point import PLATFORM_ENTRY_POINTS, FilterModule

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
deprecated_entry_point = FilterModule().filters()["_deprecated_entry_point"]


@pytest.mark.parametrize("entry_point", PLATFORM_ENTRY_POINTS)
def test_the_warning_names_the_old_call_and_the_new_one(entry_point, capfd):
    text = deprecated_entry_point(entry_point)
    assert text == (
        f"The entry point tasks_from: {entry_point} of the role numa.kubelet.kubelet_numa is deprecated: run the role's "
        f"main entry point (no tasks_from) with kubelet_numa_platform: {entry_point}."
    )
    shown = " ".join(capfd.readouterr().err.split())
    assert "[DEPRECATION WARNING]" in shown and text in shown, shown
    assert re.search(r"removed from (collection '?)?numa\.kubelet'? (in )?version 0\.3\.0", shown), shown


def test_every_platform_entry_point_is_a_task_file_that_warns_and_runs_main():
    for entry_point in PLATFORM_ENTRY_POINTS:
        with open(os.path.join(REPO, "roles", "kubelet_numa", "tasks", f"{entry_point}.yml"), encoding="utf-8") as handle:
            text = handle.read()
        assert f"'{entry_point}' | numa.kubelet._deprecated_entry_point" in text, entry_point
        assert f"ansible.builtin.import_tasks: main.yml\n  vars:\n    kubelet_numa_platform: {entry_point}\n" in text, entry_point


@pytest.mark.parametrize("value", ["main", "rke2_verify", "", None, ["kubeadm"]])
def test_another_value_is_refused(value):
    with pytest.raises(AnsibleFilterError, match=r"^_deprecated_entry_point: .* is not one of kubeadm, rke2, nodeadm, k3s$"):
        deprecated_entry_point(value)
