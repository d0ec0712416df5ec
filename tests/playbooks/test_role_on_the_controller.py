# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet_numa role through ansible-playbook on the controller, in check mode (nothing on this machine changes):
the EC2 instance metadata path against a local IMDSv2 stand-in, platform detection failures, --diff output."""

from __future__ import annotations

import http.server
import json
import os
import re
import subprocess
import sys
import threading
from typing import ClassVar

import pytest
import yaml
from ansible.release import __version__ as ansible_core_version

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.path.dirname(sys.executable)
# A kubeadm node's main config as the kubelet needs it at least (without apiVersion and kind it refuses to start).
KUBEADM_CONFIG = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
TOPOLOGY = {
    "numa_nodes": [{"id": 0, "memory_bytes": 16 << 30, "cpus": list(range(0, 48))}, {"id": 1, "memory_bytes": 16 << 30, "cpus": list(range(48, 96))}],
    "numa_memory_capacity_bytes": 32 << 30,
}


class _Imds(http.server.BaseHTTPRequestHandler):
    """IMDSv2 stand-in: a token from PUT /latest/api/token, then metadata only with that token."""

    # Every request gets a new handler: the record of requests is the class's.
    seen: ClassVar[list] = []
    user_data = ""

    def do_PUT(self):
        self.seen.append(("PUT", self.path, self.headers.get("X-aws-ec2-metadata-token-ttl-seconds")))
        self._answer(200, "token-123" if self.path == "/latest/api/token" else "")

    def do_GET(self):
        self.seen.append(("GET", self.path, self.headers.get("X-aws-ec2-metadata-token")))
        if self.headers.get("X-aws-ec2-metadata-token") != "token-123":
            self._answer(401, "")
        elif self.path == "/latest/meta-data/instance-type":
            self._answer(200, "p4d.24xlarge")
        elif self.path == "/latest/user-data" and self.user_data:
            self._answer(200, self.user_data)
        else:
            self._answer(404, "")

    def _answer(self, status, body):
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):  # quiet
        pass


@pytest.fixture()
def imds():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Imds)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Imds.seen = []
    _Imds.user_data = ""
    yield "http://127.0.0.1:%d" % server.server_address[1]
    server.shutdown()


def role_play(tmp_path, role_vars, plan_file):
    play = [
        {
            "name": "Run the role in check mode",
            "hosts": "localhost",
            "gather_facts": False,
            "tasks": [
                {"name": "The role", "ansible.builtin.include_role": {"name": "numa.kubelet.kubelet_numa"}, "vars": role_vars},
                {
                    "name": "Keep the plan",
                    "ansible.builtin.copy": {"content": "{{ kubelet_numa_plan | to_json }}", "dest": str(plan_file), "mode": "0600"},
                    "check_mode": False,
                    "delegate_to": "localhost",
                },
            ],
        }
    ]
    path = tmp_path / "play.yml"
    path.write_text(yaml.safe_dump(play, sort_keys=False))
    return path


def tasks_play(tmp_path, name, tasks):
    path = tmp_path / "play.yml"
    path.write_text(yaml.safe_dump([{"name": name, "hosts": "localhost", "gather_facts": False, "tasks": tasks}]))
    return path


def run_check(collections_path, tmp_path, playbook):
    env = dict(
        os.environ,
        ANSIBLE_COLLECTIONS_PATH=str(collections_path),
        ANSIBLE_HOME=str(tmp_path / "ansible-home"),
        ANSIBLE_LOCAL_TEMP=str(tmp_path / "ansible-tmp"),
        ANSIBLE_NOCOLOR="1",
    )
    return subprocess.run(
        [
            os.path.join(BIN, "ansible-playbook"),
            "-i",
            "localhost,",
            "-c",
            "local",
            "-e",
            f"ansible_python_interpreter={sys.executable}",
            "--check",
            "--diff",
            str(playbook),
        ],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def nodeadm_role_vars(tmp_path, imds, **extra):
    """A nodeadm node laid out under tmp_path, with no nodeadm base config: kubeReserved comes from nodeadm's formula."""
    return dict(
        {
            "kubelet_numa_platform": "nodeadm",
            "kubelet_numa_topology": TOPOLOGY,
            "kubelet_numa_imds_url": imds,
            "kubelet_numa_nodeadm_kubelet_config": str(tmp_path / "no-such-config.json"),
            "kubelet_numa_nodeadm_config_dir": str(tmp_path / "nodeadm.d"),
            "kubelet_numa_nodeadm_kubelet_dropin_dir": str(tmp_path / "config.json.d"),
            "kubelet_numa_nodeadm_kubelet_environment": str(tmp_path / "environment"),
            "kubelet_numa_kubelet_root_dir": str(tmp_path / "kubelet"),
            "kubelet_numa_config": {"memoryManagerPolicy": "Static", "topologyManagerPolicy": "single-numa-node"},
        },
        **extra,
    )


def test_nodeadm_reads_the_instance_type_from_imdsv2(collections_root, tmp_path, imds):
    plan_file = tmp_path / "plan.json"
    role_vars = nodeadm_role_vars(tmp_path, imds)
    result = run_check(collections_root, tmp_path, role_play(tmp_path, role_vars, plan_file))
    assert result.returncode == 0, result.stdout + result.stderr
    plan = json.loads(plan_file.read_text())
    # p4d.24xlarge: maxPods 737, (11 * 737 + 255)Mi + the 100Mi eviction default = 8462Mi = 4231Mi x 2.
    assert [item["limits"]["memory"] for item in plan["reserved_memory"]] == ["4231Mi", "4231Mi"]
    assert plan["kubelet_config"]["kubeReserved"]["memory"] == "8362Mi"
    assert ("PUT", "/latest/api/token", "60") in _Imds.seen
    assert ("GET", "/latest/meta-data/instance-type", "token-123") in _Imds.seen
    # Check mode with --diff shows the NodeConfig that would be written, and writes nothing.
    assert "+    kubelet:" in result.stdout or "+  kubelet:" in result.stdout
    assert not (tmp_path / "nodeadm.d").exists()


def test_nodeadm_reads_the_user_data_from_imdsv2(collections_root, tmp_path, imds):
    # The instance's user data pins kubeReserved at 8Gi: the plan is what nodeadm builds from it, with no warning.
    _Imds.user_data = (
        'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="//"\n\n--//\nContent-Type: application/node.eks.aws\n\n'
        "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      kubeReserved:\n"
        "        memory: 8Gi\n--//--\n"
    )
    plan_file = tmp_path / "plan.json"
    role_vars = nodeadm_role_vars(tmp_path, imds, kubelet_numa_nodeadm_user_data_from_imds=True, kubelet_numa_instance_type="p4d.24xlarge")
    result = run_check(collections_root, tmp_path, role_play(tmp_path, role_vars, plan_file))
    assert result.returncode == 0, result.stdout + result.stderr
    plan = json.loads(plan_file.read_text())
    # 8Gi + 100Mi = 8292Mi = 4146Mi x 2.
    assert [item["limits"]["memory"] for item in plan["reserved_memory"]] == ["4146Mi", "4146Mi"]
    assert plan["nodeadm"]["user_data"] == "given" and "[WARNING]: the node's user data" not in result.stdout
    assert ("GET", "/latest/user-data", "token-123") in _Imds.seen


def test_an_undetectable_platform_fails_the_host_in_planning(collections_root, tmp_path):
    plan_file = tmp_path / "plan.json"
    role_vars = {
        "kubelet_numa_topology": TOPOLOGY,
        "kubelet_numa_config": {"memoryManagerPolicy": "Static"},
        "kubelet_numa_node_files": {"/var/lib/kubelet/config.yaml": KUBEADM_CONFIG, "/etc/rancher/rke2/config.yaml": "token: x\n"},
    }
    result = run_check(collections_root, tmp_path, role_play(tmp_path, role_vars, plan_file))
    assert result.returncode == 2
    assert (
        "kubelet_numa_platform: cannot detect the platform: this host looks like kubeadm (/var/lib/kubelet/config.yaml) "
        "and rke2 (/etc/rancher/rke2); set kubelet_numa_platform"
    ) in result.stdout
    assert not plan_file.exists()


def test_empty_intent_leaves_the_host_alone(collections_root, tmp_path):
    path = tasks_play(tmp_path, "No intent", [{"name": "The role", "ansible.builtin.include_role": {"name": "numa.kubelet.kubelet_numa"}}])
    result = run_check(collections_root, tmp_path, path)
    assert result.returncode == 0, result.stdout
    assert "changed=0" in result.stdout
    # Every task of the role after its argument check is skipped: nothing is read on the host, nothing planned.
    outcomes = re.findall(r"TASK \[numa\.kubelet\.kubelet_numa : (.+?)\] \**\n(\w+):", result.stdout)
    assert ("Discover and plan the node", "skipping") in outcomes, result.stdout
    assert [task for task, outcome in outcomes if outcome != "skipping" and not task.startswith("Validating arguments")] == [], outcomes


def test_the_plans_warnings_are_shown_as_task_warnings(collections_root, tmp_path):
    plan_file = tmp_path / "plan.json"
    # No topologyManagerPolicy: the kubelet's default "none" admits pods whose memory spans NUMA nodes.
    role_vars = {
        "kubelet_numa_platform": "kubeadm",
        "kubelet_numa_topology": TOPOLOGY,
        "kubelet_numa_config": {"memoryManagerPolicy": "Static"},
        "kubelet_numa_node_files": {"/var/lib/kubelet/config.yaml": KUBEADM_CONFIG},
        "kubelet_numa_kubeadm_config_dir": str(tmp_path / "kubelet.conf.d"),
        "kubelet_numa_kubeadm_extra_args_file": str(tmp_path / "kubelet.env"),
    }
    result = run_check(collections_root, tmp_path, role_play(tmp_path, role_vars, plan_file))
    assert result.returncode == 0, result.stdout + result.stderr
    output = " ".join((result.stdout + result.stderr).split())
    assert '[WARNING]: topologyManagerPolicy "none" with memoryManagerPolicy "Static"' in output, output
    assert json.loads(plan_file.read_text())["warnings"]


def test_plan_node_refuses_arguments_of_the_wrong_type(collections_root, tmp_path):
    path = tasks_play(tmp_path, "Bad arguments", [{"name": "Plan", "numa.kubelet.plan_node": {"variables": "kubeadm"}}])
    result = run_check(collections_root, tmp_path, path)
    assert result.returncode == 2
    refusal = re.search(
        r"argument 'variables' is of type (.+?) and we were unable to convert to dict: dictionary requested, could not parse JSON or key=value",
        result.stdout,
    )
    assert refusal, result.stdout
    assert refusal.group(1) == type_name_of_a_yaml_string(), refusal.group(0)


def type_name_of_a_yaml_string() -> str:
    """How ansible-core's argument validation names the type of a string from a playbook: from 2.19 by its native
    name (module_utils/datatag.py native_type_name), in 2.18 by the parser's class."""
    core = tuple(int(part) for part in ansible_core_version.split(".")[:2])
    return "str" if core >= (2, 19) else "<class 'ansible.parsing.yaml.objects.AnsibleUnicode'>"


def test_the_plan_says_what_the_role_writes_rendered_from_its_templates(collections_root, tmp_path):
    plan_file = tmp_path / "plan.json"
    config_dir = str(tmp_path / "kubelet.conf.d")
    role_vars = {
        "kubelet_numa_platform": "kubeadm",
        "kubelet_numa_topology": TOPOLOGY,
        "kubelet_numa_config": {"memoryManagerPolicy": "Static", "topologyManagerPolicy": "single-numa-node"},
        "kubelet_numa_node_files": {"/var/lib/kubelet/config.yaml": KUBEADM_CONFIG},
        "kubelet_numa_kubeadm_config_dir": config_dir,
        "kubelet_numa_kubeadm_extra_args_file": str(tmp_path / "kubelet.env"),
    }
    result = run_check(collections_root, tmp_path, role_play(tmp_path, role_vars, plan_file))
    assert result.returncode == 0, result.stdout + result.stderr
    plan = json.loads(plan_file.read_text())
    writes = {write["path"]: write for write in plan["apply"]["writes"]}
    # The files were given, not read: nothing is known to be in place, so everything is pending.
    assert plan["apply"]["pending"] is True and plan["apply"]["pending_writes"] == list(writes)
    dropin = writes[config_dir + "/50-numa-kubelet.conf"]
    assert dropin["mode"] == "0644"
    assert dropin["content"].startswith("#\n# Ansible managed\n#\n# kubeadm: a --config-dir drop-in"), dropin["content"]
    assert yaml.safe_load(dropin["content"]) == next(entry["content"] for entry in plan["files"] if entry["path"] == dropin["path"])
    guard = writes["/etc/systemd/system/kubelet.service.d/90-numa-kubelet-reboot-reset.conf"]["content"]
    assert "ExecStartPre=-/bin/sh -c 'if [ ! -e /run/numa-kubelet/kubelet.service.reset ] || { [ -e /etc/numa-kubelet/kubelet.service.manager-inputs ]" in guard
    assert "cp /etc/numa-kubelet/kubelet.service.manager-inputs /var/lib/numa-kubelet/kubelet.service.started-inputs.tmp" in guard
    assert writes["/etc/numa-kubelet/kubelet.service.manager-inputs"]["content"].endswith("\n" + plan["manager_inputs"]["planned"] + "\n")
    assert plan["apply"]["guard"]["writes"] == [
        write
        for write in plan["apply"]["writes"]
        if write["path"]
        in (
            "/etc/systemd/system/kubelet.service.d/90-numa-kubelet-reboot-reset.conf",
            "/etc/numa-kubelet/kubelet.service.manager-inputs",
            "/etc/numa-kubelet/numa-kubelet-heal",
            "/var/lib/numa-kubelet/kubelet.service.started-inputs",
        )
    ]
    # The self-heal's ExecStopPost, with the role's defaults (3 failed exits within 10 minutes).
    assert "\nExecStopPost=-/usr/bin/env python3 /etc/numa-kubelet/numa-kubelet-heal exited kubelet.service 3 10\n" in guard
    assert plan["apply"]["guard"]["seed_started"] is True


def test_plan_node_with_pending_outside_the_role_says_it_needs_the_roles_templates(collections_root, tmp_path):
    variables = {
        "kubelet_numa_platform": "kubeadm",
        "kubelet_numa_topology": TOPOLOGY,
        "kubelet_numa_reboot_reset": True,
        "kubelet_numa_reserved_memory_split": "even",
        "kubelet_numa_config": {"memoryManagerPolicy": "Static"},
        "kubelet_numa_kubelet_root_dir": "/var/lib/kubelet",
        "kubelet_numa_dropin_name": "50-numa-kubelet",
        "kubelet_numa_kubeadm_config_file": "/var/lib/kubelet/config.yaml",
        "kubelet_numa_kubeadm_flags_file": "/var/lib/kubelet/kubeadm-flags.env",
        "kubelet_numa_kubeadm_extra_args_file": "/etc/default/kubelet",
        "kubelet_numa_kubeadm_config_dir": "/etc/kubernetes/kubelet.conf.d",
        "kubelet_numa_node_files": {"/var/lib/kubelet/config.yaml": KUBEADM_CONFIG},
    }
    path = tasks_play(tmp_path, "Pending outside the role", [{"name": "Plan", "numa.kubelet.plan_node": {"variables": variables, "pending": True}}])
    result = run_check(collections_root, tmp_path, path)
    assert result.returncode == 2, result.stdout
    assert (
        "plan_node: localhost: cannot decide what is pending (pending=true renders the templates of the role numa.kubelet.kubelet_numa, "
        "so the task must run in it): the template file reboot-reset.conf.j2 could not be found for the lookup"
    ) in result.stdout, result.stdout
    del variables["kubelet_numa_reboot_reset"]
    path = tasks_play(tmp_path, "Pending without the variable", [{"name": "Plan", "numa.kubelet.plan_node": {"variables": variables, "pending": True}}])
    result = run_check(collections_root, tmp_path, path)
    assert result.returncode == 2
    assert "plan_node: localhost: kubelet_numa_reboot_reset: missing; with pending=true the variables must hold the role's" in result.stdout, result.stdout


@pytest.mark.parametrize("entry_point", ["kubeadm", "rke2", "nodeadm", "k3s"])
def test_an_old_platform_entry_point_warns_and_runs_main_with_its_platform(collections_root, tmp_path, entry_point):
    # No intent: the old entry point warns even where main has nothing to do.
    include = {"name": "numa.kubelet.kubelet_numa", "tasks_from": entry_point}
    path = tasks_play(tmp_path, "Old entry point", [{"name": "The role", "ansible.builtin.include_role": include}])
    result = run_check(collections_root, tmp_path, path)
    assert result.returncode == 0, result.stdout + result.stderr
    output = " ".join((result.stdout + result.stderr).split())
    assert f"[DEPRECATION WARNING]: The entry point tasks_from: {entry_point} of the role numa.kubelet.kubelet_numa is deprecated" in output, output
    assert f"with kubelet_numa_platform: {entry_point}." in output, output


def test_tasks_from_kubeadm_plans_as_main_with_the_platform(collections_root, tmp_path):
    role_vars = {
        "kubelet_numa_platform": "kubeadm",
        "kubelet_numa_topology": TOPOLOGY,
        "kubelet_numa_config": {"memoryManagerPolicy": "Static", "topologyManagerPolicy": "single-numa-node"},
        "kubelet_numa_node_files": {"/var/lib/kubelet/config.yaml": KUBEADM_CONFIG},
        "kubelet_numa_kubeadm_config_dir": str(tmp_path / "kubelet.conf.d"),
        "kubelet_numa_kubeadm_extra_args_file": str(tmp_path / "kubelet.env"),
    }
    plans = {}
    for name, include in (("main", {}), ("kubeadm", {"tasks_from": "kubeadm"})):
        plan_file = tmp_path / f"{name}.json"
        path = role_play(tmp_path, role_vars if name == "main" else {k: v for k, v in role_vars.items() if k != "kubelet_numa_platform"}, plan_file)
        play = yaml.safe_load(path.read_text())
        play[0]["tasks"][0]["ansible.builtin.include_role"].update(include)
        path.write_text(yaml.safe_dump(play, sort_keys=False))
        result = run_check(collections_root, tmp_path, path)
        assert result.returncode == 0, result.stdout + result.stderr
        plans[name] = json.loads(plan_file.read_text())
    assert plans["main"]["platform"] == "kubeadm" and plans["main"] == plans["kubeadm"]
