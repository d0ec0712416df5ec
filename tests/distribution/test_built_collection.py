# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The built tarball, installed into an empty collections path, is the whole collection and only it.

Everything runs from the installed copy, in a directory outside the checkout (so ansible.cfg's collections_path and any
~/.ansible copy cannot shadow it); the distribution stage runs tests/docs against the same copy (--built-collection).
"""

from __future__ import annotations

import fnmatch
import json
import os

import pytest
import yaml

from ansible_collections.numa.kubelet.tests.distribution.tarball import REPO

# Plugin directories ansible-doc does not document on their own.
UNDOCUMENTED = {"action", "doc_fragments", "module_utils", "plugin_utils"}
DOC_TYPES = ["role"] + sorted(
    "module" if name == "modules" else name
    for name in os.listdir(os.path.join(REPO, "plugins"))
    if os.path.isdir(os.path.join(REPO, "plugins", name)) and name not in UNDOCUMENTED
)


def test_the_tarball_installs_where_ansible_finds_it_alone(built_collection):
    assert os.path.isfile(os.path.join(built_collection.path, "MANIFEST.json"))
    found = json.loads(built_collection.run("ansible-galaxy", "collection", "list", "numa.kubelet", "--format", "json"))
    assert list(found) == [os.path.join(built_collection.collections, "ansible_collections")]


def test_the_tarball_ships_no_test_files(built_collection):
    shipped = [
        os.path.relpath(os.path.join(directory, name), built_collection.path)
        for top in ("tests", "molecule", "scripts")
        for directory, _subdirectories, names in os.walk(os.path.join(built_collection.path, top))
        for name in names
    ]
    shipped += [name for name in os.listdir(built_collection.path) if name == "noxfile.py" or fnmatch.fnmatch(name, "requirements-*.txt")]
    assert shipped == [], "galaxy.yml's build_ignore misses test files"


def test_every_kind_of_plugin_is_found():
    assert {"role", "module", "filter"} <= set(DOC_TYPES)


@pytest.mark.parametrize("kind", DOC_TYPES)
def test_ansible_doc_documents_everything_installed(built_collection, kind):
    names = sorted(json.loads(built_collection.run("ansible-doc", "-t", kind, "-l", "numa.kubelet", "--json")))
    assert names, f"ansible-doc lists no {kind} of numa.kubelet"
    docs = json.loads(built_collection.run("ansible-doc", "-t", kind, "--json", *names))
    problems = []
    for name, data in sorted(docs.items()):
        if kind == "role":
            problems += [
                f"{name}: entry point {entry} without short_description or options"
                for entry, spec in sorted(data.get("entry_points", {}).items())
                if not (spec.get("short_description") and spec.get("options"))
            ]
            continue
        if not (data.get("doc") or {}).get("short_description"):
            problems.append(f"{kind} {name}: no DOCUMENTATION")
        if not (data.get("examples") or "").strip():
            problems.append(f"{kind} {name}: no EXAMPLES")
        if not data.get("return"):
            problems.append(f"{kind} {name}: no RETURN")
    assert sorted(docs) == names
    assert problems == []


def _inventory_hosts(group):
    names = set(group.get("hosts") or {})
    for child in (group.get("children") or {}).values():
        names |= _inventory_hosts(child or {})
    return names


def test_render_from_the_installed_copy_plans_every_example_host(built_collection, tmp_path):
    inventory = os.path.join(built_collection.path, "playbooks", "inventory", "example.yml")
    built_collection.run("ansible-playbook", "-i", inventory, "numa.kubelet.render", "-e", "kubelet_numa_render_dir=%s" % (tmp_path / "render"))
    with open(inventory, encoding="utf-8") as handle:
        hosts = _inventory_hosts(yaml.safe_load(handle)["all"])
    plans = sorted(path.parent.name for path in (tmp_path / "render").rglob("plan.json"))
    assert len(hosts) > 1
    assert len(plans) == len(hosts)
