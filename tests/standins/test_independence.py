# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The stand-ins are an independent implementation: they must not import the collection, and must say what they are.
One exception, on purpose: the kubelet stand-in reads YAML with the collection's own reader (kubelet_standin/go_yaml.py,
a link to plugins/plugin_utils/_yaml_text.py), so that go-yaml's tab rules, checked against the real kubelet, are
written once."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

STANDINS = Path(__file__).resolve().parent / "image"
SCRIPTS = sorted(p for p in STANDINS.iterdir() if p.name.endswith("-standin") or p.name == "numa-standin-provision")
# The kubelet stand-in's package: kubelet-standin runs it, and each of its modules is held to the same rules, except
# the collection's YAML reader it links to.
SHARED_YAML_READER = STANDINS / "kubelet_standin" / "go_yaml.py"
PACKAGE = sorted(path for path in (STANDINS / "kubelet_standin").glob("*.py") if path != SHARED_YAML_READER)
OWN_PACKAGES = {"kubelet_standin"}
UNITS = sorted(STANDINS.glob("*.service"))
ALLOWED = {
    "argparse",
    "base64",
    "datetime",
    "fractions",
    "hashlib",
    "http",
    "json",
    "os",
    "re",
    "signal",
    "socket",
    "ssl",
    "struct",
    "subprocess",
    "sys",
    "threading",
    "time",
    "urllib",
    "yaml",
}


@pytest.mark.parametrize("script", SCRIPTS + PACKAGE, ids=lambda p: p.relative_to(STANDINS).as_posix())
def test_standin_imports_only_the_standard_library_and_yaml(script):
    tree = ast.parse(script.read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:  # a relative import stays within the package
            imported.add((node.module or "").split(".")[0])
    assert imported <= ALLOWED | OWN_PACKAGES, f"{script.name} imports {sorted(imported - ALLOWED - OWN_PACKAGES)}"
    # In the header comment, or (a module of the package) in its docstring's first line.
    header, docstring = script.read_text(encoding="utf-8").split('"""')[:2]
    assert "STAND-IN" in header or "STAND-IN" in docstring.splitlines()[0]


@pytest.mark.parametrize("unit", UNITS, ids=lambda p: p.name)
def test_unit_description_says_stand_in(unit):
    descriptions = [line for line in unit.read_text(encoding="utf-8").splitlines() if line.startswith("Description=")]
    assert len(descriptions) == 1 and "STAND-IN" in descriptions[0]


def test_there_are_stand_ins_to_check():
    assert [p.name for p in SCRIPTS] == ["kubelet-standin", "nodeadm-standin", "numa-standin-provision", "rke2-cli-standin", "rke2-standin"]
    assert len(UNITS) == 6
    assert [p.name for p in PACKAGE] == [
        "__init__.py",
        "__main__.py",
        "api.py",
        "checkpoint.py",
        "checks.py",
        "common.py",
        "config.py",
        "klog.py",
        "machine.py",
        "quantity.py",
        "start.py",
    ]


def test_the_kubelet_stand_ins_yaml_reader_is_the_collections_own():
    collection_reader = STANDINS.parents[2] / "plugins" / "plugin_utils" / "_yaml_text.py"
    assert SHARED_YAML_READER.is_symlink() and SHARED_YAML_READER.resolve() == collection_reader.resolve()
