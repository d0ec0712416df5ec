# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The program assembled from the engine's own modules, and the text/x-shellscript part that installs it."""

from __future__ import annotations

import ast
import builtins
import json
import os
import subprocess
import sys

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils import _boot_split_bundle as bundle
from ansible_collections.numa.kubelet.plugins.plugin_utils._boot_split import DROPIN_NAME, PROGRAM
from ansible_collections.numa.kubelet.tests.unit.plugins.plugin_utils.test_boot_split_differential import PYTHON

PLUGINS = os.path.dirname(os.path.dirname(os.path.abspath(bundle.__file__)))


def _unannotated(statement):
    """An annotated assignment as the plain one it does at run time (a bare annotation does nothing)."""
    if not isinstance(statement, ast.AnnAssign):
        return statement
    return ast.Pass() if statement.value is None else ast.Assign(targets=[statement.target], value=statement.value, lineno=statement.lineno)


def _shape(source, name):
    """A function's AST with its docstring and annotations dropped and the names of its locals blanked."""
    tree = ast.parse(source)
    keep = {alias.asname or alias.name for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}
    keep |= {target.id for node in tree.body if isinstance(node, ast.Assign) for target in node.targets if isinstance(target, ast.Name)}
    keep |= {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))} | set(dir(builtins))
    function = next(node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == name)
    if isinstance(function.body[0], ast.Expr) and isinstance(function.body[0].value, ast.Constant):
        function.body = function.body[1:]
    for node in ast.walk(function):
        for name, statements in ast.iter_fields(node):
            if isinstance(statements, list):
                setattr(node, name, [_unannotated(statement) for statement in statements])
        if isinstance(node, ast.arg):
            node.annotation = None
        elif isinstance(node, ast.FunctionDef):
            node.returns = None
        elif isinstance(node, ast.Name) and node.id not in keep:
            node.id = "_"
        elif isinstance(node, ast.ExceptHandler) and node.name:
            node.name = "_"
    return ast.dump(function)


def test_the_program_carries_the_engines_split_code():
    """split_reservation and what it calls are the engine's own statements: only docstrings, annotations and names of
    locals differ; what the program does not reach stays out."""
    sources = bundle.program_sources()
    assert sorted(sources) == [
        "plugin_utils._allocatable",
        "plugin_utils._boot_split",
        "plugin_utils._config",
        "plugin_utils._effective",
        "plugin_utils._quantity",
        "plugin_utils._quantity_amount",
        "plugin_utils._split",
    ]
    with open(os.path.join(PLUGINS, "plugin_utils", "_split.py"), encoding="utf-8") as handle:
        engine = handle.read()
    for name in ("split_reservation", "_even", "_proportional", "_explicit", "share_text", "node_fit_problems", "_whole_bytes"):
        assert _shape(sources["plugin_utils._split"], name) == _shape(engine, name), name
    assert "def numa_nodes_from" not in sources["plugin_utils._split"]
    assert "_eviction_thresholds" not in json.dumps(sources)


def test_the_program_is_python_39(tmp_path):
    """AL2023's python3 is 3.9: every shipped module parses as 3.9, and the program runs under PYTHON."""
    for key, source in bundle.program_sources().items():
        ast.parse(source, filename=key, feature_version=(3, 9))
    program = tmp_path / PROGRAM
    program.write_text(bundle.program_text())
    proc = subprocess.run([PYTHON, str(program), "options.json"], capture_output=True, text=True, check=False)
    assert (proc.returncode, proc.stderr) == (
        1,
        f"{PROGRAM}: refused: usage: {PROGRAM} OPTIONS_FILE -- KUBELET_ARGS...\n{PROGRAM}: refused: the kubelet is not started\n",
    )


def test_the_program_carries_no_typing():
    """Signatures and variables carry no annotations and nothing imports __future__ or typing, so typing the engine
    costs the user data nothing; a class body keeps its field annotations (dataclass and NamedTuple fields) as strings."""
    for key, source in bundle.program_sources().items():
        tree = ast.parse(source)
        fields = {id(node) for klass in ast.walk(tree) if isinstance(klass, ast.ClassDef) for node in klass.body if isinstance(node, ast.AnnAssign)}
        for node in ast.walk(tree):
            assert not isinstance(node, ast.arg) or node.annotation is None, (key, node.arg)
            assert not isinstance(node, ast.FunctionDef) or node.returns is None, (key, node.name)
            if isinstance(node, ast.AnnAssign):
                assert id(node) in fields and isinstance(node.annotation, ast.Constant), (key, ast.unparse(node))
        names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
        for statement in tree.body:
            if isinstance(statement, (ast.Import, ast.ImportFrom)):
                assert all((alias.asname or alias.name) in names for alias in statement.names), (key, ast.unparse(statement))
    assert "from typing import NamedTuple" in bundle.program_sources()["plugin_utils._quantity_amount"]


TYPED_MODULE = """\
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, ClassVar, NamedTuple

LIMIT: int = 3
PENDING: list[str]


class Pair(NamedTuple):
    left: int
    right: int | None


@dataclass(frozen=True)
class Node:
    KIND: ClassVar[str] = "numa"
    id: int
    memory: int | None = None


def _scaled(value: int | None, by: Callable[[int], int] = lambda number: number * 2) -> int | None:
    return None if value is None else by(value)


def main(argv: list[str]) -> dict[str, Any]:
    shares: dict[str, int | None] = {}
    label: str
    if argv:
        label = argv[0]
    else:
        label = Node.KIND
    for index, node in enumerate(Node(number, number * LIMIT) for number in range(2)):
        shares[f"{label}{index}"] = _scaled(node.memory)
    return {"shares": shares, "pair": Pair(1, None)._asdict(), "fields": [field.name for field in fields(Node)]}
"""


def test_a_typed_module_runs_the_same_without_its_annotations(tmp_path, monkeypatch):
    """What the cut takes out is what only a type checker reads: under AL2023's Python 3.9, which cannot evaluate
    "int | None", the cut module gives what the typed one gives here; the field annotations stay, ClassVar included."""
    (tmp_path / "plugin_utils").mkdir()
    (tmp_path / "plugin_utils" / "_typed.py").write_text(TYPED_MODULE)
    monkeypatch.setattr(bundle, "_PLUGINS", tmp_path)
    modules = bundle._reach("plugin_utils._typed", "main")
    cut = bundle._cut(modules["plugin_utils._typed"])
    assert "annotations" not in cut and "Callable" not in cut and "Any" not in cut and "PENDING" not in cut
    assert "ClassVar" in cut and "typing import ClassVar, NamedTuple" in cut
    (tmp_path / "cut").mkdir()
    (tmp_path / "cut" / "_typed.py").write_text(cut)
    answers = []
    for python, directory in ((sys.executable, tmp_path / "plugin_utils"), (PYTHON, tmp_path / "cut")):
        # Imported as a module: dataclasses looks ClassVar up in sys.modules[the class's module].
        run = f"import json, sys; sys.path.insert(0, {str(directory)!r}); import _typed; print(json.dumps(_typed.main(['node'])))"
        proc = subprocess.run([python, "-c", run], capture_output=True, text=True, check=False)
        assert (proc.returncode, proc.stderr) == (0, ""), python
        answers.append(json.loads(proc.stdout))
    assert answers[0] == answers[1] == {"shares": {"node0": 0, "node1": 6}, "pair": {"left": 1, "right": None}, "fields": ["id", "memory"]}


def test_bytes_are_stable():
    first = bundle.shell_part({"0": "1Gi", "1": "1Gi"})
    bundle.program_sources.cache_clear()
    assert bundle.shell_part({"0": "1Gi", "1": "1Gi"}) == first


def test_the_part_leaves_room_for_the_other_parts():
    """The program's part, with the largest options, leaves the allowance for Karpenter's NodeConfig and our own."""
    split = {str(node): "1073741824" for node in range(8)}
    assert len(bundle.shell_part(split).encode()) + bundle.OTHER_PARTS_ALLOWANCE + 1024 <= bundle.USER_DATA_LIMIT


def test_a_module_statement_the_cut_does_not_model_is_refused(tmp_path, monkeypatch):
    (tmp_path / "plugin_utils").mkdir()
    (tmp_path / "plugin_utils" / "_odd.py").write_text("import os\nos.environ.setdefault('X', '1')\ndef main():\n    return 0\n")
    monkeypatch.setattr(bundle, "_PLUGINS", tmp_path)
    with pytest.raises(bundle.BundleError, match=r"plugin_utils\._odd: line 2: a top-level statement"):
        bundle._reach("plugin_utils._odd", "main")


def test_shortened_names_keep_meaning():
    """Locals are renamed, parameters, globals, builtins and names of closures' free variables are not."""
    module = bundle._Module.__new__(bundle._Module)
    source = "X = 1\ndef f(count, key=None):\n    total = X + len([item for item in range(count)])\n    def g():\n        return total\n    return g()\n"
    module.tree, module.key, module.needed = ast.parse(source), "m", {"X", "f"}
    module.definitions, module.imports = {"X": module.tree.body[0], "f": module.tree.body[1]}, {}
    cut = bundle._cut(module)
    namespace = {}
    exec(compile(cut, "cut", "exec"), namespace)
    assert namespace["f"](4, key="k") == 5
    assert "total" not in cut and "def f(count, key=None)" in cut


def test_the_shell_part_installs_the_program_and_the_unit_dropin(tmp_path):
    """The part run with its absolute paths moved under tmp_path (and systemctl stubbed) leaves the three files."""
    lines = bundle.shell_part({"0": "2Gi"}).splitlines()
    for prefix in ("/etc/", "/usr/local/"):
        lines = [
            line.replace(f" {prefix}", f" {tmp_path}{prefix}").replace(f">{prefix}", f">{tmp_path}{prefix}")
            if line.startswith(("mkdir ", "cat ", "chmod "))
            else line
            for line in lines
        ]
    script = "\n".join(lines) + "\n"
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "systemctl").write_text('#!/bin/sh\necho "systemctl $*" >> "$(dirname "$0")/calls"\n')
    (tmp_path / "bin" / "systemctl").chmod(0o755)
    proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, check=False, env=dict(os.environ, PATH=f"{tmp_path}/bin:/usr/bin:/bin"))
    assert (proc.returncode, proc.stderr) == (0, "")
    program = tmp_path / bundle.PROGRAM_PATH.lstrip("/")
    assert program.read_text() == bundle.program_text() and os.access(program, os.X_OK)
    assert json.loads((tmp_path / bundle.OPTIONS_PATH.lstrip("/")).read_text()) == {"split": {"0": "2Gi"}}
    assert (tmp_path / bundle.UNIT_DROPIN_PATH.lstrip("/")).read_text() == (
        f"[Service]\nExecStartPre=/usr/bin/python3 {bundle.PROGRAM_PATH} {bundle.OPTIONS_PATH} -- $NODEADM_KUBELET_ARGS\n"
    )
    assert (tmp_path / "bin" / "calls").read_text() == "systemctl daemon-reload\n"
    assert DROPIN_NAME in lines[1]
