# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""_plan_inputs.load_mapping: a file's text parsed once however often a plan reads it, each reader with its own copy."""

from __future__ import annotations

import yaml

from ansible_collections.numa.kubelet.plugins.plugin_utils import _plan_inputs
from ansible_collections.numa.kubelet.plugins.plugin_utils._plan_inputs import load_mapping

DROPIN = "/etc/kubernetes/kubelet.conf.d/50-numa-kubelet.conf"


def test_a_text_read_again_is_not_parsed_again_and_each_reader_gets_its_own_copy(monkeypatch):
    parsed, safe_load = [], yaml.safe_load
    monkeypatch.setattr(_plan_inputs.yaml, "safe_load", lambda text: parsed.append(text) or safe_load(text))
    text = "kind: KubeletConfiguration\nkubeReserved: {memory: 1Gi}\n# parsed once\n"
    first, problems = load_mapping(DROPIN, text)
    first["kubeReserved"]["memory"] = "2Gi"
    second, again = load_mapping(DROPIN, text)
    assert second == {"kind": "KubeletConfiguration", "kubeReserved": {"memory": "1Gi"}} and problems == again == []
    assert parsed == [text]


def test_problems_are_the_same_every_time_and_name_the_path():
    for _read in range(2):
        assert load_mapping("/a.yaml", "key: [unclosed\n# never valid\n")[0] is None
        assert load_mapping("/b.yaml", "- a list\n") == (None, ["/b.yaml: must hold a mapping, got list"])
        assert load_mapping("/c.yaml", "") == ({}, []) and load_mapping("/d.yaml", None) == (None, [])
    refused = load_mapping("/a.yaml", "key: [unclosed\n# never valid\n")[1]
    assert len(refused) == 1 and refused[0].startswith("/a.yaml: not valid YAML/JSON: while parsing a flow sequence")
