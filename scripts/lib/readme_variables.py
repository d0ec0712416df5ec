# SPDX-License-Identifier: GPL-3.0-or-later
"""The README's table of the kubelet_numa role's variables, generated from roles/kubelet_numa/meta/argument_specs.yml.

`python3 scripts/lib/readme_variables.py` rewrites the table between the README's two markers;
tests/unit/roles/test_readme_variables.py fails when the README's table is not what this generates.
"""

from __future__ import annotations

import json
import os
import re
import sys

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BEGIN = "<!-- variables: generated from roles/kubelet_numa/meta/argument_specs.yml by scripts/lib/readme_variables.py -->"
END = "<!-- variables: end -->"
# Ansible's documentation markup, as plain Markdown: C(x) V(x) O(x) M(x) P(x#type) I(x) -> `x`.
_MARKUP = re.compile(r"\b[CVOMPI]\(([^()]*(?:\([^()]*\)[^()]*)*)\)")


def _plain(text):
    text = " ".join(text) if isinstance(text, list) else str(text)
    return _MARKUP.sub(lambda match: "`%s`" % match.group(1).split("#")[0], text).replace("|", "\\|")


SPECS = os.path.join(REPO, "roles", "kubelet_numa", "meta", "argument_specs.yml")


def table(specs_path=SPECS):
    """The Markdown table of the main entry point's options: variable, type, default, meaning."""
    with open(specs_path, encoding="utf-8") as handle:
        options = yaml.safe_load(handle)["argument_specs"]["main"]["options"]
    lines = ["| Variable | Type | Default | Meaning |", "| --- | --- | --- | --- |"]
    for name, spec in options.items():
        default = json.dumps(spec.get("default"), sort_keys=False) if "default" in spec else "(required)"
        lines.append("| `%s` | %s | `%s` | %s |" % (name, spec.get("type", "str"), default, _plain(spec.get("description", ""))))
    return "\n".join(lines) + "\n"


def rewrite(readme_text, generated):
    """README text with the generated table between the markers."""
    start, end = readme_text.index(BEGIN) + len(BEGIN), readme_text.index(END)
    return readme_text[:start] + "\n" + generated + readme_text[end:]


def main():
    path = os.path.join(REPO, "README.md")
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(rewrite(text, table()))


if __name__ == "__main__":
    sys.exit(main())
