# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The collection run the way AWX and Automation Platform run it: in an execution environment (EE) image built with
ansible-builder, through ansible-runner.

- the EE: tests/ee/execution-environment.yml built by ansible-builder on podman, from the base image
  scripts/build-test-hosts --only ee makes (no registry), with the collection tarball built from this checkout;
- numa.kubelet.render in the EE (`ansible-runner run --process-isolation --container-image`) writes, byte for byte,
  what the same playbook writes on this controller;
- numa.kubelet.rollout (node-local, imported by the project's playbook as a job template's would) on a kubeadm test
  host reached over ssh with a machine credential (the runner's ssh_key), through the pipe AWX's receptor runs:
  `ansible-runner transmit | ansible-runner worker | ansible-runner process`, the worker starting the EE container.

The test host (localhost/numa-kubelet-testhost-ssh, laid out by the STAND-IN numa-standin-provision) has a name of its
own (the process id), so this runs beside the other stages. NUMA_KUBELET_ANSIBLE_RUNNER names the ansible-runner
(requirements-ee.txt, the ee stage's environment) and NUMA_KUBELET_EE_IMAGE the tag of the image built here.
"""

from __future__ import annotations

import filecmp
import json
import os
import shutil
import subprocess
import sys
import time

import pytest
import yaml
from podman_hosts import StageHosts, image_exists, podman_env, run

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.dirname(sys.executable)
BASE_IMAGE = "localhost/numa-kubelet-ee-base:bookworm"
NODE_IMAGE = "localhost/numa-kubelet-testhost-ssh:bookworm"
EE_IMAGE = os.environ.get("NUMA_KUBELET_EE_IMAGE", "localhost/numa-kubelet-ee:test")
RUNNER = os.environ.get("NUMA_KUBELET_ANSIBLE_RUNNER") or shutil.which("ansible-runner") or "ansible-runner"
NODE = "numa-kubelet-ee-node-%d" % os.getpid()
# Where outgoing HTTPS is intercepted, the build's pip trusts what this machine trusts.
CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"
DROPIN = "/etc/kubernetes/kubelet.conf.d/50-numa-kubelet.conf"
INTENT = {
    "memoryManagerPolicy": "Static",
    "topologyManagerPolicy": "single-numa-node",
    "kubeReserved": {"memory": "512Mi"},
    "systemReserved": {"memory": "512Mi"},
}


def runner_env():
    # Only what a job gets from AWX: the private data directory decides, not this checkout's ansible.cfg or ANSIBLE_*.
    env = {key: value for key, value in podman_env().items() if not key.startswith("ANSIBLE_")}
    env["PATH"] = os.path.dirname(RUNNER) + os.pathsep + env.get("PATH", "")
    return env


# What AWX gives ansible-runner for a job in an EE. The job runs as root in the container: podman is rootful here, and
# the private data directory (mounted at /runner) belongs to root, as rootless podman on an AWX execution node maps
# the container's root to the user owning that directory.
def isolation_settings(image):
    return {"process_isolation": True, "process_isolation_executable": "podman", "container_image": image, "container_options": ["--user=root"]}


def isolation_arguments(image):
    settings = isolation_settings(image)
    return ["--process-isolation", "--process-isolation-executable", settings["process_isolation_executable"], "--container-image", image] + [
        f"--container-option={option}" for option in settings["container_options"]
    ]


def all_image_ids():
    return run(["podman", "images", "--all", "--format", "{{.Id}}"], env=podman_env()).stdout.split()


@pytest.fixture(scope="module")
def ee_image(tmp_path_factory):
    if os.geteuid() != 0 or not shutil.which("podman"):
        pytest.skip("needs root and podman")
    for image in (BASE_IMAGE, NODE_IMAGE):
        if not image_exists(image):
            pytest.skip("no image %s (scripts/build-test-hosts --only ee)" % image)
    context = str(tmp_path_factory.mktemp("ee"))
    build = os.path.join(context, "build")
    run([os.path.join(BIN, "ansible-galaxy"), "collection", "build", REPO, "--output-path", build])
    (tarball,) = os.listdir(build)
    shutil.copy(os.path.join(build, tarball), os.path.join(context, "numa-kubelet.tar.gz"))
    shutil.copy(os.path.join(REPO, "tests", "ee", "execution-environment.yml"), context)
    # --layers=false: with layers, podman keeps an image of every stage of ansible-builder's multi-stage Containerfile
    # (galaxy and builder: about 350 MB each, dangling) at every run, and CI runs on a machine that keeps them.
    build_options = ["--layers=false"] + (["-v", "%s:%s:ro" % (CA_BUNDLE, CA_BUNDLE)] if os.path.exists(CA_BUNDLE) else [])
    extra = ["--extra-build-cli-args=%s" % " ".join(build_options)]
    previous = run(["podman", "image", "inspect", "--format", "{{.Id}}", EE_IMAGE], check=False, env=podman_env()).stdout.strip()
    images_before = set(all_image_ids())
    started = time.monotonic()
    run(
        [
            os.path.join(BIN, "ansible-builder"),
            "build",
            "-f",
            "execution-environment.yml",
            "--context",
            "context",
            "--tag",
            EE_IMAGE,
            "--container-runtime",
            "podman",
        ]
        + extra,
        cwd=context,
        env=podman_env(),
        timeout=900,
    )
    print(f"ansible-builder built {EE_IMAGE} in {time.monotonic() - started:.0f} s")
    built = run(["podman", "image", "inspect", "--format", "{{.Id}}", EE_IMAGE], env=podman_env()).stdout.strip()
    assert set(all_image_ids()) - images_before <= {built}, f"the EE build left images besides {EE_IMAGE} behind"
    if previous and previous != built:
        # The image the tag named before this build: not left behind at every run (kept while a container uses it).
        run(["podman", "rmi", previous], check=False, env=podman_env())
    listed = run(["podman", "run", "--rm", EE_IMAGE, "ansible-galaxy", "collection", "list", "numa.kubelet", "--format", "json"], env=podman_env()).stdout
    assert any("numa.kubelet" in collections for collections in json.loads(listed).values()), listed
    return EE_IMAGE


def test_render_in_the_ee_is_what_the_controller_renders(ee_image, tmp_path):
    inventory = os.path.join(REPO, "playbooks", "inventory", "example.yml")
    here = tmp_path / "controller"
    run([os.path.join(BIN, "ansible-playbook"), "-i", inventory, "numa.kubelet.render", "-e", f"kubelet_numa_render_dir={here}"], cwd=REPO)
    private = tmp_path / "job"
    (private / "inventory").mkdir(parents=True)
    shutil.copy(inventory, private / "inventory" / "example.yml")
    # The private data directory is /runner in the EE container; the job writes into its artifacts.
    result = run(
        [
            RUNNER,
            "run",
            str(private),
            "--playbook",
            "numa.kubelet.render",
            "--ident",
            "render",
            "--cmdline",
            "-e kubelet_numa_render_dir=/runner/artifacts/render/out",
        ]
        + isolation_arguments(ee_image),
        check=False,
        env=runner_env(),
    )
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    in_ee = private / "artifacts" / "render" / "out"
    hosts = sorted(os.listdir(here))
    assert hosts == sorted(os.listdir(in_ee)) and "kubeadm-gpu-01" in hosts
    compared = filecmp.dircmp(here, in_ee)
    differing = []

    def walk(comparison, prefix=""):
        differing.extend(prefix + name for name in comparison.diff_files + comparison.left_only + comparison.right_only)
        for name, sub in comparison.subdirs.items():
            walk(sub, prefix + name + "/")

    walk(compared)
    # dircmp compares by size and time first: read every file to be sure.
    for root, _dirs, files in os.walk(here):
        for name in files:
            mine = os.path.join(root, name)
            theirs = os.path.join(in_ee, os.path.relpath(mine, here))
            with open(mine, "rb") as left, open(theirs, "rb") as right:
                if left.read() != right.read():
                    differing.append(os.path.relpath(mine, here))
    assert not differing, differing


@pytest.fixture()
def ssh_node(tmp_path):
    env = podman_env()
    with StageHosts(image=NODE_IMAGE) as hosts:
        hosts.start(NODE, hostname="ee-node", layout="kubeadm")
        key = tmp_path / "id_ed25519"
        run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "numa-kubelet-ee-test", "-f", str(key)])
        run(
            ["podman", "exec", "-i", NODE, "sh", "-ec", "install -d -m 0700 /root/.ssh && cat >/root/.ssh/authorized_keys"],
            input=(tmp_path / "id_ed25519.pub").read_text(),
            env=env,
        )
        address = run(["podman", "inspect", "--format", "{{.NetworkSettings.IPAddress}}", NODE], env=env).stdout.strip()
        assert address, f"no address for {NODE}"
        yield {"address": address, "key": key.read_text()}


def test_rollout_over_ssh_through_transmit_worker_process(ee_image, ssh_node, tmp_path):
    private = tmp_path / "job"
    for folder in ("inventory", "env", "project"):
        (private / folder).mkdir(parents=True)
    # An AWX job template runs a playbook of its project: here one that imports the collection's.
    (private / "project" / "rollout.yml").write_text(
        "---\n- name: Roll the kubelet NUMA configuration out\n  ansible.builtin.import_playbook: numa.kubelet.rollout\n"
    )
    inventory = {
        "all": {
            "children": {
                "gpu_nodes": {
                    "hosts": {"ee-node": {"ansible_host": ssh_node["address"], "ansible_user": "root", "ansible_python_interpreter": "/usr/bin/python3"}},
                    "vars": {"kubelet_numa_config": INTENT, "kubelet_numa_reserved_memory_split": "even", "kubelet_numa_health_timeout": 30},
                }
            }
        }
    }
    (private / "inventory" / "hosts.yml").write_text(yaml.safe_dump(inventory))
    # AWX's machine credential: the runner gives the key to an ssh-agent in the EE, never to a file the play reads.
    (private / "env" / "ssh_key").write_text(ssh_node["key"])
    (private / "env" / "envvars").write_text(yaml.safe_dump({"ANSIBLE_HOST_KEY_CHECKING": "False"}))
    (private / "env" / "extravars").write_text(yaml.safe_dump({"kubelet_numa_rollout_node_local": True}))
    # transmit takes no isolation options: AWX writes them into the job's env/settings, which travel with it.
    (private / "env" / "settings").write_text(yaml.safe_dump(isolation_settings(ee_image)))
    env = runner_env()
    # The three ends of AWX's receptor work unit, here joined by pipes on one machine.
    transmit = subprocess.Popen([RUNNER, "transmit", str(private), "--playbook", "rollout.yml"], stdout=subprocess.PIPE, env=env)
    worker = subprocess.Popen([RUNNER, "worker"], stdin=transmit.stdout, stdout=subprocess.PIPE, env=env)
    transmit.stdout.close()
    process = subprocess.run([RUNNER, "process", str(private)], stdin=worker.stdout, capture_output=True, text=True, env=env, timeout=900, check=False)
    worker.stdout.close()
    assert transmit.wait(timeout=60) == 0 and worker.wait(timeout=60) == 0
    # process writes the job's artifacts straight into the private data directory's artifacts folder, as AWX reads them.
    artifacts = private / "artifacts"
    status = (artifacts / "status").read_text() if (artifacts / "status").exists() else "no status"
    assert process.returncode == 0 and status == "successful", process.stdout[-6000:] + process.stderr[-2000:]
    assert (artifacts / "rc").read_text() == "0"
    assert "*** NODE-LOCAL MODE: no kubelet_numa_rollout_kubeconfig is set. ***" in process.stdout
    written = yaml.safe_load(run(["podman", "exec", NODE, "cat", DROPIN], env=podman_env()).stdout)
    # 512Mi + 512Mi + the kubelet's 100Mi eviction default = 1124Mi on the single NUMA node.
    assert written["reservedMemory"] == [{"numaNode": 0, "limits": {"memory": "1124Mi"}}]
    state = json.loads(run(["podman", "exec", NODE, "cat", "/var/lib/kubelet/memory_manager_state"], env=podman_env()).stdout)
    assert state["policyName"] == "Static"
