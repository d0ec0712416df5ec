# SPDX-License-Identifier: GPL-3.0-or-later
"""What noxfile.py needs besides nox: the checkout's shell scripts (the lint stage), the order the stages run in and
their summary.

The standard library only, so that the unit tests import it from the project's virtualenv, which has no nox.
"""

from __future__ import annotations

import os
import re
import subprocess

SHEBANG = re.compile(rb"^#!(/usr)?/bin/(env )?(ba)?sh( |$)")
RUNNING = re.compile(r"^nox > Running session (\S+)")


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


def phases(stages, waiting, alone):
    """How ./scripts/test runs STAGES (in their order): phases one after the other, each a list of lanes that run side
    by side, each lane a list of stages run one after the other. The stages of WAITING (they mostly wait on test
    hosts, an API server, kubelets' settle times) form a lane beside the other stages; each stage of ALONE (it needs the
    machine to itself) is a phase of its own, after them."""
    side = [name for name in stages if name in waiting and name not in alone]
    rest = [name for name in stages if name not in waiting and name not in alone]
    first = [lane for lane in (rest, side) if lane]
    return ([first] if first else []) + [[[name]] for name in stages if name in alone]


class Prefixer:
    """Lines of one lane's nox output, each with the name of the stage that printed it in front (nox's "Running
    session NAME" line tells which), so that lanes side by side stay readable."""

    def __init__(self, first_stage):
        self.stage = first_stage

    def line(self, text):
        running = RUNNING.match(text)
        if running:
            self.stage = running.group(1)
        return f"{self.stage} | {text}"


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
