# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The boot-time program in process: the kubelet's arguments, its files' layering, the checkpoint rule, failing closed.

Its split against the engine's is test_boot_split_differential.py; the assembled file is test_boot_split_bundle.py.
"""

from __future__ import annotations

import json

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._boot_split import (
    CHECKPOINT,
    DROPIN_NAME,
    PROGRAM,
    ROOT_ENV,
    STARTED_MARKER,
    BootSplitError,
    kubelet_arguments,
    kubelet_config,
    main,
)
from ansible_collections.numa.kubelet.tests.unit.plugins.modules.fake_sysfs import make_tree

GIB_KIB = 1 << 20
BASE = {"kubeReserved": {"cpu": "70m", "memory": "1465Mi"}, "evictionHard": {"memory.available": "100Mi", "nodefs.available": "10%"}}
NODEADM = {"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration", "memoryManagerPolicy": "Static"}


class Node:
    """A fake AL2023 node: nodeadm's config.json and config.json.d, the kubelet root dir, a two-NUMA sysfs, /run."""

    def __init__(self, tmp_path, monkeypatch, split="even"):
        self.root = tmp_path / "host"
        make_tree(self.root, {0: (16 * GIB_KIB, "0", {}), 1: (16 * GIB_KIB, "1", {})})
        monkeypatch.setenv(ROOT_ENV, str(self.root))
        self.dropins = tmp_path / "config.json.d"
        self.dropins.mkdir()
        self.kubelet_root = tmp_path / "kubelet"
        self.kubelet_root.mkdir()
        self.config = tmp_path / "config.json"
        self.config.write_text(json.dumps(BASE))
        (self.dropins / "40-nodeadm.conf").write_text(json.dumps(NODEADM))
        self.options = tmp_path / "boot-split.json"
        self.set_split(split)
        self.args = [f"--config={self.config}", "--config-dir", str(self.dropins), f"--root-dir={self.kubelet_root}", "--v=2"]

    def set_split(self, split):
        self.options.write_text(json.dumps({"split": split}))

    def start(self, capsys, *extra):
        code = main([str(self.options), "--", *self.args, *extra])
        out, err = capsys.readouterr()
        return code, out, err

    def written(self):
        path = self.dropins / DROPIN_NAME
        return json.loads(path.read_text())["reservedMemory"] if path.exists() else None

    def reboot(self):
        (self.root / STARTED_MARKER.lstrip("/")).unlink(missing_ok=True)

    def kubelet_ran(self):
        (self.kubelet_root / CHECKPOINT).write_text('{"policyName":"Static"}')


def test_first_start_writes_the_split(tmp_path, monkeypatch, capsys):
    node = Node(tmp_path, monkeypatch)
    code, out, err = node.start(capsys)
    assert (code, err) == (0, "")
    # 1465Mi + 100Mi = 1565Mi is not even in MiB: 782.5Mi each, written in the coarsest exact unit.
    assert node.written() == [{"numaNode": 0, "limits": {"memory": "801280Ki"}}, {"numaNode": 1, "limits": {"memory": "801280Ki"}}]
    assert out == f"{PROGRAM}: reservedMemory NUMA node 0: 801280Ki, NUMA node 1: 801280Ki written to {node.dropins / DROPIN_NAME}\n"
    assert (node.root / STARTED_MARKER.lstrip("/")).exists()


def test_the_split_follows_the_kubelets_files_and_flags(tmp_path, monkeypatch, capsys):
    node = Node(tmp_path, monkeypatch)
    assert node.start(capsys)[0] == 0
    node.reboot()
    assert node.start(capsys, "--kube-reserved=memory=1948Mi")[0] == 0
    assert node.written() == [{"numaNode": 0, "limits": {"memory": "1Gi"}}, {"numaNode": 1, "limits": {"memory": "1Gi"}}]


def test_unchanged_split_keeps_the_checkpoint(tmp_path, monkeypatch, capsys):
    node = Node(tmp_path, monkeypatch)
    node.start(capsys)
    node.kubelet_ran()
    code, out, _err = node.start(capsys)
    assert code == 0 and "unchanged in" in out
    assert (node.kubelet_root / CHECKPOINT).exists()


def test_changed_split_before_the_first_start_of_a_boot_removes_the_checkpoint(tmp_path, monkeypatch, capsys):
    node = Node(tmp_path, monkeypatch)
    node.start(capsys)
    node.kubelet_ran()
    node.reboot()
    node.set_split({"0": "1565Mi"})
    code, out, err = node.start(capsys)
    assert (code, err) == (0, "")
    assert node.written() == [{"numaNode": 0, "limits": {"memory": "1565Mi"}}]
    assert not (node.kubelet_root / CHECKPOINT).exists()
    assert f"removed {node.kubelet_root / CHECKPOINT}: the split changed before the first kubelet start of this boot" in out


def test_changed_split_later_in_the_same_boot_is_refused_loudly(tmp_path, monkeypatch, capsys):
    node = Node(tmp_path, monkeypatch)
    node.start(capsys)
    node.kubelet_ran()
    before = node.written()
    node.set_split({"0": "1565Mi"})
    code, out, err = node.start(capsys)
    assert (code, out, node.written()) == (1, "", before)
    assert (node.kubelet_root / CHECKPOINT).exists()
    checkpoint = node.kubelet_root / CHECKPOINT
    assert f"{PROGRAM}: refused: the split changed to NUMA node 0: 1565Mi after the kubelet started in this boot: drain the node, delete {checkpoint}" in err
    assert err.endswith(f"{PROGRAM}: refused: the kubelet is not started\n")
    # The upstream procedure: with the checkpoint gone, the same start goes through.
    (node.kubelet_root / CHECKPOINT).unlink()
    assert node.start(capsys)[0] == 0
    assert node.written() == [{"numaNode": 0, "limits": {"memory": "1565Mi"}}]


@pytest.mark.parametrize(
    "split, extra, expected",
    [
        ({"0": "1Gi"}, [], "split: the explicit shares {0: '1Gi'} sum to 1Gi, but the reservation is kubeReserved.memory 1465Mi"),
        ({"2": "1565Mi"}, [], "split: NUMA nodes [2] do not exist on this machine (it has [0, 1])"),
        ("even", ["--kube-reserved=memory=40Gi"], "reservedMemory for NUMA node 0 is 20530Mi but that node has only 16Gi of memory"),
        ("even", ["--reserved-memory=0:memory=1Gi"], "the kubelet's --reserved-memory flag overrides every drop-in"),
        ("even", ["--eviction-hard=memory.available<5%"], "evictionHard memory.available: 5%: give a quantity, not a share of memory"),
        ("even", ["--system-reserved=memory"], '--system-reserved=memory: expected "key=value" pairs'),
    ],
)
def test_refusals_leave_the_kubelet_unstarted(tmp_path, monkeypatch, capsys, split, extra, expected):
    node = Node(tmp_path, monkeypatch, split)
    code, out, err = node.start(capsys, *extra)
    assert (code, out, node.written()) == (1, "", None)
    assert f"{PROGRAM}: refused: {expected}" in err


def test_no_config_dir_is_refused(tmp_path, monkeypatch, capsys):
    node = Node(tmp_path, monkeypatch)
    node.args = [f"--config={node.config}"]
    code, _out, err = node.start(capsys)
    assert code == 1 and "the kubelet has no --config-dir (nodeadm passes one when spec.kubelet.config is set)" in err


def test_a_file_that_is_not_json_is_named(tmp_path, monkeypatch, capsys):
    node = Node(tmp_path, monkeypatch)
    (node.dropins / "50-user.conf").write_text("kind: KubeletConfiguration\n")
    code, _out, err = node.start(capsys)
    assert code == 1 and f"{node.dropins / '50-user.conf'}: not a JSON KubeletConfiguration" in err


def test_arguments_in_both_forms_and_others_ignored():
    paths, maps = kubelet_arguments(["--node-ip=10.0.0.1", "--config", "/c.json", "--config-dir=/d", "--kube-reserved", "memory=1Gi,cpu=1", "-v", "2"])
    assert paths == {"config": "/c.json", "config-dir": "/d"}
    assert maps == [("kubeReserved", {"memory": "1Gi", "cpu": "1"})]
    with pytest.raises(BootSplitError, match="kubelet flag --config-dir has no value"):
        kubelet_arguments(["--config-dir"])


def test_layering_without_main_file_has_no_default_eviction(tmp_path):
    (tmp_path / "10-a.conf").write_text(json.dumps({"kubeReserved": {"memory": "1Gi"}}))
    (tmp_path / DROPIN_NAME).write_text(json.dumps({"kubeReserved": {"memory": "9Gi"}}))
    (tmp_path / "20-b.txt").write_text("ignored: not *.conf")
    assert kubelet_config({"config-dir": str(tmp_path)}, []) == {"kubeReserved": {"memory": "1Gi"}, "evictionHard": {}}


def test_drop_ins_of_subdirectories_count_in_the_kubelets_walk_order(tmp_path):
    # The kubelet walks its --config-dir down (filepath.Walk): "a/x.conf" comes before "a.conf", and a later file wins.
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.conf").write_text(json.dumps({"kubeReserved": {"memory": "1Gi"}}))
    (tmp_path / "a.conf").write_text(json.dumps({"kubeReserved": {"memory": "2Gi"}, "systemReserved": {"memory": "1Gi"}}))
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / DROPIN_NAME).write_text(json.dumps({"systemReserved": {"memory": "3Gi"}}))  # ours only at the top
    assert kubelet_config({"config-dir": str(tmp_path)}, []) == {"kubeReserved": {"memory": "2Gi"}, "systemReserved": {"memory": "3Gi"}, "evictionHard": {}}
