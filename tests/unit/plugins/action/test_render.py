# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Property: numa.kubelet.render, fed arbitrary host names, directory layouts under (and around) the destination and
variable values, changes nothing outside the destination, leaves no host half-written, and every failure is a named
error of the collection (never an internal error, a traceback, nor an internal type name).

This drives the action's own per-host pipeline (render_hosts: planning, the role's templates through Ansible's
templar, the safe writer) without a playbook run per example; tests/playbooks/test_careless_render.py runs the same
cases through ansible-playbook.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import yaml
from ansible.errors import AnsibleError
from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, generate_ansible_template_vars, trust_as_template
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st
from tree_snapshot import snapshot

from ansible_collections.numa.kubelet.plugins.action.render import INTERNAL_ERROR, RenderTarget, host_variables, render_hosts
from ansible_collections.numa.kubelet.plugins.plugin_utils._render_names import MANIFEST

ROLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), *[os.pardir] * 4, "roles", "kubelet_numa")
with open(os.path.join(ROLE, "defaults", "main.yml"), encoding="utf-8") as _handle:
    DEFAULTS = yaml.safe_load(_handle)
MAIN = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
TOPOLOGY = {
    "numa_nodes": [{"id": 0, "memory_bytes": 8 << 30, "cpus": [0]}, {"id": 1, "memory_bytes": 8 << 30, "cpus": [1]}],
    "numa_memory_capacity_bytes": 16 << 30,
}
GOOD = {
    "kubelet_numa_platform": "kubeadm",
    "kubelet_numa_topology": TOPOLOGY,
    "kubelet_numa_node_files": {"/var/lib/kubelet/config.yaml": MAIN},
    "kubelet_numa_config": {"memoryManagerPolicy": "Static", "kubeReserved": {"memory": "1Gi"}},
}
LEAKS = ("Traceback", "_AnsibleTagged", "_AnsibleLazy", INTERNAL_ERROR)


def render_template(entry, plan):
    """The action's _render with a fresh templar: the role's template, its variables, ansible_managed."""
    path = os.path.join(ROLE, "templates", entry["template"])
    with open(path, encoding="utf-8") as handle:
        source = handle.read()
    variables = dict(kubelet_numa_plan=plan, item=entry)
    variables.update(generate_ansible_template_vars(entry["template"], path, entry["path"]))
    return str(Templar(loader=DataLoader(), variables=variables).template(trust_as_template(source), escape_backslashes=False))


# Host names: plain ones, and the hostile shapes (paths, dots, control characters, very long, Unicode).
HOST_NAMES = st.one_of(
    st.from_regex(r"[a-z][a-z0-9-]{0,12}", fullmatch=True),
    st.sampled_from(
        [
            "good",
            "n1",
            "..",
            ".",
            "../up",
            "a/../../x",
            "/abs/dir",
            "zz-keep/sub",
            "x" * 256,
            "é" * 128,
            "tab\tname",
            MANIFEST,
            "outside",
            "linked",
            "afile",
            "-dash",
            " space",
            "node.example.com",
            "fe80::1",
        ]
    ),
    st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\0"), min_size=0, max_size=40),
)
PATHS = st.one_of(
    st.sampled_from(
        [
            "/etc/default/kubelet",
            "/plan.json",
            "/var/lib/kubelet/config.yaml",
            "/etc/kubernetes",
            "/etc/kubernetes/kubelet.conf.d/50-numa-kubelet.conf",
            "/../x",
            "/etc/./x",
            "relative",
            "/",
            "//x",
            "/etc/kubernetes/kubelet.conf.d",
            "/" + MANIFEST,
            "/.numa-kubelet-render-tmp-x",
        ]
    ),
    st.text(alphabet="/.a-_", max_size=12),
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**64), max_value=2**64),
    st.floats(allow_nan=False),
    st.text(max_size=12),
    st.sampled_from(["1Gi", "100Mi", "10%", "Static", "St\u0430tic", "static", "10s", "0-3", "{{ x }}"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.one_of(st.text(max_size=8), st.integers()), inner, max_size=3)),
    max_leaves=6,
)
FIELDS = st.sampled_from(
    [
        "memoryManagerPolicy",
        "kubeReserved",
        "systemReserved",
        "evictionHard",
        "healthzPort",
        "healthzBindAddress",
        "featureGates",
        "clusterDNS",
        "reservedSystemCPUs",
        "maxPods",
        "cpuManagerPolicy",
        "topologyManagerPolicy",
        "syncFrequency",
        "kind",
        "apiVersion",
        "reservedMemroy",
        "reservedMemory",
    ]
)
RESERVED = st.one_of(
    st.just({"memory": "1Gi"}), st.just({"memory": 1073741824}), st.dictionaries(st.sampled_from(["memory", "cpu", "hugepages-2Mi"]), SCALARS, max_size=2)
)
CONFIGS = st.one_of(
    st.fixed_dictionaries({"memoryManagerPolicy": st.just("Static"), "kubeReserved": RESERVED}), st.dictionaries(FIELDS, VALUES, max_size=4), VALUES
)
FLAGS_ENV = st.builds(lambda path: f'KUBELET_KUBEADM_ARGS="--config-dir={path}"', PATHS)
NODE_FILES = st.one_of(
    st.just({"/var/lib/kubelet/config.yaml": MAIN}),
    st.fixed_dictionaries(
        {"/var/lib/kubelet/config.yaml": st.one_of(st.just(MAIN), SCALARS, st.just("{{{: ["), st.just("- a")), "/var/lib/kubelet/kubeadm-flags.env": FLAGS_ENV}
    ),
    st.dictionaries(PATHS, st.one_of(st.just(MAIN), SCALARS), max_size=3),
    VALUES,
)
OVERRIDE_VALUES = {
    "kubelet_numa_config": CONFIGS,
    "kubelet_numa_node_files": NODE_FILES,
    "kubelet_numa_kubeadm_extra_args_file": PATHS,
    "kubelet_numa_kubeadm_config_dir": PATHS,
    "kubelet_numa_dropin_name": st.one_of(st.text(max_size=10), SCALARS),
    "kubelet_numa_platform": st.one_of(st.sampled_from(["kubeadm", "rke2", "nodeadm", "k3s"]), SCALARS),
    "kubelet_numa_rke2_version": st.one_of(st.just("v1.32.5+rke2r1"), SCALARS),
    "kubelet_numa_rke2_role": st.one_of(st.just("agent"), SCALARS),
    "kubelet_numa_k3s_version": st.one_of(st.sampled_from(["v1.31.9+k3s1", "v1.32.5+k3s1"]), SCALARS),
    "kubelet_numa_k3s_role": st.one_of(st.just("server"), SCALARS),
    "kubelet_numa_instance_type": st.one_of(st.just("m5.large"), SCALARS),
    "kubelet_numa_topology": st.one_of(st.just(TOPOLOGY), VALUES, st.fixed_dictionaries({"numa_nodes": VALUES, "numa_memory_capacity_bytes": SCALARS})),
    "kubelet_numa_reserved_memory_split": st.one_of(st.sampled_from(["even", "first", "proportional"]), VALUES),
}
# Half the hosts are good, the others have one or two careless variables.
OVERRIDES = st.one_of(
    st.just({}),
    st.lists(st.sampled_from(sorted(OVERRIDE_VALUES)), min_size=1, max_size=2, unique=True).flatmap(
        lambda names: st.fixed_dictionaries({name: OVERRIDE_VALUES[name] for name in names})
    ),
)
# What may already be at <dest>/<host>: nothing, a file, a symlink out, a directory with the user's files and links.
LAYOUTS = st.sampled_from(["none", "file", "link-out", "user-files", "inner-link-out", "file-in-the-way", "forged-manifest", "rendered-before"])


def make_layout(dest, host, layout, outside):
    path = os.path.join(dest, host)
    if layout == "none" or "/" in host or host in ("", ".", "..") or "\0" in host or len(host.encode("utf-8", "surrogatepass")) > 255:
        return
    if os.path.lexists(path):
        return
    if layout == "file":
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("the user's file")
    elif layout == "link-out":
        os.symlink(outside, path)
    else:
        os.makedirs(os.path.join(path, "etc"))
        with open(os.path.join(path, "notes"), "w", encoding="utf-8") as handle:
            handle.write("the user's notes")
        if layout == "inner-link-out":
            os.symlink(outside, os.path.join(path, "etc", "kubernetes"))
            os.symlink(outside, os.path.join(path, "etc", "default"))
        elif layout == "file-in-the-way":
            os.makedirs(os.path.join(path, "etc", "default"))
            with open(os.path.join(path, "etc", "default", "kubelet"), "w", encoding="utf-8") as handle:
                handle.write("the user's kubelet defaults")
        elif layout == "forged-manifest":
            with open(os.path.join(path, MANIFEST), "w", encoding="utf-8") as handle:
                handle.write('{"files": {"../../outside/precious": "x"}, "dirs": [".."]}')


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    hosts=st.lists(st.tuples(HOST_NAMES, OVERRIDES, LAYOUTS), min_size=1, max_size=4, unique_by=lambda item: item[0]),
    check_mode=st.booleans(),
    second_run=st.booleans(),
)
@example(hosts=[("..", {}, "none"), (".", {}, "none"), ("good", {}, "rendered-before")], check_mode=False, second_run=True)
@example(hosts=[("linked", {}, "link-out"), ("g", {"kubelet_numa_kubeadm_extra_args_file": "/plan.json"}, "none")], check_mode=False, second_run=False)
@example(
    hosts=[
        (
            "g",
            {
                "kubelet_numa_node_files": {
                    "/var/lib/kubelet/config.yaml": MAIN,
                    "/var/lib/kubelet/kubeadm-flags.env": 'KUBELET_KUBEADM_ARGS="--config-dir=/../../../x"',
                }
            },
            "inner-link-out",
        )
    ],
    check_mode=False,
    second_run=False,
)
def test_render_touches_nothing_outside_dest_and_names_every_failure(hosts, check_mode, second_run):
    world = tempfile.mkdtemp(prefix="numa-render-property-")
    try:
        dest = os.path.join(world, "parent", "render")
        outside = os.path.join(world, "outside")
        os.makedirs(dest)
        os.makedirs(outside)
        with open(os.path.join(outside, "precious"), "w", encoding="utf-8") as handle:
            handle.write("keep")
        with open(os.path.join(world, "parent", "sibling"), "w", encoding="utf-8") as handle:
            handle.write("keep")
        hostvars = {}
        for host, overrides, layout in hosts:
            hostvars[host] = dict(GOOD, **overrides)
            make_layout(dest, host, layout, outside)
            if layout == "rendered-before":
                render_hosts([host], {host: dict(GOOD)}, DEFAULTS, RenderTarget(dest, False, render_template))
        before_outside = snapshot(world, skip=dest)
        before_dest = snapshot(dest, skip=None)
        names = [host for host, _overrides, _layout in hosts]
        outcome = render_hosts(names, hostvars, DEFAULTS, RenderTarget(dest, check_mode, render_template))
        if second_run and not check_mode:
            outcome = render_hosts(names, hostvars, DEFAULTS, RenderTarget(dest, check_mode, render_template))
        assert snapshot(world, skip=dest) == before_outside, "something outside the destination changed"
        if check_mode:
            assert snapshot(dest, skip=None) == before_dest, "check mode changed the destination"
        event("rendered %d of %d" % (len(outcome["rendered"]), len(names)))
        assert set(outcome["rendered"]) | set(outcome["failed_hosts"]) | set(outcome["unconfigured_hosts"]) | set(outcome["needs_discovery"]) == set(names)
        for host, problems in outcome["failed_hosts"].items():
            assert problems and all(isinstance(problem, str) and problem for problem in problems), (host, problems)
            text = "\n".join(problems)
            assert not any(leak in text for leak in LEAKS), (host, problems)
        for host, paths in outcome["rendered"].items():
            if check_mode:
                continue
            for path in paths:
                full = os.path.join(dest, host, path.lstrip("/"))
                assert os.path.isfile(full) and not os.path.islink(full), (host, path)
    finally:
        shutil.rmtree(world)


class _Untemplatable(dict):
    """A host's variables whose kubelet_numa_node_files fails to template, as Ansible's HostVarsVars does."""

    def __getitem__(self, name):
        if name == "kubelet_numa_node_files":
            raise AnsibleError("Syntax error in template: unexpected ':'")
        return dict.__getitem__(self, name)


def test_a_node_file_that_jinja_cannot_read_is_named_by_its_path():
    files = {"/var/lib/kubelet/config.yaml": "kind: KubeletConfiguration\n", "/etc/default/kubelet": "ARGS={{{: [", "/x": "{% if %}"}
    host_vars = _Untemplatable(dict(GOOD, kubelet_numa_node_files=files))
    _variables, problems = host_variables(host_vars, DEFAULTS, lambda: {"kubelet_numa_node_files": files})
    assert problems == [
        f"kubelet_numa_node_files[{path}]: the file's text holds {{{{, {{% or {{#, which Ansible templates as Jinja, and its value cannot be "
        "templated: Syntax error in template: unexpected ':' (mark the text !unsafe)"
        for path in ("/etc/default/kubelet", "/x")
    ]
    # Without the variables as written (or none holding a marker), the variable is named.
    named_by_variable = (
        "kubelet_numa_node_files: its value cannot be templated: Syntax error in template: unexpected ':' "
        "(file content that holds {{ or {% is Jinja to Ansible: mark it !unsafe)"
    )
    for raw_vars in (None, lambda: {}):
        assert host_variables(host_vars, DEFAULTS, raw_vars)[1] == [named_by_variable]
