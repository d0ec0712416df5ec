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

import pytest
from kits import fail_when_no_test_passed, required_kit_script

ORACLE_ENV = "NUMA_KUBELET_ORACLE"


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
    return required_kit_script(ORACLE_ENV, "kubelet-check", "oracle")


def pytest_sessionfinish(session, exitstatus):
    """With the oracle configured, a run in which no test passed (all skipped, none collected) is a failure."""
    fail_when_no_test_passed(session, exitstatus, ORACLE_ENV, "oracle")
