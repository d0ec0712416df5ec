# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The real kube-apiserver of the stages that need one (tests/apiserver, tests/lablabs), started one way, and the node
agent STAND-IN (tests/standins/controller/node-agent-standin) that does for the test hosts what their kubelet would
do for the API server.

The API server is the kit's `apiserver-up` ($NUMA_KUBELET_APISERVER, a directory holding it or the script; the stages
of scripts/test set it; else <repo>/../shared/apiserver): a real kube-apiserver over etcd on loopback with free ports.
tests/ is on sys.path (pytest puts tests/conftest.py's folder there), so a stage imports this as `kube_apiserver`.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from kits import kit_script
from podman_hosts import run

TESTS = os.path.dirname(os.path.abspath(__file__))
NODE_AGENT = os.path.join(TESTS, "standins", "controller", "node-agent-standin")


def apiserver_up_script():
    return str(kit_script("NUMA_KUBELET_APISERVER", "apiserver-up", os.path.join(os.path.dirname(TESTS), "..", "shared", "apiserver")))


def skip_without_apiserver():
    if not os.path.exists(apiserver_up_script()):
        pytest.skip(f"no real API server at {os.path.dirname(apiserver_up_script())} (../shared/apiserver)")


class ApiServer:
    """One kube-apiserver with its etcd in `workdir`; `stop` takes both down (also after a half-done `start`)."""

    def __init__(self, workdir):
        self.workdir = workdir
        self.kubeconfig = None

    def start(self, extra_args=None):
        """Start it (`extra_args`: more kube-apiserver flags, apiserver-up's KUBE_APISERVER_EXTRA_ARGS); returns the
        admin kubeconfig apiserver-up wrote."""
        env = dict(os.environ, KUBE_APISERVER_EXTRA_ARGS=extra_args) if extra_args else None
        for line in run([apiserver_up_script(), "up", "--workdir", self.workdir], env=env).stdout.splitlines():
            if line.startswith("KUBECONFIG="):
                self.kubeconfig = line.split("=", 1)[1]
        assert self.kubeconfig, "apiserver-up printed no KUBECONFIG= line"
        return self.kubeconfig

    def stop(self):
        if self.kubeconfig:
            run([apiserver_up_script(), "down", os.path.dirname(self.kubeconfig)], check=False)
            self.kubeconfig = None

    def kubectl(self, *args, check=True, stdin=None):
        return run(["kubectl", "--kubeconfig=" + self.kubeconfig, *args], check=check, input=stdin)


class NodeAgent:
    """node-agent-standin for `nodes` ({Node name: (podman container, the unit that runs its kubelet)}): registers
    them, posts Ready from the unit and the kubelet stand-in's /healthz, completes the deletion of evicted pods. Its
    output goes to `log_path`."""

    def __init__(self, kubeconfig, nodes, log_path, env):
        self.argv = [sys.executable, NODE_AGENT, "--kubeconfig", kubeconfig, "--interval", "0.5"]
        self.argv += [f"--node={node}={container}:{unit}" for node, (container, unit) in nodes.items()]
        self.log_path = log_path
        self.env = env
        self.process = None

    def start(self):
        with open(self.log_path, "w", encoding="utf-8") as log:
            self.process = subprocess.Popen(self.argv, stdout=log, stderr=subprocess.STDOUT, env=self.env)

    def stop(self):
        if self.process is not None:
            self.process.terminate()
            self.process.wait(10)
            self.process = None

    def output(self):
        with open(self.log_path, encoding="utf-8") as log:
            return log.read()
