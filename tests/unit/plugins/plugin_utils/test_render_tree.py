# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""numa.kubelet.render's writer: a host's files go under <dest>/<host> and nowhere else; only what it wrote is removed."""

from __future__ import annotations

import json
import os

import pytest
from tree_snapshot import snapshot

from ansible_collections.numa.kubelet.plugins.plugin_utils._render_names import MANIFEST, RenderPathError, destination_problem, host_name_problem
from ansible_collections.numa.kubelet.plugins.plugin_utils._render_tree import remove_host, write_host

OUTPUTS = [("/etc/kubernetes/kubelet.conf.d/50-numa-kubelet.conf", "a: 1\n"), ("/etc/default/kubelet", "X=1\n"), ("plan.json", "{}\n")]


@pytest.fixture()
def layout(tmp_path):
    """dest inside a parent with a sibling and an outside directory the user cares about."""
    dest = tmp_path / "parent" / "render"
    dest.mkdir(parents=True)
    (tmp_path / "parent" / "sibling.txt").write_text("keep me")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "precious").write_text("keep me too")
    return tmp_path, dest, outside


@pytest.mark.parametrize("host", ["/some/dir", "../up", "a/../../x", "..", ".", "zz-keep/sub", "", "x" * 300, "tab\there", MANIFEST])
def test_host_names_that_are_not_plain_file_names_are_refused_and_nothing_changes(layout, host):
    tmp_path, dest, _outside = layout
    before = snapshot(tmp_path)
    assert host_name_problem(host)
    with pytest.raises(RenderPathError, match="inventory host name"):
        write_host(str(dest), host, OUTPUTS)
    with pytest.raises(RenderPathError, match="inventory host name"):
        remove_host(str(dest), host)
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("host", ["node-1.example.com", "10.0.0.1", "fe80::1", "web_01", "Ünïcode"])
def test_plain_host_names_are_accepted(host):
    assert host_name_problem(host) is None


def test_write_then_rewrite_replaces_only_its_own_files(layout):
    _tmp_path, dest, _outside = layout
    write_host(str(dest), "h", OUTPUTS)
    host = dest / "h"
    assert (host / "etc/default/kubelet").read_text() == "X=1\n"
    (host / "notes.txt").write_text("mine")
    (host / "etc" / "mine.txt").write_text("mine too")
    write_host(str(dest), "h", [("/etc/default/kubelet", "X=2\n"), ("plan.json", "{}\n")])
    assert (host / "etc/default/kubelet").read_text() == "X=2\n"
    assert not (host / "etc/kubernetes").exists(), "a file it no longer renders and the directories it made go"
    assert (host / "notes.txt").read_text() == "mine" and (host / "etc" / "mine.txt").read_text() == "mine too"
    manifest = json.loads((host / MANIFEST).read_text())
    assert sorted(manifest["files"]) == ["etc/default/kubelet", "plan.json"]


def test_a_failed_host_loses_only_what_the_render_wrote(layout):
    _tmp_path, dest, _outside = layout
    write_host(str(dest), "h", OUTPUTS)
    (dest / "h" / "stale").write_text("from the user")
    remove_host(str(dest), "h")
    assert sorted(os.listdir(dest / "h")) == ["stale"]
    write_host(str(dest), "g", OUTPUTS)
    remove_host(str(dest), "g")
    assert not (dest / "g").exists(), "a host directory the render made and left empty goes"


def test_a_file_it_did_not_write_is_never_replaced(layout):
    tmp_path, dest, _outside = layout
    (dest / "h" / "etc" / "default").mkdir(parents=True)
    (dest / "h" / "etc" / "default" / "kubelet").write_text("the user's")
    before = snapshot(tmp_path)
    with pytest.raises(RenderPathError, match="replaces only the files it wrote"):
        write_host(str(dest), "h", OUTPUTS)
    assert snapshot(tmp_path) == before


def test_a_changed_file_is_left_alone_with_a_warning(layout):
    _tmp_path, dest, _outside = layout
    write_host(str(dest), "h", OUTPUTS)
    (dest / "h" / "etc/default/kubelet").write_text("edited")
    with pytest.raises(RenderPathError, match="changed since"):
        write_host(str(dest), "h", OUTPUTS)
    warnings = remove_host(str(dest), "h")
    assert (dest / "h" / "etc/default/kubelet").read_text() == "edited"
    assert any("changed since; left alone" in warning for warning in warnings)


@pytest.mark.parametrize("where", ["host", "inner", "file"])
def test_a_symlink_under_dest_pointing_out_is_refused_never_followed(layout, where):
    tmp_path, dest, outside = layout
    if where == "host":
        os.symlink(outside, dest / "h")
    elif where == "inner":
        (dest / "h" / "etc").mkdir(parents=True)
        os.symlink(outside, dest / "h" / "etc" / "default")
    else:
        (dest / "h" / "etc" / "default").mkdir(parents=True)
        os.symlink(outside / "precious", dest / "h" / "etc" / "default" / "kubelet")
    before = snapshot(tmp_path)
    with pytest.raises(RenderPathError, match="symlink"):
        write_host(str(dest), "h", OUTPUTS)
    if where == "host":
        with pytest.raises(RenderPathError, match="symlink"):
            remove_host(str(dest), "h")
    else:
        remove_host(str(dest), "h")
    assert snapshot(tmp_path) == before


def test_a_forged_manifest_cannot_lead_out(layout):
    tmp_path, dest, outside = layout
    (dest / "h").mkdir()
    (dest / "h" / MANIFEST).write_text(json.dumps({"files": {"../../outside/precious": "x"}, "dirs": [".."]}))
    before = snapshot(tmp_path)
    with pytest.raises(RenderPathError, match="is not a manifest"):
        remove_host(str(dest), "h")
    with pytest.raises(RenderPathError, match="is not a manifest"):
        write_host(str(dest), "h", OUTPUTS)
    assert snapshot(tmp_path) == before and (outside / "precious").exists()


def test_host_dir_or_dest_that_is_a_file_is_refused(layout):
    tmp_path, dest, _outside = layout
    (dest / "h").write_text("a file")
    before = snapshot(tmp_path)
    with pytest.raises(RenderPathError, match="is not a directory"):
        write_host(str(dest), "h", OUTPUTS)
    assert destination_problem(str(dest / "h")) == "dest %s: exists and is not a directory" % (dest / "h")
    assert destination_problem("") and destination_problem("relative/dir")
    with pytest.raises(RenderPathError, match="exists and is not a directory"):
        write_host(str(dest / "h"), "x", OUTPUTS)
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize(
    "outputs, message",
    [
        ([("/plan.json", "x"), ("plan.json", "y")], "two of the host's outputs"),
        ([("/etc/kubernetes", "x"), ("/etc/kubernetes/kubelet.conf.d/a.conf", "y")], "both a file and the directory"),
        ([("/etc/../x", "x")], "not a plain path"),
        ([("/" + MANIFEST, "x")], "keeps for itself"),
    ],
)
def test_outputs_that_collide_are_refused(layout, outputs, message):
    tmp_path, dest, _outside = layout
    before = snapshot(tmp_path)
    with pytest.raises(RenderPathError, match=message):
        write_host(str(dest), "h", outputs)
    assert snapshot(tmp_path) == before


def test_check_mode_writes_nothing_but_refuses_the_same(layout):
    tmp_path, dest, outside = layout
    before = snapshot(tmp_path)
    write_host(str(dest), "h", OUTPUTS, check_mode=True)
    assert snapshot(tmp_path) == before
    os.symlink(outside, dest / "h")
    with pytest.raises(RenderPathError, match="symlink"):
        write_host(str(dest), "h", OUTPUTS, check_mode=True)


def test_a_failure_while_writing_leaves_the_previous_files(layout, monkeypatch):
    _tmp_path, dest, _outside = layout
    write_host(str(dest), "h", OUTPUTS)
    before = snapshot(dest)
    real_replace = os.replace
    calls = []

    def failing_write(*args, **kwargs):
        calls.append(args)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing_write)
    with pytest.raises(OSError):
        write_host(str(dest), "h", [(path, text + "new") for path, text in OUTPUTS])
    monkeypatch.setattr(os, "replace", real_replace)
    assert calls and snapshot(dest) == before, "no temporary file nor half of the new files is left"
