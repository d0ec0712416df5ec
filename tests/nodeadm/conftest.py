# -*- coding: utf-8 -*-
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""When and where the nodeadm tests run (the tests are in test_nodeadm_config.py).

`nodeadm-config` runs nodeadm's own configuration code (awslabs/amazon-eks-ami nodeadm: user data and nodeadm.d
parsing, merge, validation, the 40-nodeadm.conf it writes) and Karpenter v1's user data merge on files; see
<repo>/../shared/nodeadm/README.md. The environment variable NUMA_KUBELET_NODEADM_CONFIG names it (the script or its
directory); scripts/test's `nodeadm` stage sets it and runs only this directory, and prints SKIPPED instead where
it does not exist. When it is set, nothing may pass silently: a missing tool fails, and a run in which no test
passed fails the session. The real kubelet (NUMA_KUBELET_ORACLE, as in tests/oracle) checks what nodeadm writes
when it is set too.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

NODEADM_ENV = "NUMA_KUBELET_NODEADM_CONFIG"


def nodeadm_config_script():
    value = os.environ.get(NODEADM_ENV)
    if not value:
        return None
    path = Path(value)
    return path / "nodeadm-config" if path.is_dir() else path


@pytest.fixture(scope="session", autouse=True)
def nodeadm_config_path():
    """nodeadm-config; skips everything here when NUMA_KUBELET_NODEADM_CONFIG is unset, fails when it names nothing usable."""
    script = nodeadm_config_script()
    if script is None:
        pytest.skip("%s is unset: scripts/test's nodeadm stage sets it when <repo>/../shared/nodeadm/nodeadm-config exists" % NODEADM_ENV)
    if not (script.is_file() and os.access(script, os.X_OK)):
        pytest.fail("%s=%s names no executable nodeadm-config (looked for %s)" % (NODEADM_ENV, os.environ[NODEADM_ENV], script), pytrace=False)
    return script


def pytest_sessionfinish(session, exitstatus):
    """With nodeadm-config configured, a run in which no test passed is a failure."""
    if not os.environ.get(NODEADM_ENV) or os.environ.get("PYTEST_XDIST_WORKER") or exitstatus != 0:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    passed = len(reporter.stats.get("passed", [])) if reporter is not None else 0
    if passed == 0:
        if reporter is not None:
            reporter.write_line("%s is set but no nodeadm test passed (all skipped or none ran): failing" % NODEADM_ENV, red=True)
        session.exitstatus = 1
