# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The boot-time program's split IS the engine's split: the assembled program file (what the user data installs),
run as a process on fake sysfs trees, writes exactly the reservedMemory that the engine computes for the same
kubelet files and topology (reserved_memory of effective_kubelet_config, on the nodes numa_facts reads), or refuses
with exactly the engine's problems.

The program runs under Python 3.9 when it is installed here (AL2023's python3 is 3.9), else under this Python.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys

import pytest

from ansible_collections.numa.kubelet.plugins.module_utils._numa_topology import read_topology
from ansible_collections.numa.kubelet.plugins.plugin_utils._boot_split import DROPIN_NAME, PROGRAM, ROOT_ENV
from ansible_collections.numa.kubelet.plugins.plugin_utils._boot_split_bundle import program_text
from ansible_collections.numa.kubelet.plugins.plugin_utils._config import KubeletConfigError
from ansible_collections.numa.kubelet.plugins.plugin_utils._effective import effective_kubelet_config
from ansible_collections.numa.kubelet.plugins.plugin_utils._split import reserved_memory
from ansible_collections.numa.kubelet.tests.unit.plugins.modules.fake_sysfs import make_tree

GIB_KIB = 1 << 20


def _python39():
    """AL2023's system python (dnf's) is 3.9: the program runs under one when this machine has it, else under this one."""
    pyenv = os.path.join(os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv")), "versions")
    candidates = [shutil.which("python3.9")] + sorted(glob.glob(os.path.join(pyenv, "3.9.*", "bin", "python3.9")))
    for path in filter(None, candidates):
        if subprocess.run([path, "-c", "import lzma, sys; assert sys.version_info[:2] == (3, 9)"], capture_output=True, check=False).returncode == 0:
            return path
    return sys.executable


PYTHON = _python39()
# nodeadm's base config.json (its evictionHard, kubeReserved from maxPods 110), then drop-ins and flags as nodes have them.
NODEADM_BASE = {
    "apiVersion": "kubelet.config.k8s.io/v1beta1",
    "kind": "KubeletConfiguration",
    "kubeReserved": {"cpu": "70m", "ephemeral-storage": "1Gi", "memory": "1465Mi"},
    "evictionHard": {"memory.available": "100Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%"},
}
NODEADM_DROPIN = {"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration", "memoryManagerPolicy": "Static", "maxPods": 110}
KARPENTER_PINNED = dict(NODEADM_DROPIN, kubeReserved={"memory": "8500Mi"}, systemReserved={"memory": "1Gi"}, evictionHard={"memory.available": "500Mi"})
# (name, main file or None, drop-ins, kubelet flags)
KUBELETS = [
    ("nodeadm", NODEADM_BASE, [NODEADM_DROPIN], []),
    ("karpenter pinned totals", NODEADM_BASE, [NODEADM_DROPIN, KARPENTER_PINNED], []),
    ("no main file: no default eviction", None, [dict(NODEADM_DROPIN, kubeReserved={"memory": "1Gi"})], []),
    ("main file without evictionHard", {"kubeReserved": {"memory": "1Gi"}}, [NODEADM_DROPIN], []),
    ("drop-in keeps the default 100Mi", {"systemReserved": {"memory": "512Mi"}}, [dict(NODEADM_DROPIN, evictionHard={"nodefs.available": "5%"})], []),
    ("evictionHard without memory", dict(NODEADM_BASE, evictionHard={"nodefs.available": "10%"}), [NODEADM_DROPIN], []),
    ("mergeDefaultEvictionSettings", dict(NODEADM_BASE, evictionHard={"nodefs.available": "10%"}, mergeDefaultEvictionSettings=True), [NODEADM_DROPIN], []),
    ("decimal and odd quantities", NODEADM_BASE, [dict(NODEADM_DROPIN, kubeReserved={"memory": "1.5G"}, systemReserved={"memory": "333333333"})], []),
    (
        "flags replace and add",
        NODEADM_BASE,
        [NODEADM_DROPIN],
        ["--kube-reserved=cpu=100m", "--kube-reserved=memory=2Gi", "--eviction-hard", "memory.available<300Mi"],
    ),
    ("a flag replaces the whole map", NODEADM_BASE, [NODEADM_DROPIN], ["--eviction-hard=nodefs.available<10%"]),
    ("an empty evictionHard under a drop-in", {"kubeReserved": {"memory": "1Gi"}, "evictionHard": {}}, [NODEADM_DROPIN], []),
    ("a zero eviction threshold", {"evictionHard": {"memory.available": "0"}}, [NODEADM_DROPIN], []),
    ("nothing reserved", {"evictionHard": {"memory.available": "0%"}}, [NODEADM_DROPIN], []),
    ("a NUMA node too small", NODEADM_BASE, [dict(NODEADM_DROPIN, kubeReserved={"memory": "40Gi"})], []),
]
# {id: (MemTotal kB, cpulist, hugepage pools)}: 1, 2, 4 and 8 nodes, uneven nodes, a memoryless node, hugepages.
TOPOLOGIES = {
    "1 node": {0: (16 * GIB_KIB, "0-3", {})},
    "2 nodes": {0: (16 * GIB_KIB, "0-1", {}), 1: (16 * GIB_KIB, "2-3", {})},
    "4 nodes": {node: (32 * GIB_KIB, str(node), {}) for node in range(4)},
    "8 nodes": {node: (64 * GIB_KIB, str(node), {}) for node in range(8)},
    "uneven": {0: (3029432, "0", {}), 1: (2984172, "1", {}), 2: (8 * GIB_KIB + 12345, "2", {})},
    "memoryless node": {0: (16 * GIB_KIB, "0", {}), 1: (0, "1", {}), 2: (16 * GIB_KIB, "2", {})},
    "hugepages": {0: (32 * GIB_KIB, "0", {2048: (1024, 1024), 1048576: (4, 4)}), 1: (32 * GIB_KIB, "1", {2048: (0, 0)})},
}
SPLITS = ["even", "proportional", "first", {"0": "1Gi", "1": "465Mi"}, {"0": "1565Mi"}]


def _write(path, document):
    path.write_text(json.dumps(document), encoding="utf-8")
    return str(path)


def run_program(tmp_path, main, dropins, flags, split, program=None):
    """Run the assembled program as the kubelet unit would; (exit code, stdout, stderr, our drop-in or None)."""
    program = program or _write(tmp_path / "unused", {})
    config_dir = tmp_path / "config.json.d"
    config_dir.mkdir()
    for index, dropin in enumerate(dropins):
        _write(config_dir / f"{40 + index}-layer.conf", dropin)
    arguments = ["--kubeconfig=/var/lib/kubelet/kubeconfig", f"--config-dir={config_dir}", "--root-dir", str(tmp_path / "kubelet")]
    if main is not None:
        arguments.append(f"--config={_write(tmp_path / 'config.json', main)}")
    options = _write(tmp_path / "boot-split.json", {"split": split})
    proc = subprocess.run(
        [PYTHON, program, options, "--", *arguments, *flags],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=dict(os.environ, **{ROOT_ENV: str(tmp_path / "host")}),
    )
    ours = config_dir / DROPIN_NAME
    return proc.returncode, proc.stdout, proc.stderr, json.loads(ours.read_text()) if ours.exists() else None


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    path = tmp_path_factory.mktemp("program") / PROGRAM
    path.write_text(program_text(), encoding="utf-8")
    return str(path)


def engine_answer(main, dropins, flags, split, topology):
    try:
        config = effective_kubelet_config(main, dropins, flags)
        return "split", reserved_memory(config, topology["numa_nodes"], split, topology["numa_memory_capacity_bytes"])
    except KubeletConfigError as exc:
        return "refused", exc.problems


# Every kubelet on two topologies, every topology under three kubelets (each with every split): the cross product
# would only repeat these paths, at a second per program run.
CASES = sorted(
    {(kubelet[0], topology) for kubelet in KUBELETS for topology in ("2 nodes", "uneven")}
    | {(kubelet, topology) for kubelet in ("nodeadm", "karpenter pinned totals", "a NUMA node too small") for topology in TOPOLOGIES}
)


@pytest.mark.parametrize("kubelet_name, topology_name", CASES)
def test_program_writes_the_engines_split(tmp_path, program, kubelet_name, topology_name):
    _name, main, dropins, flags = next(kubelet for kubelet in KUBELETS if kubelet[0] == kubelet_name)
    make_tree(tmp_path / "host", TOPOLOGIES[topology_name])
    topology = read_topology(str(tmp_path / "host"))
    for index, split in enumerate(SPLITS):
        case = tmp_path / str(index)
        case.mkdir()
        (case / "host").symlink_to(tmp_path / "host")
        kind, expected = engine_answer(main, dropins, flags, split, topology)
        code, stdout, stderr, written = run_program(case, main, dropins, flags, split, program)
        if kind == "split":
            assert (code, stderr) == (0, ""), f"split {split!r}: the engine gives {expected}, the program refused:\n{stderr}"
            assert json.dumps(written["reservedMemory"]) == json.dumps(expected), f"split {split!r}"
            assert stdout.startswith(f"{PROGRAM}: reservedMemory ")
        else:
            problems = [line.split(": refused: ", 1)[1] for line in stderr.splitlines()]
            assert (code, written, problems) == (1, None, expected + ["the kubelet is not started"]), f"split {split!r}"


def test_the_differential_covers_both_answers():
    """The fixtures give splits and refusals of every kind the engine has (so a program that always refuses fails)."""
    answers = {}
    for _name, main, dropins, flags in KUBELETS:
        for nodes in TOPOLOGIES.values():
            topology = {"numa_nodes": [{"id": node, "memory_bytes": memory * 1024} for node, (memory, _cpus, _pools) in nodes.items()]}
            topology["numa_memory_capacity_bytes"] = sum(node["memory_bytes"] for node in topology["numa_nodes"])
            for split in SPLITS:
                kind, answer = engine_answer(main, dropins, flags, split, topology)
                answers.setdefault(kind, []).append(answer)
    assert len(answers["split"]) > 100
    refusals = " ".join(problem for problems in answers["refused"] for problem in problems)
    for text in ("nothing to reserve", "that node has only", "explicit shares", "do not exist on this machine"):
        assert text in refusals
