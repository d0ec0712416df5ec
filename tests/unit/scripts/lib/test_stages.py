# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""scripts/lib/stages.py: the summary ./scripts/test ends with, and the shell scripts the lint stage checks."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
# The scripts list the checkout's files with git; the ansible-core matrix runs the unit tests in a Debian 13 root without it.
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="needs git (git ls-files), which this controller lacks")


def _stages():
    spec = importlib.util.spec_from_file_location("stages", os.path.join(REPO, "scripts", "lib", "stages.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _session(name, result, duration=1.4, reason=None):
    return {"name": name, "result": result, "duration": duration, "reason": reason, "args": {}, "signatures": [name], "result_code": 1}


def test_the_summary_counts_every_stage_asked_for_in_order():
    sessions = [
        _session("lint", "failed", 33.6),
        _session("pytest", "success", 177.2),
        _session("oracle", "skipped", 0.01, "no real kubelet at /x/oracle (../shared/oracle)"),
    ]
    lines, passed = _stages().summary(sessions, ["pytest", "lint", "oracle"])
    assert lines == [
        "stage pytest passed in 177s",
        "stage lint FAILED after 34s",
        "stage oracle SKIPPED: no real kubelet at /x/oracle (../shared/oracle)",
        "passed: pytest; failed: lint; skipped: oracle",
        "stages: 1 passed, 1 failed, 1 skipped",
    ]
    assert passed is False


def test_a_stage_nox_never_reported_is_a_failure():
    lines, passed = _stages().summary([_session("pytest", "success")], ["pytest", "lint"])
    assert lines[1] == "stage lint FAILED: it did not run"
    assert lines[-1] == "stages: 1 passed, 1 failed, 0 skipped"
    assert passed is False


def test_all_passed_or_skipped_is_a_pass():
    lines, passed = _stages().summary([_session("pytest", "success"), _session("ee", "skipped", reason="no podman")], ["pytest", "ee"])
    assert lines[-2:] == ["passed: pytest; failed: none; skipped: ee", "stages: 1 passed, 0 failed, 1 skipped"]
    assert passed is True


@needs_git
def test_shell_scripts_are_found_by_suffix_or_shebang_and_links_are_left_out(tmp_path):
    files = {
        "a.sh": "echo a\n",
        "bin/b": "#!/usr/bin/env bash\necho b\n",
        "bin/c": "#!/bin/sh -e\necho c\n",
        "bin/d": "#!/usr/bin/env python3\nprint('d')\n",
        "bin/e": "#!/bin/bashful\n",
    }
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    (tmp_path / "link.sh").symlink_to("a.sh")
    (tmp_path / "untracked.sh").write_text("echo\n")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "add", *files, "link.sh"], cwd=tmp_path, check=True)
    assert _stages().shell_scripts(str(tmp_path)) == ["a.sh", "bin/b", "bin/c"]


@needs_git
def test_the_checkouts_own_scripts_are_found():
    found = _stages().shell_scripts(REPO)
    assert {"scripts/test", "scripts/lib/common.sh", "scripts/check-distribution"} <= set(found)
    assert "scripts/benchmark" not in found  # a Python script


def test_the_waiting_stages_run_in_a_lane_beside_the_others_and_the_lone_one_last():
    stages = ["pytest", "apiserver", "restart", "sanity", "real_kubelet", "testhost", "matrix"]
    order = _stages().phases(stages, waiting=["apiserver", "restart", "testhost"], alone=["real_kubelet"])
    assert order == [[["pytest", "sanity", "matrix"], ["apiserver", "restart", "testhost"]], [["real_kubelet"]]]


def test_without_waiting_stages_there_is_one_lane():
    # ./scripts/test --fast: none of its stages waits or needs the machine alone.
    order = _stages().phases(["pytest", "lint"], waiting=["apiserver"], alone=["real_kubelet"])
    assert order == [[["pytest", "lint"]]]


def test_each_line_of_a_lane_names_the_stage_that_printed_it():
    prefixer = _stages().Prefixer("apiserver")
    lines = ["nox > Running session apiserver\n", "collected 29 items\n", "nox > Running session restart\n", "17 passed\n"]
    assert [prefixer.line(line) for line in lines] == [
        "apiserver | nox > Running session apiserver\n",
        "apiserver | collected 29 items\n",
        "restart | nox > Running session restart\n",
        "restart | 17 passed\n",
    ]
