# SPDX-License-Identifier: GPL-3.0-or-later
"""The fleet benchmarks of docs/performance.md: scripts/benchmark-render and scripts/benchmark-rollout run this file
in the project's virtualenv (`render ...`, `rollout ...`; `--help` says the rest).

render: numa.kubelet.render for N offline hosts (default 1000) in at most 60 s on a 2-core machine, and with
--compare one ansible.builtin.template task over the same local-connection hosts (slow: about 7.4 minutes for 1000
hosts on 2 cores). Prints the times; exits 1 when the target is missed.

rollout: the speed targets of a fleet run, side by side with what plain Ansible costs for the same hosts, in one run:
  (a) a no-op re-run of numa.kubelet.kubelet_numa (kubelet_numa_platform kubeadm) vs `ansible -m ansible.builtin.ping`: at most
      1.2x, with 0 changed and 0 kubelet starts; beside them two floors, the playbooks ping.yml (one ping task) and
      three_turns.yml (the role's no-op shape without its work: an argument validation, a ping, a set_fact);
  (b) the role's first converge vs a hand-written play that writes the same two files and restarts the kubelet (stop,
      remove the memory manager checkpoint, start): at most 1.0x;
  (c) playbooks/rollout.yml, node-local (no kubeconfig), serial 1: per-host time beyond the unit's own restart
      (journal: systemd's "Stopping" to the kubelet stand-in's "Started kubelet") and the configured settle
      (kubelet_numa_settle_seconds, counted from the moment memory_manager_state matches the plan), at most 1.0 s;
  (d) numa.kubelet.render for --render-hosts offline hosts (as `render --compare`): at most 60 s, beside one
      ansible.builtin.template task over the same hosts;
  (e) playbooks/rollout.yml, node-local, over all --hosts hosts with kubelet_numa_rollout_max_unavailable a third of
      them and no canary batch (three equal batches) vs three times the same rollout of one batch's hosts: at most
      1.2x; with the controller's CPU per host of both (its processes' CPU, without what nsenter runs on the nodes).
The hosts are --hosts podman containers of localhost/numa-kubelet-testhost:bookworm (scripts/build-test-hosts),
started and laid out by the STAND-IN helper `numa-standin-provision kubeadm` as the test stages start theirs
(tests/podman_hosts.StageHosts), reached through community.docker.nsenter as in molecule/kubeadm, and removed at the
end, also on failure or interrupt. --only picks measurements (e.g. `--only e --hosts 60`). Prints a table and the load
average at its start and end; exits 1 when a target is missed. --logs DIR keeps every run's output there (with
ANSIBLE_CALLBACKS_ENABLED=ansible.posix.profile_tasks in the environment, each task's time). About 15 minutes with the
defaults on an idle machine, most of it the template comparison of (d) and the rollouts of (c) and (e).

Every time is a monotonic clock read around a whole ansible-playbook / ansible process, as a user waits for it; with
--rounds N, (a) runs the no-op, ping and the floors N times in turn and takes the median of each. The playbooks are the files in
benchmark_playbooks/ beside this file; the inventories are data dumped as YAML. Not tests: run them by hand.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLAYBOOKS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "benchmark_playbooks")
# The checkout is numa.kubelet through its committed link .collections/ansible_collections/numa/kubelet.
COLLECTIONS = os.path.join(REPO, ".collections")
# The programs of the virtualenv this file runs in (scripts/benchmark-render and -rollout start it there).
BIN = os.path.dirname(sys.executable)
sys.path.insert(0, os.path.join(REPO, "tests"))

import podman_hosts  # noqa: E402 (tests/ is not a package)

RENDER_TARGET_SECONDS = 60
# Two NUMA nodes of a p4d.24xlarge-sized machine, the same for every offline host of the render benchmark.
RENDER_TOPOLOGY = {
    "numa_nodes": [
        {"id": 0, "memory_bytes": 270174818304, "cpus": list(range(64))},
        {"id": 1, "memory_bytes": 270582095872, "cpus": list(range(64, 128))},
    ],
    "numa_memory_capacity_bytes": 540756914176,
}
RENDER_CONFIG = {
    "memoryManagerPolicy": "Static",
    "topologyManagerPolicy": "single-numa-node",
    "kubeReserved": {"memory": "1Gi"},
    "systemReserved": {"memory": "1Gi"},
}
KUBEADM_MAIN_CONFIG = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncgroupDriver: systemd\n"
# The test hosts' reservations for (a) and (b), and the changed ones (c) rolls out, so that every host is reset.
TESTHOST_CONFIG = {
    "memoryManagerPolicy": "Static",
    "topologyManagerPolicy": "single-numa-node",
    "kubeReserved": {"memory": "512Mi"},
    "systemReserved": {"memory": "512Mi"},
}
CHANGED_CONFIG = dict(TESTHOST_CONFIG, systemReserved={"memory": "768Mi"})
# (e) rolls out two more, one batch's hosts first, then all of them: each run resets every host it rolls.
BATCH_CONFIG = dict(TESTHOST_CONFIG, systemReserved={"memory": "640Mi"})
FLEET_CONFIG = dict(TESTHOST_CONFIG, systemReserved={"memory": "896Mi"})
# The two files the role writes on a kubeadm node, which the hand-written play writes byte for byte.
DROPIN = "/etc/kubernetes/kubelet.conf.d/50-numa-kubelet.conf"
FLAGS_FILE = "/etc/default/kubelet"


class BenchmarkError(Exception):
    """A run the benchmark depends on failed, or what it measured cannot be read: no figure is printed for it."""


# --- What is generated: the inventories -------------------------------------------------------------------------


def render_inventory(count):
    """The offline inventory of the render benchmark: COUNT hosts node-0000... taking kubeadm, rke2 and nodeadm in
    turn, every one with the same topology and reservations, reached (by the template comparison only) locally."""
    hosts = {}
    for index in range(count):
        platform = ("kubeadm", "rke2", "nodeadm")[index % 3]
        host = {"kubelet_numa_platform": platform, "ansible_connection": "local"}
        if platform == "kubeadm":
            host["kubelet_numa_node_files"] = {"/var/lib/kubelet/config.yaml": KUBEADM_MAIN_CONFIG}
        elif platform == "rke2":
            host.update(kubelet_numa_rke2_version="v1.32.5+rke2r1", kubelet_numa_rke2_role="agent")
        else:
            host["kubelet_numa_instance_type"] = "p4d.24xlarge"
        hosts["node-%04d" % index] = host
    # The controller's own Python for the comparison's local connection (discovery may find another one on PATH).
    group_vars = {
        "ansible_python_interpreter": "{{ ansible_playbook_python }}",
        "kubelet_numa_topology": RENDER_TOPOLOGY,
        "kubelet_numa_config": RENDER_CONFIG,
    }
    return {"all": {"vars": group_vars, "hosts": hosts}}


def testhost_inventory(pids):
    """The inventory of the test hosts, PIDS mapping each host's name to the PID of its init: reached as molecule/kubeadm
    reaches its container (the PID looked up once here instead of in every task)."""
    group_vars = {
        "ansible_connection": "community.docker.nsenter",
        "ansible_python_interpreter": "/usr/bin/python3",
        "kubelet_numa_platform": "kubeadm",
        "kubelet_numa_config": TESTHOST_CONFIG,
    }
    return {"all": {"hosts": {name: {"ansible_nsenter_pid": int(pid)} for name, pid in pids.items()}, "vars": group_vars}}


def write_yaml(path, data):
    with open(path, "w", encoding="utf-8") as handle:
        yaml.safe_dump(data, handle, sort_keys=False)
    return path


# --- What is read: the runs' output and the hosts' records ------------------------------------------------------


def changed_in(output):
    """The sum of changed=N over the PLAY RECAP lines of an ansible-playbook output."""
    return sum(int(count) for count in re.findall(r"^\S.*\s:\s+ok=\d+\s+changed=(\d+)\s", output, re.MULTILINE))


def unchanged_hosts(output, names):
    """The hosts of NAMES without changed=N > 0 in the PLAY RECAP of an ansible-playbook output (a rollout that resets
    every host changes each)."""
    changed = set()
    for host, count in re.findall(r"^(\S+)\s+:\s+ok=\d+\s+changed=(\d+)\s", output, re.MULTILINE):
        if int(count):
            changed.add(host)
    return [name for name in names if name not in changed]


def restart_windows(journals):
    """From each host's journal of kubelet.service during the rollout (journalctl --output json: one object a line),
    the window of its restart: systemd's first "Stopping kubelet.service" to the stand-in's last "Started kubelet"
    after it. Returns (the sum of the windows, the longest) in seconds; a host without both lines, or two windows that
    overlap (the rollout was not serial 1), is an error."""
    windows = []
    for name, journal in journals.items():
        stopping = started = None
        for line in journal.splitlines():
            if not line.strip():
                continue
            entry = json.loads(line)
            message, when = str(entry.get("MESSAGE", "")), int(entry["__REALTIME_TIMESTAMP"]) / 1e6
            if stopping is None and message.startswith("Stopping kubelet.service"):
                stopping = when
            elif stopping is not None and message.endswith("Started kubelet"):
                started = when
        if stopping is None or started is None:
            raise BenchmarkError(f"{name}: no stop and start of kubelet.service in its journal during the rollout")
        windows.append((stopping, started))
    windows.sort()
    overlapping = [index for index in range(1, len(windows)) if windows[index][0] < windows[index - 1][1]]
    if overlapping:
        raise BenchmarkError("the kubelet restarts of %d hosts overlapped: not serial 1" % len(overlapping))
    return sum(end - begin for begin, end in windows), max(end - begin for begin, end in windows)


def load_average(proc_loadavg):
    """The 1, 5 and 15 minute load averages of /proc/loadavg's text, as it prints them."""
    return " ".join(proc_loadavg.split()[:3])


# --- The verdicts ---------------------------------------------------------------------------------------------------


@dataclasses.dataclass
class Measurement:
    """One row of the table: our time against the baseline's, judged by a ratio target or an absolute one (seconds).

    The times are compared as printed (DIGITS decimals), so that the table's ratio and verdict follow from its figures.
    ZEROS are counts that must be 0 for a pass (the no-op's changed tasks and kubelet starts); they are printed as the
    note, else NOTE is.
    """

    name: str
    ours: float
    baseline: float
    ratio_target: float | None = None
    absolute_target: float | None = None
    note: str = ""
    zeros: dict = dataclasses.field(default_factory=dict)
    digits: int = 2

    def __post_init__(self):
        if (self.ratio_target is None) == (self.absolute_target is None):
            raise ValueError(f"{self.name}: give a ratio target or an absolute one, not both or neither")

    def figure(self, seconds):
        return "%.*f" % (self.digits, seconds)

    @property
    def ratio(self):
        return float(self.figure(self.ours)) / float(self.figure(self.baseline))

    @property
    def target(self):
        return f"<= {self.ratio_target:.1f}x" if self.ratio_target is not None else f"<= {self.absolute_target:g} s"

    @property
    def passed(self):
        if self.ratio_target is not None:
            met = self.ratio <= self.ratio_target
        else:
            met = float(self.figure(self.ours)) <= self.absolute_target
        return met and not any(self.zeros.values())

    @property
    def remark(self):
        return "; ".join(part for part in (", ".join("%s=%d" % item for item in self.zeros.items()), self.note) if part)

    def progress(self):
        """The line printed as soon as it is measured."""
        return "%s: ours %s s, baseline %s s%s" % (self.name, self.figure(self.ours), self.figure(self.baseline), " (%s)" % self.remark if self.remark else "")


# (a)'s floors, printed beside it: what a playbook costs before the role does any work of its own.
FLOORS = (("ping.yml", "one ping task"), ("three_turns.yml", "three turns"))


def noop_measurement(noops, pings, floors, changed, starts):
    """(a) from the no-op's and ping's times (medians of several), the tasks the no-ops changed and the kubelet starts
    they caused. FLOORS maps each floor's label (the module's FLOORS) to its times: their medians and their ratios to
    ping's are the note."""
    name = "(a) no-op re-run vs ansible -m ping" + ("" if len(noops) == 1 else " (medians of %d)" % len(noops))
    ping = float("%.2f" % statistics.median(pings))
    medians = {label: statistics.median(times) for label, times in floors.items()}
    note = "floors: " + ", ".join("%s %.2f s (%.2fx)" % (label, median, float("%.2f" % median) / ping) for label, median in medians.items())
    return Measurement(
        name, statistics.median(noops), statistics.median(pings), ratio_target=1.2, note=note, zeros={"changed": changed, "kubelet starts": starts}
    )


def converge_measurement(converge, handwritten):
    """(b) from the role's first converge and the hand-written play, each on fresh hosts."""
    return Measurement("(b) first converge vs hand-written play", converge, handwritten, ratio_target=1.0)


def rollout_measurement(rollout, restart_total, restart_longest, hosts, settle):
    """(c) from the rollout's wall time, its hosts' unit restarts (restart_windows) and the configured settle (seconds
    each host's turn waits from the moment its memory_manager_state matches the plan): the time per host beyond them."""
    note = "rollout %.2f s for %d hosts, settle %g s; baseline: longest unit restart" % (rollout, hosts, settle)
    per_host = (rollout - restart_total) / hosts - settle
    return Measurement("(c) rollout per host beyond restart and settle", per_host, restart_longest, absolute_target=1.0, note=note)


def fleet_measurement(hosts, batch, fleet, one_batch):
    """(e) from the rollout of HOSTS hosts in batches of BATCH and the same rollout of BATCH hosts (one batch): each a
    Run with its wall time and the controller's CPU seconds (None when they cannot be measured here)."""
    batches = -(-hosts // batch)
    name = "(e) rollout, %d hosts in batches of %d vs %dx one batch" % (hosts, batch, batches)
    if fleet.cpu is None or one_batch.cpu is None:
        cpu = "not measured"
    else:
        cpu = "%.2f s at %d hosts, %.2f s at %d" % (fleet.cpu / hosts, hosts, one_batch.cpu / batch, batch)
    note = "one batch %.2f s; controller CPU per host %s" % (one_batch.wall, cpu)
    return Measurement(name, fleet.wall, batches * one_batch.wall, ratio_target=1.2, note=note)


def render_measurement(hosts, render, template):
    """(d) from the render of HOSTS offline hosts and one template task over them (tenths of a second, as render prints)."""
    name = "(d) render, %d offline hosts vs one template task" % hosts
    return Measurement(name, render, template, absolute_target=RENDER_TARGET_SECONDS, digits=1)


def table(measurements, hosts, load_at_start, load_at_end):
    """The lines printed at the end, and whether every target was met."""
    header = ("measurement", "ours", "baseline", "ratio", "target", "result", "")
    rows = [
        (row.name, row.figure(row.ours) + " s", row.figure(row.baseline) + " s", "%.2fx" % row.ratio, row.target, "PASS" if row.passed else "MISS", row.remark)
        for row in measurements
    ]
    widths = [max(len(row[column]) for row in [header, *rows]) for column in range(6)]
    lines = ["", "benchmark-rollout: %d test hosts (kubeadm, nsenter)" % hosts]
    for row in [header, *rows]:
        lines.append(("  ".join(cell.ljust(width) for cell, width in zip(row[:6], widths, strict=True)) + ("  " + row[6] if row[6] else "")).rstrip())
    lines.append("load average (1, 5, 15 min): %s at the start, %s at the end" % (load_at_start, load_at_end))
    return lines, all(row.passed for row in measurements)


# --- Running --------------------------------------------------------------------------------------------------------


def say(program, message):
    print("[%s %s] %s" % (program, time.strftime("%H:%M:%S"), message), flush=True)


def timed(argv, log, env):
    """Run ARGV (from the checkout, so that its ansible.cfg applies) with its output in LOG; the seconds it took on a
    monotonic clock. A failure stops the benchmark with the end of LOG."""
    with open(log, "w", encoding="utf-8") as handle:
        started = time.monotonic()
        returncode = subprocess.run(argv, stdout=handle, stderr=subprocess.STDOUT, env=env, cwd=REPO, check=False).returncode
        elapsed = time.monotonic() - started
    if returncode != 0:
        with open(log, encoding="utf-8", errors="replace") as handle:
            tail = "".join(handle.readlines()[-25:])
        raise BenchmarkError("'%s' failed (exit %d); last lines of %s:\n%s" % (" ".join(argv), returncode, log, tail))
    return elapsed


def read(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def run_render(hosts, compare, work, env):
    """The render benchmark in WORK: (seconds, plan.json files written, seconds of the template task or None)."""
    inventory = write_yaml(os.path.join(work, "render-inventory.yml"), render_inventory(hosts))
    render_dir = os.path.join(work, "render")
    playbook = [os.path.join(BIN, "ansible-playbook"), "-i", inventory]
    seconds = timed(
        [*playbook, "-e", "kubelet_numa_render_dir=" + render_dir, os.path.join(REPO, "playbooks", "render.yml")], os.path.join(work, "render.log"), env
    )
    rendered = sum("plan.json" in files for _folder, _folders, files in os.walk(render_dir))
    template = None
    if compare:
        template_dir = os.path.join(work, "template")
        os.makedirs(template_dir)
        template = timed([*playbook, "-e", "template_dir=" + template_dir, os.path.join(PLAYBOOKS, "template.yml")], os.path.join(work, "template.log"), env)
    return seconds, rendered, template


def render_main(arguments):
    env = podman_hosts.ansible_env(COLLECTIONS)
    with tempfile.TemporaryDirectory(prefix="numa-kubelet-bench.") as work:
        seconds, rendered, template = run_render(arguments.hosts, arguments.compare, work, env)
    print("render: %d hosts (%d plan.json) in %.1f s (target %d s)" % (arguments.hosts, rendered, seconds, RENDER_TARGET_SECONDS), flush=True)
    if template is not None:
        print(f"one template task over the same hosts: {template:.1f} s", flush=True)
    return 0 if rendered == arguments.hosts and float(f"{seconds:.1f}") <= RENDER_TARGET_SECONDS else 1


@dataclasses.dataclass
class Run:
    """One timed run: its wall time and the controller's CPU seconds (None where they cannot be measured)."""

    wall: float
    cpu: float | None


# The nsenter the connection runs (by name, from PATH) when CPU is measured: it moves itself into the nodes' cgroup
# first, so that what runs on the test hosts (which share this machine) is not counted as the controller's.
NSENTER_WRAPPER = """#!/bin/sh
echo $$ > '{procs}' || exit 125
exec '{nsenter}' "$@"
"""


class CpuAccounting:
    """The controller's CPU time of a run: two cpuacct cgroups (v1, or cgroup v2's cpu.stat), one the timed
    ansible-playbook joins (its workers follow it), one the nsenter of every connection joins. Not available when
    this machine has neither hierarchy, or the benchmark may not make cgroups: then every CPU figure is None."""

    V1 = "/sys/fs/cgroup/cpuacct"
    V2 = "/sys/fs/cgroup"

    def __init__(self, tag, work):
        self.groups, self.path_dir = {}, None
        nsenter = shutil.which("nsenter")
        if os.path.isfile(os.path.join(self.V1, "cpuacct.usage")):
            root, self._usage = self.V1, self._usage_v1
        elif os.path.isfile(os.path.join(self.V2, "cgroup.controllers")):
            root, self._usage = self.V2, self._usage_v2
        else:
            return
        try:
            for role in ("controller", "nodes"):
                self.groups[role] = os.path.join(root, f"numa-kubelet-bench-{tag}-{role}")
                os.mkdir(self.groups[role])
        except OSError:
            self.close()
            return
        if nsenter is None:
            self.close()
            return
        self.path_dir = os.path.join(work, "cpu-bin")
        os.makedirs(self.path_dir, exist_ok=True)
        wrapper = os.path.join(self.path_dir, "nsenter")
        with open(wrapper, "w", encoding="utf-8") as handle:
            handle.write(NSENTER_WRAPPER.format(procs=os.path.join(self.groups["nodes"], "cgroup.procs"), nsenter=nsenter))
        os.chmod(wrapper, 0o755)

    @property
    def available(self):
        return self.path_dir is not None

    def env(self, env):
        """ENV with the wrapper first on PATH (the environment of the timed runs)."""
        return env if not self.available else dict(env, PATH=self.path_dir + os.pathsep + env.get("PATH", os.defpath))

    def in_controller(self, argv):
        """ARGV started by a shell that first moves itself into the controller's cgroup (so that it runs there)."""
        procs = os.path.join(self.groups["controller"], "cgroup.procs")
        return ["/bin/sh", "-c", 'echo $$ > "$0" && exec "$@"', procs, *argv]

    def controller_seconds(self):
        return self._usage(self.groups["controller"]) if self.available else None

    @staticmethod
    def _usage_v1(group):
        return int(read(os.path.join(group, "cpuacct.usage"))) / 1e9

    @staticmethod
    def _usage_v2(group):
        return int(re.search(r"^usage_usec (\d+)$", read(os.path.join(group, "cpu.stat")), re.MULTILINE).group(1)) / 1e6

    def timed(self, argv, log, env):
        """timed(), and the controller's CPU seconds of the run."""
        before = self.controller_seconds()
        wall = timed(self.in_controller(argv) if self.available else argv, log, self.env(env))
        after = self.controller_seconds()
        return Run(wall, None if before is None else after - before)

    def close(self):
        """Remove the cgroups (empty once the runs and the test hosts are gone)."""
        for group in self.groups.values():
            try:
                os.rmdir(group)
            except OSError:
                pass
        self.groups, self.path_dir = {}, None


# Test hosts started side by side, and the seconds each may take to boot (on a busy machine, more than the stages').
START_AT_ONCE = 10
BOOT_TIMEOUT = 600
# inotify instances a test host's systemd, logind and journald hold; with too few left in the user's limit
# (fs.inotify.max_user_instances, 128 by default) systemd never finishes booting.
INOTIFY_PER_HOST = 6
INOTIFY_LIMIT = "/proc/sys/fs/inotify/max_user_instances"


def inotify_shortage(hosts, limit_text):
    """The refusal when the user's inotify limit (LIMIT_TEXT, as /proc shows it) is too low for HOSTS test hosts, or None."""
    needed = hosts * INOTIFY_PER_HOST
    if int(limit_text) >= needed:
        return None
    return (
        "%d test hosts need about %d inotify instances and fs.inotify.max_user_instances is %s: raise it first "
        "(sysctl -w fs.inotify.max_user_instances=%d)" % (hosts, needed, limit_text.strip(), max(1024, needed * 2))
    )


class Fleet:
    """The rollout benchmark's test hosts, their inventory and what the benchmark reads from them."""

    def __init__(self, hosts, names, work, rounds=1):
        self.hosts, self.names, self.work, self.rounds = hosts, names, work, rounds
        self.inventory = os.path.join(work, "inventory.yml")

    def start(self):
        """Fresh hosts laid out as kubeadm nodes with the kubelet stand-in running, started a few at a time (sixty
        systemd boots at once on two cores outlast the boot timeout); writes the inventory."""
        self.hosts.remove_all()
        pids = {}
        for first in range(0, len(self.names), START_AT_ONCE):
            pids.update(self.hosts.start_all({name: {"layout": "kubeadm"} for name in self.names[first : first + START_AT_ONCE]}))
        write_yaml(self.inventory, testhost_inventory({name: pids[name] for name in self.names}))

    def starts(self):
        """Per host: the number of kubelet stand-in starts so far."""
        return {name: len(self.hosts.kubelet_starts(name)) for name in self.names}

    def copy_out(self, name, path, dest):
        podman_hosts.run(["podman", "cp", f"{name}:{path}", dest], env=self.hosts.env)


def measure_noop(fleet, program, rounds, env):
    """(a): the role's no-op re-run, `ansible -m ping` and the floors' playbooks (FLOORS), ROUNDS times in turn;
    medians, changed tasks, kubelet starts."""
    playbook = [os.path.join(BIN, "ansible-playbook"), "-i", fleet.inventory]
    role = [*playbook, os.path.join(PLAYBOOKS, "role.yml")]
    ping = [os.path.join(BIN, "ansible"), "all", "-i", fleet.inventory, "-m", "ansible.builtin.ping"]
    noops, pings, floors, changed = [], [], {label: [] for _file, label in FLOORS}, 0
    before = fleet.starts()
    for index in range(1, rounds + 1):
        suffix = "" if rounds == 1 else "-%d" % index
        noops.append(timed(role, os.path.join(fleet.work, "noop%s.log" % suffix), env))
        changed += changed_in(read(os.path.join(fleet.work, "noop%s.log" % suffix)))
        pings.append(timed(ping, os.path.join(fleet.work, "ping%s.log" % suffix), env))
        for file, label in FLOORS:
            log = os.path.join(fleet.work, "%s%s.log" % (file.removesuffix(".yml"), suffix))
            floors[label].append(timed([*playbook, os.path.join(PLAYBOOKS, file)], log, env))
    after = fleet.starts()
    if rounds > 1:
        runs = {"no-op": noops, "ping": pings, **floors}
        say(program, "(a) " + "; ".join("%s %s s" % (label, ", ".join("%.2f" % s for s in times)) for label, times in runs.items()))
    return noop_measurement(noops, pings, floors, changed, sum(after[name] - before[name] for name in fleet.names))


def with_bytecode_cache(env, work):
    """ENV for the timed runs with Python's bytecode cache on, kept under WORK: a user's Python caches the compiled
    collection after its first run, while an environment with PYTHONDONTWRITEBYTECODE (a CI job, this project's
    sessions) would compile it again in every run and time that for the role only. The first converge fills it."""
    cached = {name: value for name, value in env.items() if name != "PYTHONDONTWRITEBYTECODE"}
    return dict(cached, PYTHONPYCACHEPREFIX=os.path.join(work, "pycache"))


def settle_seconds():
    """The role's default kubelet_numa_settle_seconds, which (c) and (e) run with."""
    with open(os.path.join(REPO, "roles", "kubelet_numa", "defaults", "main.yml"), encoding="utf-8") as handle:
        return float(yaml.safe_load(handle)["kubelet_numa_settle_seconds"])


def rollout_argv(fleet, config, *extra):
    """playbooks/rollout.yml node-local over FLEET's inventory with the reservations of CONFIG (so every host is reset)."""
    changed = write_yaml(os.path.join(fleet.work, "config-%d.yml" % len(os.listdir(fleet.work))), {"kubelet_numa_config": config})
    argv = [os.path.join(BIN, "ansible-playbook"), "-i", fleet.inventory, "-e", "@" + changed, "-e", "kubelet_numa_rollout_node_local=true"]
    for assignment in extra:
        argv += ["-e", assignment]
    return [*argv, os.path.join(REPO, "playbooks", "rollout.yml")]


def measure_converge(fleet, program, env):
    """(b) and (a): the role's first converge, its no-op re-runs beside ping, then the hand-written play on fresh hosts."""
    names, hosts, work = fleet.names, fleet.hosts, fleet.work
    ansible_playbook = os.path.join(BIN, "ansible-playbook")
    say(program, "(b) first converge of the role")
    converge = timed([ansible_playbook, "-i", fleet.inventory, os.path.join(PLAYBOOKS, "role.yml")], os.path.join(work, "converge.log"), env)
    say(program, "(a) no-op re-run of the role, and ansible -m ansible.builtin.ping")
    noop = measure_noop(fleet, program, fleet.rounds, env)
    say(program, noop.progress())
    # The baseline writes byte for byte what the role wrote: both files are taken from the first converged host.
    baseline = os.path.join(work, "baseline")
    os.makedirs(baseline)
    fleet.copy_out(names[0], DROPIN, os.path.join(baseline, "dropin.conf.j2"))
    fleet.copy_out(names[0], FLAGS_FILE, os.path.join(baseline, "kubelet.env"))
    say(program, "(b) the hand-written play on fresh hosts")
    fleet.start()
    handwritten = timed(
        [ansible_playbook, "-i", fleet.inventory, "-e", "baseline_dir=" + baseline, os.path.join(PLAYBOOKS, "handwritten.yml")],
        os.path.join(work, "baseline.log"),
        env,
    )
    for name in names:
        if [start.get("result") for start in hosts.kubelet_starts(name)][-1:] != ["started"]:
            raise BenchmarkError(f"{name}: the kubelet did not start after the hand-written play (its output: baseline.log, kept with --logs)")
    converged = converge_measurement(converge, handwritten)
    say(program, converged.progress())
    return [noop, converged]


def measure_rollout(fleet, program, env):
    """(c): the serial rollout of changed reservations, and each host's unit restart from its journal."""
    say(program, "(c) playbooks/rollout.yml node-local, serial 1, with changed reservations (one reset per host)")
    # The journal's own clock, to the second: what it is read from.
    since_epoch = int(time.time())
    rollout = timed(rollout_argv(fleet, CHANGED_CONFIG), os.path.join(fleet.work, "rollout.log"), env)
    journals = {}
    for name in fleet.names:
        journals[name] = fleet.hosts.sh(name, "journalctl --unit kubelet.service --since @%d --output json --no-pager" % since_epoch).stdout
        with open(os.path.join(fleet.work, f"journal-{name}.json"), "w", encoding="utf-8") as handle:
            handle.write(journals[name])
    measurement = rollout_measurement(rollout, *restart_windows(journals), len(fleet.names), settle_seconds())
    say(program, measurement.progress())
    return measurement


def measure_batches(fleet, program, env, cpu):
    """(e): the rollout of one batch's hosts (a third of them), then of all hosts in three batches of that size, each
    with reservations the hosts do not have yet (one reset per host)."""
    hosts = len(fleet.names)
    batch = max(1, hosts // 3)
    budget = ("kubelet_numa_rollout_max_unavailable=%d" % batch, "kubelet_numa_rollout_canary=0")
    runs = []
    for label, count, config in (("one batch", batch, BATCH_CONFIG), ("all", hosts, FLEET_CONFIG)):
        say(program, "(e) playbooks/rollout.yml node-local over %d hosts, kubelet_numa_rollout_max_unavailable %d, no canary" % (count, batch))
        argv = rollout_argv(fleet, config, *budget, "kubelet_numa_rollout_hosts=" + ",".join(fleet.names[:count]))
        log = os.path.join(fleet.work, "batches-%s.log" % label.replace(" ", "-"))
        runs.append(cpu.timed(argv, log, env))
        missed = unchanged_hosts(read(log), fleet.names[:count])
        if missed:
            raise BenchmarkError("(e) the rollout did not reset %d of its hosts (%s ...): see %s" % (len(missed), missed[0], log))
    measurement = fleet_measurement(hosts, batch, runs[1], runs[0])
    say(program, measurement.progress())
    return measurement


def rollout_main(arguments):
    program = "benchmark-rollout"
    if not (os.path.isfile(os.path.join(podman_hosts.hosts_dir(), "containers.conf")) and podman_hosts.image_exists(podman_hosts.TEST_HOST_IMAGE)):
        raise BenchmarkError(
            "no test host image %s (or %s): run scripts/build-test-hosts --only container"
            % (podman_hosts.TEST_HOST_IMAGE, os.path.join(podman_hosts.hosts_dir(), "containers.conf"))
        )
    shortage = inotify_shortage(arguments.hosts, read(INOTIFY_LIMIT)) if os.path.isfile(INOTIFY_LIMIT) else None
    if shortage:
        raise BenchmarkError(shortage)
    env = podman_hosts.ansible_env(COLLECTIONS, ANSIBLE_RETRY_FILES_ENABLED="false", ANSIBLE_DEPRECATION_WARNINGS="false")
    names = ["bench-rollout-%d-%d" % (os.getpid(), index) for index in range(1, arguments.hosts + 1)]
    measurements = []
    work = tempfile.mkdtemp(prefix="numa-kubelet-bench.")
    cpu = CpuAccounting(str(os.getpid()), work)
    env = with_bytecode_cache(env, work)
    # The machine's load when the run began and ended, printed under the table: figures taken beside other jobs say
    # little.
    load_at_start = load_average(read("/proc/loadavg"))
    try:
        if set(arguments.only) & set("abce"):
            with podman_hosts.StageHosts(boot_timeout=BOOT_TIMEOUT) as hosts:
                fleet = Fleet(hosts, names, work, arguments.rounds)
                say(program, "starting %d test hosts (%s ...)" % (arguments.hosts, names[0]))
                fleet.start()
                if "a" in arguments.only or "b" in arguments.only:
                    measurements += [row for row in measure_converge(fleet, program, env) if row.name[1] in arguments.only]
                if "c" in arguments.only:
                    measurements.append(measure_rollout(fleet, program, env))
                if "e" in arguments.only:
                    measurements.append(measure_batches(fleet, program, env, cpu))
                hosts.remove_all()
        if "d" in arguments.only:
            say(program, "(d) render for %d offline hosts, and one template task over the same hosts (slow)" % arguments.render_hosts)
            render_work = os.path.join(work, "render")
            os.makedirs(render_work)
            render, rendered, template = run_render(arguments.render_hosts, True, render_work, podman_hosts.ansible_env(COLLECTIONS))
            if rendered != arguments.render_hosts:
                raise BenchmarkError("numa.kubelet.render wrote %d plan.json for %d hosts (see %s)" % (rendered, arguments.render_hosts, render_work))
            measurements.append(render_measurement(arguments.render_hosts, render, template))
            say(program, measurements[-1].progress())
        measurements.sort(key=lambda row: row.name)
        lines, passed = table(measurements, arguments.hosts, load_at_start, load_average(read("/proc/loadavg")))
        print("\n".join(lines), flush=True)
        return 0 if passed else 1
    finally:
        cpu.close()
        if arguments.logs:
            shutil.copytree(work, arguments.logs, dirs_exist_ok=True)
        shutil.rmtree(work, ignore_errors=True)


def measurements_list(text):
    """--only: letters of a to e, as `a,c` or `ac`."""
    letters = text.replace(",", "")
    if not letters or not set(letters) <= set("abcde"):
        raise argparse.ArgumentTypeError(f"must be letters of a to e (as a,c), got '{text}'")
    return letters


def positive(text):
    if not re.fullmatch(r"[1-9][0-9]*", text):
        raise argparse.ArgumentTypeError(f"must be a positive number, got '{text}'")
    return int(text)


def parser():
    # The docstring's paragraphs: what the file does, render, rollout.
    about, render_about, rollout_about = __doc__.split("\n\n")[:3]
    top = argparse.ArgumentParser(prog="fleet_benchmark.py", description=about, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = top.add_subparsers(dest="command", required=True)
    render = commands.add_parser("render", prog="scripts/benchmark-render", description=render_about, formatter_class=argparse.RawDescriptionHelpFormatter)
    render.add_argument("hosts", nargs="?", type=positive, default=1000, help="offline hosts to render (default 1000)")
    render.add_argument("--compare", action="store_true", help="also time one ansible.builtin.template task over the same hosts (slow)")
    rollout = commands.add_parser("rollout", prog="scripts/benchmark-rollout", description=rollout_about, formatter_class=argparse.RawDescriptionHelpFormatter)
    rollout.add_argument("--hosts", type=positive, default=6, help="test hosts (default 6)")
    rollout.add_argument("--render-hosts", type=positive, default=1000, help="offline hosts of (d) (default 1000)")
    rollout.add_argument("--rounds", type=positive, default=1, help="(a): the no-op and ping this many times in turn, medians compared (default 1)")
    rollout.add_argument("--only", type=measurements_list, default="abcde", help="the measurements to take, as a,c (default all: a,b,c,d,e)")
    rollout.add_argument("--logs", metavar="DIR", help="keep every run's output in DIR")
    return top


def main(argv):
    arguments = parser().parse_args(argv)
    program = "benchmark-" + arguments.command
    if getattr(arguments, "logs", None):
        try:
            os.makedirs(arguments.logs, exist_ok=True)
        except OSError as error:
            sys.exit(f"{program}: ERROR: --logs: cannot make the directory '{arguments.logs}': {error}")
        arguments.logs = os.path.abspath(arguments.logs)

    # A TERM ends the run as Ctrl-C does: through the cleanup (the test hosts removed, --logs copied).
    def interrupted(_signal, _frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupted)
    try:
        return render_main(arguments) if arguments.command == "render" else rollout_main(arguments)
    # tests/podman_hosts.py reports a failed podman or host command as an AssertionError with its output.
    except (BenchmarkError, AssertionError) as error:
        print(f"{program}: ERROR: {error}", file=sys.stderr, flush=True)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
