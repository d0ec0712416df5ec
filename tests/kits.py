# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kits the stages run against (the real kubelet's kubelet-check, nodeadm-config, the API server's apiserver-up):
one way to find a kit's script from the environment variable the stage sets, and one rule for a stage whose kit is
configured: it fails when the kit is unusable or when no test passed, instead of passing silently.

tests/ is on sys.path (pytest puts tests/conftest.py's folder there), so a stage imports this as `kits`.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def kit_script(variable, name, default_dir=None):
    """The script `name` that $VARIABLE names (the script itself, or a directory holding it); without the variable,
    `name` in `default_dir`, or None when there is no default."""
    value = os.environ.get(variable) or default_dir
    if not value:
        return None
    path = Path(value).resolve()
    return path / name if path.is_dir() else path


def required_kit_script(variable, name, stage):
    """The script `name` of $VARIABLE for a session fixture: skips the tests when the variable is unset, fails them
    when it names no executable `name`."""
    script = kit_script(variable, name)
    if script is None:
        pytest.skip(f"{variable} is unset: scripts/test's {stage} stage sets it where {name} exists")
    if not (script.is_file() and os.access(script, os.X_OK)):
        pytest.fail(f"{variable}={os.environ[variable]} names no executable {name} (looked for {script})", pytrace=False)
    return script


def fail_when_no_test_passed(session, exitstatus, variable, what):
    """For pytest_sessionfinish: with $VARIABLE set, a run in which no test passed (all skipped, none collected) fails.
    xdist's workers leave it to the controller, which counts every worker's results."""
    if not os.environ.get(variable) or os.environ.get("PYTEST_XDIST_WORKER") or exitstatus != 0:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    passed = len(reporter.stats.get("passed", [])) if reporter is not None else 0
    if passed == 0:
        if reporter is not None:
            reporter.write_line(f"{variable} is set but no {what} test passed (all skipped or none ran): failing", red=True)
        session.exitstatus = 1
