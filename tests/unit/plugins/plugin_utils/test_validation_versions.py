# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""check_kubelet_config's kubelet_version: which version's rules judge a kubelet, and the warning when not its own."""

from __future__ import annotations

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._config import KubeletConfigError
from ansible_collections.numa.kubelet.plugins.plugin_utils._validation import KUBELET_VERSIONS, check_kubelet_config, checked_kubelet_version

ACCEPTED = {
    "memoryManagerPolicy": "Static",
    "topologyManagerPolicy": "single-numa-node",
    "kubeReserved": {"memory": "512Mi"},
    "systemReserved": {"memory": "412Mi"},
    "reservedMemory": [{"numaNode": 0, "limits": {"memory": "1Gi"}}],
}


@pytest.mark.parametrize("version", [None, *KUBELET_VERSIONS, "v1.33.1+k3s1", "v1.31.9+rke2r1", "1.36.2"])
def test_a_checked_version_is_judged_by_its_own_rules_without_a_word(version):
    expected = "1.36" if version is None else next(checked for checked in KUBELET_VERSIONS if (version.lstrip("v") + ".").startswith(checked + "."))
    assert checked_kubelet_version(version) == (expected, [])
    report = check_kubelet_config(ACCEPTED, [0], kubelet_version=version)
    assert (report.errors, report.warnings) == ([], [])


@pytest.mark.parametrize(
    ("version", "judged_as"),
    [("1.28", "1.31"), ("v1.32.5+rke2r1", "1.31"), ("1.34", "1.33"), ("v1.35.0", "1.33"), ("1.37", "1.36")],
)
def test_another_version_is_judged_by_the_nearest_older_rules_and_says_so(version, judged_as):
    checked, warnings = checked_kubelet_version(version)
    assert checked == judged_as
    warning = (
        f"kubelet_version: {version} is checked with the rules of kubelet {judged_as} (numa.kubelet has exact rules for 1.31, 1.33, 1.36); "
        f"a policy option or feature gate that differs in 1.{version.lstrip('v').split('.')[1]} is judged as {judged_as} judges it"
    )
    assert warnings == [warning]
    report = check_kubelet_config(ACCEPTED, [0], kubelet_version=version)
    assert (report.errors, report.warnings) == ([], warnings)


@pytest.mark.parametrize("version", [1.33, 133, "1.33a", "2.0", "one.33", "", "1.33\n", True])
def test_what_is_not_a_version_is_an_error_naming_it(version):
    expected = f'kubelet_version: {version!r} is not a kubelet version such as "1.33" (a quoted string: YAML reads 1.30 as the number 1.3)'
    with pytest.raises(KubeletConfigError) as raised:
        checked_kubelet_version(version)
    assert raised.value.problems == [expected]
    assert check_kubelet_config(ACCEPTED, [0], kubelet_version=version).errors == [expected]
