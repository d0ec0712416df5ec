# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""numa.kubelet.rollout checks its variables against the kubelet_numa_rollout role's argument_specs first.

Two local hosts, in check mode (nothing on this machine changes); a bad value stops the playbook at the role's
validation, before the rollout's first own task, with a message that names the host, the variable, the value and the
type it must have. Good values of the same variables, given as text the way -e gives them, pass it.
"""

from __future__ import annotations

import os
import subprocess
import sys

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.dirname(sys.executable)
FIRST_TASK = "TASK [numa.kubelet.kubelet_numa_rollout : Refuse node-local restarts that were not asked for]"


def rollout(collections_root, tmp_path, *extra, host_vars=None):
    local = {"ansible_connection": "local", "ansible_python_interpreter": sys.executable, "ansible_become": False}
    hosts = {name: dict(local, **(host_vars or {}).get(name, {})) for name in ("node-a", "node-b")}
    inventory = tmp_path / "inventory.yml"
    inventory.write_text(yaml.safe_dump({"all": {"hosts": hosts, "vars": {"kubelet_numa_config": {"memoryManagerPolicy": "Static"}}}}))
    env = dict(
        os.environ,
        ANSIBLE_COLLECTIONS_PATH=str(collections_root),
        ANSIBLE_HOME=str(tmp_path / "ansible-home"),
        ANSIBLE_LOCAL_TEMP=str(tmp_path / "ansible-tmp"),
        ANSIBLE_NOCOLOR="1",
    )
    return subprocess.run(
        [os.path.join(BIN, "ansible-playbook"), "-i", str(inventory), "--check", *extra, os.path.join(REPO, "playbooks", "rollout.yml")],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def test_a_value_that_is_not_an_int_is_refused_before_the_first_task(collections_root, tmp_path):
    result = rollout(collections_root, tmp_path, "-e", "kubelet_numa_rollout_node_local=true", "-e", "kubelet_numa_rollout_drain_timeout=5m")
    assert result.returncode == 2, result.stdout + result.stderr
    for host in ("node-a", "node-b"):
        assert (f"fatal: [{host}]: FAILED! =>") in result.stdout, result.stdout
    assert (
        "argument 'kubelet_numa_rollout_drain_timeout' is of type str and we were unable to convert to int: \"'5m'\" cannot be converted to an int"
    ) in result.stdout + result.stderr, result.stdout
    assert FIRST_TASK not in result.stdout


def test_a_host_variable_that_is_not_a_bool_is_refused_for_that_host(collections_root, tmp_path):
    result = rollout(collections_root, tmp_path, host_vars={"node-b": {"kubelet_numa_rollout_drain_force": "maybe"}})
    assert result.returncode == 2, result.stdout + result.stderr
    fatal = [line for line in result.stdout.splitlines() if line.startswith("fatal: [")]
    assert len(fatal) == 1 and fatal[0].startswith("fatal: [node-b]: FAILED! =>"), result.stdout
    assert (
        "argument 'kubelet_numa_rollout_drain_force' is of type str and we were unable to convert to bool: The value 'maybe' is not a valid boolean."
    ) in fatal[0]
    assert FIRST_TASK not in result.stdout


def test_good_values_given_as_text_pass_the_validation(collections_root, tmp_path):
    # -e gives text; the specs convert it for the check. Here the rollout then refuses for want of a kubeconfig.
    result = rollout(
        collections_root,
        tmp_path,
        "-e",
        "kubelet_numa_rollout_drain_timeout=20",
        "-e",
        "kubelet_numa_rollout_drain_force=yes",
        "-e",
        "kubelet_numa_rollout_node_local=false",
        "-e",
        "kubelet_numa_rollout_serial=25%",
    )
    assert result.returncode == 2, result.stdout + result.stderr
    assert FIRST_TASK in result.stdout
    assert "Validation of arguments failed" not in result.stdout + result.stderr
    assert "numa.kubelet.rollout refused; nothing was drained or changed: kubelet_numa_rollout_kubeconfig is not set" in result.stdout
