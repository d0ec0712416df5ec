# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every role's meta/argument_specs.yml names exactly the variables of its defaults/main.yml, with the same defaults."""

from __future__ import annotations

import glob
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


# Each role whose entry points share their options: the entry point that holds them first. kubelet_numa has one entry
# point, main; the rollout's plays each validate the whole set, so every one of its entry points carries a copy.
SHARED_OPTIONS = {"kubelet_numa": "main", "kubelet_numa_rollout": "plan"}


def test_kubelet_numa_has_one_entry_point():
    # tasks_from kubeadm | rke2 | nodeadm | k3s still run main, deprecated (plugins/filter/_deprecated_entry_point.py).
    assert list(load("kubelet_numa", "meta", "argument_specs.yml")["argument_specs"]) == ["main"]


@pytest.mark.parametrize(("role", "source"), sorted(SHARED_OPTIONS.items()))
def test_entry_points_carry_copies_of_the_source_options_without_yaml_aliases(role, source):
    with open(os.path.join(REPO, "roles", role, "meta", "argument_specs.yml"), encoding="utf-8") as handle:
        text = handle.read()
    # An alias shares one object, which ansible-doc empties while printing the first entry point that uses it.
    assert not [event for event in yaml.parse(text) if isinstance(event, yaml.AliasEvent)]
    specs = yaml.safe_load(text)["argument_specs"]
    assert source in specs
    for entry_point, spec in specs.items():
        assert spec["options"] == specs[source]["options"], f"{role}/{entry_point}: its options differ from {source}'s copy"


def test_the_rollout_playbooks_play_keywords_default_to_the_roles_defaults():
    # hosts is templated before any role's defaults exist, so the playbook writes its default too. The roll play's
    # hosts and serial are the first play's batch plan (kubelet_numa_rollout_serial is one of its inputs).
    with open(os.path.join(REPO, "playbooks", "rollout.yml"), encoding="utf-8") as handle:
        plays = yaml.safe_load(handle)
    defaults = load("kubelet_numa_rollout", "defaults", "main.yml")
    rolls = [play for play in plays if "serial" in play]
    assert len(rolls) == 1
    assert rolls[0]["hosts"] == "{{ hostvars.localhost.__kubelet_numa_rollout_batches.order | default([]) }}"
    assert rolls[0]["serial"] == "{{ hostvars.localhost.__kubelet_numa_rollout_batches.sizes | default(1) }}"
    for play in plays:
        if play is not rolls[0]:
            assert play["hosts"] == "{{ kubelet_numa_rollout_hosts | default('%s') }}" % defaults["kubelet_numa_rollout_hosts"], play["name"]


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
