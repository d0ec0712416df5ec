# -*- coding: utf-8 -*-
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whatever a playbook passes in, the engine answers with its own error naming the problem, never a crash."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from ansible_collections.numa.kubelet.plugins.plugin_utils._config import KubeletConfigError
from ansible_collections.numa.kubelet.plugins.plugin_utils._flags import kubelet_flags
from ansible_collections.numa.kubelet.plugins.plugin_utils._split import reserved_memory
from ansible_collections.numa.kubelet.plugins.plugin_utils._validation import check_kubelet_config

LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-5, max_value=1 << 40),
    st.floats(allow_nan=False),
    st.sampled_from(["1Gi", "0", "-1Mi", "5%", "abc", "Static", "static", "none", "hugepages-2Mi", "memory", "1.5", "100%", "1,2"]),
    # Values that would break a flag file or a shell word: control characters, whitespace, quoting characters.
    st.sampled_from(["Static\n--foo", "1Gi\r", "1 Gi", "\t", "\x00", "1Gi\x7f", "\x85", "\u2028", '"', "'", "\\", "$HOME", "`id`"]),
    st.text(max_size=4),
)
KEYS = st.one_of(
    st.integers(min_value=0, max_value=3),
    st.sampled_from(["memory", "cpu", "numaNode", "limits", "hugepages-2Mi", "memory.available", "nodefs.available", "memory\n", "mem ory", "$memory"]),
)
VALUES = st.recursive(LEAVES, lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=3)), max_leaves=8)
FIELDS = st.sampled_from(
    [
        "memoryManagerPolicy",
        "reservedMemory",
        "kubeReserved",
        "systemReserved",
        "evictionHard",
        "cpuManagerPolicy",
        "topologyManagerPolicy",
        "mergeDefaultEvictionSettings",
        "reservedSystemCPUs",
        "featureGates",
        "maxPods",
        "reservedMemroy",
        "cpuManagerPolicyOptions",
        "enforceNodeAllocatable",
        "kubeReservedCgroup",
    ]
)
# Never in a written flag: they would end it, start another one, or be interpreted by systemd or a shell.
UNSAFE_IN_FLAGS = re.compile(r"[\x00-\x1f\x7f-\x9f\s\"'\\$`]")
NODES = st.lists(
    st.one_of(
        st.integers(min_value=-1, max_value=3),
        VALUES,
        st.fixed_dictionaries({"id": st.integers(min_value=0, max_value=3), "memory_bytes": st.one_of(st.none(), st.integers(min_value=1, max_value=1 << 34))}),
    ),
    max_size=3,
)
SPLITS = st.one_of(st.sampled_from(["even", "first", "proportional", "halves"]), st.dictionaries(KEYS, LEAVES, max_size=3))


@settings(max_examples=600, deadline=None)
@given(
    config=st.dictionaries(FIELDS, VALUES, max_size=6),
    nodes=NODES,
    capacity=st.one_of(st.none(), st.integers(min_value=1, max_value=1 << 36), LEAVES),
    split=SPLITS,
)
@example(config={"memoryManagerPolicy": "Static\n--foo"}, nodes=[0], capacity=None, split="even")
def test_arbitrary_input_gives_engine_errors_only(config, nodes, capacity, split):
    report = check_kubelet_config(config, nodes, capacity)
    assert all(isinstance(problem, str) and problem for problem in report.errors)
    for compute in (lambda: reserved_memory(config, nodes, split, capacity), lambda: kubelet_flags(config)):
        try:
            compute()
        except KubeletConfigError as exc:
            assert exc.problems and all(isinstance(problem, str) and problem for problem in exc.problems)
    try:
        flags = kubelet_flags(config)
    except KubeletConfigError:
        return
    assert not [flag for flag in flags if UNSAFE_IN_FLAGS.search(flag)]
