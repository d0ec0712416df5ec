# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A test fleet for numa.kubelet.rollout and numa.kubelet.verify against a REAL kube-apiserver.

- The API server: ../shared/apiserver/apiserver-up (or $NUMA_KUBELET_APISERVER), a real kube-apiserver v1.36.2 over
  etcd on loopback; kubectl is the real one.
- The nodes: podman test hosts (localhost/numa-kubelet-testhost:bookworm) laid out by the STAND-IN helper
  numa-standin-provision: two kubeadm nodes and an RKE2 1.32 agent, a mixed fleet as the rollout meets it (each
  host's platform is detected); their kubelet is the kubelet STAND-IN (tests/hosts/README.md).
- tests/standins/controller/node-agent-standin, a STAND-IN for what a kubelet tells the API server: it registers the
  Nodes, posts their addresses and kubelet port (so the API server's node proxy reaches the kubelet stand-in's
  /configz), posts Ready from the kubelet stand-in's unit and /healthz, and completes the deletion of evicted pods.
  The API server and the node agent start as in tests/lablabs (tests/kube_apiserver.py).

The fleet lives for the module; reset() lays every host out again between tests.
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import shutil
import sys
import time

import pytest
import yaml
from kube_apiserver import ApiServer, NodeAgent, skip_without_apiserver
from podman_hosts import TEST_HOST_IMAGE, StageHosts, ansible_env, image_exists, podman_env, run

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
HOSTS = ["rollout-n1", "rollout-n2", "rollout-n3"]
# numa-standin-provision's layout per host, and what follows from it.
LAYOUT = {"rollout-n1": "kubeadm", "rollout-n2": "kubeadm", "rollout-n3": "rke2-agent"}
PLATFORM = {"kubeadm": "kubeadm", "rke2-agent": "rke2"}
UNIT = {"kubeadm": "kubelet.service", "rke2-agent": "rke2-agent.service"}
# The drop-in numa.kubelet writes: kubeadm's --config-dir, RKE2 1.32's kubelet.conf.d (docs/kubelet-facts.md section 4).
DROPIN = {"kubeadm": "/etc/kubernetes/kubelet.conf.d/50-numa-kubelet.conf", "rke2-agent": "/var/lib/rancher/rke2/agent/etc/kubelet.conf.d/50-numa-kubelet.conf"}
# The podman containers are named prefix + host (the hosts keep their names as inventory hosts, Nodes and hostnames),
# so that two checkouts can run this stage on one machine at the same time.
CONTAINER_PREFIX = os.environ.get("NUMA_KUBELET_TEST_CONTAINER_PREFIX", "")
FAIL_MARKER = "/etc/kubelet-standin/fail-next-start"
# How long the restart transaction polls the kubelet stand-in's /healthz before it rolls back: a deadline, not a wait
# (the transaction goes on as soon as /healthz answers), generous for a machine under heavy load; a start the stand-in
# refuses fails at once whatever it is.
HEALTH_TIMEOUT = 60
INTENT = {
    "memoryManagerPolicy": "Static",
    "topologyManagerPolicy": "single-numa-node",
    "kubeReserved": {"memory": "512Mi"},
    "systemReserved": {"memory": "512Mi"},
}
# What numa.kubelet writes on each layout, removed so that numa-standin-provision leaves the installer's state.
# /var/lib/numa-kubelet (the self-heal's records and the node-local rollout's record) goes with them on every layout.
ROLE_PATHS = {
    "kubeadm": [DROPIN["kubeadm"], "/etc/default/kubelet", "/etc/systemd/system/kubelet.service.d/90-numa-kubelet-reboot-reset.conf"],
    "rke2-agent": [DROPIN["rke2-agent"], "/etc/systemd/system/rke2-agent.service.d/90-numa-kubelet-reboot-reset.conf"],
}


def dropin(host):
    return DROPIN[LAYOUT[host]]


def unit(host):
    return UNIT[LAYOUT[host]]


def container(host):
    return CONTAINER_PREFIX + host


class Fleet:
    def __init__(self, tmp, collections_root):
        self.tmp = tmp
        self.collections_root = collections_root
        self.env = podman_env()
        self.hosts = StageHosts()
        self.apiserver = ApiServer(os.path.join(tmp, "apiserver"))
        self.kubeconfig = None
        self.pids = {}
        self.agent = None

    # -- lifecycle -------------------------------------------------------------------------------------------
    def start(self):
        # The node proxy (/api/v1/nodes/N/proxy/configz) dials the first of the Node's addresses in the order of
        # --kubelet-preferred-address-types. The upstream default starts with Hostname, which nothing resolves here
        # ("Error from server (BadRequest): lookup rollout-n1 on ...: no such host"); kubeadm runs the API server with
        # InternalIP,ExternalIP,Hostname (cmd/kubeadm/app/phases/controlplane/manifests.go, getAPIServerCommand), as here.
        self.kubeconfig = self.apiserver.start(extra_args="--kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname")
        pids = self.hosts.start_all({container(host): {"hostname": host, "layout": LAYOUT[host]} for host in HOSTS})
        self.pids = {host: pids[container(host)] for host in HOSTS}
        nodes = {host: (container(host), unit(host)) for host in HOSTS}
        self.agent = NodeAgent(self.kubeconfig, nodes, os.path.join(self.tmp, "node-agent.log"), self.env)
        self.agent.start()
        self.wait_ready()
        self.write_inventory()

    def stop(self):
        if self.agent is not None:
            self.agent.stop()
        self.hosts.remove_all()
        self.apiserver.stop()

    def parallel(self, function):
        with concurrent.futures.ThreadPoolExecutor(len(HOSTS)) as pool:
            list(pool.map(function, HOSTS))

    def provision(self, host):
        self.sh(
            host,
            "rm -rf %s && systemctl daemon-reload && numa-standin-provision %s"
            % (" ".join(ROLE_PATHS[LAYOUT[host]] + ["/run/numa-kubelet", "/var/lib/numa-kubelet", FAIL_MARKER]), LAYOUT[host]),
        )

    def reset(self):
        """Every host back to the installer's state, every Node schedulable and Ready without the rollout's record, no
        test pods or PDBs."""
        # Not the namespace: without a namespace controller its deletion never completes.
        self.kubectl("delete", "pods,poddisruptionbudgets", "--all", "--namespace=rollout-test", "--force", "--grace-period=0")
        self.parallel(self.provision)
        for host in HOSTS:
            self.kubectl("uncordon", host)
        self.kubectl("annotate", "node", "--all", "numa.kubelet/rollout-")
        self.wait_ready()

    def wait_ready(self, timeout=90):
        deadline = time.time() + timeout
        while True:
            states = {host: self.ready(host) for host in HOSTS}
            if all(states.values()):
                return
            assert time.time() < deadline, "nodes not Ready after %d s: %s\n%s" % (timeout, states, self.agent.output())
            time.sleep(0.5)

    # -- helpers ---------------------------------------------------------------------------------------------
    def sh(self, host, script, check=True):
        return self.hosts.sh(container(host), script, check=check)

    def kubectl(self, *args, check=True, stdin=None):
        return self.apiserver.kubectl(*args, check=check, stdin=stdin)

    def node(self, host):
        return json.loads(self.kubectl("get", "node", host, "--output=json").stdout)

    def ready(self, host):
        found = self.kubectl("get", "node", host, "--output=json", check=False)
        if found.returncode != 0:
            return False  # not registered by the node agent yet
        conditions = json.loads(found.stdout).get("status", {}).get("conditions", [])
        return any(c["type"] == "Ready" and c["status"] == "True" for c in conditions)

    def cordoned(self, host):
        return bool(self.node(host)["spec"].get("unschedulable"))

    def starts(self, host):
        return self.hosts.kubelet_starts(container(host))

    def snapshot(self, host):
        """Checksums of the kubelet's inputs and checkpoint, and the number of kubelet starts."""
        sums = self.sh(
            host,
            "cd / && for f in %s /var/lib/kubelet/config.yaml /var/lib/kubelet/memory_manager_state; do "
            'if [ -e "$f" ]; then sha256sum "$f"; else echo "missing $f"; fi; done' % " ".join(ROLE_PATHS[LAYOUT[host]]),
        ).stdout
        return {"files": sums, "starts": len(self.starts(host))}

    def write_inventory(self):
        hosts = {
            host: {
                "ansible_connection": "community.docker.nsenter",
                "ansible_nsenter_pid": int(self.pids[host]),
                "ansible_python_interpreter": "/usr/bin/python3",
            }
            for host in HOSTS
        }
        inventory = {
            "all": {
                "children": {
                    "gpu_nodes": {
                        "hosts": hosts,
                        "vars": {"kubelet_numa_config": INTENT, "kubelet_numa_reserved_memory_split": "even", "kubelet_numa_health_timeout": HEALTH_TIMEOUT},
                    }
                }
            }
        }
        self.inventory = os.path.join(self.tmp, "inventory.yml")
        with open(self.inventory, "w") as out:
            yaml.safe_dump(inventory, out)

    def playbook(self, name, *extra, inventory=None):
        env = ansible_env(self.collections_root, ANSIBLE_CALLBACK_RESULT_FORMAT="yaml")
        argv = [os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), name, "-i", inventory or self.inventory] + list(extra)
        return run(argv, check=False, cwd=REPO, env=env)


@pytest.fixture(scope="module")
def fleet(tmp_path_factory, collections_root):
    skip_without_apiserver()
    if os.geteuid() != 0 or not shutil.which("podman") or not shutil.which("kubectl"):
        pytest.skip("needs root, podman and kubectl")
    if not image_exists(TEST_HOST_IMAGE):
        pytest.skip(f"no test host image {TEST_HOST_IMAGE} (scripts/build-test-hosts --only container)")
    fleet = Fleet(str(tmp_path_factory.mktemp("fleet")), collections_root)
    try:
        fleet.start()
        yield fleet
    finally:
        fleet.stop()
