# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The oracle's baseline config (tests/oracle/cases: accepted by the real kubelet on two NUMA nodes of 16Gi) and the
helpers the rule tests build their single-fault cases with."""

from __future__ import annotations

from ansible_collections.numa.kubelet.plugins.plugin_utils._validation import check_kubelet_config

BASE = {
    "apiVersion": "kubelet.config.k8s.io/v1beta1",
    "kind": "KubeletConfiguration",
    "memoryManagerPolicy": "Static",
    "topologyManagerPolicy": "single-numa-node",
    "cpuManagerPolicy": "static",
    "kubeReserved": {"cpu": "500m", "memory": "1Gi"},
    "systemReserved": {"memory": "512Mi"},
    "reservedMemory": [{"numaNode": 0, "limits": {"memory": "818Mi"}}, {"numaNode": 1, "limits": {"memory": "818Mi"}}],
}

# BASE as text, for the tests that edit the file's text itself (tabs, spacing): the same fields, flow style.
BASE_TEXT = """apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
memoryManagerPolicy: Static
topologyManagerPolicy: single-numa-node
cpuManagerPolicy: static
kubeReserved: {cpu: 500m, memory: 1Gi}
systemReserved: {memory: 512Mi}
reservedMemory:
  - {numaNode: 0, limits: {memory: 818Mi}}
  - {numaNode: 1, limits: {memory: 818Mi}}
"""


def nodes(count=2, cpus_per_node=1):
    """NUMA nodes as numa_facts reports them: CPUs 0..count*cpus_per_node-1, spread in order."""
    return [{"id": node, "memory_bytes": 16 << 30, "cpus": list(range(node * cpus_per_node, (node + 1) * cpus_per_node))} for node in range(count)]


def errors(version="1.36", numa=None, **fields):
    """The errors of the baseline with FIELDS set, as kubelet VERSION on NUMA nodes NUMA judges it."""
    config = {**BASE, **fields}
    return check_kubelet_config(config, numa, kubelet_version=version).errors


def gates(**enabled):
    return {"featureGates": enabled}
