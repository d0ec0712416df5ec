# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""_yaml_text: tabs on the lines after a scalar's first, in a block scalar's indentation and at a line's start, taken
or refused as the kubelet's go-yaml takes or refuses them.

Every text below is the oracle baseline with one edit; each verdict is the real kubelet v1.36.2's
(`kubelet-check F 2x16Gi`), its error as it printed it after "failed to decode: ". The rules are go-yaml v2's
scanner (https://github.com/yaml/go-yaml/blob/246a95c22c57f15ef6d3305a1f1b8a0b05e4d560/scannerc.go:
yaml_parser_scan_plain_scalar, yaml_parser_scan_block_scalar_breaks, yaml_parser_scan_to_next_token), and the
values of accepted texts follow its folding there (a line break between words becomes one space).
"""

from __future__ import annotations

import pytest
import yaml

from ansible_collections.numa.kubelet.plugins.plugin_utils._plan_inputs import load_mapping
from ansible_collections.numa.kubelet.plugins.plugin_utils._yaml_text import load_yaml, yaml_error_text
from ansible_collections.numa.kubelet.tests.unit.plugins.plugin_utils.oracle_baseline import BASE, BASE_TEXT

KUBE_RESERVED = "kubeReserved: {cpu: 500m, memory: 1Gi}"
POLICY = "memoryManagerPolicy: Static\n"
NUMA_NODE_1 = "  - {numaNode: 1, limits: {memory: 818Mi}}"

# text -> the fields it adds to the baseline's (the kubelet accepted each; `note` with a warning: unknown field).
TABS_THE_KUBELET_TAKES = {
    "a plain scalar's next line: a space, then a tab": (BASE_TEXT + "providerID: a\n \tb\n", {"providerID": "a b"}),
    "a nested plain scalar's next line: a tab at its indentation": (BASE_TEXT + "note:\n  text: a\n   \tb\n", {"note": {"text": "a b"}}),
    "a sequence item's next line: a tab at its indentation": (BASE_TEXT + "note:\n  - a\n   \tb\n", {"note": ["a b"]}),
    "a plain scalar in a flow mapping, next line: a space, then a tab": (
        BASE_TEXT.replace(KUBE_RESERVED, "kubeReserved: {cpu: 500m\n \t, memory: 1Gi}"),
        {},
    ),
    "a plain scalar in a nested flow mapping, next line: a tab at its indentation": (
        BASE_TEXT.replace(NUMA_NODE_1, "  - {numaNode: 1, limits: {memory: 818Mi\n   \t}}"),
        {},
    ),
    "a flow mapping's next line after ',': a tab at the line's start": (
        BASE_TEXT.replace(KUBE_RESERVED, "kubeReserved: {cpu: 500m,\n\tmemory: 1Gi}"),
        {},
    ),
    "a comment line after a plain scalar: a space, then a tab": (BASE_TEXT.replace(POLICY, POLICY + " \t# note\n"), {}),
    "a double-quoted scalar's next line: a tab at the line's start": (BASE_TEXT + 'providerID: "a\n\tb"\n', {"providerID": "a b"}),
    "a single-quoted scalar's next line: a tab at the line's start": (BASE_TEXT + "providerID: 'a\n\tb'\n", {"providerID": "a b"}),
    "a tab between a key and its ':'": (BASE_TEXT.replace("memoryManagerPolicy: Static", "memoryManagerPolicy\t: Static"), {}),
    "a literal block's next line: a tab after its indentation": (BASE_TEXT + "providerID: |\n  a\n  \tb\n", {"providerID": "a\n\tb\n"}),
    "a literal block with its indentation given: a tab after it": (BASE_TEXT + "providerID: |1\n \ta\n", {"providerID": "\ta\n"}),
}

VIOLATES = "found a tab character that violates indentation"
NO_INDENTATION_SPACE = "found a tab character where an indentation space is expected"
CANNOT_START = "found character that cannot start any token"
# text -> the kubelet's error.
TABS_THE_KUBELET_REFUSES = {
    "a plain scalar's next line: a tab at the line's start": (BASE_TEXT + "providerID: a\n\tb\n", f"yaml: line 12: {VIOLATES}"),
    "a plain scalar's next line after a blank line: a tab at the line's start": (BASE_TEXT + "providerID: a\n\n\tb\n", f"yaml: line 13: {VIOLATES}"),
    "a nested plain scalar's next line: a tab at the line's start": (BASE_TEXT + "note:\n  text: a\n\tb\n", f"yaml: line 13: {VIOLATES}"),
    "a nested plain scalar's next line: a tab left of its indentation": (BASE_TEXT + "note:\n  text: a\n  \tb\n", f"yaml: line 13: {VIOLATES}"),
    "a nested plain scalar's next line: a tab, then spaces": (BASE_TEXT + "note:\n  text: a\n\t    b\n", f"yaml: line 13: {VIOLATES}"),
    "a sequence item's next line: a tab left of its indentation": (BASE_TEXT + "note:\n  - a\n  \tb\n", f"yaml: line 13: {VIOLATES}"),
    "a tab-only line after a plain scalar": (BASE_TEXT.replace(POLICY, POLICY + "\t\n"), f"yaml: line 4: {VIOLATES}"),
    "a tab-only line after a plain scalar's trailing tab": (BASE_TEXT.replace(POLICY, "memoryManagerPolicy: Static\t\n\t\n"), f"yaml: line 4: {VIOLATES}"),
    "a comment line after a plain scalar: a tab at the line's start": (BASE_TEXT.replace(POLICY, POLICY + "\t# note\n"), f"yaml: line 4: {VIOLATES}"),
    "a plain scalar in a flow mapping, next line: a tab at the line's start": (
        BASE_TEXT.replace(KUBE_RESERVED, "kubeReserved: {cpu: 500m\n\t, memory: 1Gi}"),
        f"yaml: line 7: {VIOLATES}",
    ),
    "a plain scalar in a nested flow mapping, next line: a tab at the line's start": (
        BASE_TEXT.replace(NUMA_NODE_1, "  - {numaNode: 1, limits: {memory: 818Mi\n\t}}"),
        f"yaml: line 11: {VIOLATES}",
    ),
    "a plain scalar in a flow sequence, next line: a tab at the line's start": (BASE_TEXT + "note: [a\n\t, b]\n", f"yaml: line 12: {VIOLATES}"),
    "a tab-only line after a flow mapping": (BASE_TEXT.replace(KUBE_RESERVED, KUBE_RESERVED + "\n\t"), f"yaml: line 7: {CANNOT_START}"),
    "a comment line after a flow mapping: a tab at the line's start": (
        BASE_TEXT.replace(KUBE_RESERVED, KUBE_RESERVED + "\n\t# note"),
        f"yaml: line 7: {CANNOT_START}",
    ),
    "a comment line after a flow mapping: spaces, then a tab": (
        BASE_TEXT.replace(KUBE_RESERVED, KUBE_RESERVED + "\n  \t# note"),
        f"yaml: line 7: {CANNOT_START}",
    ),
    "a comment line after a quoted scalar: a tab at the line's start": (
        BASE_TEXT.replace(POLICY, 'memoryManagerPolicy: "Static"\n\t# note\n'),
        f"yaml: line 4: {CANNOT_START}",
    ),
    "a comment on the first line: a tab at its start (go-yaml names no line 1)": ("\t# note\n" + BASE_TEXT, f"yaml: {CANNOT_START}"),
    "a tab after '- '": (BASE_TEXT.replace("  - {numaNode: 1", "  - \t{numaNode: 1"), f"yaml: line 10: {CANNOT_START}"),
    "a literal block's first line: a tab as its indentation": (BASE_TEXT + "providerID: |\n\ta\n", f"yaml: line 12: {NO_INDENTATION_SPACE}"),
    "a folded block's first line: a tab as its indentation": (BASE_TEXT + "providerID: >\n\ta\n", f"yaml: line 12: {NO_INDENTATION_SPACE}"),
    "a literal block's leading blank line: a space, then a tab": (BASE_TEXT + "providerID: |\n \t\n  a\n", f"yaml: line 12: {NO_INDENTATION_SPACE}"),
    "a literal block's next line: a tab left of its indentation": (BASE_TEXT + "providerID: |\n  a\n \tb\n", f"yaml: line 13: {NO_INDENTATION_SPACE}"),
    "a tab-only line after a literal block": (
        BASE_TEXT.replace(POLICY, "providerID: |\n  a\n\t\n" + POLICY),
        f"yaml: line 5: {NO_INDENTATION_SPACE}",
    ),
}


@pytest.mark.parametrize(("text", "added"), TABS_THE_KUBELET_TAKES.values(), ids=list(TABS_THE_KUBELET_TAKES))
def test_a_tab_the_kubelet_takes_is_read_as_go_yaml_reads_it(text, added):
    assert "\t" in text
    assert load_yaml(text) == {**BASE, **added}


@pytest.mark.parametrize(("text", "kubelet_error"), TABS_THE_KUBELET_REFUSES.values(), ids=list(TABS_THE_KUBELET_REFUSES))
def test_a_tab_the_kubelet_refuses_is_refused_in_its_words(text, kubelet_error):
    with pytest.raises(yaml.YAMLError) as refused:
        load_yaml(text)
    assert yaml_error_text(refused.value).startswith(f"{kubelet_error} (")


def test_the_plan_names_the_file_before_the_kubelets_words():
    text, kubelet_error = TABS_THE_KUBELET_REFUSES["a plain scalar's next line: a tab at the line's start"]
    data, problems = load_mapping("/var/lib/kubelet/config.yaml", text)
    assert data is None and len(problems) == 1
    assert problems[0].startswith(f"/var/lib/kubelet/config.yaml: not valid YAML/JSON: {kubelet_error} (while scanning a plain scalar")


def test_an_error_that_is_not_about_a_tab_keeps_pyyamls_words_alone():
    with pytest.raises(yaml.YAMLError) as refused:
        load_yaml("key: [unclosed\n")
    assert yaml_error_text(refused.value).startswith("while parsing a flow sequence")
