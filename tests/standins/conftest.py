# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fixtures for the test-host stand-ins' own tests: a fake machine tree and helpers that run the stand-ins.

The stand-ins (tests/standins/image/) are run as subprocesses with NUMA_KUBELET_STANDIN_ROOT pointing at a
temporary directory that holds a fake /proc/meminfo, /sys/devices/system/{node,cpu} and the config files, so
no host, container or root privilege is needed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

STANDINS = Path(__file__).resolve().parent / "image"
KUBELET = STANDINS / "kubelet-standin"
RKE2 = STANDINS / "rke2-standin"
NODEADM = STANDINS / "nodeadm-standin"
API = "kubelet.config.k8s.io/v1beta1"


@dataclass
class Result:
    """One stand-in run: exit code, output, and (for the kubelet) its last start record."""

    rc: int
    stdout: str
    stderr: str
    start: dict | None


class FakeHost:
    """A fake machine tree under a temporary directory, used as the stand-ins' root."""

    def __init__(self, root: Path):
        self.root = root

    def path(self, logical: str) -> Path:
        """The real path of a logical absolute path inside the fake host."""
        return self.root / logical.lstrip("/")

    def write(self, logical: str, content) -> Path:
        """Write text, or a mapping as YAML, to a logical path."""
        target = self.path(logical)
        target.parent.mkdir(parents=True, exist_ok=True)
        if not isinstance(content, str):
            content = yaml.safe_dump(content, sort_keys=False)
        target.write_text(content, encoding="utf-8")
        return target

    def machine(self, nodes_kib, hugepages=None):
        """Lay down NUMA nodes (one CPU each, MemTotal in KiB) and /proc/meminfo with their sum."""
        total = sum(nodes_kib)
        self.write("/proc/meminfo", "MemTotal:       %d kB\nMemFree:        1000 kB\n" % total)
        self.write("/sys/devices/system/cpu/online", "0-%d\n" % (len(nodes_kib) - 1) if len(nodes_kib) > 1 else "0\n")
        online = "0-%d" % (len(nodes_kib) - 1) if len(nodes_kib) > 1 else "0"
        self.write("/sys/devices/system/node/online", online + "\n")
        for node, kib in enumerate(nodes_kib):
            base = "/sys/devices/system/node/node%d" % node
            self.write(base + "/meminfo", "Node %d MemTotal:       %d kB\nNode %d MemFree: 10 kB\n" % (node, kib, node))
            self.write(base + "/cpulist", "%d\n" % node)
            for size_kb, pages in (hugepages or {}).get(node, {}).items():
                self.write(base + "/hugepages/hugepages-%dkB/nr_hugepages" % size_kb, "%d\n" % pages)

    def starts(self) -> list:
        """Every record in the kubelet stand-in's start log."""
        log = self.path("/var/log/kubelet-standin/starts.jsonl")
        if not log.exists():
            return []
        return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]

    def state(self, name="memory_manager_state", root_dir="/var/lib/kubelet") -> dict:
        """A checkpoint file written by the kubelet stand-in."""
        return json.loads(self.path(root_dir + "/" + name).read_text(encoding="utf-8"))

    def run(self, script: Path, args, extra_env=None) -> Result:
        """Run a stand-in against this fake host."""
        env = dict(os.environ)
        env.update(
            {
                "NUMA_KUBELET_STANDIN_ROOT": str(self.root),
                "NUMA_KUBELET_STANDIN_ONESHOT": "1",
                "KUBELET_STANDIN_BIN": str(KUBELET),
            }
        )
        env.update(extra_env or {})
        before = len(self.starts())
        proc = subprocess.run([sys.executable, str(script)] + list(args), env=env, capture_output=True, text=True, timeout=60, check=False)
        starts = self.starts()
        return Result(proc.returncode, proc.stdout, proc.stderr, starts[-1] if len(starts) > before else None)

    def kubelet(self, *args, **kwargs) -> Result:
        """Start the kubelet stand-in once."""
        return self.run(KUBELET, args, **kwargs)

    def kubelet_config(self, logical="/var/lib/kubelet/config.yaml", **fields) -> str:
        """Write a KubeletConfiguration with the given fields; return its logical path."""
        self.write(logical, dict({"apiVersion": API, "kind": "KubeletConfiguration"}, **fields))
        return logical


@pytest.fixture
def make_host(tmp_path):
    """A factory for fake hosts with the given NUMA node sizes in KiB."""

    def make(nodes_kib, name="root"):
        fake = FakeHost(tmp_path / name)
        fake.machine(nodes_kib)
        return fake

    return make


@pytest.fixture
def host(tmp_path) -> FakeHost:
    """A fake one-NUMA-node host with 8 GiB (8388608 KiB)."""
    fake = FakeHost(tmp_path / "root")
    fake.machine([8388608])
    return fake


@pytest.fixture
def numa2(tmp_path) -> FakeHost:
    """A fake two-NUMA-node host: 4 GiB on node 0, 2 GiB on node 1."""
    fake = FakeHost(tmp_path / "root")
    fake.machine([4194304, 2097152])
    return fake
