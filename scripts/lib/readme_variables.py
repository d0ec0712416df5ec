# SPDX-License-Identifier: GPL-3.0-or-later
"""The variable tables of the documents, generated from the roles' meta/argument_specs.yml.

README.md has the kubelet_numa role's (entry point main), docs/rollout.md the kubelet_numa_rollout role's (entry point
plan; every entry point takes the same options). `python3 scripts/lib/readme_variables.py` rewrites each table between
its document's two markers; tests/unit/scripts/lib/test_readme_variables.py fails when a table is not what this generates.
"""

from __future__ import annotations

import json
import os
import re
import sys

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
END = "<!-- variables: end -->"
# Ansible's documentation markup, as plain Markdown: C(x) V(x) O(x) M(x) P(x#type) I(x) -> `x`.
_MARKUP = re.compile(r"\b[CVOMPI]\(([^()]*(?:\([^()]*\)[^()]*)*)\)")


def _plain(text):
    text = " ".join(text) if isinstance(text, list) else str(text)
    return _MARKUP.sub(lambda match: "`%s`" % match.group(1).split("#")[0], text).replace("|", "\\|")


# (document, role, entry point whose options it lists)
TABLES = (("README.md", "kubelet_numa", "main"), (os.path.join("docs", "rollout.md"), "kubelet_numa_rollout", "plan"))


def specs_path(role):
    return os.path.join(REPO, "roles", role, "meta", "argument_specs.yml")


def begin(role):
    """The marker line after which a document has the role's table."""
    return f"<!-- variables: generated from roles/{role}/meta/argument_specs.yml by scripts/lib/readme_variables.py -->"


def table(path=None, entry_point="main"):
    """The Markdown table of an entry point's options (default: the kubelet_numa role's main): variable, type, default, meaning."""
    with open(path or specs_path("kubelet_numa"), encoding="utf-8") as handle:
        options = yaml.safe_load(handle)["argument_specs"][entry_point]["options"]
    lines = ["| Variable | Type | Default | Meaning |", "| --- | --- | --- | --- |"]
    for name, spec in options.items():
        default = json.dumps(spec.get("default"), sort_keys=False) if "default" in spec else "(required)"
        lines.append("| `%s` | %s | `%s` | %s |" % (name, spec.get("type", "str"), default, _plain(spec.get("description", ""))))
    return "\n".join(lines) + "\n"


def rewrite(text, generated, role="kubelet_numa"):
    """The document's text with the generated table between the role's marker and the end marker after it."""
    start = text.index(begin(role)) + len(begin(role))
    end = text.index(END, start)
    return text[:start] + "\n" + generated + text[end:]


def main():
    for document, role, entry_point in TABLES:
        path = os.path.join(REPO, document)
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(rewrite(text, table(specs_path(role), entry_point), role))


if __name__ == "__main__":
    sys.exit(main())
