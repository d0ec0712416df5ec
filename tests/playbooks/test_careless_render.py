# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""numa.kubelet.render over careless and hostile inventories, through ansible-playbook: every bad host fails alone with
a named error, the good ones are rendered, nothing outside the destination changes, and no traceback is printed."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import yaml
from tree_snapshot import snapshot

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BIN = os.path.dirname(sys.executable)

TOPOLOGY = {
    "numa_nodes": [{"id": 0, "memory_bytes": 8 << 30, "cpus": [0]}, {"id": 1, "memory_bytes": 8 << 30, "cpus": [1]}],
    "numa_memory_capacity_bytes": 16 << 30,
}
MAIN = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
GOOD = {
    "kubelet_numa_platform": "kubeadm",
    "kubelet_numa_topology": TOPOLOGY,
    "kubelet_numa_node_files": {"/var/lib/kubelet/config.yaml": MAIN},
    "kubelet_numa_config": {"memoryManagerPolicy": "Static", "kubeReserved": {"memory": "1Gi"}},
}
LEAKS = ("Traceback", "_AnsibleTagged", "_AnsibleLazy", "Task failed: Syntax error", "%d format")


def render(collections_root, tmp_path, hosts, render_dir, cwd=None):
    inventory = tmp_path / "inventory.yml"
    inventory.write_text(yaml.safe_dump({"all": {"hosts": hosts}}, allow_unicode=True))
    env = dict(
        os.environ,
        ANSIBLE_COLLECTIONS_PATH=str(collections_root),
        ANSIBLE_LOCAL_TEMP=str(tmp_path / "ansible-tmp"),
        ANSIBLE_HOME=str(tmp_path / "ansible-home"),
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_FORCE_COLOR="0",
    )
    result = subprocess.run(
        [
            os.path.join(BIN, "ansible-playbook"),
            "-i",
            str(inventory),
            "-e",
            json.dumps({"kubelet_numa_render_dir": render_dir}),
            os.path.join(REPO, "playbooks", "render.yml"),
        ],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
        cwd=cwd or str(tmp_path),
    )
    output = result.stdout + result.stderr
    for leak in LEAKS:
        assert leak not in output, output
    return result, output


def failure(output, host):
    """The problems the play printed for host (its fatal line)."""
    prefix = f"\nfatal: [{host}]: FAILED! => "  # a host name may hold a newline: the line is found by its prefix
    start = output.find(prefix)
    assert start >= 0, f"no failure for {host!r} in:\n{output}"
    return json.loads(output[start + len(prefix) :].split("\n", 1)[0])["msg"]


def test_bad_hosts_fail_alone_by_name_and_nothing_outside_dest_changes(collections_root, tmp_path):
    world = tmp_path / "world"
    dest = world / "parent" / "render"
    dest.mkdir(parents=True)
    (world / "parent" / "sibling").write_text("keep")
    (world / "some" / "dir").mkdir(parents=True)
    (world / "some" / "dir" / "precious").write_text("keep")
    (world / "outside").mkdir()
    (world / "outside" / "precious").write_text("keep")
    os.symlink(world / "outside", dest / "linked")  # a symlink at <dest>/<host> pointing out
    (dest / "afile").write_text("a file where the host's directory would go")
    (dest / "zz-keep").mkdir()
    (dest / "zz-keep" / "mine").write_text("another host's directory")
    hosts = {name: dict(GOOD) for name in ("good-a", "linked", "afile", "zz-keep", "good-z")}
    for hostile in ("..", ".", "../up", "a/../../x", str(world / "some" / "dir"), "zz-keep/sub", "x" * 300):
        hosts[hostile] = dict(GOOD)
    hosts.update(
        {
            "healthz-string": dict(GOOD, kubelet_numa_config=dict(GOOD["kubelet_numa_config"], healthzPort="10248")),
            "int-key": dict(GOOD, kubelet_numa_config={1: "x", "memoryManagerPolicy": "Static"}),
            "bind-int": dict(GOOD, kubelet_numa_config=dict(GOOD["kubelet_numa_config"], healthzBindAddress=1)),
            "rke2-float": dict(GOOD, kubelet_numa_platform="rke2", kubelet_numa_rke2_version=1.30, kubelet_numa_rke2_role="agent"),
            "numa-int": dict(GOOD, kubelet_numa_topology={"numa_nodes": 4, "numa_memory_capacity_bytes": 16 << 30}),
            "file-int": dict(GOOD, kubelet_numa_node_files={"/var/lib/kubelet/config.yaml": 5}),
            "files-list": dict(GOOD, kubelet_numa_node_files=["/var/lib/kubelet/config.yaml"]),
            "extra-dir": dict(GOOD, kubelet_numa_kubeadm_extra_args_file="/etc/kubernetes"),
            "extra-main": dict(GOOD, kubelet_numa_kubeadm_extra_args_file="/var/lib/kubelet/config.yaml"),
            "extra-ours": dict(GOOD, kubelet_numa_kubeadm_extra_args_file="/etc/kubernetes/kubelet.conf.d/50-numa-kubelet.conf"),
            "extra-plan": dict(GOOD, kubelet_numa_kubeadm_extra_args_file="/plan.json"),
            "config-dir-out": dict(
                GOOD,
                kubelet_numa_node_files={
                    "/var/lib/kubelet/config.yaml": MAIN,
                    "/var/lib/kubelet/kubeadm-flags.env": 'KUBELET_KUBEADM_ARGS="--config-dir=/../../../x"',
                },
            ),
            "jinja-undefined": dict(GOOD, kubelet_numa_config={"memoryManagerPolicy": "Static", "kubeReserved": {"memory": "{{ no_such_variable.memory }}"}}),
            "jinja-syntax": dict(GOOD, kubelet_numa_node_files={"/var/lib/kubelet/config.yaml": "{{{: ["}),
            "go-comment": dict(GOOD, kubelet_numa_node_files={"/var/lib/kubelet/config.yaml": MAIN, "/etc/default/kubelet": "{{/* */}}"}),
            # Host names a host pattern would split (at a newline, a space, a comma) are still failed by name.
            "new\nline": dict(GOOD),
            "a space": dict(GOOD, kubelet_numa_config=dict(GOOD["kubelet_numa_config"], healthzPort="10248")),
            "a,comma": dict(GOOD, kubelet_numa_config=dict(GOOD["kubelet_numa_config"], healthzPort="10248")),
            "cyrillic": dict(GOOD, kubelet_numa_config={"memoryManagerPolicy": "St\u0430tic", "kubeReserved": {"memory": "1Gi"}}),
            "int-bytes": dict(
                GOOD,
                kubelet_numa_config={"memoryManagerPolicy": "Static", "kubeReserved": {"memory": 1073741824}, "evictionHard": {"memory.available": 104857600}},
            ),
        }
    )
    before = snapshot(world, skip=str(dest))
    result, output = render(collections_root, tmp_path, hosts, str(dest))
    assert result.returncode == 2, output
    assert snapshot(world, skip=str(dest)) == before, "something outside the destination changed"
    assert os.readlink(dest / "linked") == str(world / "outside") and (dest / "afile").read_text().startswith("a file")
    assert (dest / "zz-keep" / "mine").read_text() == "another host's directory"
    expected = {
        "..": "is not a plain file name",
        ".": "is not a plain file name",
        "../up": "'/' would put its files outside",
        "a/../../x": "'/' would put its files outside",
        str(world / "some" / "dir"): "'/' would put its files outside",
        "zz-keep/sub": "'/' would put its files outside",
        "x" * 300: "a file name can have at most 255",
        "linked": "is a symlink",
        "afile": "is not a directory",
        "healthz-string": "json: cannot unmarshal string into Go struct field KubeletConfiguration.healthzPort of type int32",
        "int-key": "kubelet_numa_config: field names must be strings, got 1",
        "bind-int": "json: cannot unmarshal number into Go struct field KubeletConfiguration.healthzBindAddress of type string",
        "rke2-float": "kubelet_numa_rke2_version: 1.3 (float) is not an RKE2 version",
        "numa-int": "numa_nodes 4 (integer) must be a list",
        "file-int": "kubelet_numa_node_files[/var/lib/kubelet/config.yaml]: 5 (integer) must be the file's text",
        "files-list": "kubelet_numa_node_files: ['/var/lib/kubelet/config.yaml'] (list) must be a mapping",
        "extra-dir": "/etc/kubernetes: is a directory",
        "extra-main": "kubelet_numa_kubeadm_extra_args_file: /var/lib/kubelet/config.yaml is kubelet_numa_kubeadm_config_file",
        "extra-ours": "kubelet_numa_kubeadm_extra_args_file: /etc/kubernetes/kubelet.conf.d/50-numa-kubelet.conf is numa.kubelet's drop-in",
        "extra-plan": "plan.json: two of the host's outputs have this path",
        "config-dir-out": "--config-dir=/../../../x in the kubelet flags is not a path numa.kubelet can write to safely",
        "jinja-undefined": "kubelet_numa_config: its value cannot be templated: 'no_such_variable' is undefined",
        "jinja-syntax": "kubelet_numa_node_files[/var/lib/kubelet/config.yaml]: the file's text holds {{, {% or {#, which Ansible templates "
        "as Jinja, and its value cannot be templated: Syntax error in template: unexpected ':' (mark the text !unsafe)",
        "go-comment": "kubelet_numa_node_files[/etc/default/kubelet]: the file's text holds {{",
        "new\nline": "inventory host name 'new\\nline': holds a control character ('\\n', U+000A, at position 3); the host's files go "
        "in a directory of its name, which must be a plain file name: rename the host",
        "a space": "healthzPort",
        "a,comma": "healthzPort",
        "cyrillic": "U+0430 CYRILLIC SMALL LETTER A at position 3",
    }
    for host, message in expected.items():
        assert message in "\n".join(failure(output, host)), (host, failure(output, host))
    assert sorted(os.listdir(dest)) == ["afile", "good-a", "good-z", "int-bytes", "linked", "zz-keep"]
    dropin = (dest / "int-bytes" / "etc/kubernetes/kubelet.conf.d/50-numa-kubelet.conf").read_text()
    assert yaml.safe_load(dropin)["kubeReserved"] == {"memory": "1073741824"}, "integer bytes are written as a string the kubelet decodes"


def test_an_empty_render_dir_is_refused_and_the_working_directory_untouched(collections_root, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (work / "etc").mkdir()
    (work / "etc" / "keep").write_text("keep")
    before = snapshot(work)
    result, output = render(collections_root, tmp_path, {"good": dict(GOOD)}, "", cwd=str(work))
    assert result.returncode == 2 and "dest '': must be an absolute directory on the controller, not empty" in output, output
    assert snapshot(work) == before


def test_a_render_dir_that_is_a_file_is_refused(collections_root, tmp_path):
    target = tmp_path / "not-a-dir"
    target.write_text("keep")
    result, output = render(collections_root, tmp_path, {"good": dict(GOOD)}, str(target))
    assert result.returncode == 2 and "exists and is not a directory" in output, output
    assert target.read_text() == "keep"


def test_one_bad_host_among_300_stops_no_other(collections_root, tmp_path):
    hosts = {"node-%03d" % index: dict(GOOD) for index in range(300)}
    hosts["node-150"] = dict(GOOD, kubelet_numa_config=dict(GOOD["kubelet_numa_config"], healthzPort="10248"))
    dest = tmp_path / "render"
    result, output = render(collections_root, tmp_path, hosts, str(dest))
    assert result.returncode == 2, output
    assert len(os.listdir(dest)) == 299 and not (dest / "node-150").exists()
    assert "healthzPort" in "\n".join(failure(output, "node-150"))


def test_a_host_in_two_platform_groups_is_refused_naming_both(collections_root, tmp_path):
    inventory = {
        "all": {
            "children": {
                "kubeadm": {"vars": {"kubelet_numa_platform": "kubeadm"}, "hosts": {"both": None, "only-kubeadm": None}},
                "rke2": {
                    "vars": {"kubelet_numa_platform": "rke2", "kubelet_numa_rke2_version": "v1.32.5+rke2r1", "kubelet_numa_rke2_role": "agent"},
                    "hosts": {"both": None},
                },
            },
            "vars": {key: value for key, value in GOOD.items() if key != "kubelet_numa_platform"},
        }
    }
    path = tmp_path / "inventory.yml"
    path.write_text(yaml.safe_dump(inventory))
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=str(collections_root), ANSIBLE_HOME=str(tmp_path / "ansible-home"), ANSIBLE_NOCOLOR="1")
    result = subprocess.run(
        [
            os.path.join(BIN, "ansible-playbook"),
            "-i",
            str(path),
            "-e",
            "kubelet_numa_render_dir=%s" % (tmp_path / "out"),
            os.path.join(REPO, "playbooks", "render.yml"),
        ],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 2, output
    assert "kubelet_numa_platform is set differently by groups kubeadm and rke2" in "\n".join(failure(output, "both"))
    assert sorted(os.listdir(tmp_path / "out")) == ["only-kubeadm"]
