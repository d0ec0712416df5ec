# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""_plan_inputs.load_mapping: a file's text parsed once however often a plan reads it, each reader with its own copy, and
read as the kubelet reads it (tabs as go-yaml takes them)."""

from __future__ import annotations

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils import _plan_inputs
from ansible_collections.numa.kubelet.plugins.plugin_utils._plan_inputs import load_mapping
from ansible_collections.numa.kubelet.tests.unit.plugins.plugin_utils.oracle_baseline import BASE, BASE_TEXT

DROPIN = "/etc/kubernetes/kubelet.conf.d/50-numa-kubelet.conf"


def test_a_text_read_again_is_not_parsed_again_and_each_reader_gets_its_own_copy(monkeypatch):
    parsed, load_yaml = [], _plan_inputs.load_yaml
    monkeypatch.setattr(_plan_inputs, "load_yaml", lambda text: parsed.append(text) or load_yaml(text))
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


# The real kubelet v1.36.2 (sigs.k8s.io/yaml over go-yaml) accepted the oracle baseline with each of these tabs, and
# refused a tab as indentation with "yaml: line 10: found character that cannot start any token". go-yaml and libyaml
# skip a tab where a simple key cannot start, or inside a flow collection, and nowhere else (yaml_parser_scan_to_next_token,
# https://github.com/yaml/libyaml/blob/2bcfabd2205d90346688cb6f3dfd79b53ebf55fd/src/scanner.c). The oracle cases of
# tests/oracle/cases cannot carry these: the recorder writes each case's config with yaml.safe_dump, so no tab survives.
TABS_THE_KUBELET_TAKES = {
    "a trailing tab": ("memoryManagerPolicy: Static", "memoryManagerPolicy: Static\t"),
    "a tab before a comment": ("memoryManagerPolicy: Static", "memoryManagerPolicy: Static\t# the memory manager"),
    "a tab after the key's ':'": ("memoryManagerPolicy: Static", "memoryManagerPolicy:\tStatic"),
    "tabs inside a flow mapping": ("kubeReserved: {cpu: 500m, memory: 1Gi}", "kubeReserved: {cpu:\t500m,\tmemory: 1Gi\t}"),
}


@pytest.mark.parametrize("edit", TABS_THE_KUBELET_TAKES.values(), ids=list(TABS_THE_KUBELET_TAKES))
def test_a_tab_the_kubelet_takes_as_separation_is_read_as_a_space(edit):
    text = BASE_TEXT.replace(*edit)
    assert text != BASE_TEXT and "\t" in text
    assert load_mapping(DROPIN, text) == load_mapping(DROPIN, BASE_TEXT) == (BASE, [])


def test_a_tab_between_words_stays_in_the_value_as_go_yaml_keeps_it():
    assert load_mapping(DROPIN, "kind: KubeletConfiguration\nproviderID: a\tb \tc\n")[0] == {"kind": "KubeletConfiguration", "providerID": "a\tb \tc"}


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (BASE_TEXT.replace("  - {numaNode: 1", "\t- {numaNode: 1"), 10),
        (BASE_TEXT.replace("systemReserved: {memory: 512Mi}", "systemReserved:\n\tmemory: 512Mi"), 8),
        (BASE_TEXT.replace("  - {numaNode: 1", "  -\t{numaNode: 1"), 10),
    ],
    ids=["a tab as a list item's indentation", "a tab as a mapping's indentation", "a tab after '-'"],
)
def test_a_tab_as_indentation_is_refused_in_the_kubelets_words(text, line):
    data, problems = load_mapping(DROPIN, text)
    assert data is None and len(problems) == 1
    assert problems[0].startswith(f"{DROPIN}: not valid YAML/JSON: yaml: line {line}: found character that cannot start any token (")
