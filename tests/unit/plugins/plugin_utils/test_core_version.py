# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one-line refusal of an ansible-core older than meta/runtime.yml allows."""

from __future__ import annotations

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._core_version import minimum_core, too_old_message


def test_the_lower_bound_comes_from_the_shipped_runtime_yml():
    assert minimum_core() == "2.18.0"


@pytest.mark.parametrize("version", ["2.18.0", "2.18.19", "2.19.14", "2.21.5", "2.22.0.dev0", "2.20.0rc1"])
def test_supported_or_newer_cores_pass(version):
    assert too_old_message(version) is None


@pytest.mark.parametrize("version", ["2.17.14", "2.17.0", "2.16.19", "2.15.13", "2.9.27"])
def test_older_cores_get_one_line_naming_both_versions(version):
    assert too_old_message(version) == f"numa.kubelet needs ansible-core >= 2.18.0 (meta/runtime.yml); this is ansible-core {version}"


def test_a_runtime_yml_without_a_lower_bound_is_a_packaging_error(tmp_path):
    runtime = tmp_path / "runtime.yml"
    runtime.write_text("---\nrequires_ansible: '<3'\n", encoding="utf-8")
    with pytest.raises(ValueError, match="no requires_ansible lower bound"):
        too_old_message("2.19.0", str(runtime))
