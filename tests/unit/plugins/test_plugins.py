# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What every Python file of plugins/ keeps to: small functions in modules under 400 lines.

A module of plugins/ is under 400 lines: a larger one is split by what its parts are about. A function in plugins/ is
at most 60 lines long (its def to its last line, docstring included) and takes at most 6 parameters (self and cls not
counted): a longer one is split, a wider one takes a small dataclass. The exceptions below each say in one line why
they stay; an entry that no longer exceeds either limit is removed with it.
"""

from __future__ import annotations

import ast
import os

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
PLUGINS = os.path.join(REPO, "plugins")

MAX_LINES = 60
MAX_PARAMETERS = 6
MAX_MODULE_LINES = 400

# "path/below/plugins.py::qualified.name": why it stays over a limit (one line).
EXCEPTIONS = {
    "filter/rollout.py::rollout_plan_filter": "the filter's documented keyword arguments, one per variable of the rollout that shapes the plan",
    "plugin_utils/_rollout_budget.py::rollout_plan": "keyword arguments one per rollout variable, as the filter _rollout_plan passes them",
}


def _parameter_count(function: ast.FunctionDef | ast.AsyncFunctionDef, in_class: bool) -> int:
    arguments = function.args
    positional = arguments.posonlyargs + arguments.args
    count = len(positional) + len(arguments.kwonlyargs) + (arguments.vararg is not None) + (arguments.kwarg is not None)
    if in_class and positional and positional[0].arg in ("self", "cls"):
        count -= 1
    return count


def _functions(tree: ast.AST, prefix: str = "", in_class: bool = False):
    """(qualified name, function node, defined in a class) for every function in tree, nested ones included."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield prefix + node.name, node, in_class
            yield from _functions(node, f"{prefix}{node.name}.", False)
        elif isinstance(node, ast.ClassDef):
            yield from _functions(node, f"{prefix}{node.name}.", True)
        else:
            yield from _functions(node, prefix, in_class)


def _python_files():
    for folder, folders, files in os.walk(PLUGINS):
        folders[:] = sorted(name for name in folders if not name.startswith((".", "__")))
        yield from (os.path.join(folder, name) for name in sorted(files) if name.endswith(".py"))


def test_every_module_in_plugins_is_under_400_lines():
    sizes = {}
    for path in _python_files():
        with open(path, encoding="utf-8") as handle:
            sizes[os.path.relpath(path, PLUGINS)] = len(handle.readlines())
    assert len(sizes) > 60
    assert {path: lines for path, lines in sizes.items() if lines >= MAX_MODULE_LINES} == {}


def _oversized():
    """{"path::name": "what exceeds"} for every function of plugins/ over a limit."""
    found = {}
    for folder, folders, files in os.walk(PLUGINS):
        folders[:] = sorted(name for name in folders if not name.startswith((".", "__")))
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8") as handle:
                tree = ast.parse(handle.read(), path)
            for qualified, function, in_class in _functions(tree):
                lines = (function.end_lineno or function.lineno) - function.lineno + 1
                parameters = _parameter_count(function, in_class)
                over = [f"{lines} lines"] * (lines > MAX_LINES) + [f"{parameters} parameters"] * (parameters > MAX_PARAMETERS)
                if over:
                    found[f"{os.path.relpath(path, PLUGINS)}::{qualified}"] = ", ".join(over)
    return found


def test_no_function_in_plugins_is_over_60_lines_or_6_parameters_unless_its_exception_says_why():
    unjustified = {name: over for name, over in _oversized().items() if name not in EXCEPTIONS}
    assert not unjustified, f"over {MAX_LINES} lines or {MAX_PARAMETERS} parameters: split them, or give each a one-line reason in EXCEPTIONS: {unjustified}"


def test_every_exception_is_still_needed_and_says_why_in_one_line():
    oversized = _oversized()
    stale = sorted(name for name in EXCEPTIONS if name not in oversized)
    assert not stale, f"within the limits now: remove them from EXCEPTIONS: {stale}"
    assert all(reason.strip() and "\n" not in reason for reason in EXCEPTIONS.values())


def test_the_checker_sees_a_long_or_wide_function():
    source = "class A:\n    def wide(self, a, b, c, d, e, f, *g):\n        pass\n\ndef long():\n" + "    x = 1\n" * MAX_LINES
    tree = ast.parse(source)
    sizes = {name: (_parameter_count(node, in_class), node.end_lineno - node.lineno + 1) for name, node, in_class in _functions(tree)}
    assert sizes == {"A.wide": (7, 2), "long": (0, MAX_LINES + 1)}
