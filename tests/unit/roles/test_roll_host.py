# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""roles/kubelet_numa_rollout/tasks/roll_host.yml: every task of the roll carries its step in its own vars, and the
rescue reports the step of the task that failed (ansible_failed_task.vars), whatever the tasks are named.

ansible_failed_task is the task that failed itself, with only its own vars: those of an import or of a block around
it do not reach it. The roll's role calls (apply: the kubelet_numa role; verify: verify_host.yml, which imports the
role's planning) are therefore blocks whose rescue raises the failure again from tasks that carry the step.

The roll runs here through ansible-playbook of the ansible-core under test (scripts/test-matrix runs this file on each
core, 2.18 to 2.21), on local hosts that each fail at another step: the real roll_host.yml with the real
kubelet_numa role and verify_host.yml, and a kubectl stand-in that fails the subcommand a host's kubeconfig names.
Four hosts lose their control host (an ssh stand-in that runs the commands here until it is gone) at a step on it:
the roll's ignore_unreachable leaves that step UNREACHABLE without a failure, and the roll must stop there, before
the next step, and record that step.
A kubelet that restarts cannot run on the controller, so apply fails in the role's planning (a bad split) and the
rule that a rolled-back restart read in verify fails the apply (transaction_failed) is left to tests/restart
(test_settle.py). The hosts that get past verify are RKE2 nodes laid out under the test's directory as the plan wants
them (its drop-in, a memory_manager_state, the /configz the kubectl stand-in answers).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
import yaml

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
ROLL_HOST = os.path.join(REPO, "roles", "kubelet_numa_rollout", "tasks", "roll_host.yml")
BIN = os.path.dirname(sys.executable)
# The steps of the summary and of docs/rollout.md ("On failure").
STEPS = {"drain", "apply", "ready", "verify", "uncordon"}
STEP = "__kubelet_numa_rollout_step"
RERAISE = "__kubelet_numa_rollout_reraise"
# Task keys that run tasks of another file: their tasks carry their own vars only.
CALLS = {"ansible.builtin.import_role", "ansible.builtin.include_role", "ansible.builtin.import_tasks", "ansible.builtin.include_tasks"}


def _roll_block(tasks):
    (roll,) = [task for task in tasks if task.get("name") == "Roll the host"]
    return roll


def _load_roll_block():
    with open(ROLL_HOST, encoding="utf-8") as handle:
        return _roll_block(yaml.safe_load(handle))


def _items(block):
    """The items of a block, and of the blocks in it that only group tasks (no rescue of their own), in order."""
    for item in block:
        if "block" in item and not item.get("rescue"):
            yield from _items(item["block"])
        else:
            yield item


def unstepped(block):
    """The problems of the roll's block against the rule: each task has its own step; a task that calls another file
    is in a block whose rescue tasks all carry one step and end by failing again, marked as the re-raise."""
    problems = []
    for item in _items(block):
        name = item.get("name")
        if "block" in item:
            rescue = item["rescue"]
            steps = {(task.get("vars") or {}).get(STEP) for task in rescue}
            if len(steps) != 1 or not steps <= STEPS:
                problems.append(f"{name!r}: its rescue tasks must all carry one step of {sorted(STEPS)}, they carry {sorted(map(str, steps))}")
            elif not ("ansible.builtin.fail" in rescue[-1] and rescue[-1]["vars"].get(RERAISE) is True):
                problems.append(f"{name!r}: its rescue must end with an ansible.builtin.fail that has {RERAISE}: true")
        elif CALLS & set(item):
            problems.append(f"{name!r}: its tasks do not get its vars; put it in a block whose rescue carries the step")
        elif (item.get("vars") or {}).get(STEP) not in STEPS:
            problems.append(f"{name!r}: no step of {sorted(STEPS)} in its own vars")
    return problems


def test_every_task_of_the_roll_carries_its_step():
    assert unstepped(_load_roll_block()["block"]) == []


def test_every_step_is_a_task_of_the_roll():
    carried = {(task.get("vars") or {}).get(STEP) for item in _items(_load_roll_block()["block"]) for task in (item.get("rescue") or [item])}
    assert carried == STEPS


def test_the_rule_refuses_a_task_without_its_step_and_a_bare_role_call():
    items = list(_items(_load_roll_block()["block"]))
    (uncordon,) = [dict(item, vars={}) for item in items if item.get("name") == "Uncordon the node"]
    bare_call = {"name": "Apply", "ansible.builtin.import_role": {"name": "numa.kubelet.kubelet_numa"}, "vars": {STEP: "apply"}}
    (apply,) = [item for item in items if "block" in item and item["rescue"][0]["vars"][STEP] == "apply"]
    unmarked = dict(apply, rescue=[dict(task, vars={STEP: "apply"}) for task in apply["rescue"]])
    assert unstepped([{"name": "A group", "block": [uncordon, bare_call]}, unmarked]) == [
        f"'Uncordon the node': no step of {sorted(STEPS)} in its own vars",
        "'Apply': its tasks do not get its vars; put it in a block whose rescue carries the step",
        f"'Apply the kubelet NUMA configuration': its rescue must end with an ansible.builtin.fail that has {RERAISE}: true",
    ]


# ---- the roll through ansible-playbook -------------------------------------------------------------------------

# kubectl as roll_host.yml and verify_host.yml call it, on the control host. Its kubeconfig (JSON) says which
# command fails ("fail") and after which one the control host is lost ("lose_control_after": the file GONE beside
# the kubeconfig appears, and the control host's ssh stand-in answers 255 from then on). A command is kubectl's
# subcommand, except `get --raw` ("get-raw": verify's /configz, answered with the JSON kept beside the kubeconfig) and
# the roll's `patch` of the Node: "cordon" (the cordon and its record), "uncordon", or "annotate" (the record only).
# `get node` answers a Node that is Ready with a heartbeat of now.
KUBECTL = """#!%s
import json
import os
import sys
import time

args = sys.argv[1:]
kubeconfig = [arg.split("=", 1)[1] for arg in args if arg.startswith("--kubeconfig=")][0]
command = [arg for arg in args if not arg.startswith("-")][0]
if command == "get" and "--raw" in args:
    command = "get-raw"
elif command == "patch":
    command = "cordon" if '"unschedulable": true' in args[-1] else "uncordon" if '"unschedulable": false' in args[-1] else "annotate"
with open(kubeconfig) as handle:
    test = json.load(handle)
if command == test.get("fail"):
    sys.exit("error: kubectl %%s failed for the test" %% command)
if command == "get-raw":
    if not os.path.exists(kubeconfig + ".configz"):
        sys.exit("error: no /configz for the test")
    with open(kubeconfig + ".configz") as handle:
        sys.stdout.write(handle.read())
if command == "get":
    heartbeat = time.strftime("%%Y-%%m-%%dT%%H:%%M:%%SZ", time.gmtime())
    json.dump({"status": {"conditions": [{"type": "Ready", "status": "True", "lastHeartbeatTime": heartbeat}]}}, sys.stdout)
if command == test.get("lose_control_after"):
    open(kubeconfig + ".gone", "w").close()
"""
# ssh as the connection runs it, for a host that cannot be reached: 255 is ssh's own error (ansible-core: UNREACHABLE).
SSH_GONE = "#!%s\nimport sys\n\nsys.exit(255)\n"
# ssh to a control host that is this machine (pipelining: the command is the last argument, the module comes on
# stdin): runs the command here until the file GONE exists, then answers as a host that went away.
SSH_CONTROL = """#!%s
import os
import subprocess
import sys

if os.path.exists(%r):
    sys.exit(255)
sys.exit(subprocess.call(["/bin/sh", "-c", sys.argv[-1]]))
"""
# systemctl where systemd is not PID 1 (this controller, a container): the local hosts are nodes whose units nobody
# can ask about, on every controller alike (one with a kubelet.service of its own, or no systemctl at all). Only the
# start of the kubelet unit's process, which the ready step reads, is answered: one second after boot.
NO_SYSTEMD = """#!%s
import sys

if "--property=ExecMainStartTimestampMonotonic" in sys.argv:
    sys.exit(print("ExecMainStartTimestampMonotonic=1000000"))
sys.exit("System has not been booted with systemd as init system (PID 1). Can't operate.")
"""

# Each host: its kubeconfig for the kubectl stand-in, and what the roll must record.
FAILS = {
    "at-drain": ({"fail": "drain"}, {"step": "drain", "message": "error: kubectl drain failed for the test"}),
    "at-apply": ({}, {"step": "apply", "message": "kubelet_numa_reserved_memory_split: 'bogus' is not one of even, first, proportional"}),
    "at-ready": ({"fail": "get"}, {"step": "ready", "message": "error: kubectl get failed for the test"}),
    "at-verify-plan": ({}, {"step": "verify", "message": "does not exist: this is not a kubeadm node that has joined its cluster"}),
    "at-verify-drift": ({}, {"step": "verify", "message": "numa.kubelet.verify: at-verify-drift drifted from the plan:"}),
    "at-uncordon": ({"fail": "uncordon"}, {"step": "uncordon", "message": "error: kubectl uncordon failed for the test"}),
    "unreachable": ({}, {"step": "apply", "message": "unreachable: "}),
    # The control host (control-HOST) lost: from the start, or after the step before.
    "lost-at-drain": ({"lose_control_after": ""}, {"step": "drain", "message": "the control host control-lost-at-drain could not be reached: "}),
    "lost-at-ready": ({"lose_control_after": "drain"}, {"step": "ready", "message": "the control host control-lost-at-ready could not be reached: "}),
    "lost-at-verify": ({"lose_control_after": "get"}, {"step": "verify", "message": "the control host control-lost-at-verify could not be reached: "}),
    "lost-at-uncordon": (
        {"lose_control_after": "get-raw"},
        {"step": "uncordon", "message": "the control host control-lost-at-uncordon could not be reached: "},
    ),
}
# Laid out as their plan wants them: verify passes.
CONVERGED = ("at-uncordon", "lost-at-uncordon", "rolled")


def _rke2_node(node):
    return {
        "kubelet_numa_platform": "rke2",
        "kubelet_numa_rke2_role": "agent",
        "kubelet_numa_rke2_version": "v1.33.1+rke2r1",
        "kubelet_numa_rke2_config_dir": os.path.join(node, "rke2"),
        "kubelet_numa_rke2_data_dir": os.path.join(node, "rke2-data"),
        "kubelet_numa_kubelet_root_dir": os.path.join(node, "kubelet"),
    }


def _program(path, text):
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(0o755)
    return str(path)


def _inventory(tmp_path):
    local = {"ansible_connection": "local", "ansible_python_interpreter": sys.executable}
    nodes, controls = {}, {}
    for host in [*FAILS, "rolled"]:
        node = str(tmp_path / "nodes" / host)
        os.makedirs(os.path.join(node, "kubelet"))
        test = FAILS[host][0] if host in FAILS else {}
        kubeconfig = tmp_path / (f"{host}.kubeconfig")
        kubeconfig.write_text(json.dumps(test), encoding="utf-8")
        nodes[host] = dict(local, **_rke2_node(node), kubelet_numa_rollout_kubeconfig=str(kubeconfig))
        if "lose_control_after" in test:
            gone = str(kubeconfig) + ".gone"
            if not test["lose_control_after"]:
                open(gone, "w").close()
            control = "control-" + host
            ssh = _program(tmp_path / "bin" / ("ssh-" + control), SSH_CONTROL % (sys.executable, gone))
            controls[control] = {
                "ansible_connection": "ssh",
                "ansible_ssh_executable": ssh,
                "ansible_host": "192.0.2.1",
                "ansible_pipelining": True,
                "ansible_python_interpreter": sys.executable,
            }
            nodes[host]["kubelet_numa_rollout_control_host"] = control
    bad_split = {"kubelet_numa_config": {"memoryManagerPolicy": "Static"}, "kubelet_numa_reserved_memory_split": "bogus"}
    nodes["at-apply"].update(bad_split)
    # Were the kubelet_numa role run on it, it would fail there, at apply.
    nodes["lost-at-drain"].update(bad_split)
    nodes["at-verify-plan"].update(
        {"kubelet_numa_platform": "kubeadm", "kubelet_numa_kubeadm_config_file": str(tmp_path / "nodes" / "at-verify-plan" / "kubelet" / "config.yaml")}
    )
    # With intent, the first task on the node is the role's planning (without, the role does nothing on the node).
    nodes["unreachable"].update(
        ansible_connection="ssh",
        ansible_ssh_executable=_program(tmp_path / "bin" / "ssh-gone", SSH_GONE % sys.executable),
        ansible_host="192.0.2.1",
        kubelet_numa_config={"memoryManagerPolicy": "Static"},
    )
    kubectl = _program(tmp_path / "bin" / "kubectl", KUBECTL % sys.executable)
    _program(tmp_path / "bin" / "systemctl", NO_SYSTEMD % sys.executable)
    # No intent: the kubelet_numa role leaves these hosts alone (apply succeeds without a restart).
    common = {"kubelet_numa_config": {}, "kubelet_numa_rollout_kubectl": kubectl}
    path = tmp_path / "inventory.yml"
    inventory = {"all": {"vars": common, "children": {"nodes": {"hosts": nodes}, "controls": {"hosts": controls}}}}
    path.write_text(yaml.safe_dump(inventory), encoding="utf-8")
    return path


def _playbook(tmp_path):
    results = tmp_path / "results.json"
    plays = [
        {
            "name": "Lay the converged hosts out as their plan wants them",
            "hosts": ",".join(CONVERGED),
            "gather_facts": False,
            "tasks": [
                {"name": "Plan the host", "ansible.builtin.include_role": {"name": "numa.kubelet.kubelet_numa", "tasks_from": "plan.yml"}},
                {
                    "name": "Write nothing outside the test's directory",
                    "ansible.builtin.assert": {"that": "kubelet_numa_plan.files | map(attribute='path') | reject('match', nodes) | list == []"},
                    "vars": {"nodes": re.escape(str(tmp_path / "nodes") + os.sep)},
                },
                {
                    "name": "Make the planned files' directories",
                    "ansible.builtin.file": {"path": "{{ item.path | ansible.builtin.dirname }}", "state": "directory", "mode": "0755"},
                    "loop": "{{ kubelet_numa_plan.files }}",
                },
                {
                    "name": "Write the planned files",
                    "ansible.builtin.copy": {"content": "{{ item.content | ansible.builtin.to_nice_yaml }}", "dest": "{{ item.path }}", "mode": "0644"},
                    "loop": "{{ kubelet_numa_plan.files }}",
                },
                {
                    "name": "Write the memory manager's checkpoint",
                    "ansible.builtin.copy": {
                        "content": '{"policyName": "{{ kubelet_numa_plan.expected_state.policyName }}", "machineState": {}}',
                        "dest": "{{ kubelet_numa_plan.root_dir }}/memory_manager_state",
                        "mode": "0600",
                    },
                },
                {
                    "name": "Keep the /configz the kubectl stand-in answers",
                    "ansible.builtin.copy": {
                        "content": "{{ {'kubeletconfig': kubelet_numa_plan.kubelet_config} | ansible.builtin.to_json }}",
                        "dest": "{{ kubelet_numa_rollout_kubeconfig }}.configz",
                        "mode": "0600",
                    },
                },
            ],
        },
        {
            "name": "Roll every node in one batch",
            "hosts": "nodes",
            "gather_facts": False,
            "serial": "100%",
            "tasks": [{"name": "Roll the host", "ansible.builtin.import_role": {"name": "numa.kubelet.kubelet_numa_rollout", "tasks_from": "roll_host"}}],
        },
        {
            "name": "Write what the rescue recorded",
            "hosts": "localhost",
            "gather_facts": False,
            "tasks": [
                {
                    "name": "Write each host's result",
                    "ansible.builtin.copy": {
                        # null for a host whose rescue recorded nothing.
                        "content": (
                            "{% set results = {} %}{% for host in groups.nodes %}"
                            "{% set _ = results.update({host: hostvars[host].kubelet_numa_rollout_result | default(none)}) %}"
                            "{% endfor %}{{ results | ansible.builtin.to_json }}"
                        ),
                        "dest": str(results),
                        "mode": "0600",
                    },
                }
            ],
        },
    ]
    path = tmp_path / "roll.yml"
    path.write_text(yaml.safe_dump(plays, sort_keys=False), encoding="utf-8")
    return path, results


@pytest.fixture(scope="module")
def rolled(collections_root, tmp_path_factory):
    """Each host's kubelet_numa_rollout_result after one roll, everything ansible-playbook printed, its exit code."""
    tmp_path = tmp_path_factory.mktemp("roll_host")
    inventory = _inventory(tmp_path)
    playbook, results = _playbook(tmp_path)
    env = dict(
        os.environ,
        PATH=os.pathsep.join([str(tmp_path / "bin"), os.environ["PATH"]]),
        ANSIBLE_COLLECTIONS_PATH=str(collections_root),
        ANSIBLE_HOME=str(tmp_path / "ansible-home"),
        ANSIBLE_LOCAL_TEMP=str(tmp_path / "ansible-tmp"),
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_FORKS="8",
        ANSIBLE_LOCALHOST_WARNING="false",
        ANSIBLE_HOST_KEY_CHECKING="false",
        ANSIBLE_RETRY_FILES_ENABLED="false",
    )
    done = subprocess.run(
        [os.path.join(BIN, "ansible-playbook"), "-i", str(inventory), str(playbook)],
        cwd=str(tmp_path),
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    output = done.stdout + done.stderr
    assert results.exists(), output[-4000:]
    return json.loads(results.read_text(encoding="utf-8")), output, done.returncode


def test_the_rescue_catches_every_failure(rolled):
    # No host failed: each rescue recorded its host's result and the rollout's summary would run.
    assert rolled[2] == 0, rolled[1][-4000:]


@pytest.mark.parametrize("host", sorted(FAILS))
def test_the_rescue_reports_the_step_of_the_failed_task(rolled, host):
    result = rolled[0][host]
    expected = FAILS[host][1]
    assert result is not None, f"the rescue recorded nothing for {host} (its output: test_the_rescue_catches_every_failure)"
    assert (result["result"], result["step"]) == ("failed", expected["step"]), result
    assert expected["message"] in result["message"], result
    assert result["unreachable"] is (host == "unreachable"), result
    assert result["cordoned"] is True, result


def test_a_host_that_fails_nowhere_is_rolled(rolled):
    assert rolled[0]["rolled"] == {"result": "applied", "message": "uncordoned"}


def test_the_role_calls_fail_again_at_their_step(rolled):
    # The failure inside the role or verify_host.yml is shown first, then the roll's own task fails with the step.
    output = rolled[1]
    for host, step in (("at-apply", "apply"), ("at-verify-plan", "verify"), ("at-verify-drift", "verify"), ("unreachable", "apply")):
        assert re.search(rf"fatal: \[{host}\]: FAILED! => .*numa\.kubelet\.rollout: {host} failed at the {step} step \(above\)", output), host
