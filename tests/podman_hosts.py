# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The podman test hosts of the test stages (images made by scripts/build-test-hosts, tests/hosts/README.md): one way
to find podman's configuration, and one way to start hosts (StageHosts: systemd as PID 1, booted, laid out by the
STAND-IN helper numa-standin-provision) and to remove them, also when a test or a start fails.

Every stage names its own containers (and picks its own ports), so stages run side by side. tests/ is on sys.path
(pytest puts tests/conftest.py's folder there), so a stage imports this as `podman_hosts`.
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import subprocess
import time

TEST_HOST_IMAGE = "localhost/numa-kubelet-testhost:bookworm"
# The kubelet stand-in's record of its starts, one JSON object a line (tests/hosts/README.md).
KUBELET_STARTS = "/var/log/kubelet-standin/starts.jsonl"
# Within the hard limits root has on these machines (no CAP_SYS_RESOURCE); containers.conf says the same.
_RUN_OPTIONS = ["--runtime=runc", "--systemd=always", "--ulimit", "nofile=20000:20000", "--ulimit", "nproc=32768:32768"]


def ansible_env(collections_root, **settings):
    """The environment of ansible-playbook in a stage: the checkout as numa.kubelet, no colour, pipelining, no host key
    prompts, and no KUBECONFIG of the caller's (a rollout reaches the API server only through its own variables);
    settings add to it or override it."""
    env = dict(
        os.environ,
        ANSIBLE_COLLECTIONS_PATH=collections_root,
        ANSIBLE_HOST_KEY_CHECKING="false",
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_FORCE_COLOR="0",
        ANSIBLE_PIPELINING="true",
        ANSIBLE_LOCALHOST_WARNING="false",
        **settings,
    )
    env.pop("KUBECONFIG", None)
    return env


def run(argv, check=True, timeout=600, **kwargs):
    """Run a command; with check, a failure raises with its output."""
    result = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=timeout, **kwargs)
    if check and result.returncode != 0:
        raise AssertionError("%s failed (%d):\n%s\n%s" % (argv, result.returncode, result.stdout[-4000:], result.stderr[-4000:]))
    return result


def hosts_dir():
    """Where scripts/build-test-hosts builds (scripts/lib/common.sh: TEST_HOSTS)."""
    cache = os.environ.get("NUMA_KUBELET_CACHE")
    return os.environ.get("NUMA_KUBELET_TEST_HOSTS") or (cache and os.path.join(cache, "test-hosts")) or "/var/cache/numa-kubelet/test-hosts"


def podman_env():
    """The environment for podman: the containers.conf scripts/build-test-hosts writes (runc, cgroupfs, ulimits)."""
    env = dict(os.environ)
    conf = os.path.join(hosts_dir(), "containers.conf")
    if os.path.exists(conf):
        env["CONTAINERS_CONF"] = conf
    return env


def image_exists(image):
    return run(["podman", "image", "exists", image], check=False, env=podman_env()).returncode == 0


def remove(name):
    """Remove the test host `name` at once, whatever state it is in."""
    run(["podman", "rm", "--force", "--time", "0", "--ignore", name], check=False, env=podman_env())


class StageHosts:
    """The test hosts of one stage, started the one way: systemd as PID 1, booted, laid out by the STAND-IN helper
    numa-standin-provision; `remove_all` (or leaving the `with` block, also on an error) removes every host it started,
    including one whose start failed half-way.
    """

    def __init__(self, image=TEST_HOST_IMAGE, boot_timeout=120):
        self.image = image
        self.boot_timeout = boot_timeout
        self.env = podman_env()
        self.pids = {}
        self._started = []

    def __enter__(self):
        return self

    def __exit__(self, *_exc_info):
        self.remove_all()

    def start(self, name, hostname=None, layout=None, options=(), files=(), provision=()):
        """Start the test host `name` (replacing a leftover of that name), wait until its systemd has booted, copy in
        `files` ((path here, path there) pairs) and lay it out as `layout` (numa-standin-provision LAYOUT *provision),
        unless None. Returns the PID of its init (for nsenter, and the nsenter connection's ansible_nsenter_pid)."""
        self._started.append(name)
        run(["podman", "rm", "--force", "--ignore", name], env=self.env)
        run(["podman", "run", "--detach", "--name", name, "--hostname", hostname or name, *_RUN_OPTIONS, *options, self.image, "/sbin/init"], env=self.env)
        pid = run(["podman", "container", "inspect", "--format", "{{.State.Pid}}", name], env=self.env).stdout.strip()
        self.pids[name] = pid
        self._wait_booted(name)
        for here, there in files:
            run(["podman", "cp", here, f"{name}:{there}"], env=self.env)
        if layout is not None:
            self.sh(name, " ".join(["numa-standin-provision", layout, *provision]))
        return pid

    def start_all(self, hosts):
        """Start several hosts side by side: `hosts` maps each name to start's keyword arguments. Returns their PIDs."""
        with concurrent.futures.ThreadPoolExecutor(len(hosts)) as pool:
            started = {name: pool.submit(self.start, name, **arguments) for name, arguments in hosts.items()}
            return {name: future.result() for name, future in started.items()}

    def sh(self, name, script, check=True, timeout=600):
        """Run a shell script on the host, in its namespaces (quicker than podman exec)."""
        return run(
            ["nsenter", "--target", self.pids[name], "--mount", "--uts", "--ipc", "--net", "--pid", "--", "/bin/sh", "-c", script], check=check, timeout=timeout
        )

    def kubelet_starts(self, name):
        """The kubelet stand-in's records of its starts on the host, oldest first ([] before the first)."""
        text = self.sh(name, f"cat {KUBELET_STARTS} 2>/dev/null || true").stdout
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    def remove_all(self):
        for name in self._started:
            remove(name)
        self._started = []
        self.pids = {}

    def _wait_booted(self, name):
        # --wait returns once the boot has finished; before systemd listens at all it answers at once ("offline").
        deadline = time.monotonic() + self.boot_timeout
        state = None
        while state not in ("running", "degraded"):
            remaining = deadline - time.monotonic()
            assert remaining > 0, "%s: systemd did not finish booting in %d s (last state: %s)" % (name, self.boot_timeout, state)
            try:
                state = self.sh(name, "systemctl is-system-running --wait", check=False, timeout=remaining).stdout.strip()
            except subprocess.TimeoutExpired:
                state = "still booting"
            if state not in ("running", "degraded"):
                time.sleep(0.2)
