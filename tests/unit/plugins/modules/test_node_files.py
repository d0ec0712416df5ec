# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""node_files reports mode, owner and group beside the text, so the role can skip writing what is already in place."""

from __future__ import annotations

import grp
import json
import os
import pwd

import pytest

from ansible_collections.numa.kubelet.plugins.module_utils._numa_topology import TopologyError, read_topology
from ansible_collections.numa.kubelet.plugins.modules import node_files
from ansible_collections.numa.kubelet.plugins.modules.node_files import _attributes
from ansible_collections.numa.kubelet.tests.unit.plugins.modules.module_args import patch_module_args


def test_attributes_of_a_file_and_a_directory(tmp_path):
    path = tmp_path / "50-numa-kubelet.conf"
    path.write_text("kind: KubeletConfiguration\n")
    path.chmod(0o640)
    (tmp_path / "conf.d").mkdir()
    (tmp_path / "conf.d").chmod(0o2750)
    owner, group = pwd.getpwuid(os.getuid()).pw_name, grp.getgrgid(os.getgid()).gr_name
    assert _attributes(str(path)) == {"mode": "0640", "owner": owner, "group": group}
    assert _attributes(str(tmp_path / "conf.d")) == {"mode": "2750", "owner": owner, "group": group}


def _run_node_files(args, capsys):
    """The module's JSON answer for ARGS (AnsibleModule exits the process)."""
    with patch_module_args(args), pytest.raises(SystemExit):
        node_files.main()
    return json.loads(capsys.readouterr().out)


def test_topology_is_read_in_the_same_call_as_the_files(tmp_path, capsys):
    config = tmp_path / "config.yaml"
    config.write_text("kind: KubeletConfiguration\n")
    answer = _run_node_files({"paths": [str(config)], "topology": True}, capsys)
    assert answer["files"] == {str(config): "kind: KubeletConfiguration\n"}
    assert answer["topology"] == read_topology("/")


def test_topology_is_left_out_unless_asked(tmp_path, capsys):
    assert "topology" not in _run_node_files({"paths": [str(tmp_path / "missing")]}, capsys)


def test_a_host_without_a_numa_tree_fails_naming_it(tmp_path, capsys, monkeypatch):
    def no_tree(root):
        raise TopologyError("no NUMA topology at %s/sys/devices/system/node" % root.rstrip("/"))

    monkeypatch.setattr(node_files, "read_topology", no_tree)
    answer = _run_node_files({"topology": True}, capsys)
    assert answer["failed"] and answer["msg"] == "node_files: no NUMA topology at /sys/devices/system/node"


def test_a_host_without_systemctl_knows_no_unit_state(tmp_path, capsys, monkeypatch):
    # Like a host whose systemctl cannot reach systemd: the units are unknown, the files are still read.
    monkeypatch.setenv("PATH", str(tmp_path))
    answer = _run_node_files({"paths": [str(tmp_path / "missing")], "units": ["kubelet.service"]}, capsys)
    assert not answer.get("failed"), answer
    assert answer["units"] == {}


def test_unit_states_come_from_the_systemctl_on_the_path(tmp_path, capsys, monkeypatch):
    systemctl = tmp_path / "systemctl"
    systemctl.write_text("#!/bin/sh\nprintf 'ActiveState=active\\nSubState=running\\n\\nActiveState=failed\\nSubState=failed\\n'\n")
    systemctl.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    answer = _run_node_files({"units": ["kubelet.service", "rke2-agent.service"]}, capsys)
    assert answer["units"] == {
        "kubelet.service": {"active_state": "active", "sub_state": "running"},
        "rke2-agent.service": {"active_state": "failed", "sub_state": "failed"},
    }


def test_a_directorys_files_are_read_at_any_depth_but_not_through_a_symlinked_directory(tmp_path, capsys):
    """The kubelet merges the .conf files of its --config-dir's subdirectories too (RKE2 and k3s copy a user's
    config-dir= there as 20-cli-config-dir/); filepath.Walk does not enter a symlink to a directory."""
    dropins = tmp_path / "kubelet.conf.d"
    (dropins / "20-cli-config-dir" / "deeper").mkdir(parents=True)
    (dropins / "00-defaults.conf").write_text("a\n")
    (dropins / "20-cli-config-dir" / "50-user.conf").write_text("b\n")
    (dropins / "20-cli-config-dir" / "deeper" / "x.conf").write_text("c\n")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "y.conf").write_text("d\n")
    (dropins / "30-link").symlink_to(tmp_path / "elsewhere")
    answer = _run_node_files({"dirs": [str(dropins)]}, capsys)
    assert answer["files"] == {
        str(dropins / "00-defaults.conf"): "a\n",
        str(dropins / "20-cli-config-dir" / "50-user.conf"): "b\n",
        str(dropins / "20-cli-config-dir" / "deeper" / "x.conf"): "c\n",
    }
    assert answer["existing"] == [str(dropins)]
