# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Test hosts for the restart: one podman test host per test, laid out by the STAND-IN helper numa-standin-provision.

The kubelet, RKE2 and nodeadm there are stand-ins (tests/hosts/README.md). Containers are named
numa-restart-<pid>-<n>, so that this stage never meets another checkout's hosts or a molecule scenario's.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import os
import shutil
import sys
import time

import pytest
import yaml
from podman_hosts import TEST_HOST_IMAGE, StageHosts, ansible_env, image_exists, run

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FAIL_MARKER = "/etc/kubelet-standin/fail-next-start"
CHECKPOINT = "/var/lib/kubelet/memory_manager_state"
INTENT = {
    "memoryManagerPolicy": "Static",
    "topologyManagerPolicy": "single-numa-node",
    "kubeReserved": {"memory": "512Mi"},
    "systemReserved": {"memory": "512Mi"},
}
UNIT = {"kubeadm": "kubelet.service", "rke2-server": "rke2-server.service", "rke2-agent": "rke2-agent.service", "nodeadm": "kubelet.service"}
_NAMES = itertools.count()


def _load_standin_archive():
    """scripts/lib/standin_archive.py: packs this checkout's kubelet stand-in as the images carry it (one file)."""
    spec = importlib.util.spec_from_file_location("standin_archive", os.path.join(REPO, "scripts", "lib", "standin_archive.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


standin_archive = _load_standin_archive()


class Node:
    """One test host: a container with systemd, provisioned as `layout`, and the role run on it by ansible-playbook."""

    def __init__(self, tmp, collections_root, layout):
        self.tmp, self.collections_root, self.layout = tmp, collections_root, layout
        self.unit = UNIT[layout]
        self.name = "numa-restart-%d-%d" % (os.getpid(), next(_NAMES))
        self.hosts = StageHosts()
        self.pid = None

    def start(self):
        # The kubelet STAND-IN of this checkout (its markers for these tests), whichever checkout built the shared image.
        standin = standin_archive.pack(os.path.join(self.tmp, "kubelet-standin"))
        self.pid = self.hosts.start(self.name, layout=self.layout, files=[(standin, "/usr/local/bin/kubelet-standin")], provision=["--timeout", "180"])

    def stop(self):
        self.hosts.remove_all()

    # -- looking at the host ---------------------------------------------------------------------------------
    def sh(self, script, check=True):
        return self.hosts.sh(self.name, script, check=check)

    def read(self, path):
        """The file's text, or None when it does not exist."""
        found = self.sh(f"cat {path}", check=False)
        return found.stdout if found.returncode == 0 else None

    def write(self, path, text):
        run(["nsenter", "--target", self.pid, "--mount", "--", "/bin/sh", "-c", f"cat > {path}"], input=text)

    def active(self):
        return self.sh(f"systemctl is-active {self.unit}", check=False).stdout.strip()

    def starts(self):
        return self.hosts.kubelet_starts(self.name)

    def checkpoint(self):
        text = self.read(CHECKPOINT)
        return None if text is None else json.loads(text)

    def restart(self, unit=None, timeout=60):
        """systemctl restart (the kubelet's unit unless told), then the kubelet stand-in's record of the start it caused."""
        before = len(self.starts())
        self.sh("systemctl restart %s" % (unit or self.unit), check=False)
        deadline = time.time() + timeout
        while len(self.starts()) <= before:
            assert time.time() < deadline, "%s: no kubelet start within %d s of restarting %s" % (self.name, timeout, unit or self.unit)
            time.sleep(0.3)
        return self.starts()[-1]

    # -- running Ansible ---------------------------------------------------------------------------------------
    def inventory(self, groups=(), **variables):
        """An inventory of this host with `variables`, also a member of each of `groups`."""
        host = {
            "ansible_connection": "community.docker.nsenter",
            "ansible_nsenter_pid": int(self.pid),
            "ansible_python_interpreter": "/usr/bin/python3",
            "kubelet_numa_config": INTENT,
            # A deadline, not a wait: the transaction goes on once /healthz answers, and a start the stand-in refuses
            # fails at once; generous for a machine under heavy load (a start cut short is rolled back).
            "kubelet_numa_health_timeout": 60,
        }
        host.update(variables)
        path = os.path.join(self.tmp, f"inventory-{self.name}.yml")
        inventory = {"all": {"hosts": {self.name: host}}}
        if groups:
            inventory["all"]["children"] = {group: {"hosts": {self.name: {}}} for group in groups}
        with open(path, "w", encoding="utf-8") as out:
            yaml.safe_dump(inventory, out)
        return path

    def playbook_env(self):
        return ansible_env(self.collections_root, ANSIBLE_CALLBACK_RESULT_FORMAT="yaml", ANSIBLE_RETRY_FILES_ENABLED="false")

    def playbook_argv(self, playbook, *extra, groups=(), **variables):
        return [os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), playbook, "-i", self.inventory(groups, **variables)] + list(extra)

    def play(self, tasks, *extra, groups=(), **variables):
        """Run one play of `tasks` on this host; the CompletedProcess."""
        path = os.path.join(self.tmp, f"play-{self.name}.yml")
        with open(path, "w", encoding="utf-8") as out:
            yaml.safe_dump([{"name": "Test play", "hosts": "all", "gather_facts": False, "tasks": tasks}], out, sort_keys=False)
        return run(self.playbook_argv(path, *extra, groups=groups, **variables), check=False, cwd=REPO, env=self.playbook_env())

    def role(self, *extra, **variables):
        return self.play([{"name": "Run the role", "ansible.builtin.import_role": {"name": "numa.kubelet.kubelet_numa"}}], *extra, **variables)


@pytest.fixture
def node_factory(tmp_path, collections_root):
    if os.geteuid() != 0 or not shutil.which("podman") or not shutil.which("nsenter"):
        pytest.skip("needs root, podman and nsenter")
    if not image_exists(TEST_HOST_IMAGE):
        pytest.skip(f"no test host image {TEST_HOST_IMAGE} (scripts/build-test-hosts --only container)")
    nodes = []

    def make(layout):
        node = Node(str(tmp_path), collections_root, layout)
        nodes.append(node)
        node.start()
        return node

    try:
        yield make
    finally:
        for node in nodes:
            node.stop()
