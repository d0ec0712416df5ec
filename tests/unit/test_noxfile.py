# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""noxfile.py's stages are the tiers tests/README.md documents, in its order, and --fast runs the ones it says.

Read from the file's syntax tree: nox and antsibull-nox live in requirements-tools.txt's virtualenv, not in the one the
tests run in.
"""

from __future__ import annotations

import ast
import os
import re

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _noxfile_stages():
    """(name, fast) of every function noxfile.py decorates with @stage(...) and of antsibull-nox's sessions it takes as
    stages, in file order."""
    with open(os.path.join(REPO, "noxfile.py"), encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    found = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "ANTSIBULL_NOX_STAGES":
            antsibull_nox_stages = ast.literal_eval(node.value)
        # antsibull-nox's sessions become stages (all of them fast) where the noxfile calls _antsibull_nox_stages().
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and getattr(node.value.func, "id", None) == "_antsibull_nox_stages":
            found += [(name, True) for name in antsibull_nox_stages]
        if not isinstance(node, ast.FunctionDef):
            continue
        for decorator in node.decorator_list:
            if isinstance(decorator, ast.Call) and getattr(decorator.func, "id", None) == "stage":
                fast = any(keyword.arg == "fast" and ast.literal_eval(keyword.value) for keyword in decorator.keywords)
                found.append((node.name, fast))
    return found


def _documented_stages():
    """The stages of tests/README.md's tier table, in order: the tier's name, or the stage named in brackets."""
    with open(os.path.join(REPO, "tests", "README.md"), encoding="utf-8") as handle:
        text = handle.read()
    stages = []
    for tier in re.findall(r"^\| ([^|]+?) \| `", text, re.MULTILINE):
        named = re.search(r"\((\w+) stage\)", tier)
        stage = named.group(1) if named else tier
        if stage not in stages:
            stages.append(stage)
    return stages, text


def test_the_stages_are_the_documented_tiers_in_order():
    documented = _documented_stages()[0]
    assert [name for name, _fast in _noxfile_stages()] == documented


def test_fast_runs_the_first_stages_as_documented():
    stages = _noxfile_stages()
    text = _documented_stages()[1]
    count = re.search(r"`\./scripts/test --fast` runs the first (\w+)", text).group(1)
    words = {"three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}
    fast = [name for name, is_fast in stages if is_fast]
    assert fast == [name for name, _fast in stages[: words[count]]]
