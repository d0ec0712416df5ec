# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""examples/lablabs-rke2.yml end to end with the REAL lablabs.rke2 role on test hosts.

- lablabs.rke2: ../shared/clients/lablabs.rke2 (or $NUMA_KUBELET_LABLABS_RKE2), tag 1.53.0, unmodified, found by name
  through ANSIBLE_ROLES_PATH, in its airgap `copy` mode: it copies rke2.sh and the artifacts of
  rke2_airgap_copy_sourcepath to the hosts and runs rke2.sh; everything after that (config.yaml, kubelet-config.yaml,
  the services, its handlers and rolling restart, the waits for the nodes) is lablabs' own code.
- What rke2.sh installs is the RKE2 STAND-IN (tests/standins/rke2-release/): rke2-install.sh unpacks a tarball built
  here holding `rke2` (rke2-standin-binary.c: the service's main process, answers --version and supervises
  rke2-standin), tests/standins/image/rke2-standin (which hands the kubelet stand-in of the test image RKE2's kubelet
  arguments),
  the rke2-server / rke2-agent units, the real kubectl (RKE2 puts one in <data-dir>/bin) and the server's
  /etc/rancher/rke2/rke2.yaml.
- The API server: ../shared/apiserver (or $NUMA_KUBELET_APISERVER), a real kube-apiserver on loopback with free ports.
  In each host, 127.0.0.1:6443 (where an RKE2 server serves its API) forwards to it, so lablabs' kubectl on the node
  talks to the real API server; tests/standins/controller/node-agent-standin registers the Nodes and posts Ready from
  the RKE2 unit and the kubelet stand-in's /healthz (what RKE2's kubelet would do). The API server and the node agent
  start as in tests/apiserver (tests/kube_apiserver.py).
- Hosts: podman containers of the test image, named with a prefix of this run (nothing fixed clashes with other
  scenarios); inventory hosts server-1 (masters) and agent-1 (workers) in k8s_cluster.
"""

from __future__ import annotations

import ctypes
import glob
import hashlib
import io
import json
import os
import shutil
import socket
import sys
import tarfile
import threading
import time

import pytest
import yaml
from kube_apiserver import ApiServer, NodeAgent, skip_without_apiserver
from podman_hosts import TEST_HOST_IMAGE, StageHosts, ansible_env, image_exists, podman_env, run

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
STANDINS = os.path.join(REPO, "tests", "standins")
GROUPS = {"server-1": "masters", "agent-1": "workers"}
UNITS = {"server-1": "rke2-server.service", "agent-1": "rke2-agent.service"}
RKE2_VERSION = "v1.32.5+rke2r1"
CLONE_NEWNET = 0x40000000
# Where an RKE2 server serves the Kubernetes API on its own loopback.
RKE2_API_PORT = 6443


LABLABS = os.path.realpath(os.environ.get("NUMA_KUBELET_LABLABS_RKE2") or os.path.join(REPO, "..", "shared", "clients", "lablabs.rke2"))


_libc = ctypes.CDLL("libc.so.6", use_errno=True)


def _setns(fd):
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error))


class LoopbackForward:
    """127.0.0.1:RKE2_API_PORT in a container's network namespace, forwarded to a port on the host's loopback."""

    def __init__(self, pid, target_port):
        self.target_port = target_port
        own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
        theirs = os.open(f"/proc/{pid}/ns/net", os.O_RDONLY)
        try:
            _setns(theirs)  # only this thread, and only to create the listening socket there
            try:
                self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                self.listener.bind(("127.0.0.1", RKE2_API_PORT))
                self.listener.listen(32)
            finally:
                _setns(own)
        finally:
            os.close(own)
            os.close(theirs)
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                client, _address = self.listener.accept()
            except OSError:
                return  # closed
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target_port), timeout=10)
                upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self.pump, args=(source, sink), daemon=True).start()

    @staticmethod
    def pump(source, sink):
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self):
        self.listener.close()


class Cluster:
    def __init__(self, tmp, collections_root):
        self.tmp = tmp
        self.collections_root = collections_root
        self.env = podman_env()
        self.hosts = StageHosts()
        self.prefix = "numa-lablabs-%d-" % os.getpid()
        self.apiserver = ApiServer(os.path.join(tmp, "apiserver"))
        self.kubeconfig = None
        self.pids = {}
        self.forwards = []
        self.agent = None
        self.artifacts = os.path.join(tmp, "artifacts")

    # -- lifecycle -------------------------------------------------------------------------------------------
    def start(self):
        self.kubeconfig = self.apiserver.start()
        # This machine's per-NUMA MemTotal changes while it runs (memory onlined on the VM), and a kubelet restarted with
        # an unchanged config refuses its checkpoint when it does ("the expected machine state is different from the
        # real one"). Real nodes see that drift across reboots (kubernetes#109996), where the boot-time reset handles it;
        # so that a stage fails only for what it tests, the hosts see the NUMA nodes' meminfo as it was at the start.
        mounts = []
        for meminfo in sorted(glob.glob("/sys/devices/system/node/node[0-9]*/meminfo")):
            frozen = os.path.join(self.tmp, f"{os.path.basename(os.path.dirname(meminfo))}-meminfo")
            shutil.copyfile(meminfo, frozen)
            mounts += ["--volume", f"{frozen}:{meminfo}:ro"]
        pids = self.hosts.start_all({self.prefix + host: {"hostname": host, "options": mounts} for host in GROUPS})
        self.pids = {host: pids[self.prefix + host] for host in GROUPS}
        with open(self.kubeconfig, encoding="utf-8") as handle:
            config = yaml.safe_load(handle)
        port = int(config["clusters"][0]["cluster"]["server"].rsplit(":", 1)[1])
        self.forwards = [LoopbackForward(self.pids[host], port) for host in GROUPS]
        self.build_artifacts(config)
        nodes = {host: (self.prefix + host, UNITS[host]) for host in GROUPS}
        self.agent = NodeAgent(self.kubeconfig, nodes, os.path.join(self.tmp, "node-agent.log"), self.env)
        self.agent.start()

    def stop(self):
        if self.agent is not None:
            self.agent.stop()
        for forward in self.forwards:
            forward.close()
        self.hosts.remove_all()
        self.apiserver.stop()

    def build_artifacts(self, host_kubeconfig):
        """rke2_airgap_copy_sourcepath: rke2.sh and the files of lablabs' rke2_artifact, laying out the RKE2 STAND-IN."""
        os.makedirs(self.artifacts)
        shutil.copy(os.path.join(STANDINS, "rke2-release", "rke2-install.sh"), os.path.join(self.artifacts, "rke2.sh"))
        binary = os.path.join(self.tmp, "rke2")
        run(["gcc", "-static", "-O2", "-Wall", "-Werror", "-o", binary, os.path.join(STANDINS, "rke2-release", "rke2-standin-binary.c")])
        # What a node's kubectl reads: the API server behind the node's own 127.0.0.1:6443 (LoopbackForward).
        node_kubeconfig = json.loads(json.dumps(host_kubeconfig))
        node_kubeconfig["clusters"][0]["cluster"]["server"] = "https://127.0.0.1:%d" % RKE2_API_PORT
        kubectl = shutil.which("kubectl")
        units = {}
        for role in ("server", "agent"):
            other = "agent" if role == "server" else "server"
            prepare = "install -D -m 0755 /usr/local/share/rke2-standin/kubectl /var/lib/rancher/rke2/bin/kubectl" + (
                " && install -D -m 0600 /usr/local/share/rke2-standin/rke2.yaml /etc/rancher/rke2/rke2.yaml" if role == "server" else ""
            )
            units[f"lib/systemd/system/rke2-{role}.service"] = (
                f"# RKE2 {role} STAND-IN (tests/lablabs): not RKE2. Restart= as RKE2's own unit.\n"
                f"[Unit]\nDescription=RKE2 {role} STAND-IN for numa.kubelet tests (not RKE2)\nAfter=network-online.target\nConflicts=rke2-{other}.service\n\n"
                f"[Service]\nType=simple\nExecStartPre=/bin/sh -c '{prepare}'\nExecStart=/usr/local/bin/rke2 {role}\nRestart=always\nRestartSec=5s\n\n"
                "[Install]\nWantedBy=multi-user.target\n"
            )
        tarball = os.path.join(self.artifacts, "rke2.linux-amd64.tar.gz")
        with tarfile.open(tarball, "w:gz") as archive:
            archive.add(binary, "bin/rke2")
            # The repository's RKE2 stand-in over the image's copy: the RKE2 this tarball installs is the one tested here.
            archive.add(os.path.join(STANDINS, "image", "rke2-standin"), "bin/rke2-standin")
            archive.add(os.path.realpath(kubectl), "share/rke2-standin/kubectl")
            for name, text in dict(
                units, **{"share/rke2-standin/version": RKE2_VERSION + "\n", "share/rke2-standin/rke2.yaml": yaml.safe_dump(node_kubeconfig)}
            ).items():
                data = text.encode()
                info = tarfile.TarInfo(name)
                info.size, info.mode = len(data), 0o644
                archive.addfile(info, io.BytesIO(data))
        # Copied by lablabs, not used by the stand-in (there are no images to import).
        open(os.path.join(self.artifacts, "rke2-images.linux-amd64.tar.zst"), "wb").close()
        sums = []
        for name in ("rke2.linux-amd64.tar.gz", "rke2-images.linux-amd64.tar.zst"):
            with open(os.path.join(self.artifacts, name), "rb") as handle:
                sums.append(f"{hashlib.sha256(handle.read()).hexdigest()}  {name}\n")
        with open(os.path.join(self.artifacts, "sha256sum-amd64.txt"), "w", encoding="utf-8") as handle:
            handle.writelines(sums)

    # -- helpers ---------------------------------------------------------------------------------------------
    def sh(self, host, script, check=True):
        return self.hosts.sh(self.prefix + host, script, check=check)

    def starts(self, host):
        return self.hosts.kubelet_starts(self.prefix + host)

    def read(self, host, path):
        result = self.sh(host, f"cat {path}", check=False)
        return result.stdout if result.returncode == 0 else None

    def inventory(self, hosts_vars, name="inventory.yml"):
        """lablabs' airgap copy mode and the per-host variables given (the intent, lablabs' own per-host values)."""
        connection = {
            host: {
                "ansible_connection": "community.docker.nsenter",
                "ansible_nsenter_pid": int(self.pids[host]),
                "ansible_python_interpreter": "/usr/bin/python3",
            }
            for host in GROUPS
        }
        groups = {}
        for host, group in GROUPS.items():
            groups.setdefault(group, {"hosts": {}})["hosts"][host] = dict(connection[host], **hosts_vars.get(host, {}))
        inventory = {
            "all": {
                "vars": {
                    "rke2_version": RKE2_VERSION,
                    "rke2_airgap_mode": True,
                    "rke2_airgap_implementation": "copy",
                    "rke2_airgap_copy_sourcepath": self.artifacts,
                    "rke2_token": "numa-kubelet-lablabs-test",
                    "rke2_api_ip": "127.0.0.1",
                },
                "children": {"k8s_cluster": {"children": groups}},
            }
        }
        path = os.path.join(self.tmp, name)
        with open(path, "w", encoding="utf-8") as out:
            yaml.safe_dump(inventory, out, sort_keys=False)
        return path

    def playbook(self, playbook, inventory):
        env = ansible_env(self.collections_root, ANSIBLE_ROLES_PATH=os.path.dirname(LABLABS), ANSIBLE_HOME=os.path.join(self.tmp, "ansible-home"))
        if os.environ.get("NUMA_KUBELET_LABLABS_PYTHONPATH"):
            # lablabs.rke2's controller-side need: ansible.utils' ipwrap filter imports netaddr (scripts/test installs it there).
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.environ["NUMA_KUBELET_LABLABS_PYTHONPATH"], env.get("PYTHONPATH")]))
        started = time.time()
        result = run([os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), playbook, "-i", inventory], check=False, cwd=REPO, env=env)
        with open(os.path.join(self.tmp, "playbook-%d.log" % int(started)), "w", encoding="utf-8") as log:
            log.write(result.stdout + result.stderr)
        return result


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, collections_root):
    if not os.path.isdir(os.path.join(LABLABS, "tasks")):
        pytest.skip(f"lablabs.rke2 is not at {LABLABS} (../shared/clients/lablabs.rke2)")
    skip_without_apiserver()
    if os.geteuid() != 0 or not shutil.which("podman") or not shutil.which("kubectl") or not shutil.which("gcc"):
        pytest.skip("needs root, podman, kubectl and gcc")
    if not image_exists(TEST_HOST_IMAGE):
        pytest.skip(f"no test host image {TEST_HOST_IMAGE} (scripts/build-test-hosts --only container)")
    cluster = Cluster(str(tmp_path_factory.mktemp("lablabs")), collections_root)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()
