# SPDX-License-Identifier: GPL-3.0-or-later
"""nox's own environment (requirements-tools.txt) holds what runs noxfile.py and nothing else, and each package has one
pin: nox makes every other tool's environment from a requirements file of its own."""

from __future__ import annotations

import ast
import glob
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _pins(path):
    with open(os.path.join(REPO, path), encoding="utf-8") as handle:
        return dict(re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)$", handle.read(), re.MULTILINE))


def _what_runs_the_noxfile():
    """The distributions noxfile.py imports (besides the standard library and scripts/lib), and the one its default
    virtualenv backend names first (uv)."""
    with open(os.path.join(REPO, "noxfile.py"), encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    local = {name[: -len(".py")] for name in os.listdir(os.path.join(REPO, "scripts", "lib")) if name.endswith(".py")}
    imported = set()
    backend = None
    for node in tree.body:
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            imported.add(node.module.split(".")[0])
        elif isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "nox.options.default_venv_backend":
            backend = ast.literal_eval(node.value).split("|")[0]
    third_party = imported - set(sys.stdlib_module_names) - local - {"__future__"}
    return {name.replace("_", "-") for name in third_party} | {backend}


def test_nox_environment_holds_what_runs_the_noxfile_and_nothing_else():
    assert set(_pins("requirements-tools.txt")) == _what_runs_the_noxfile()


def test_no_package_is_pinned_by_two_requirements_files():
    files = sorted(os.path.relpath(path, REPO) for path in glob.glob(os.path.join(REPO, "requirements-*.txt")))
    assert {"requirements-tools.txt", "requirements-dev.txt", "requirements-lint.txt", "requirements-ee.txt"} <= set(files)
    where = {}
    for name in files:
        for package in _pins(name):
            where.setdefault(package.lower(), []).append(name)
    assert {package: names for package, names in where.items() if len(names) > 1} == {}
