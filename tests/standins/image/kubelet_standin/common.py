# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright: numa.kubelet contributors; GNU General Public License v3.0+ (see LICENSE or
# https://www.gnu.org/licenses/gpl-3.0.txt)
"""Kubelet STAND-IN (not the real kubelet): the paths it reads and writes, its error type and Go quoting."""

import json
import os

ROOT = os.environ.get("NUMA_KUBELET_STANDIN_ROOT", "/")
FAIL_MARKER = "/etc/kubelet-standin/fail-next-start"
EXIT_MARKER = "/etc/kubelet-standin/exit-after-start"
# Seconds between /healthz answering and the container manager writing its checkpoints (default 0).
CONTAINER_MANAGER_DELAY = "/etc/kubelet-standin/container-manager-delay"
START_LOG = "/var/log/kubelet-standin/starts.jsonl"
DEFAULT_ROOT_DIR = "/var/lib/kubelet"
KUBELET_API_VERSION = "kubelet.config.k8s.io/v1beta1"
DEFAULT_EVICTION_HARD = {
    "memory.available": "100Mi",
    "nodefs.available": "10%",
    "nodefs.inodesFree": "5%",
    "imagefs.available": "15%",
    "imagefs.inodesFree": "5%",  # pkg/kubelet/eviction/defaults_linux.go; seen on the /configz of the kubelet v1.36.2
}
SCALAR_DEFAULTS = {
    "memoryManagerPolicy": "None",
    "cpuManagerPolicy": "none",
    "topologyManagerPolicy": "none",
    "topologyManagerScope": "container",
    "cgroupDriver": "cgroupfs",
    "maxPods": 110,
    "healthzBindAddress": "127.0.0.1",
    "healthzPort": 10248,
    "enableServer": True,
    "address": "0.0.0.0",
    "port": 10250,
}
DEFAULT_CERT_DIR = "/var/lib/kubelet/pki"


class StartError(Exception):
    """A start the kubelet would refuse; the message is the kubelet's text."""


def host_path(path):
    """Return where the logical absolute path lives under the stand-in root."""
    return os.path.join(ROOT, path.lstrip("/"))


def go_quote(text):
    """Quote a string like Go's %q for the plain ASCII texts used here."""
    return json.dumps(str(text))
