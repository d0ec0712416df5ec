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

import pytest
from kits import fail_when_no_test_passed, kit_script, required_kit_script

from ansible_collections.numa.kubelet.tests.oracle.test_real_kubelet import Oracle

NODEADM_ENV = "NUMA_KUBELET_NODEADM_CONFIG"


@pytest.fixture(scope="session", autouse=True)
def nodeadm_config_path():
    """nodeadm-config; skips everything here when NUMA_KUBELET_NODEADM_CONFIG is unset, fails when it names nothing usable."""
    return required_kit_script(NODEADM_ENV, "nodeadm-config", "nodeadm")


@pytest.fixture(scope="session")
def kubelet_oracle(tmp_path_factory):
    """The real kubelet, for every test file here, when NUMA_KUBELET_ORACLE is set (scripts/test's nodeadm stage sets it where it exists)."""
    script = kit_script("NUMA_KUBELET_ORACLE", "kubelet-check")
    return None if script is None else Oracle(script, tmp_path_factory.mktemp("kubelet-oracle"))


def pytest_sessionfinish(session, exitstatus):
    """With nodeadm-config configured, a run in which no test passed is a failure."""
    fail_when_no_test_passed(session, exitstatus, NODEADM_ENV, "nodeadm")
