# -*- coding: utf-8 -*-
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""When and where the real-kubelet tests run (the tests and their helpers are in test_real_kubelet.py).

The oracle is `kubelet-check` (a real kubelet v1.36.2, see <repo>/../shared/oracle/README.md), named by the
environment variable NUMA_KUBELET_ORACLE (its directory or the script). scripts/test's `oracle` stage sets it and
runs only this directory; without it every test here is skipped, and the stage prints SKIPPED instead of running
pytest. When it is set, nothing may pass silently: a missing script or a HARNESS-ERROR fails the test, and a run in
which no test passed fails the session.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ORACLE_ENV = "NUMA_KUBELET_ORACLE"


def oracle_script():
    """The kubelet-check script NUMA_KUBELET_ORACLE names (a directory holding it, or the script), or None."""
    value = os.environ.get(ORACLE_ENV)
    if not value:
        return None
    path = Path(value)
    return path / "kubelet-check" if path.is_dir() else path


@pytest.fixture(scope="session")
def oracle_shared_dir(tmp_path_factory):
    """A directory shared by every xdist worker of this run (the parent of the workers' base temp dirs)."""
    base = tmp_path_factory.getbasetemp()
    shared = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "oracle-shared"
    shared.mkdir(parents=True, exist_ok=True)
    return shared


@pytest.fixture(scope="session", autouse=True)
def oracle_script_path():
    """kubelet-check; skips everything here when NUMA_KUBELET_ORACLE is unset, fails when it names nothing usable."""
    script = oracle_script()
    if script is None:
        pytest.skip("%s is unset: scripts/test's oracle stage sets it when <repo>/../shared/oracle/kubelet-check exists" % ORACLE_ENV)
    if not (script.is_file() and os.access(script, os.X_OK)):
        pytest.fail("%s=%s names no executable kubelet-check (looked for %s)" % (ORACLE_ENV, os.environ[ORACLE_ENV], script), pytrace=False)
    return script


def pytest_sessionfinish(session, exitstatus):
    """With the oracle configured, a run in which no test passed (all skipped, none collected) is a failure."""
    if not os.environ.get(ORACLE_ENV) or os.environ.get("PYTEST_XDIST_WORKER") or exitstatus != 0:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    passed = len(reporter.stats.get("passed", [])) if reporter is not None else 0
    if passed == 0:
        if reporter is not None:
            reporter.write_line("%s is set but no oracle test passed (all skipped or none ran): failing" % ORACLE_ENV, red=True)
        session.exitstatus = 1
