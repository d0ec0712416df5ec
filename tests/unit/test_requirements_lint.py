# SPDX-License-Identifier: GPL-3.0-or-later
"""The lint tools pinned twice agree: the pre-commit hooks run the ruff and mypy versions that scripts/test's lint stage
runs (requirements-lint.txt, the lint stage's environment)."""

from __future__ import annotations

import os
import re

import pytest
import yaml

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _pins(path):
    with open(os.path.join(REPO, path), encoding="utf-8") as handle:
        return dict(re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)$", handle.read(), re.MULTILINE))


def _hook(hook_id):
    with open(os.path.join(REPO, ".pre-commit-config.yaml"), encoding="utf-8") as handle:
        config = yaml.safe_load(handle)
    return next(hook for repo in config["repos"] for hook in repo["hooks"] if hook["id"] == hook_id)


@pytest.mark.parametrize("hook", ["ruff-check", "ruff-format"])
def test_pre_commit_ruff_is_the_pinned_ruff(hook):
    assert _hook(hook)["additional_dependencies"] == [f"ruff=={_pins('requirements-lint.txt')['ruff']}"]


def test_pre_commit_mypy_is_the_pinned_mypy():
    pins = _pins("requirements-lint.txt")
    assert _hook("mypy")["additional_dependencies"] == [f"mypy=={pins['mypy']}", f"types-PyYAML=={pins['types-PyYAML']}"]
