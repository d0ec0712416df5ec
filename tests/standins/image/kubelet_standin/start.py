# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright: numa.kubelet contributors; GNU General Public License v3.0+ (see LICENSE or
# https://www.gnu.org/licenses/gpl-3.0.txt)
"""Kubelet STAND-IN: a start, from the flags to a running stand-in."""

import datetime
import json
import os
import signal
import sys
import time
import urllib.request

from .api import serve_healthz, serve_kubelet_api
from .checkpoint import start_cpu_manager, start_memory_manager
from .checks import cpu_manager, memory_manager, validate_healthz, validate_topology
from .common import CONTAINER_MANAGER_DELAY, EXIT_MARKER, FAIL_MARKER, START_LOG, StartError, host_path
from .config import effective_config, parse_flags
from .klog import log_refusal
from .machine import machine_info

# How long a start waits for its own /healthz before it starts the container manager anyway (the kubelet does not
# wait for healthz at all: it serves it from a goroutine that retries a failed bind every 5 s).
HEALTHZ_WAIT_SECONDS = 5.0


def record(entry):
    """Append one start record to the start log."""
    path = host_path(START_LOG)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(entry, sort_keys=True, default=str) + "\n")


def start_config_only(argv, entry):
    """Parse flags and build the effective config only (for the start log)."""
    config_path, config_dir, root_dir, cert_dir, overrides = parse_flags(argv)
    entry["root_dir"] = root_dir
    entry["cert_dir"] = cert_dir
    entry["effective_config"] = effective_config(config_path, config_dir, overrides)
    return root_dir, entry["effective_config"]


class ContainerManager:
    """What the kubelet's container manager needs at Start(): the checked policies, the machine and the reservations.

    The kubelet builds its container manager (and refuses a bad config) in server.go run() before it serves /healthz,
    but starts it, restoring and writing memory_manager_state and cpu_manager_state, only once the container runtime
    is up (kubelet.go initializeRuntimeDependentModules), after /healthz answers.
    """

    def __init__(self, root_dir, cpu_policy, memory_policy, machine, per_node):
        self.root_dir = root_dir
        self.cpu_policy = cpu_policy
        self.memory_policy = memory_policy
        self.machine = machine
        self.per_node = per_node

    def start(self):
        """Restore or create both checkpoints; raise StartError with the kubelet's message when one is refused."""
        os.makedirs(host_path(self.root_dir), exist_ok=True)
        start_cpu_manager(self.root_dir, self.cpu_policy, self.machine)
        start_memory_manager(self.root_dir, self.memory_policy, self.machine, self.per_node)


def prepare(argv, entry):
    """Every start-up step before the container manager starts: flags, config, the managers' checks."""
    root_dir, config = start_config_only(argv, entry)
    validate_healthz(config)
    validate_topology(config)
    machine = machine_info()
    entry["numa_nodes"] = {str(k): v["memory"] for k, v in sorted(machine["nodes"].items())}
    per_node, kube, system = memory_manager(config, machine)
    cpu_policy = cpu_manager(config, kube, system)
    manager = ContainerManager(root_dir, cpu_policy, config["memoryManagerPolicy"], machine, per_node or {})
    return config, manager


def healthz_url(config):
    """The URL this start's own /healthz answers on, or None when healthz is off (port 0)."""
    port = config.get("healthzPort") or 0
    if not port:
        return None
    address = str(config.get("healthzBindAddress") or "127.0.0.1")
    address = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(address, address)
    return f"http://[{address}]:{port}/healthz" if ":" in address else f"http://{address}:{port}/healthz"


def wait_for_own_healthz(config, timeout=HEALTHZ_WAIT_SECONDS):
    """Return once this start's /healthz answers (or after `timeout`: the container manager starts regardless)."""
    url = healthz_url(config)
    deadline = time.monotonic() + timeout
    while url and time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=1) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.05)


def container_manager_delay():
    """Seconds between /healthz answering and the container manager's start: the marker's number, else 0.

    On a real node this is the time until the container runtime answers; the marker widens it for tests.
    """
    try:
        with open(host_path(CONTAINER_MANAGER_DELAY), encoding="utf-8") as handle:
            return float(handle.read().strip() or 0)
    except FileNotFoundError:
        return 0.0


def count_down(marker):
    """One forced failure used up: the marker goes, or counts down when it holds a number above 1."""
    with open(marker, encoding="utf-8") as handle:
        text = handle.read().strip()
    if text.isdigit() and int(text) > 1:
        with open(marker, "w", encoding="utf-8") as handle:
            handle.write("%d\n" % (int(text) - 1))
    else:
        os.remove(marker)


def take_exit_marker():
    """Seconds after which this good start exits (the marker is consumed), or None."""
    marker = host_path(EXIT_MARKER)
    try:
        with open(marker, encoding="utf-8") as handle:
            text = handle.read().strip()
    except FileNotFoundError:
        return None
    os.remove(marker)
    return float(text or 0)


def new_entry(argv):
    """The start record, before anything is known."""
    return {
        "time": datetime.datetime.now(datetime.UTC).isoformat(),
        "pid": os.getpid(),
        "argv": argv,
        "effective_config": None,
        "result": "started",
        "error": None,
    }


def forced_failure(argv, entry):
    """Raise the forced failure when the fail-next-start marker is present (and count it down)."""
    marker = host_path(FAIL_MARKER)
    if not os.path.exists(marker):
        return
    count_down(marker)
    try:
        start_config_only(argv, entry)
    except StartError:
        pass
    raise StartError(f"kubelet stand-in: forced failure: the marker {FAIL_MARKER} was present (it is now removed)")


def refuse(entry, err):
    """Record and log a refused start; the exit code."""
    entry["result"] = "refused"
    entry["error"] = str(err)
    record(entry)
    print(f"kubelet-standin (not the real kubelet): command failed: {err}", file=sys.stderr, flush=True)
    log_refusal(str(err))
    return 1


def stay_running():
    """Run until SIGTERM, or exit 1 after the seconds the exit-after-start marker names (the marker is consumed)."""
    exit_after = take_exit_marker()
    if exit_after is not None:
        time.sleep(exit_after)
        log_refusal(f"start memory manager error: kubelet stand-in: exit after start: the marker {EXIT_MARKER} said {exit_after} s")
        return 1
    while True:
        time.sleep(3600)


def main(argv=None):
    """Entry point: check the config, serve /healthz, then start the container manager (the checkpoints), as the
    kubelet does; record the start and stay running, or exit 1 when a step is refused."""
    argv = sys.argv[1:] if argv is None else argv
    oneshot = os.environ.get("NUMA_KUBELET_STANDIN_ONESHOT") == "1"
    entry = new_entry(argv)
    try:
        forced_failure(argv, entry)
        config, manager = prepare(argv, entry)
        if not oneshot:
            serve_kubelet_api(config, entry["cert_dir"])
    except StartError as err:
        return refuse(entry, err)
    if not oneshot:
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        serve_healthz(config)
        wait_for_own_healthz(config)
        time.sleep(container_manager_delay())
    try:
        manager.start()
    except StartError as err:
        return refuse(entry, err)
    entry["reserved_memory_bytes"] = {str(k): v for k, v in sorted(manager.per_node.items())}
    record(entry)
    print("kubelet-standin (not the real kubelet): Started kubelet", file=sys.stderr, flush=True)
    return 0 if oneshot else stay_running()
