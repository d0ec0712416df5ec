# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The render of playbooks/inventory/example.yml, byte for byte.

data/example-render.json holds every file (relative path: text) that playbooks/render.yml writes for the example
inventory (first taken before the engine's per-platform split). A refactoring of the engine must not change one byte
of it; a deliberate change of the output regenerates the file in the same commit.
"""

from __future__ import annotations

import json
import os

from ansible_collections.numa.kubelet.tests.playbooks.test_through_ansible import REPO, render

EXPECTED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "example-render.json")


def test_example_render_is_byte_for_byte_the_one_before_the_split(collections_root, tmp_path):
    with open(EXPECTED, encoding="utf-8") as handle:
        expected = json.load(handle)
    output = render(collections_root, tmp_path, os.path.join(REPO, "playbooks", "inventory", "example.yml"))[0]
    written = {}
    for root, _dirs, names in os.walk(output):
        for name in names:
            path = os.path.join(root, name)
            with open(path, "rb") as handle:
                written[os.path.relpath(path, output)] = handle.read()
    assert sorted(written) == sorted(expected)
    for path, text in expected.items():
        assert written[path] == text.encode("utf-8"), path
