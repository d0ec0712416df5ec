# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ansible-builder reads the installed collection's EE requirements and accepts the example EE definition (offline;
tests/ee builds and runs the image)."""

from __future__ import annotations

import os

from ansible_collections.numa.kubelet.tests.distribution.tarball import REPO


def test_ansible_builder_introspect_reads_the_installed_meta(built_collection):
    introspected = built_collection.run("ansible-builder", "introspect", "-v", "3", built_collection.collections)
    assert "numa.kubelet" in introspected, "ansible-builder introspect did not read numa.kubelet's meta/execution-environment.yml"


def test_ansible_builder_create_accepts_the_example_definition(built_collection, tmp_path):
    built_collection.run(
        "ansible-builder", "create", "-f", "execution-environment.yml", "--context", str(tmp_path / "context"), cwd=os.path.join(REPO, "docs", "examples")
    )
    with open(tmp_path / "context" / "_build" / "requirements.yml", encoding="utf-8") as handle:
        assert "numa.kubelet" in handle.read(), "ansible-builder create did not carry docs/examples/requirements.yml"
