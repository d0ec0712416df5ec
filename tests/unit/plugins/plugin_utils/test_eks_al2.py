# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""AL2 node classes: kubelet flags for bootstrap.sh's --kubelet-extra-args (_eks_al2)."""

from __future__ import annotations

import shlex

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._effective import effective_kubelet_config
from ansible_collections.numa.kubelet.plugins.plugin_utils._eks_userdata import al2_kubelet_extra_args, render_node_classes
from ansible_collections.numa.kubelet.plugins.plugin_utils._validation import check_kubelet_config
from ansible_collections.numa.kubelet.tests.unit.plugins.plugin_utils.eks_node_classes import STATIC, node_class, problems_of


def test_al2_extra_args_carry_bootstrap_sh_keys_and_escape_percent():
    intent = dict(STATIC, kubeReserved={"memory": "1Gi"}, evictionHard={"memory.available": "300Mi"})
    rendered = render_node_classes([node_class(ami_family="AL2", intent=intent)])
    details = rendered["classes"]["m5"]
    # bootstrap.sh's cpu/ephemeral-storage and nodefs thresholds survive the map flags; 1Gi + 300Mi = 1324Mi = 662Mi x 2.
    assert details["flags"] == [
        "--memory-manager-policy=Static",
        "--topology-manager-policy=single-numa-node",
        "--kube-reserved=cpu=80m,ephemeral-storage=1Gi,memory=1Gi",
        "--eviction-hard=memory.available<300Mi,nodefs.available<10%,nodefs.inodesFree<5%",
        "--reserved-memory=0:memory=662Mi;1:memory=662Mi",
    ]
    assert details["kubelet_extra_args"] == " ".join(details["flags"]).replace("%", "%%")
    assert rendered["files"]["m5.kubelet-extra-args.sh"] == "KUBELET_EXTRA_ARGS=%s\n" % shlex.quote(details["kubelet_extra_args"])
    assert shlex.split(details["bootstrap_args"]) == ["--kubelet-extra-args", details["kubelet_extra_args"]]
    # what systemd hands the kubelet, over bootstrap.sh's kubelet-config.json
    words = details["kubelet_extra_args"].replace("%%", "%").split()
    effective = effective_kubelet_config(details["base_config"], [], words)
    assert effective == details["kubelet_config"] and check_kubelet_config(effective, [0, 1]).errors == []
    assert effective["kubeReserved"] == {"cpu": "80m", "ephemeral-storage": "1Gi", "memory": "1Gi"}


def test_al2_formula_and_filter_entry_point():
    # bootstrap.sh: kubeReserved 574Mi (maxPods 29) + evictionHard 100Mi, no systemReserved.
    assert al2_kubelet_extra_args(node_class(ami_family="AL2")) == (
        "--memory-manager-policy=Static --topology-manager-policy=single-numa-node --reserved-memory=0:memory=337Mi;1:memory=337Mi"
    )
    assert al2_kubelet_extra_args(node_class(ami_family="AL2", instance_type=None, max_pods=110, split="first")).endswith(
        "--reserved-memory=0:memory=1565Mi"
    )  # 11*110+255 = 1465Mi, + 100Mi


@pytest.mark.parametrize(
    "overrides, phrase",
    [
        ({"ami_family": "AL2", "karpenter": {"spec": {}}, "cluster": None}, "karpenter: only for ami_family AL2023"),
        ({"ami_family": "AL2", "intent": dict(STATIC, systemReserved={"memory": "1 Gi"})}, "cannot be written in a kubelet flag"),
    ],
)
def test_refused_with_one_clear_message(overrides, phrase):
    problems = problems_of([node_class(**overrides)])
    assert any(phrase in problem for problem in problems), problems
