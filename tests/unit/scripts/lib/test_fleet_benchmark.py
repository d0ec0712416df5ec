# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""scripts/lib/fleet_benchmark.py: the inventories it generates, what it reads from the runs and the hosts, and the
verdict table (the same lines docs/performance.md quotes)."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sys

import pytest
import yaml

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("fleet_benchmark", os.path.join(REPO, "scripts", "lib", "fleet_benchmark.py"))
    module = importlib.util.module_from_spec(spec)
    # dataclasses looks the module up by name while it makes Measurement.
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


def test_the_render_inventory_takes_the_three_platforms_in_turn_and_dumps_as_yaml(bench, tmp_path):
    inventory = bench.render_inventory(4)
    hosts = inventory["all"]["hosts"]
    assert list(hosts) == ["node-0000", "node-0001", "node-0002", "node-0003"]
    assert [host["kubelet_numa_platform"] for host in hosts.values()] == ["kubeadm", "rke2", "nodeadm", "kubeadm"]
    assert hosts["node-0000"]["kubelet_numa_node_files"] == {
        "/var/lib/kubelet/config.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncgroupDriver: systemd\n"
    }
    assert hosts["node-0001"] == {
        "kubelet_numa_platform": "rke2",
        "ansible_connection": "local",
        "kubelet_numa_rke2_version": "v1.32.5+rke2r1",
        "kubelet_numa_rke2_role": "agent",
    }
    assert hosts["node-0002"]["kubelet_numa_instance_type"] == "p4d.24xlarge"
    group_vars = inventory["all"]["vars"]
    assert group_vars["ansible_python_interpreter"] == "{{ ansible_playbook_python }}"
    nodes = group_vars["kubelet_numa_topology"]["numa_nodes"]
    assert [len(node["cpus"]) for node in nodes] == [64, 64] and nodes[1]["cpus"][0] == 64
    assert sum(node["memory_bytes"] for node in nodes) == group_vars["kubelet_numa_topology"]["numa_memory_capacity_bytes"]
    path = bench.write_yaml(str(tmp_path / "inventory.yml"), inventory)
    with open(path, encoding="utf-8") as handle:
        assert yaml.safe_load(handle) == inventory
    assert len(bench.render_inventory(1000)["all"]["hosts"]) == 1000


def test_the_test_host_inventory_reaches_each_host_by_the_pid_of_its_init(bench):
    inventory = bench.testhost_inventory({"bench-1": "4242", "bench-2": "4343"})
    assert inventory["all"]["hosts"] == {"bench-1": {"ansible_nsenter_pid": 4242}, "bench-2": {"ansible_nsenter_pid": 4343}}
    assert inventory["all"]["vars"] == {
        "ansible_connection": "community.docker.nsenter",
        "ansible_python_interpreter": "/usr/bin/python3",
        "kubelet_numa_platform": "kubeadm",
        "kubelet_numa_config": {
            "memoryManagerPolicy": "Static",
            "topologyManagerPolicy": "single-numa-node",
            "kubeReserved": {"memory": "512Mi"},
            "systemReserved": {"memory": "512Mi"},
        },
    }
    # (c) rolls out a change of the reservations, so that every host is reset.
    assert dict(bench.TESTHOST_CONFIG, systemReserved={"memory": "768Mi"}) == bench.CHANGED_CONFIG


RECAP = """\
TASK [numa.kubelet.kubelet_numa : Apply] ***************************************
changed: [bench-rollout-7-1]
ok: [bench-rollout-7-2]

PLAY RECAP *********************************************************************
bench-rollout-7-1          : ok=5    changed=3    unreachable=0    failed=0    skipped=2    rescued=0    ignored=0
bench-rollout-7-2          : ok=5    changed=0    unreachable=0    failed=0    skipped=2    rescued=0    ignored=0
"""


def test_changed_counts_only_the_play_recap(bench):
    assert bench.changed_in(RECAP) == 3
    assert bench.changed_in(RECAP.replace("changed=3 ", "changed=0 ")) == 0
    assert bench.changed_in("changed: [bench-rollout-7-1]\n") == 0


def test_the_hosts_a_rollout_did_not_change_are_named_from_the_play_recap(bench):
    assert bench.unchanged_hosts(RECAP, ["bench-rollout-7-1", "bench-rollout-7-2", "bench-rollout-7-3"]) == ["bench-rollout-7-2", "bench-rollout-7-3"]
    assert bench.unchanged_hosts(RECAP.replace("changed=0 ", "changed=2 "), ["bench-rollout-7-1", "bench-rollout-7-2"]) == []


class _FakeCgroups:
    """A cgroup v1 cpuacct root in a temporary directory: the kernel would make cpuacct.usage in each new group."""

    def __init__(self, root):
        self.root = root
        root.mkdir()
        (root / "cpuacct.usage").write_text("0\n", encoding="utf-8")

    def usage(self, group, nanoseconds):
        (self.root / group / "cpuacct.usage").write_text(f"{nanoseconds}\n", encoding="utf-8")


def test_the_controller_cpu_is_its_cgroup_and_nsenter_joins_the_nodes_one(bench, tmp_path, monkeypatch):
    cgroups = _FakeCgroups(tmp_path / "cpuacct")
    monkeypatch.setattr(bench.CpuAccounting, "V1", str(cgroups.root))
    monkeypatch.setattr(bench.shutil, "which", lambda program: "/usr/bin/" + program)
    work = tmp_path / "work"
    work.mkdir()
    cpu = bench.CpuAccounting("42", str(work))
    assert cpu.available
    assert sorted(path.name for path in cgroups.root.iterdir()) == ["cpuacct.usage", "numa-kubelet-bench-42-controller", "numa-kubelet-bench-42-nodes"]
    wrapper = (work / "cpu-bin" / "nsenter").read_text(encoding="utf-8")
    assert wrapper == "#!/bin/sh\necho $$ > '%s/numa-kubelet-bench-42-nodes/cgroup.procs' || exit 125\nexec '/usr/bin/nsenter' \"$@\"\n" % cgroups.root
    assert cpu.env({"PATH": "/usr/bin"})["PATH"] == str(work / "cpu-bin") + os.pathsep + "/usr/bin"
    assert cpu.in_controller(["ansible-playbook", "x.yml"]) == [
        "/bin/sh",
        "-c",
        'echo $$ > "$0" && exec "$@"',
        str(cgroups.root / "numa-kubelet-bench-42-controller" / "cgroup.procs"),
        "ansible-playbook",
        "x.yml",
    ]
    cgroups.usage("numa-kubelet-bench-42-controller", 2_500_000_000)
    assert cpu.controller_seconds() == 2.5
    # The kernel's files go with the group; the fake's must go first.
    (cgroups.root / "numa-kubelet-bench-42-controller" / "cpuacct.usage").unlink()
    cpu.close()
    assert [path.name for path in cgroups.root.iterdir()] == ["cpuacct.usage"]
    assert not cpu.available and cpu.controller_seconds() is None


def test_without_cgroups_no_cpu_is_measured(bench, tmp_path, monkeypatch):
    monkeypatch.setattr(bench.CpuAccounting, "V1", str(tmp_path / "none"))
    monkeypatch.setattr(bench.CpuAccounting, "V2", str(tmp_path / "none"))
    cpu = bench.CpuAccounting("42", str(tmp_path))
    assert not cpu.available
    assert cpu.env({"PATH": "/usr/bin"}) == {"PATH": "/usr/bin"}
    assert cpu.controller_seconds() is None


def _journal(*entries):
    return "".join(json.dumps({"MESSAGE": message, "__REALTIME_TIMESTAMP": str(int(seconds * 1e6))}) + "\n" for seconds, message in entries)


def test_the_timed_runs_cache_bytecode_in_the_work_directory_whatever_the_caller_says(bench, tmp_path):
    env = bench.with_bytecode_cache({"PYTHONDONTWRITEBYTECODE": "1", "PATH": "/bin"}, str(tmp_path))
    assert env == {"PATH": "/bin", "PYTHONPYCACHEPREFIX": str(tmp_path / "pycache")}


def test_a_restart_runs_from_the_first_stopping_to_the_last_started_kubelet(bench):
    journals = {
        "host-1": _journal((100.0, "Started kubelet"), (101.0, "Stopping kubelet.service - kubelet"), (101.5, "Stopping kubelet.service again"), (101.2, "x")),
        "host-2": _journal((103.0, "Stopping kubelet.service - kubelet"), (103.1, "I1127 kubelet.go:1720] Started kubelet"), (103.3, "Started kubelet")),
    }
    # host-1 never started again: an error naming it.
    with pytest.raises(bench.BenchmarkError, match=r"host-1: no stop and start of kubelet\.service in its journal"):
        bench.restart_windows(journals)
    journals["host-1"] += _journal((101.4, "I1127 kubelet.go:1720] Started kubelet"))
    total, longest = bench.restart_windows(journals)
    assert total == pytest.approx(0.4 + 0.3)
    assert longest == pytest.approx(0.4)


def test_overlapping_restarts_are_not_serial(bench):
    journals = {
        "host-1": _journal((10.0, "Stopping kubelet.service"), (12.0, "Started kubelet")),
        "host-2": _journal((11.0, "Stopping kubelet.service"), (11.5, "Started kubelet")),
    }
    with pytest.raises(bench.BenchmarkError, match=r"the kubelet restarts of 1 hosts overlapped: not serial 1"):
        bench.restart_windows(journals)


def test_the_verdicts_use_the_printed_figures_and_the_counts(bench):
    # 1.2 s against 1.0 s is 1.20x: met; 1.206 s prints as 1.21 s: missed.
    assert bench.noop_measurement([1.2], [1.0], {"one ping task": [1.05]}, 0, 0).passed
    assert not bench.noop_measurement([1.206], [1.0], {"one ping task": [1.05]}, 0, 0).passed
    # A no-op that changed something or started a kubelet misses whatever its time.
    assert not bench.noop_measurement([1.0], [1.0], {"one ping task": [1.05]}, 1, 0).passed
    assert not bench.noop_measurement([1.0], [1.0], {"one ping task": [1.05]}, 0, 2).passed
    # Several rounds: the medians, named so; the floors' medians and their ratios to ping's (from the printed figures)
    # are the note.
    noop = bench.noop_measurement([2.0, 1.2, 1.3], [1.0, 0.8, 5.0], {"one ping task": [1.1, 0.9, 1.064], "three turns": [1.125, 1.2, 1.0]}, 0, 0)
    assert (noop.ours, noop.baseline, noop.name) == (1.3, 1.0, "(a) no-op re-run vs ansible -m ping (medians of 3)")
    assert noop.remark == "changed=0, kubelet starts=0; floors: one ping task 1.06 s (1.06x), three turns 1.12 s (1.12x)"
    assert bench.converge_measurement(7.0, 7.0).passed and not bench.converge_measurement(7.01, 7.0).passed
    # (c): (wall time - the restarts) per host, less the configured settle, against 1.0 s absolute.
    assert bench.rollout_measurement(21.0, 3.0, 0.6, 6, 2.0).ours == pytest.approx(1.0)
    assert bench.rollout_measurement(21.0, 3.0, 0.6, 6, 2.0).passed
    assert not bench.rollout_measurement(21.1, 3.0, 0.6, 6, 2.0).passed
    assert bench.rollout_measurement(21.0, 3.0, 0.6, 6, 2.0).note == "rollout 21.00 s for 6 hosts, settle 2 s; baseline: longest unit restart"
    # (e): the fleet's rollout against as many times one batch as there are batches.
    fleet = bench.fleet_measurement(60, 20, bench.Run(72.0, 24.0), bench.Run(20.0, 7.0))
    assert (fleet.ours, fleet.baseline, fleet.ratio, fleet.passed) == (72.0, 60.0, 1.2, True)
    assert fleet.name == "(e) rollout, 60 hosts in batches of 20 vs 3x one batch"
    assert fleet.note == "one batch 20.00 s; controller CPU per host 0.40 s at 60 hosts, 0.35 s at 20"
    assert not bench.fleet_measurement(60, 20, bench.Run(72.1, 24.0), bench.Run(20.0, 7.0)).passed
    # Seven hosts in batches of two: four batches.
    assert bench.fleet_measurement(7, 2, bench.Run(9.0, None), bench.Run(2.0, 1.0)).baseline == 8.0
    assert bench.fleet_measurement(7, 2, bench.Run(9.0, None), bench.Run(2.0, 1.0)).note == "one batch 2.00 s; controller CPU per host not measured"
    # (d): in tenths of a second, as render prints them.
    assert bench.render_measurement(1000, 60.04, 400.0).passed and not bench.render_measurement(1000, 60.06, 400.0).passed
    with pytest.raises(ValueError, match="give a ratio target or an absolute one"):
        bench.Measurement("x", 1.0, 1.0, ratio_target=1.0, absolute_target=1.0)


def _latest_quoted_run():
    """The output of scripts/benchmark-rollout docs/performance.md quotes (its current results, without the load average
    line, which says only how busy the machine was), and the figures in it."""
    with open(os.path.join(REPO, "docs", "performance.md"), encoding="utf-8") as handle:
        block = re.search(r"```\n(benchmark-rollout: .*?)\n```", handle.read(), re.DOTALL).group(1)
    figure = r"([0-9.]+) s"
    found = {
        "hosts": r"^benchmark-rollout: (\d+) test hosts",
        "rounds": r"^\(a\) no-op re-run vs ansible -m ping(?: \(medians of (\d+)\))? ",
        "a": rf"^\(a\) .*? {figure} +{figure} .* changed=(\d+), kubelet starts=(\d+); floors: one ping task {figure} \(.*?\), three turns {figure} ",
        "b": rf"^\(b\) .*? {figure} +{figure} ",
        "c": rf"^\(c\) .*? {figure} +{figure} .* rollout ([0-9.]+) s for (\d+) hosts, settle ([0-9.]+) s",
        "d": rf"^\(d\) render, (\d+) offline hosts .*? {figure} +{figure} ",
        "e": rf"^\(e\) rollout, (\d+) hosts in batches of (\d+) .*? {figure} +{figure} .* one batch ([0-9.]+) s; controller CPU per host {figure} at",
    }
    return block, {key: re.search(pattern, block, re.MULTILINE).groups() for key, pattern in found.items()}


def test_the_table_prints_the_lines_docs_performance_quotes(bench):
    """The figures of docs/performance.md's current results give back its block, line for line (the load average
    line, which the page leaves out, aside)."""
    block, quoted = _latest_quoted_run()
    noop, noop_ping, changed, starts, one_task, three_turns = quoted["a"]
    rounds = int(quoted["rounds"][0] or 1)
    ours, restart, rollout, hosts, settle = quoted["c"]
    render_hosts, render, template = quoted["d"]
    # The baseline is the unrounded one batch times the batches: taken back from the baseline, not the note.
    fleet_hosts, batch, fleet, baseline, _one_batch, fleet_cpu = quoted["e"]
    one_batch = float(baseline) / -(-int(fleet_hosts) // int(batch))
    one_batch_cpu = float(re.search(r"at \d+ hosts, ([0-9.]+) s at", block).group(1))
    measurements = [
        bench.noop_measurement(
            [float(noop)] * rounds,
            [float(noop_ping)] * rounds,
            {"one ping task": [float(one_task)] * rounds, "three turns": [float(three_turns)] * rounds},
            int(changed),
            int(starts),
        ),
        bench.converge_measurement(*map(float, quoted["b"])),
        bench.rollout_measurement(float(rollout), float(rollout) - int(hosts) * (float(ours) + float(settle)), float(restart), int(hosts), float(settle)),
        bench.render_measurement(int(render_hosts), float(render), float(template)),
        bench.fleet_measurement(
            int(fleet_hosts), int(batch), bench.Run(float(fleet), float(fleet_cpu) * int(fleet_hosts)), bench.Run(one_batch, one_batch_cpu * int(batch))
        ),
    ]
    lines, passed = bench.table(measurements, int(quoted["hosts"][0]), "0.00 0.00 0.00", "0.00 0.00 0.00")
    assert lines[0] == ""
    assert lines[-1].startswith("load average")
    assert lines[1:-1] == block.split("\n")
    assert passed is all(row.passed for row in measurements)


def test_the_table_of_a_run_that_misses_a_and_c(bench):
    measurements = [
        bench.noop_measurement([1.84], [1.08], {"one ping task": [1.13], "three turns": [1.21]}, 0, 0),
        bench.converge_measurement(6.45, 6.87),
        bench.rollout_measurement(32.50, 32.50 - 6 * 3.33, 0.10, 6, 2),
        bench.render_measurement(200, 2.4, 53.5),
        bench.fleet_measurement(6, 2, bench.Run(30.0, 6.0), bench.Run(10.5, 2.5)),
    ]
    lines, passed = bench.table(measurements, 6, "0.02 0.86 1.47", "4.16 2.00 1.81")
    assert lines[1:] == [
        "benchmark-rollout: 6 test hosts (kubeadm, nsenter)",
        "measurement                                           ours     baseline  ratio   target   result",
        (
            "(a) no-op re-run vs ansible -m ping                   1.84 s   1.08 s    1.70x   <= 1.2x  MISS    "
            "changed=0, kubelet starts=0; floors: one ping task 1.13 s (1.05x), three turns 1.21 s (1.12x)"
        ),
        "(b) first converge vs hand-written play               6.45 s   6.87 s    0.94x   <= 1.0x  PASS",
        (
            "(c) rollout per host beyond restart and settle        1.33 s   0.10 s    13.30x  <= 1 s   MISS    "
            "rollout 32.50 s for 6 hosts, settle 2 s; baseline: longest unit restart"
        ),
        "(d) render, 200 offline hosts vs one template task    2.4 s    53.5 s    0.04x   <= 60 s  PASS",
        (
            "(e) rollout, 6 hosts in batches of 2 vs 3x one batch  30.00 s  31.50 s   0.95x   <= 1.2x  PASS    "
            "one batch 10.50 s; controller CPU per host 1.00 s at 6 hosts, 1.25 s at 2"
        ),
        "load average (1, 5, 15 min): 0.02 0.86 1.47 at the start, 4.16 2.00 1.81 at the end",
    ]
    assert passed is False
    assert [row.passed for row in measurements] == [False, True, False, True, True]
    assert measurements[0].progress() == (
        "(a) no-op re-run vs ansible -m ping: ours 1.84 s, baseline 1.08 s "
        "(changed=0, kubelet starts=0; floors: one ping task 1.13 s (1.05x), three turns 1.21 s (1.12x))"
    )
    assert measurements[1].progress() == "(b) first converge vs hand-written play: ours 6.45 s, baseline 6.87 s"


def test_the_load_average_is_the_first_three_figures(bench):
    assert bench.load_average("0.02 0.86 1.47 1/321 4242\n") == "0.02 0.86 1.47"


def test_the_counts_given_on_the_command_line_are_positive_numbers(bench, capsys):
    arguments = bench.parser().parse_args(["rollout", "--hosts", "3", "--render-hosts", "200"])
    assert (arguments.hosts, arguments.render_hosts, arguments.rounds, arguments.logs, arguments.only) == (3, 200, 1, None, "abcde")
    assert bench.parser().parse_args(["rollout", "--only", "a,e"]).only == "ae"
    assert bench.parser().parse_args(["rollout", "--only", "c"]).only == "c"
    assert bench.parser().parse_args(["render"]).hosts == 1000
    for wrong in (["render", "0"], ["rollout", "--hosts", "-1"], ["rollout", "--rounds", "2x"], ["rollout", "--only", "af"], ["rollout", "--only", ","]):
        with pytest.raises(SystemExit):
            bench.parser().parse_args(wrong)
    errors = capsys.readouterr().err
    assert "must be a positive number, got '2x'" in errors
    assert "must be letters of a to e (as a,c), got 'af'" in errors


def test_the_playbooks_it_runs_are_files_beside_it(bench):
    for name in ("role.yml", "handwritten.yml", "template.yml", os.path.join("templates", "config.yaml.j2")):
        assert os.path.isfile(os.path.join(bench.PLAYBOOKS, name)), name


def test_too_low_an_inotify_limit_is_refused_before_any_host_starts(bench):
    assert bench.inotify_shortage(6, "128\n") is None
    assert bench.inotify_shortage(60, "1024\n") is None
    assert bench.inotify_shortage(60, "128\n") == (
        "60 test hosts need about 360 inotify instances and fs.inotify.max_user_instances is 128: raise it first (sysctl -w fs.inotify.max_user_instances=1024)"
    )
