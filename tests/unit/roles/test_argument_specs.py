# -*- coding: utf-8 -*-
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every role's meta/argument_specs.yml names exactly the variables of its defaults/main.yml, with the same defaults."""

from __future__ import annotations

import glob
import importlib.util
import os
import re
import subprocess
import sys

import pytest
import yaml

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
ROLES = sorted(os.path.basename(path) for path in glob.glob(os.path.join(REPO, "roles", "*")) if os.path.isdir(path))


def load(role, *parts):
    """The YAML file, or {} when the role has none (a role without defaults has no options either)."""
    path = os.path.join(REPO, "roles", role, *parts)
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle) or {}


def test_there_are_roles():
    assert "kubelet_numa" in ROLES and "kubelet_numa_rollout" in ROLES


@pytest.mark.parametrize("role", ROLES)
def test_argument_specs_match_defaults(role):
    defaults = load(role, "defaults", "main.yml")
    specs = load(role, "meta", "argument_specs.yml").get("argument_specs")
    assert specs, "%s has no meta/argument_specs.yml: ansible-doc -t role and argument validation need it" % role
    # main is what `roles:` and include_role without tasks_from run: documented when the role has it.
    assert ("main" in specs) == os.path.exists(os.path.join(REPO, "roles", role, "tasks", "main.yml")), role
    for entry_point, spec in specs.items():
        options = spec.get("options") or {}
        assert sorted(options) == sorted(defaults), "%s/%s: argument_specs and defaults name different variables" % (role, entry_point)
        for name, option in options.items():
            assert option.get("default") == defaults[name], "%s/%s: %s defaults to %r in argument_specs, %r in defaults" % (
                role,
                entry_point,
                name,
                option.get("default"),
                defaults[name],
            )
            assert option.get("type"), "%s/%s: %s has no type" % (role, entry_point, name)
            assert option.get("description"), "%s/%s: %s has no description" % (role, entry_point, name)
        tasks = os.path.join(REPO, "roles", role, "tasks", "%s.yml" % entry_point)
        assert os.path.exists(tasks), "entry point %s has no tasks/%s.yml" % (entry_point, entry_point)


def _copier():
    spec = importlib.util.spec_from_file_location("argument_specs", os.path.join(REPO, "scripts", "lib", "argument_specs.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# Each role whose entry points share their options: the entry point they are written under (scripts/lib/argument_specs.py).
SHARED_OPTIONS = {"kubelet_numa": "main", "kubelet_numa_rollout": "plan"}


@pytest.mark.parametrize(("role", "source"), sorted(SHARED_OPTIONS.items()))
def test_entry_points_carry_copies_of_the_source_options_without_yaml_aliases(role, source):
    with open(os.path.join(REPO, "roles", role, "meta", "argument_specs.yml"), encoding="utf-8") as handle:
        text = handle.read()
    # An alias shares one object, which ansible-doc empties while printing the first entry point that uses it.
    assert not [event for event in yaml.parse(text) if isinstance(event, yaml.AliasEvent)]
    specs = yaml.safe_load(text)["argument_specs"]
    assert len(specs) > 1 and all(spec["options"] == specs[source]["options"] for spec in specs.values())
    if os.path.exists(os.path.join(REPO, "scripts")):
        assert _copier().SOURCES[role] == source
        assert _copier().rewrite(text, source) == text, "stale copies of %s's options: run python3 scripts/lib/argument_specs.py" % source


def test_the_rollout_playbooks_play_keywords_default_to_the_roles_defaults():
    # hosts and serial are templated before any role's defaults exist, so the playbook writes their defaults too.
    with open(os.path.join(REPO, "playbooks", "rollout.yml"), encoding="utf-8") as handle:
        plays = yaml.safe_load(handle)
    defaults = load("kubelet_numa_rollout", "defaults", "main.yml")
    for play in plays:
        assert play["hosts"] == "{{ kubelet_numa_rollout_hosts | default('%s') }}" % defaults["kubelet_numa_rollout_hosts"], play["name"]
        if "serial" in play:
            assert play["serial"] == "{{ kubelet_numa_rollout_serial | default(%d) }}" % defaults["kubelet_numa_rollout_serial"], play["name"]
    assert sum("serial" in play for play in plays) == 1


def test_copier_replaces_an_entry_points_options_and_keeps_what_follows():
    if not os.path.exists(os.path.join(REPO, "scripts")):
        pytest.skip("scripts/ is not part of an installed collection")
    text = (
        "argument_specs:\n  main:\n    options:\n      a: {type: int, default: 1, description: A}\n  # about other\n"
        "  other:\n    short_description: Other\n    options:\n      stale: {type: str, default: '', description: S}\n"
        "  # about last\n  last:\n    short_description: Last\n"
    )
    rewritten = yaml.safe_load(_copier().rewrite(text))["argument_specs"]
    assert rewritten["other"] == {"short_description": "Other", "options": {"a": {"type": "int", "default": 1, "description": "A"}}}
    assert rewritten["last"]["options"] == rewritten["main"]["options"]
    assert "  # about other\n  other:" in _copier().rewrite(text) and "  # about last\n  last:" in _copier().rewrite(text)
    # Another source entry point: main is then a copy like the others.
    from_other = yaml.safe_load(_copier().rewrite(text, "other"))["argument_specs"]
    assert from_other["main"]["options"] == from_other["last"]["options"] == {"stale": {"type": "str", "default": "", "description": "S"}}
    with pytest.raises(ValueError, match="no absent entry point"):
        _copier().rewrite(text, "absent")


@pytest.mark.parametrize("role", ROLES)
def test_ansible_doc_lists_every_option_under_every_entry_point(collections_root, role):
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=str(collections_root), ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0")
    result = subprocess.run(
        [os.path.join(os.path.dirname(sys.executable), "ansible-doc"), "-t", "role", "numa.kubelet." + role],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    specs = load(role, "meta", "argument_specs.yml")["argument_specs"]
    shown, entry_point = {}, None
    for line in result.stdout.splitlines():
        match = re.match(r"^ENTRY POINT: \W*(\w+)", line)
        if match:
            entry_point = match.group(1)
            shown[entry_point] = []
        match = re.match(r"^[-=] (\w+)", line)
        if match and entry_point:
            shown[entry_point].append(match.group(1))
    assert {name: sorted(options) for name, options in shown.items()} == {name: sorted(spec["options"]) for name, spec in specs.items()}
