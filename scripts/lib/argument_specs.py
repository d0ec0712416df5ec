# SPDX-License-Identifier: GPL-3.0-or-later
"""Copies one entry point's options to every other entry point of a role's meta/argument_specs.yml.

In roles/kubelet_numa every entry point takes the same variables, written once under `main`; in
roles/kubelet_numa_rollout, once under `plan`. A YAML alias would share one object between
the entry points, and `ansible-doc -t role` consumes each entry point's options as it prints them, so every entry
point after the first showed none; each one therefore carries its own copy, as text, below its own description.
`python3 scripts/lib/argument_specs.py` rewrites the copies; tests/unit/roles/test_argument_specs.py fails when a copy
differs from its source.
"""

from __future__ import annotations

import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Each role whose entry points share their options: the entry point they are written under.
SOURCES = {"kubelet_numa": "main", "kubelet_numa_rollout": "plan"}
ENTRY_POINT = re.compile(r"^  ([A-Za-z0-9_]+):\s*$")
OPTIONS = "    options:"


def _entry_points(lines):
    """[(name, first line, end line)] of the entry points under argument_specs."""
    starts = [(index, match.group(1)) for index, line in enumerate(lines) for match in [ENTRY_POINT.match(line)] if match]
    return [(name, start, starts[number + 1][0] if number + 1 < len(starts) else len(lines)) for number, (start, name) in enumerate(starts)]


def _trailer(lines):
    """How many of the last lines are comments or blank: they belong to what follows (e.g. the next entry point)."""
    count = 0
    for line in reversed(lines):
        if line.strip() and not line.lstrip().startswith("#"):
            break
        count += 1
    return count


def rewrite(text, source="main"):
    """The file's text with every entry point's options replaced by those of the source entry point."""
    lines = text.splitlines(keepends=True)
    entry_points = _entry_points(lines)
    found = [(start, end) for name, start, end in entry_points if name == source]
    if not found:
        raise ValueError("argument_specs has no %s entry point" % source)
    start, end = found[0]
    options_at = [index for index in range(start, end) if lines[index].rstrip("\n") == OPTIONS]
    if not options_at:
        raise ValueError("the %s entry point has no options" % source)
    copied = lines[options_at[0] : end - _trailer(lines[start:end])]
    result = lines[: entry_points[0][1]]
    for name, start, end in entry_points:
        own = lines[start:end]
        if name != source:
            trailer = own[len(own) - _trailer(own) :]
            keep = [index for index, line in enumerate(own) if line.rstrip("\n") == OPTIONS]
            own = own[: keep[0] if keep else len(own) - len(trailer)] + copied + trailer
        result.extend(own)
    return "".join(result)


def path(role):
    return os.path.join(REPO, "roles", role, "meta", "argument_specs.yml")


def main():
    for role, source in SOURCES.items():
        with open(path(role), encoding="utf-8") as handle:
            text = handle.read()
        with open(path(role), "w", encoding="utf-8") as handle:
            handle.write(rewrite(text, source))


if __name__ == "__main__":
    sys.exit(main())
