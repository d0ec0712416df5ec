# -*- coding: utf-8 -*-
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every role's meta/argument_specs.yml names exactly the variables of its defaults/main.yml, with the same defaults."""

from __future__ import annotations

import glob
import os

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
    assert "kubelet_numa" in ROLES


@pytest.mark.parametrize("role", ROLES)
def test_argument_specs_match_defaults(role):
    defaults = load(role, "defaults", "main.yml")
    specs = load(role, "meta", "argument_specs.yml").get("argument_specs")
    assert specs, "%s has no meta/argument_specs.yml: ansible-doc -t role and argument validation need it" % role
    assert "main" in specs
    for entry_point, spec in specs.items():
        options = spec.get("options") or {}
        assert sorted(options) == sorted(defaults), "%s/%s: argument_specs and defaults name different variables" % (role, entry_point)
        for name, option in options.items():
            assert option.get("default") == defaults[name], "%s/%s: %s defaults to %r in argument_specs, %r in defaults" % (
                role, entry_point, name, option.get("default"), defaults[name])
            assert option.get("type"), "%s/%s: %s has no type" % (role, entry_point, name)
            assert option.get("description"), "%s/%s: %s has no description" % (role, entry_point, name)
        tasks = os.path.join(REPO, "roles", role, "tasks", "%s.yml" % entry_point)
        assert os.path.exists(tasks), "entry point %s has no tasks/%s.yml" % (entry_point, entry_point)
