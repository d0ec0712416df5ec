# -*- coding: utf-8 -*-
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The stand-ins are an independent implementation: they must not import the collection, and must say what they are."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

STANDINS = Path(__file__).resolve().parent / "image"
SCRIPTS = sorted(p for p in STANDINS.iterdir() if p.name.endswith("-standin") or p.name == "numa-standin-provision")
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


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_standin_imports_only_the_standard_library_and_yaml(script):
    tree = ast.parse(script.read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    assert imported <= ALLOWED, "%s imports %s" % (script.name, sorted(imported - ALLOWED))
    assert "STAND-IN" in script.read_text(encoding="utf-8").split('"""')[0]


@pytest.mark.parametrize("unit", UNITS, ids=lambda p: p.name)
def test_unit_description_says_stand_in(unit):
    descriptions = [line for line in unit.read_text(encoding="utf-8").splitlines() if line.startswith("Description=")]
    assert len(descriptions) == 1 and "STAND-IN" in descriptions[0]


def test_there_are_stand_ins_to_check():
    assert [p.name for p in SCRIPTS] == ["kubelet-standin", "nodeadm-standin", "numa-standin-provision", "rke2-cli-standin", "rke2-standin"]
    assert len(UNITS) == 6
