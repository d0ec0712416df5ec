# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""meta/runtime.yml's routing, through ansible-playbook of the ansible-core under test (scripts/test-matrix runs this
file on each core, 2.18 to 2.21): every renamed filter's and module's old name gives its new name's result, and a
module of the user's own that imports a renamed module_utils by its old path runs with the new one (AnsiballZ), each
with a deprecation warning carrying the entry's text; an action of the user's own imports the old paths too
(import_redirection); ansible-doc lists each filter and module once and no old name; every filter and module a release
published still resolves."""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys

import pytest
import yaml
from tree_snapshot import snapshot

from ansible_collections.numa.kubelet.plugins.filter import plan as plan_filters
from ansible_collections.numa.kubelet.plugins.filter import rollout as rollout_filters

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, os.pardir)
BIN = os.path.dirname(sys.executable)
with open(os.path.join(REPO, "meta", "runtime.yml"), encoding="utf-8") as _handle:
    RUNTIME = yaml.safe_load(_handle)
with open(os.path.join(REPO, "galaxy.yml"), encoding="utf-8") as _handle:
    VERSION = yaml.safe_load(_handle)["version"]
with open(os.path.join(REPO, "changelogs", "changelog.yaml"), encoding="utf-8") as _handle:
    RELEASES = yaml.safe_load(_handle)["releases"]
FILTER_ROUTING = RUNTIME["plugin_routing"]["filter"]
MODULE_ROUTING = RUNTIME["plugin_routing"].get("modules", {})
ACTION_ROUTING = RUNTIME["plugin_routing"].get("action", {})
MODULE_UTILS_ROUTING = RUNTIME["plugin_routing"].get("module_utils", {})
EXAMPLE_INVENTORY = os.path.join(REPO, "playbooks", "inventory", "example.yml")

# Each renamed filter's arguments, written once and passed to the old and the new name alike; PLAN is the first
# argument of the two drift filters (a plan of a kubeadm node with none of numa.kubelet's files yet).
PLAN_VARIABLES = {
    "kubelet_numa_platform": "kubeadm",
    "kubelet_numa_config": {"memoryManagerPolicy": "Static", "kubeReserved": {"memory": "1Gi"}},
    "kubelet_numa_reserved_memory_split": "even",
    "kubelet_numa_topology": {
        "numa_nodes": [{"id": 0, "memory_bytes": 68719476736, "cpus": [0, 1]}, {"id": 1, "memory_bytes": 68719476736, "cpus": [2, 3]}],
        "numa_memory_capacity_bytes": 137438953472,
    },
    "kubelet_numa_kubelet_root_dir": "/var/lib/kubelet",
    "kubelet_numa_dropin_name": "50-numa-kubelet",
    "kubelet_numa_kubeadm_config_file": "/var/lib/kubelet/config.yaml",
    "kubelet_numa_kubeadm_flags_file": "/var/lib/kubelet/kubeadm-flags.env",
    "kubelet_numa_kubeadm_extra_args_file": "/etc/default/kubelet",
    "kubelet_numa_kubeadm_config_dir": "/etc/kubernetes/kubelet.conf.d",
}
PLAN_FACTS = {"files": {"/var/lib/kubelet/config.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"}}
CALLS = {
    "kubelet_numa_plan": "plan_variables | {name}(plan_facts)",
    "kubelet_numa_state_problems": "none | {name}({{'policyName': 'Static', 'systemReserved': {{'0': 1073741824}}}})",
    "kubelet_numa_drift": 'planned | {name}(\'{{"policyName": "None", "machineState": {{}}}}\')',
    "kubelet_numa_configz_drift": 'planned | {name}(\'{{"kubeletconfig": {{"memoryManagerPolicy": "None"}}}}\')',
    "kubelet_numa_rollout_problems": "'half' | {name}",
}


# What a module and an action of the user's own compute with each renamed module_utils, imported by its old path; the
# test computes the same with the new path. "where" is the Python module each function came from: the new file.
OLD_IMPORTS = {
    "numa_topology": ("parse_cpulist", ("0-3,8",)),
    "kubelet_checkpoint": ("checkpoint_problems", ('{"policyName": "None"}', {"policyName": "Static"})),
}
USERS_MODULE = """#!/usr/bin/python
from ansible.module_utils.basic import AnsibleModule
%s


def main():
    module = AnsibleModule(argument_spec={})
    module.exit_json(changed=False, computed={%s}, where={%s})


main()
"""
USERS_ACTION = """from ansible.plugins.action import ActionBase
%s


class ActionModule(ActionBase):
    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        result.update(computed={%s}, where={%s})
        return result
"""
IMPORT_REDIRECTION = RUNTIME.get("import_redirection", {})
MODULE_UTILS_PACKAGE = "ansible_collections.numa.kubelet.plugins.module_utils."


def _users_module(template=USERS_MODULE):
    """A module (or an action) that imports every renamed module_utils by its old path and returns what it computed
    with each."""
    imports, computed, where = [], [], []
    for old, (function, arguments) in sorted(OLD_IMPORTS.items()):
        alias = "%s_%s" % (old, function)
        imports.append("from ansible_collections.numa.kubelet.plugins.module_utils.%s import %s as %s" % (old, function, alias))
        computed.append("%r: %s(%s)" % (old, alias, ", ".join(repr(argument) for argument in arguments)))
        where.append("%r: %s.__module__" % (old, alias))
    return template % ("\n".join(imports), ", ".join(computed), ", ".join(where))


def _playbook(tmp_path):
    """Each renamed filter called by its old and its new name; each renamed module called by its old and its new name
    with the same arguments (the render of the example inventory, into two directories); the user's module and action
    of _users_module. The results are written as JSON."""
    results = {}
    for old, routing in FILTER_ROUTING.items():
        results[old] = "{{ %s }}" % CALLS[old].format(name="numa.kubelet." + old)
        results[routing["redirect"]] = "{{ %s }}" % CALLS[old].format(name=routing["redirect"])
    module_tasks = []
    for old, routing in MODULE_ROUTING.items():
        for name in (old, routing["redirect"].split(".", 2)[2]):
            module_tasks.append(
                {
                    "name": "Render with the module's name %s" % name,
                    "numa.kubelet.%s" % name: {"hosts": "{{ groups['all'] }}", "dest": str(tmp_path / "render" / name)},
                    "register": "module_%s" % name,
                }
            )
            results["module " + name] = "{{ module_%s }}" % name
    (tmp_path / "library").mkdir()
    (tmp_path / "library" / "users_module.py").write_text(_users_module(), encoding="utf-8")
    results["users_module"] = "{{ users_module }}"
    (tmp_path / "action_plugins").mkdir()
    (tmp_path / "action_plugins" / "users_action.py").write_text(_users_module(USERS_ACTION), encoding="utf-8")
    results["users_action"] = "{{ users_action }}"
    play = [
        {
            "hosts": "localhost",
            "gather_facts": False,
            "vars": {
                "plan_variables": PLAN_VARIABLES,
                "plan_facts": PLAN_FACTS,
                "planned": "{{ plan_variables | numa.kubelet.plan(plan_facts) }}",
                "results": results,
            },
            "tasks": [
                *module_tasks,
                {"name": "Import the module_utils by their old paths on the node", "users_module": {}, "register": "users_module"},
                {"name": "Import the module_utils by their old paths on the controller", "users_action": {}, "register": "users_action"},
                {
                    "name": "Write what each name returned",
                    "ansible.builtin.copy": {"content": "{{ results | ansible.builtin.to_json }}", "dest": str(tmp_path / "results.json"), "mode": "0600"},
                },
            ],
        }
    ]
    path = tmp_path / "routing.yml"
    path.write_text(yaml.safe_dump(play, sort_keys=False), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def routed(collections_root, tmp_path_factory):
    """The results of the play and everything ansible-playbook printed, whitespace collapsed (warnings are wrapped)."""
    tmp_path = tmp_path_factory.mktemp("routing")
    env = dict(
        os.environ,
        ANSIBLE_COLLECTIONS_PATH=str(collections_root),
        ANSIBLE_HOME=str(tmp_path / "ansible-home"),
        ANSIBLE_LOCAL_TEMP=str(tmp_path / "ansible-tmp"),
        ANSIBLE_DEPRECATION_WARNINGS="true",
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_LOCALHOST_WARNING="false",
        ANSIBLE_INVENTORY_UNPARSED_WARNING="false",
    )
    # The example inventory gives the modules' render its hosts; the play itself runs on localhost only.
    command = [os.path.join(BIN, "ansible-playbook"), "-i", "localhost,", "-i", EXAMPLE_INVENTORY, "-c", "local"]
    command += ["-e", f"ansible_python_interpreter={sys.executable}"]
    done = subprocess.run([*command, str(_playbook(tmp_path))], cwd=str(tmp_path), env=env, capture_output=True, text=True, check=False)
    output = re.sub(r"\s+", " ", done.stdout + done.stderr)
    assert done.returncode == 0, output[-2000:]
    return json.loads((tmp_path / "results.json").read_text(encoding="utf-8")), output, tmp_path / "render"


def test_every_entry_redirects_a_filter_to_its_new_name_until_the_next_release():
    defined = set(plan_filters.FilterModule().filters()) | set(rollout_filters.FilterModule().filters())
    assert set(FILTER_ROUTING) == set(CALLS)
    major, minor = (int(part) for part in VERSION.split(".")[:2])
    assert major == 0, "from 1.0.0 on an old name lives until the next major release (docs/contributing.md, Naming)"
    for old, routing in FILTER_ROUTING.items():
        new = routing["redirect"]
        assert new.startswith("numa.kubelet.") and new.split(".", 2)[2] in defined, (old, new)
        assert routing["deprecation"]["removal_version"] == "0.%d.0" % (minor + 1), old
        text = routing["deprecation"]["warning_text"]
        assert f"numa.kubelet.{old} " in text and new in text, (old, text)


@pytest.mark.parametrize("old", sorted(CALLS))
def test_an_old_name_gives_the_new_names_result(routed, old):
    results = routed[0]
    new = FILTER_ROUTING[old]["redirect"]
    assert results[old] == results[new]
    assert results[new], f"the call of {new} is meant to give something to compare"


@pytest.mark.parametrize("old", sorted(CALLS))
def test_an_old_name_warns_with_its_deprecation(routed, old):
    output = routed[1]
    deprecation = FILTER_ROUTING[old]["deprecation"]
    text = re.sub(r"\s+", " ", deprecation["warning_text"])
    assert "[DEPRECATION WARNING]" in output
    assert text in output, f"no deprecation warning {text!r} in: {output[-2000:]}"
    # Each core words the rest its own way; all of them name the collection and the version.
    assert re.search(r"removed from (collection '?)?numa\.kubelet'? (in )?version 0\.3\.0", output), output[-2000:]


def test_every_module_entry_redirects_the_module_and_its_action_until_the_next_release():
    minor = int(VERSION.split(".")[1])
    for old, routing in MODULE_ROUTING.items():
        new = routing["redirect"]
        assert new.startswith("numa.kubelet."), (old, new)
        new_name = new.split(".", 2)[2]
        assert new_name in _python_files("modules") and old not in _python_files("modules"), (old, new)
        assert routing["deprecation"]["removal_version"] == "0.%d.0" % (minor + 1), old
        text = routing["deprecation"]["warning_text"]
        assert f"numa.kubelet.{old} " in text and new in text, (old, text)
        # ansible-core finds a task's action plugin by the name the task wrote, not through the module's redirect.
        if new_name in _python_files("action"):
            assert ACTION_ROUTING.get(old) == {"redirect": new}, f"plugin_routing.action.{old} must redirect to {new} (and warn only once)"
    for old, routing in ACTION_ROUTING.items():
        assert MODULE_ROUTING.get(old, {}).get("redirect") == routing["redirect"], f"an action redirect without its module's: {old}"


def test_every_module_utils_entry_redirects_to_a_private_file_until_the_next_release():
    minor = int(VERSION.split(".")[1])
    assert set(MODULE_UTILS_ROUTING) == set(OLD_IMPORTS)
    for old, routing in MODULE_UTILS_ROUTING.items():
        new = routing["redirect"]
        assert new.startswith("numa.kubelet._"), (old, new)
        assert new.split(".", 2)[2] in _python_files("module_utils") and old not in _python_files("module_utils"), (old, new)
        assert routing["deprecation"]["removal_version"] == "0.%d.0" % (minor + 1), old
        text = routing["deprecation"]["warning_text"]
        assert f"numa.kubelet.{old} " in text and new in text, (old, text)


def _python_files(folder):
    return {name[: -len(".py")] for name in os.listdir(os.path.join(REPO, "plugins", folder)) if name.endswith(".py")}


@pytest.mark.parametrize("kind, routing", [("filter", FILTER_ROUTING), ("modules", MODULE_ROUTING)])
def test_every_released_name_still_resolves(kind, routing):
    """A name a release published (changelogs/changelog.yaml) is still defined, or redirected; a redirect is only for a
    published name."""
    if kind == "filter":
        defined = set()
        for module in _python_files("filter"):
            defined |= set(importlib.import_module("ansible_collections.numa.kubelet.plugins.filter." + module).FilterModule().filters())
        released = {entry["name"] for release in RELEASES.values() for entry in release.get("plugins", {}).get("filter", [])}
    else:
        defined = _python_files("modules")
        released = {entry["name"] for release in RELEASES.values() for entry in release.get("modules", [])}
    assert released, f"changelogs/changelog.yaml records no {kind}"
    assert not released - defined - set(routing), "published, now neither defined nor redirected"
    assert set(routing) <= released, "a redirect for a name no release published"


def test_an_old_module_name_gives_the_new_names_result(routed):
    results, _output, rendered = routed
    for old, routing in MODULE_ROUTING.items():
        new = routing["redirect"].split(".", 2)[2]
        old_result, new_result = results["module " + old], results["module " + new]
        assert old_result["rendered"], f"the action ran for {old}: it rendered hosts ({old_result})"
        for key in ("rendered", "failed_hosts", "needs_discovery", "unconfigured_hosts", "changed"):
            assert old_result[key] == new_result[key], (old, key)
        trees = [{os.path.relpath(path, rendered / name): data for path, data in snapshot(str(rendered / name)).items()} for name in (old, new)]
        assert trees[0] == trees[1] and len(trees[0]) > len(old_result["rendered"]), old


@pytest.mark.parametrize("old", sorted(MODULE_ROUTING))
def test_an_old_module_name_warns_with_its_deprecation(routed, old):
    text = re.sub(r"\s+", " ", MODULE_ROUTING[old]["deprecation"]["warning_text"])
    assert text in routed[1], f"no deprecation warning {text!r} in: {routed[1][-2000:]}"


def test_every_old_module_utils_path_is_redirected_for_controller_code_too():
    assert {
        MODULE_UTILS_PACKAGE + old: {"redirect": MODULE_UTILS_PACKAGE + routing["redirect"].split(".", 2)[2]} for old, routing in MODULE_UTILS_ROUTING.items()
    } == IMPORT_REDIRECTION


@pytest.mark.parametrize("plugin", ["users_module", "users_action"])
def test_a_users_plugin_imports_the_old_module_utils_paths(routed, plugin):
    module = routed[0][plugin]
    assert not module.get("failed"), module
    for old, (function, arguments) in OLD_IMPORTS.items():
        target = importlib.import_module(MODULE_UTILS_PACKAGE + MODULE_UTILS_ROUTING[old]["redirect"].split(".", 2)[2])
        assert module["where"][old] == target.__name__, (old, module["where"])
        expected = json.loads(json.dumps(getattr(target, function)(*arguments)))
        assert module["computed"][old] == expected, old
        assert expected, f"the call of {old} is meant to give something to compare"


@pytest.mark.parametrize("old", sorted(MODULE_UTILS_ROUTING))
def test_an_old_module_utils_path_warns_with_its_deprecation(routed, old):
    text = re.sub(r"\s+", " ", MODULE_UTILS_ROUTING[old]["deprecation"]["warning_text"])
    assert text in routed[1], f"no deprecation warning {text!r} in: {routed[1][-2000:]}"


def test_the_playbook_names_no_other_deprecation(routed):
    output = routed[1]
    warned = re.findall(r"\[DEPRECATION WARNING\]", output)
    assert len(warned) == len(CALLS) + len(MODULE_ROUTING) + len(MODULE_UTILS_ROUTING), output[-2000:]


def test_ansible_doc_lists_each_filter_once_and_no_old_name(collections_root, tmp_path):
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=str(collections_root), ANSIBLE_HOME=str(tmp_path / "ansible-home"), ANSIBLE_NOCOLOR="1")
    done = subprocess.run(
        [os.path.join(BIN, "ansible-doc"), "-t", "filter", "-l", "numa.kubelet"], cwd=str(tmp_path), env=env, capture_output=True, text=True, check=True
    )
    listed = [line.split()[0] for line in done.stdout.splitlines() if line.startswith("numa.kubelet.")]
    assert len(listed) == len(set(listed)), done.stdout
    assert not {name.split(".", 2)[2] for name in listed} & set(FILTER_ROUTING)
    assert {"numa.kubelet.plan", "numa.kubelet.state_problems", "numa.kubelet._drift"} <= set(listed)


def test_ansible_doc_lists_each_module_once_and_no_old_name(collections_root, tmp_path):
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=str(collections_root), ANSIBLE_HOME=str(tmp_path / "ansible-home"), ANSIBLE_NOCOLOR="1")
    done = subprocess.run(
        [os.path.join(BIN, "ansible-doc"), "-t", "module", "-l", "numa.kubelet"], cwd=str(tmp_path), env=env, capture_output=True, text=True, check=True
    )
    listed = [line.split()[0] for line in done.stdout.splitlines() if line.startswith("numa.kubelet.")]
    assert sorted(listed) == sorted("numa.kubelet." + name for name in _python_files("modules")), done.stdout
    assert not {name.split(".", 2)[2] for name in listed} & set(MODULE_ROUTING)
