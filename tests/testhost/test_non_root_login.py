# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The collection as a user runs it: installed from the built tarball into an empty HOME, on a kubeadm test host
(podman, localhost/numa-kubelet-testhost, laid out by the STAND-IN numa-standin-provision) reached as a normal login
(`deploy`, sudo without a password), as the README says.

- numa.kubelet.rollout without a kubeconfig and without kubelet_numa_rollout_node_local is refused before anything
  is read, and the node is unchanged;
- kubelet_numa_topology / kubelet_numa_node_files (render-only inputs) are refused on a real run, the node unchanged;
- without become the non-root login cannot write the kubelet's files; with the playbooks' become it rolls the node;
- a second node-local rollout of the converged node restarts nothing.

The container has a name of its own (the process id), so this runs beside the molecule and apiserver stages.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import sysconfig

import pytest
import yaml
from podman_hosts import TEST_HOST_IMAGE, StageHosts, image_exists, podman_env, run

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HOST = "login-node"
CONTAINER = "numa-kubelet-login-%d" % os.getpid()
DROPIN = "/etc/kubernetes/kubelet.conf.d/50-numa-kubelet.conf"
WATCHED = [DROPIN, "/etc/default/kubelet", "/var/lib/kubelet/config.yaml", "/var/lib/kubelet/memory_manager_state"]
INTENT = {
    "memoryManagerPolicy": "Static",
    "topologyManagerPolicy": "single-numa-node",
    "kubeReserved": {"memory": "512Mi"},
    "systemReserved": {"memory": "512Mi"},
}
BIN = os.path.dirname(sys.executable)


class Node:
    """The test host and the installed collection a user would have."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.env = podman_env()
        self.hosts = StageHosts()
        self.home = os.path.join(tmp, "home")
        os.makedirs(self.home)

    def sh(self, script, check=True):
        return run(["podman", "exec", CONTAINER, "sh", "-ec", script], check=check, env=self.env)

    def start(self):
        self.hosts.start(CONTAINER, hostname=HOST, layout="kubeadm")
        self.sh(
            "useradd --create-home --shell /bin/bash deploy && echo 'deploy ALL=(ALL) NOPASSWD: ALL' >/etc/sudoers.d/deploy && chmod 0440 /etc/sudoers.d/deploy"
        )

    def stop(self):
        self.hosts.remove_all()

    def install_collection(self):
        """README: ansible-galaxy collection build, then install the tarball; here into the empty HOME's default path."""
        build = os.path.join(self.tmp, "build")
        run([os.path.join(BIN, "ansible-galaxy"), "collection", "build", REPO, "--output-path", build], cwd=self.tmp, env=self.user_env())
        tarball = [name for name in os.listdir(build) if name.endswith(".tar.gz")]
        run([os.path.join(BIN, "ansible-galaxy"), "collection", "install", "--offline", os.path.join(build, tarball[0])], cwd=self.tmp, env=self.user_env())
        assert os.path.isfile(os.path.join(self.home, ".ansible", "collections", "ansible_collections", "numa", "kubelet", "MANIFEST.json"))

    def user_env(self):
        env = {key: value for key, value in self.env.items() if not key.startswith("ANSIBLE_")}
        env.update(
            HOME=self.home,
            ANSIBLE_NOCOLOR="1",
            ANSIBLE_CALLBACK_RESULT_FORMAT="yaml",
            ANSIBLE_LOCALHOST_WARNING="false",
            PATH=BIN + os.pathsep + env.get("PATH", ""),
        )
        # The podman connection plugin comes with the project's virtualenv (the `ansible` package), as kubectl would
        # come with the user's machine; the collection itself only from the HOME it was installed into.
        env["ANSIBLE_COLLECTIONS_PATH"] = os.path.join(self.home, ".ansible", "collections") + os.pathsep + site_collections()
        return env

    def write_inventory(self, **extra):
        host = {
            "ansible_connection": "containers.podman.podman",
            "ansible_host": CONTAINER,
            "ansible_user": "deploy",
            "ansible_python_interpreter": "/usr/bin/python3",
        }
        host.update(extra)
        inventory = {
            "all": {
                "children": {
                    "gpu_nodes": {
                        "hosts": {HOST: host},
                        "vars": {"kubelet_numa_config": INTENT, "kubelet_numa_reserved_memory_split": "even", "kubelet_numa_health_timeout": 30},
                    }
                }
            }
        }
        path = os.path.join(self.tmp, "inventory.yml")
        with open(path, "w", encoding="utf-8") as handle:
            yaml.safe_dump(inventory, handle)
        return path

    def playbook(self, name, *extra, **host_vars):
        return run(
            [os.path.join(BIN, "ansible-playbook"), "-i", self.write_inventory(**host_vars), name] + list(extra), check=False, cwd=self.tmp, env=self.user_env()
        )

    def snapshot(self):
        sums = self.sh('for f in %s; do if [ -e "$f" ]; then sha256sum "$f"; else echo "missing $f"; fi; done' % " ".join(WATCHED)).stdout
        return {"files": sums, "starts": len(self.hosts.kubelet_starts(CONTAINER))}


def site_collections():
    """The virtualenv's site-packages, where the `ansible` package keeps containers.podman (not the checkout's link)."""
    return sysconfig.get_paths()["purelib"]


@pytest.fixture(scope="module")
def node(tmp_path_factory):
    if os.geteuid() != 0 or not shutil.which("podman"):
        pytest.skip("needs root and podman")
    if not image_exists(TEST_HOST_IMAGE):
        pytest.skip(f"no test host image {TEST_HOST_IMAGE} (scripts/build-test-hosts --only container)")
    test_node = Node(str(tmp_path_factory.mktemp("login")))
    try:
        test_node.start()
        test_node.install_collection()
        yield test_node
    finally:
        test_node.stop()


def flat(text):
    return " ".join(text.split())


def test_the_login_is_a_normal_user(node):
    result = run(
        [os.path.join(BIN, "ansible"), "-i", node.write_inventory(), HOST, "-m", "ansible.builtin.command", "-a", "id -un"],
        check=False,
        cwd=node.tmp,
        env=node.user_env(),
    )
    assert result.returncode == 0 and "deploy" in result.stdout.split(), result.stdout + result.stderr


def test_a_rollout_without_kubeconfig_or_opt_in_is_refused_before_anything_is_read(node):
    before = node.snapshot()
    result = node.playbook("numa.kubelet.rollout")
    assert result.returncode == 2, result.stdout + result.stderr
    assert (
        "numa.kubelet.rollout refused; nothing was drained or changed: kubelet_numa_rollout_kubeconfig is not set, so "
        "nodes cannot be cordoned or drained and each kubelet would restart under its running pods. Set "
        "kubelet_numa_rollout_kubeconfig (a kubeconfig on the control host), or set kubelet_numa_rollout_node_local=true "
        "to restart the kubelets node-local anyway."
    ) in flat(result.stdout), result.stdout
    # The refusal is the first task: the node was not even planned.
    assert "Discover and plan the node" not in result.stdout
    assert node.snapshot() == before


@pytest.mark.parametrize(
    "render_input",
    [
        {"kubelet_numa_topology": {"numa_nodes": [{"id": 0, "memory_bytes": 8589934592, "cpus": [0]}], "numa_memory_capacity_bytes": 8589934592}},
        {"kubelet_numa_node_files": {"/var/lib/kubelet/config.yaml": "kind: KubeletConfiguration\n"}},
    ],
    ids=["topology", "node_files"],
)
def test_render_only_inputs_are_refused_on_a_real_run(node, render_input):
    before = node.snapshot()
    name = next(iter(render_input))
    result = node.playbook("numa.kubelet.rollout", "-e", "kubelet_numa_rollout_node_local=true", **render_input)
    assert result.returncode == 2, result.stdout + result.stderr
    assert (
        f"{HOST}: {name} is for numa.kubelet.render and check mode only: a run that changes the node reads its own NUMA topology "
        f"and kubelet files. Remove {name} from this host's variables (or run numa.kubelet.render, or --check)"
    ) in flat(result.stdout), result.stdout
    assert "numa.kubelet.rollout refused; nothing was drained or changed:" in flat(result.stdout)
    assert node.snapshot() == before


def test_without_become_the_login_cannot_write_the_kubelets_files(node):
    before = node.snapshot()
    result = node.playbook("numa.kubelet.rollout", "-e", "kubelet_numa_rollout_node_local=true", ansible_become=False)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Permission denied" in result.stdout, result.stdout
    assert node.snapshot()["files"] == before["files"]


def test_with_become_the_login_rolls_the_node_and_a_second_rollout_restarts_nothing(node):
    before = node.snapshot()
    result = node.playbook("numa.kubelet.rollout", "-e", "kubelet_numa_rollout_node_local=true")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "*** NODE-LOCAL MODE: no kubelet_numa_rollout_kubeconfig is set. ***" in result.stdout
    written = yaml.safe_load(node.sh("cat " + DROPIN).stdout)
    # 512Mi + 512Mi + the kubelet's 100Mi eviction default = 1124Mi on the single NUMA node.
    assert written["reservedMemory"] == [{"numaNode": 0, "limits": {"memory": "1124Mi"}}]
    assert node.sh("stat -c '%U:%G %a' " + DROPIN).stdout.split() == ["root:root", "644"]
    state = json.loads(node.sh("cat /var/lib/kubelet/memory_manager_state").stdout)
    assert state["policyName"] == "Static"
    rolled = node.snapshot()
    assert rolled["starts"] == before["starts"] + 1

    again = node.playbook("numa.kubelet.rollout", "-e", "kubelet_numa_rollout_node_local=true")
    assert again.returncode == 0, again.stdout + again.stderr
    assert node.snapshot() == rolled
