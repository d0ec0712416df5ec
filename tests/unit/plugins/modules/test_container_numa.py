# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""container_numa finds each pod container from the kubelet's /var/log/containers links, its process from
/proc/PID/cgroup, and reads the kernel's lists from /proc/PID/status, in a fake tree laid out as on the test VM."""

from __future__ import annotations

import json

import pytest

from ansible_collections.numa.kubelet.plugins.modules import container_numa
from ansible_collections.numa.kubelet.tests.unit.plugins.modules.fake_sysfs import make_tree
from ansible_collections.numa.kubelet.tests.unit.plugins.modules.module_args import patch_module_args

UID = "4f0c36cbde1bb1a4c9ff7d4f3a5e0d5e"
APP_ID = "a" * 64
SIDECAR_ID = "b" * 64
EXITED_ID = "c" * 64


def _status(cpus, mems):
    return f"Name:\tbusybox\nState:\tS (sleeping)\nCpus_allowed:\t2\nCpus_allowed_list:\t{cpus}\nMems_allowed:\t...,00000002\nMems_allowed_list:\t{mems}\n"


def _process(root, pid, container_id, cpus, mems):
    proc = root / "proc" / str(pid)
    proc.mkdir(parents=True)
    scope = f"cri-containerd-{container_id}.scope" if container_id else "session-1.scope"
    (proc / "cgroup").write_text(f"0::/kubepods.slice/kubepods-pod{UID}.slice/{scope}\n")
    (proc / "status").write_text(_status(cpus, mems))


def _log_link(root, pod, container, container_id):
    links = root / "var/log/containers"
    links.mkdir(parents=True, exist_ok=True)
    target = f"/var/log/pods/default_{pod}_{UID}/{container}/0.log"
    (links / (f"{pod}_default_{container}-{container_id}.log")).symlink_to(target)


@pytest.fixture(name="tree")
def fixture_tree(tmp_path):
    make_tree(tmp_path, {0: (1500000, "0", {}), 1: (1500000, "1", {})})
    (tmp_path / "var/lib/kubelet").mkdir(parents=True)
    (tmp_path / "var/lib/kubelet/memory_manager_state").write_text('{"policyName":"Static"}')
    _log_link(tmp_path, "web-vm", "app", APP_ID)
    _log_link(tmp_path, "web-vm", "sidecar", SIDECAR_ID)
    _log_link(tmp_path, "web-vm", "old", EXITED_ID)
    _process(tmp_path, 12, None, "0-1", "0-1")
    _process(tmp_path, 714, APP_ID, "1", "1")
    _process(tmp_path, 715, APP_ID, "1", "1")
    _process(tmp_path, 800, SIDECAR_ID, "0-1", "0-1")
    return tmp_path


def _run(args, capsys):
    with patch_module_args(args), pytest.raises(SystemExit):
        container_numa.main()
    return json.loads(capsys.readouterr().out)


def test_running_containers_with_their_first_process_and_the_kernel_lists(tree, capsys):
    answer = _run({"root": str(tree)}, capsys)
    assert answer["containers"] == [
        {
            "pod_uid": UID,
            "namespace": "default",
            "pod": "web-vm",
            "container": "app",
            "container_id": APP_ID,
            "pid": 714,
            "cpus_allowed_list": "1",
            "mems_allowed_list": "1",
        },
        {
            "pod_uid": UID,
            "namespace": "default",
            "pod": "web-vm",
            "container": "sidecar",
            "container_id": SIDECAR_ID,
            "pid": 800,
            "cpus_allowed_list": "0-1",
            "mems_allowed_list": "0-1",
        },
    ]
    assert answer["numa_nodes"] == [{"id": 0, "cpus": [0]}, {"id": 1, "cpus": [1]}]
    assert answer["memory_manager_state"] == '{"policyName":"Static"}'
    assert answer["cpu_manager_state"] is None
    assert answer["admission_denials"] == [] and answer["changed"] is False


def test_a_node_without_pods_has_no_containers(tmp_path, capsys):
    make_tree(tmp_path, {0: (1500000, "0", {})})
    answer = _run({"root": str(tmp_path)}, capsys)
    assert answer["containers"] == [] and answer["memory_manager_state"] is None


def test_admission_refusals_come_from_the_units_current_run(tree, capsys, monkeypatch):
    denied = (
        'I1125 13:30:01.1 714 kubelet.go:2400] "Pod admission denied" podUID="u" pod="default/big-vm" '
        'reason="TopologyAffinityError" message="Resources cannot be allocated with Topology locality"'
    )
    calls = []

    def run_command(_module, argv, **_kwargs):
        calls.append(argv)
        return (0, "0123abcd\n", "") if argv[0] == "systemctl" else (0, f"I1125 started\n{denied}\n", "")

    monkeypatch.setattr(container_numa.AnsibleModule, "run_command", run_command)
    answer = _run({"root": str(tree), "unit": "kubelet.service"}, capsys)
    assert answer["admission_denials"] == [denied]
    assert calls[1][-1] == "_SYSTEMD_INVOCATION_ID=0123abcd"
