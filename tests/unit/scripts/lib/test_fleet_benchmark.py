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


def _journal(*entries):
    return "".join(json.dumps({"MESSAGE": message, "__REALTIME_TIMESTAMP": str(int(seconds * 1e6))}) + "\n" for seconds, message in entries)


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
    # 1.5 s against 1.0 s is 1.50x: met; 1.506 s prints as 1.51 s: missed.
    assert bench.noop_measurement([1.5], [1.0], 0, 0).passed
    assert not bench.noop_measurement([1.506], [1.0], 0, 0).passed
    # A no-op that changed something or started a kubelet misses whatever its time.
    assert not bench.noop_measurement([1.0], [1.0], 1, 0).passed
    assert not bench.noop_measurement([1.0], [1.0], 0, 2).passed
    # Several rounds: the medians, named so.
    noop = bench.noop_measurement([2.0, 1.2, 1.3], [1.0, 0.8, 5.0], 0, 0)
    assert (noop.ours, noop.baseline, noop.name) == (1.3, 1.0, "(a) no-op re-run vs ansible -m ping (medians of 3)")
    assert bench.converge_measurement(7.0, 7.0).passed and not bench.converge_measurement(7.01, 7.0).passed
    # (c): (wall time - the restarts) per host, against 1.5 s absolute.
    assert bench.rollout_measurement(12.0, 3.0, 0.6, 6).ours == pytest.approx(1.5)
    assert bench.rollout_measurement(12.0, 3.0, 0.6, 6).passed
    assert not bench.rollout_measurement(12.1, 3.0, 0.6, 6).passed
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
        "a": rf"^\(a\) .*? {figure} +{figure} .* changed=(\d+), kubelet starts=(\d+)$",
        "b": rf"^\(b\) .*? {figure} +{figure} ",
        "c": rf"^\(c\) .*? {figure} +{figure} .* rollout ([0-9.]+) s for (\d+) hosts",
        "d": rf"^\(d\) render, (\d+) offline hosts .*? {figure} +{figure} ",
    }
    return block, {key: re.search(pattern, block, re.MULTILINE).groups() for key, pattern in found.items()}


def test_the_table_prints_the_lines_docs_performance_quotes(bench):
    """The figures of docs/performance.md's current results give back its block, line for line (the load average
    line, which the page leaves out, aside)."""
    block, quoted = _latest_quoted_run()
    noop, noop_ping, changed, starts = quoted["a"]
    ours, restart, rollout, hosts = quoted["c"]
    render_hosts, render, template = quoted["d"]
    measurements = [
        bench.noop_measurement([float(noop)], [float(noop_ping)], int(changed), int(starts)),
        bench.converge_measurement(*map(float, quoted["b"])),
        bench.rollout_measurement(float(rollout), float(rollout) - int(hosts) * float(ours), float(restart), int(hosts)),
        bench.render_measurement(int(render_hosts), float(render), float(template)),
    ]
    lines, passed = bench.table(measurements, int(quoted["hosts"][0]), "0.00 0.00 0.00", "0.00 0.00 0.00")
    assert lines[0] == ""
    assert lines[-1].startswith("load average")
    assert lines[1:-1] == block.split("\n")
    assert passed is all(row.passed for row in measurements)


def test_the_table_of_a_run_that_misses_a_and_c(bench):
    measurements = [
        bench.noop_measurement([1.84], [1.08], 0, 0),
        bench.converge_measurement(6.45, 6.87),
        bench.rollout_measurement(20.50, 20.50 - 6 * 3.33, 0.10, 6),
        bench.render_measurement(200, 2.4, 53.5),
    ]
    lines, passed = bench.table(measurements, 6, "0.02 0.86 1.47", "4.16 2.00 1.81")
    assert lines[1:] == [
        "benchmark-rollout: 6 test hosts (kubeadm, nsenter)",
        "measurement                                         ours    baseline  ratio   target    result",
        "(a) no-op re-run vs ansible -m ping                 1.84 s  1.08 s    1.70x   <= 1.5x   MISS    changed=0, kubelet starts=0",
        "(b) first converge vs hand-written play             6.45 s  6.87 s    0.94x   <= 1.0x   PASS",
        (
            "(c) rollout per host beyond the unit restart        3.33 s  0.10 s    33.30x  <= 1.5 s  MISS    "
            "rollout 20.50 s for 6 hosts; baseline: longest unit restart"
        ),
        "(d) render, 200 offline hosts vs one template task  2.4 s   53.5 s    0.04x   <= 60 s   PASS",
        "load average (1, 5, 15 min): 0.02 0.86 1.47 at the start, 4.16 2.00 1.81 at the end",
    ]
    assert passed is False
    assert [row.passed for row in measurements] == [False, True, False, True]
    assert measurements[0].progress() == "(a) no-op re-run vs ansible -m ping: ours 1.84 s, baseline 1.08 s (changed=0, kubelet starts=0)"
    assert measurements[1].progress() == "(b) first converge vs hand-written play: ours 6.45 s, baseline 6.87 s"


def test_the_load_average_is_the_first_three_figures(bench):
    assert bench.load_average("0.02 0.86 1.47 1/321 4242\n") == "0.02 0.86 1.47"


def test_the_counts_given_on_the_command_line_are_positive_numbers(bench, capsys):
    arguments = bench.parser().parse_args(["rollout", "--hosts", "3", "--render-hosts", "200"])
    assert (arguments.hosts, arguments.render_hosts, arguments.rounds, arguments.logs) == (3, 200, 1, None)
    assert bench.parser().parse_args(["render"]).hosts == 1000
    for wrong in (["render", "0"], ["rollout", "--hosts", "-1"], ["rollout", "--rounds", "2x"]):
        with pytest.raises(SystemExit):
            bench.parser().parse_args(wrong)
    assert "must be a positive number, got '2x'" in capsys.readouterr().err


def test_the_playbooks_it_runs_are_files_beside_it(bench):
    for name in ("role.yml", "handwritten.yml", "template.yml", os.path.join("templates", "config.yaml.j2")):
        assert os.path.isfile(os.path.join(bench.PLAYBOOKS, name)), name
