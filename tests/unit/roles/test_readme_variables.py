# -*- coding: utf-8 -*-
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The README's variable table is what scripts/lib/readme_variables.py generates from the role's argument_specs."""

from __future__ import annotations

import importlib.util
import os

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def _generator():
    spec = importlib.util.spec_from_file_location("readme_variables", os.path.join(REPO, "scripts", "lib", "readme_variables.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_table_is_generated_from_argument_specs():
    generator = _generator()
    with open(os.path.join(REPO, "README.md"), encoding="utf-8") as handle:
        readme = handle.read()
    assert generator.rewrite(readme, generator.table()) == readme, \
        "README.md's variable table is stale: run python3 scripts/lib/readme_variables.py"


def test_every_option_is_a_row_with_its_default(tmp_path):
    specs = tmp_path / "argument_specs.yml"
    specs.write_text("argument_specs:\n  main:\n    options:\n"
                     "      a_var:\n        type: int\n        default: 3\n        description: C(x) or V(y) | z\n", encoding="utf-8")
    assert _generator().table(str(specs)).splitlines()[2] == "| `a_var` | int | `3` | `x` or `y` \\| z |"
