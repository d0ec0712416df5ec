# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The boot-split program assembled at render time from the engine's own modules, and the user-data part that installs it.

One source of truth: the program runs _boot_split and the engine modules it imports, as they are in this collection,
cut to the definitions it reaches (a top-level function, class or constant nobody reaches is left out, and so are
docstrings, type annotations and the imports only they used), compressed and carried in a text/x-shellscript part.
On AL2023, cloud-init runs that part before nodeadm-run.service starts the kubelet (awslabs/amazon-eks-ami
templates/al2023/runtime/rootfs/etc/systemd/system/nodeadm-run.service at 515008ea7b934cee19377522bda6907cf34ecf99:
After=cloud-final.service), and the kubelet unit (ExecStart=/usr/bin/kubelet $NODEADM_KUBELET_ARGS) gets a drop-in
whose ExecStartPre runs the program with the same arguments at every start.
"""

from __future__ import annotations

import ast
import base64
import builtins
import json
import keyword
import lzma
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

from ._boot_split import DROPIN_NAME, PROGRAM

SHELLSCRIPT_CONTENT_TYPE = "text/x-shellscript"
PROGRAM_PATH = f"/usr/local/libexec/{PROGRAM}"
OPTIONS_PATH = "/etc/numa-kubelet/boot-split.json"
UNIT_DROPIN_PATH = "/etc/systemd/system/kubelet.service.d/90-numa-kubelet-boot-split.conf"
# EC2 user data, decoded (RunInstances UserData: "limited to 16 KB"); the launch template holds what Karpenter merges.
USER_DATA_LIMIT = 16384
# Room the program's part must leave for the other parts: Karpenter v1's own NodeConfig (cluster endpoint, the CA bundle
# in base64, about 1.5 KB for a 2048-bit CA, kubelet config, node labels: 2.5 KB measured with nodeadm-config) and margin.
OTHER_PARTS_ALLOWANCE = 3584
# The package the program's modules live in on the node; plugin_utils and module_utils keep their relative imports.
PACKAGE = "numa_kubelet_boot"
ROOT_MODULE = "plugin_utils._boot_split"
_HEREDOC_END = "EOF"
_PLUGINS = Path(__file__).resolve().parent.parent


class BundleError(Exception):
    """The engine modules cannot be cut into a program (a top-level statement the assembly does not model)."""


def _defined_names(statement: ast.stmt) -> list[str]:
    if isinstance(statement, (ast.FunctionDef, ast.ClassDef)):
        return [statement.name]
    if isinstance(statement, (ast.Assign, ast.AnnAssign)):
        return [node.id for node in ast.walk(statement) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)]
    return []


def _imported_module(module: str, statement: ast.ImportFrom) -> str:
    """The module key ("plugin_utils._config") a relative import in module names."""
    package = module.split(".")[: -statement.level]
    if statement.module is None:
        raise BundleError(f"{module}: line {statement.lineno}: 'from . import' is not modelled; import the names from their module")
    return ".".join(package + [statement.module])


class _Unannotated(ast.NodeTransformer):
    """Takes out what only a type checker reads, so that typing the engine costs the user data nothing.

    A signature's annotations go, and so does a variable's (its assignment stays; a bare one in a function becomes
    pass). A class body's annotations declare dataclass and NamedTuple fields: they stay, as the strings that
    "from __future__ import annotations" (every engine module) made them, so that no module needs that import.
    """

    def __init__(self) -> None:
        self.scope = "module"

    def _visit_scope(self, node: ast.AST, scope: str) -> ast.AST:
        outer, self.scope = self.scope, scope
        self.generic_visit(node)
        self.scope = outer
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        return self._visit_scope(node, "class")

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.returns = None
        return self._visit_scope(node, "function")

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AST:
        node.returns = None
        return self._visit_scope(node, "function")

    def visit_arg(self, node: ast.arg) -> ast.AST:
        node.annotation = None
        return node

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST | None:
        if self.scope == "class":
            node.annotation = ast.Constant(ast.unparse(node.annotation))
            return node
        if node.value is not None:
            return ast.Assign(targets=[node.target], value=node.value, lineno=node.lineno)
        return ast.Pass() if self.scope == "function" else None


def _field_annotation_names(tree: ast.AST) -> set[str]:
    """The names in the class fields' annotations, which _Unannotated left as strings."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign) and isinstance(node.annotation, ast.Constant):
            names |= {name.id for name in ast.walk(ast.parse(str(node.annotation.value))) if isinstance(name, ast.Name)}
    return names


def _bound_name(statement: ast.Import | ast.ImportFrom, alias: ast.alias) -> str:
    return alias.asname or (alias.name.split(".")[0] if isinstance(statement, ast.Import) else alias.name)


class _Module:
    def __init__(self, key: str) -> None:
        self.key = key
        source = (_PLUGINS / (key.replace(".", "/") + ".py")).read_text(encoding="utf-8")
        self.tree = ast.fix_missing_locations(_Unannotated().visit(ast.parse(source)))
        self.definitions: dict[str, ast.stmt] = {}
        self.imports: dict[str, tuple[str, str]] = {}
        for statement in self.tree.body:
            if isinstance(statement, ast.ImportFrom) and statement.level:
                for alias in statement.names:
                    self.imports[alias.asname or alias.name] = (_imported_module(key, statement), alias.name)
            elif isinstance(statement, (ast.Import, ast.ImportFrom)) or _is_docstring(statement):
                continue
            elif _defined_names(statement):
                for name in _defined_names(statement):
                    self.definitions[name] = statement
            else:
                raise BundleError(f"{key}: line {statement.lineno}: a top-level statement that is neither an import nor a definition")
        self.needed: set[str] = set()


def _is_docstring(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant) and isinstance(statement.value.value, str)


def _reach(root: str, name: str) -> dict[str, _Module]:
    """Every module and top-level name reachable from root.name through names and relative imports."""
    modules: dict[str, _Module] = {}
    pending = [(root, name)]
    while pending:
        key, wanted = pending.pop()
        module = modules.get(key) or modules.setdefault(key, _Module(key))
        if wanted in module.needed:
            continue
        module.needed.add(wanted)
        if wanted in module.imports:
            pending.append(module.imports[wanted])
            continue
        for node in ast.walk(module.definitions[wanted]):
            if isinstance(node, ast.Name) and (node.id in module.definitions or node.id in module.imports):
                pending.append((key, node.id))
    return modules


def _cut(module: _Module) -> str:
    body: list[ast.stmt] = []
    for statement in module.tree.body:
        if isinstance(statement, ast.ImportFrom) and statement.level:
            statement.names = [alias for alias in statement.names if (alias.asname or alias.name) in module.needed]
            if statement.names:
                body.append(statement)
        elif isinstance(statement, (ast.Import, ast.ImportFrom)) or any(name in module.needed for name in _defined_names(statement)):
            body.append(statement)
    module.tree.body = body
    for node in ast.walk(module.tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.body and _is_docstring(node.body[0]):
            node.body = node.body[1:] or [ast.Pass()]
    # An import the cut code no longer names served annotations (typing, __future__) or left-out definitions. A field
    # annotation's names count: dataclasses looks ClassVar and InitVar up in the module to tell them from fields.
    used = {node.id for node in ast.walk(module.tree) if isinstance(node, ast.Name)} | _field_annotation_names(module.tree)
    for statement in list(module.tree.body):
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            statement.names = [alias for alias in statement.names if _bound_name(statement, alias) in used]
            if not statement.names:
                module.tree.body.remove(statement)
    module_names = (
        set(dir(builtins))
        | set(module.definitions)
        | {alias.asname or alias.name for node in ast.walk(module.tree) if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}
    )
    taken = module_names | {node.id for node in ast.walk(module.tree) if isinstance(node, ast.Name)}
    for statement in module.tree.body:
        functions = [statement] if isinstance(statement, ast.FunctionDef) else statement.body if isinstance(statement, ast.ClassDef) else []
        for function in functions:
            if isinstance(function, ast.FunctionDef):
                _shorten_locals(function, module_names, taken)
    return ast.unparse(module.tree) + "\n"


def _short_names(taken: set[str]) -> Iterator[str]:
    for length in range(1, 4):
        for index in range(26**length):
            name, rest = "", index
            for _position in range(length):
                rest, letter = divmod(rest, 26)
                name += "abcdefghijklmnopqrstuvwxyz"[letter]
            if name not in taken and not keyword.iskeyword(name):
                yield name


def _shorten_locals(function: ast.FunctionDef, reserved: set[str], taken: set[str]) -> None:
    """Short names for a function's local variables, only to fit the 16 KB of user data.

    Parameters keep their names (callers pass them by keyword); a name that is also a module-level or builtin name is
    left alone, so that every renamed load refers to a local of this function or of a function nested in it; a
    function with a nested class (whose body binds attributes, not locals) is left whole.
    """
    nodes = list(ast.walk(function))
    if any(isinstance(node, ast.ClassDef) for node in nodes):
        return
    parameters = {node.arg for node in nodes if isinstance(node, ast.arg)}
    declared = {name for node in nodes if isinstance(node, (ast.Global, ast.Nonlocal)) for name in node.names}
    stored = {node.id for node in nodes if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
    stored |= {node.name for node in nodes if isinstance(node, ast.ExceptHandler) and node.name}
    stored |= {node.name for node in nodes if isinstance(node, ast.FunctionDef) and node is not function}
    candidates = sorted(stored - parameters - declared - reserved)
    renamed = dict(zip(candidates, _short_names(taken | parameters), strict=False))
    for node in nodes:
        if isinstance(node, ast.Name) and node.id in renamed:
            node.id = renamed[node.id]
        elif isinstance(node, (ast.ExceptHandler, ast.FunctionDef)) and node is not function and node.name is not None and node.name in renamed:
            node.name = renamed[node.name]


@lru_cache(maxsize=1)
def program_sources() -> dict[str, str]:
    """{module key: source} of the program, the engine's modules cut to what _boot_split.main reaches."""
    modules = _reach(ROOT_MODULE, "main")
    return {key: _cut(modules[key]) for key in sorted(modules)}


# The program file: a finder that imports the engine modules from the payload (JSON {module key: source}, xz, base85)
# as the package PACKAGE, then main. Terse on purpose: every byte counts against the 16 KB of user data.
_LAUNCHER = """#!/usr/bin/python3
# numa.kubelet: {program} OPTIONS_FILE -- KUBELET_ARGS...
import base64,importlib.abc as a,importlib.util as u,json,lzma,sys
S=json.loads(lzma.decompress(base64.b85decode("{payload}")))
class L(a.MetaPathFinder,a.Loader):
 def find_spec(s,n,p=None,t=None):
  k=n[{skip}:]
  if n in("{package}","{package}.plugin_utils")or n.startswith("{package}.")and k in S:return u.spec_from_loader(n,s,is_package=k not in S)
 def create_module(s,m):pass
 def exec_module(s,m):
  k=m.__name__[{skip}:]
  if k in S:exec(compile(S[k],"{program}/"+k,"exec"),m.__dict__)
sys.meta_path.insert(0,L())
from {package}.{root} import main
sys.exit(main(sys.argv[1:]))
"""


def program_text() -> str:
    """The program file the node runs: the launcher and the engine modules' sources, compressed (xz, base85)."""
    data = json.dumps(program_sources(), sort_keys=True, separators=(",", ":")).encode("utf-8")
    payload = base64.b85encode(lzma.compress(data, preset=9 | lzma.PRESET_EXTREME)).decode("ascii")
    return _LAUNCHER.format(program=PROGRAM, payload=payload, package=PACKAGE, skip=len(PACKAGE) + 1, root=ROOT_MODULE)


def options_text(split: object) -> str:
    return json.dumps({"split": split}, sort_keys=True) + "\n"


def unit_dropin_text() -> str:
    # $NODEADM_KUBELET_ARGS unbraced: systemd splits it into words exactly as for the kubelet's own ExecStart.
    return f"[Service]\nExecStartPre=/usr/bin/python3 {PROGRAM_PATH} {OPTIONS_PATH} -- $NODEADM_KUBELET_ARGS\n"


def shell_part(split: object) -> str:
    """The text/x-shellscript part: installs the program, its options and the kubelet unit's drop-in, then reloads systemd."""
    lines = [
        "#!/bin/bash",
        f"# numa.kubelet: reservedMemory decided at every kubelet start by {PROGRAM}, in the kubelet drop-in {DROPIN_NAME}",
        "set -eu",
        f"mkdir -p {' '.join(sorted({str(Path(path).parent) for path in (OPTIONS_PATH, PROGRAM_PATH, UNIT_DROPIN_PATH)}))}",
    ]
    for path, text in ((OPTIONS_PATH, options_text(split)), (PROGRAM_PATH, program_text()), (UNIT_DROPIN_PATH, unit_dropin_text())):
        if _HEREDOC_END in text.splitlines():
            raise BundleError(f"{path}: holds a line {_HEREDOC_END}, which would end its here-document")
        lines += [f"cat >{path} <<'{_HEREDOC_END}'", text.rstrip("\n"), _HEREDOC_END]
    lines += [f"chmod 755 {PROGRAM_PATH}", "systemctl daemon-reload"]
    return "\n".join(lines) + "\n"
