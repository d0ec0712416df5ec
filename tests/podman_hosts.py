# -*- coding: utf-8 -*-
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The podman test hosts of the test stages (images made by scripts/build-test-hosts, tests/hosts/README.md): one way
to find podman's configuration, start a host with systemd as PID 1 and wait until it has booted, and remove it.

Every stage names its own containers (and picks its own ports), so stages run side by side. tests/ is on sys.path
(pytest puts tests/conftest.py's folder there), so a stage imports this as `podman_hosts`.
"""

from __future__ import annotations

import os
import subprocess
import time

TEST_HOST_IMAGE = "localhost/numa-kubelet-testhost:bookworm"
# Within the hard limits root has on these machines (no CAP_SYS_RESOURCE); containers.conf says the same.
_RUN_OPTIONS = ["--runtime=runc", "--systemd=always", "--ulimit", "nofile=20000:20000", "--ulimit", "nproc=32768:32768"]


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


def start(name, image=TEST_HOST_IMAGE, hostname=None, options=(), boot_timeout=120):
    """Start the test host `name` (replacing a leftover of that name) and wait until its systemd has booted."""
    env = podman_env()
    run(["podman", "rm", "--force", "--ignore", name], env=env)
    run(["podman", "run", "--detach", "--name", name, "--hostname", hostname or name, *_RUN_OPTIONS, *options, image, "/sbin/init"], env=env)
    deadline = time.monotonic() + boot_timeout
    while run(["podman", "exec", name, "systemctl", "is-system-running"], check=False, env=env).stdout.strip() not in ("running", "degraded"):
        assert time.monotonic() < deadline, "%s: systemd did not finish booting in %d s" % (name, boot_timeout)
        time.sleep(0.5)


def remove(name):
    """Remove the test host `name` at once, whatever state it is in."""
    run(["podman", "rm", "--force", "--time", "0", "--ignore", name], check=False, env=podman_env())
