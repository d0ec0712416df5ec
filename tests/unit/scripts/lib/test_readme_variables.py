# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The variable tables of README.md and docs/rollout.md are what scripts/lib/readme_variables.py generates from the
roles' argument_specs."""

from __future__ import annotations

import importlib.util
import os

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))


def _generator():
    spec = importlib.util.spec_from_file_location("readme_variables", os.path.join(REPO, "scripts", "lib", "readme_variables.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_tables_are_generated_from_argument_specs():
    generator = _generator()
    assert [table[0] for table in generator.TABLES] == ["README.md", os.path.join("docs", "rollout.md")]
    for document, role, entry_point in generator.TABLES:
        with open(os.path.join(REPO, document), encoding="utf-8") as handle:
            text = handle.read()
        generated = generator.table(generator.specs_path(role), entry_point)
        assert generator.rewrite(text, generated, role) == text, f"{document}'s variable table is stale: run python3 scripts/lib/readme_variables.py"
        # Every option of the role is a row.
        with open(generator.specs_path(role), encoding="utf-8") as handle:
            options = yaml.safe_load(handle)["argument_specs"][entry_point]["options"]
        assert generated.count("\n| `") == len(options)


def test_every_option_is_a_row_with_its_default(tmp_path):
    specs = tmp_path / "argument_specs.yml"
    specs.write_text(
        "argument_specs:\n  main:\n    options:\n"
        "      a_var:\n        type: int\n        default: 3\n        description: C(x) or V(y) | z\n"
        "  plan:\n    options:\n      b_var:\n        type: str\n        default: ''\n        description: B\n",
        encoding="utf-8",
    )
    assert _generator().table(str(specs)).splitlines()[2] == "| `a_var` | int | `3` | `x` or `y` \\| z |"
    assert _generator().table(str(specs), "plan").splitlines()[2:] == ['| `b_var` | str | `""` | B |']


def test_each_table_goes_after_its_own_roles_marker():
    generator = _generator()
    text = "\n".join(["a", generator.begin("one"), "old one", generator.END, "b", generator.begin("two"), "old two", generator.END, ""])
    assert generator.rewrite(text, "new two\n", "two") == text.replace("old two", "new two")
    assert generator.rewrite(text, "new one\n", "one") == text.replace("old one", "new one")
