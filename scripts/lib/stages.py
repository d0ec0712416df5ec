# SPDX-License-Identifier: GPL-3.0-or-later
"""What noxfile.py needs besides nox: the checkout's shell scripts (the lint stage) and the stages' summary.

The standard library only, so that the unit tests import it from the project's virtualenv, which has no nox.
"""

from __future__ import annotations

import os
import re
import subprocess

SHEBANG = re.compile(rb"^#!(/usr)?/bin/(env )?(ba)?sh( |$)")


def shell_scripts(repo):
    """The checkout's shell scripts: *.sh files and files whose first line is a sh or bash shebang (as pre-commit's
    `types: [shell]` picks them), tracked by git, links left out."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=repo, capture_output=True, check=True).stdout
    found = []
    for path in filter(None, os.fsdecode(listed).split("\0")):
        full = os.path.join(repo, path)
        if os.path.islink(full) or not os.path.isfile(full):
            continue
        with open(full, "rb") as handle:
            first = handle.readline().rstrip(b"\n")
        if path.endswith(".sh") or SHEBANG.match(first):
            found.append(path)
    return found


def summary(sessions, stages):
    """The summary of nox's --report SESSIONS (its "sessions" list) over STAGES (the stages asked for, in order):
    one line per stage and the final `stages: N passed, N failed, N skipped`; and whether the run passed. A stage
    nox did not report (it stopped early) counts as failed."""
    results = {session["name"]: session for session in sessions}
    passed, failed, skipped, lines = [], [], [], []
    for name in stages:
        session = results.get(name)
        if session is None:
            failed.append(name)
            lines.append("stage %s FAILED: it did not run" % name)
        elif session["result"] == "success":
            passed.append(name)
            lines.append("stage %s passed in %ds" % (name, round(session["duration"])))
        elif session["result"] == "skipped":
            skipped.append(name)
            lines.append("stage %s SKIPPED: %s" % (name, session["reason"]))
        else:
            failed.append(name)
            lines.append("stage %s FAILED after %ds" % (name, round(session["duration"])))
    lines.append("passed: %s; failed: %s; skipped: %s" % tuple(", ".join(names) or "none" for names in (passed, failed, skipped)))
    lines.append("stages: %d passed, %d failed, %d skipped" % (len(passed), len(failed), len(skipped)))
    return lines, not failed
