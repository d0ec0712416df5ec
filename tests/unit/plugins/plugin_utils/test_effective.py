# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet's config layering (docs/kubelet-facts.md section 2), each case one the real kubelet was seen to follow."""

from __future__ import annotations

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._allocatable import memory_reservation
from ansible_collections.numa.kubelet.plugins.plugin_utils._config import KubeletConfigError
from ansible_collections.numa.kubelet.plugins.plugin_utils._effective import effective_kubelet_config, merge_patch, parse_kubelet_flags

HEADER = {"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration"}
RESERVED = {"kubeReserved": {"memory": "512Mi"}, "systemReserved": {"memory": "412Mi"}}


def total(config):
    return str(memory_reservation(config).total)


def test_main_file_without_eviction_hard_keeps_the_default_under_a_partial_dropin():
    # Verified: 512Mi + 412Mi needs 1Gi there; the drop-in's nodefs.available merges into the defaulted map.
    config = effective_kubelet_config(dict(HEADER, **RESERVED), [dict(HEADER, evictionHard={"nodefs.available": "5%"})])
    assert config["evictionHard"]["memory.available"] == "100Mi"
    assert config["evictionHard"]["nodefs.available"] == "5%"
    assert total(config) == "1Gi"


def test_main_file_with_a_partial_eviction_hard_has_no_memory_term():
    # kubeadm node whose /var/lib/kubelet/config.yaml sets only nodefs.available: the memory term is 0 (924Mi).
    config = effective_kubelet_config(dict(HEADER, evictionHard={"nodefs.available": "5%"}, **RESERVED))
    assert "memory.available" not in config["evictionHard"]
    assert total(config) == "924Mi"


def test_without_a_main_file_the_rke2_defaults_dropin_is_the_whole_eviction_map():
    # Verified on the kubelet v1.36.2 without --config: 512Mi + 412Mi accepted 924Mi and refused 1Gi.
    rke2 = dict(HEADER, evictionHard={"imagefs.available": "5%", "nodefs.available": "5%"})
    config = effective_kubelet_config(None, [rke2, dict(HEADER, **RESERVED)])
    assert config["evictionHard"] == {"imagefs.available": "5%", "nodefs.available": "5%"}
    assert total(config) == "924Mi"
    # The same drop-ins under an empty main file keep the main file's default 100Mi.
    assert total(effective_kubelet_config(HEADER, [rke2, dict(HEADER, **RESERVED)])) == "1Gi"


def test_the_dropin_merge_drops_empty_lists_and_redefaults():
    assert effective_kubelet_config(dict(HEADER, enforceNodeAllocatable=[]))["enforceNodeAllocatable"] == []
    assert effective_kubelet_config(dict(HEADER, enforceNodeAllocatable=[]), [HEADER])["enforceNodeAllocatable"] == ["pods"]


def test_an_empty_eviction_hard_in_the_main_file_stays_without_a_memory_term_under_a_dropin():
    # Verified on the kubelet 1.31, 1.33 and 1.36.2 (2x16Gi, kubeReserved 1Gi, systemReserved 512Mi, evictionHard {}
    # and a drop-in setting only maxPods): 768Mi per NUMA node accepted, 818Mi refused with "1636Mi" ... "1536Mi".
    main = dict(HEADER, kubeReserved={"memory": "1Gi"}, systemReserved={"memory": "512Mi"}, evictionHard={})
    assert total(effective_kubelet_config(main)) == "1536Mi"
    assert total(effective_kubelet_config(main, [dict(HEADER, maxPods=100)])) == "1536Mi"


def test_rke2_before_1_32_eviction_flag_replaces_the_map():
    config = effective_kubelet_config(
        None, [], ["--eviction-hard=imagefs.available<5%,nodefs.available<5%", "--kube-reserved=memory=512Mi", "--system-reserved=memory=412Mi"]
    )
    assert config["evictionHard"] == {"imagefs.available": "5%", "nodefs.available": "5%"}
    assert total(config) == "924Mi"


def test_repeated_map_flags_accumulate():
    config = effective_kubelet_config(dict(HEADER, **RESERVED), [], ["--eviction-hard=imagefs.available<5%", "--eviction-hard", "memory.available<100Mi"])
    assert config["evictionHard"] == {"imagefs.available": "5%", "memory.available": "100Mi"}


def test_a_kube_reserved_cpu_flag_drops_the_files_memory_reservation():
    config = effective_kubelet_config(dict(HEADER, **RESERVED), [], ["--kube-reserved=cpu=100m"])
    assert config["kubeReserved"] == {"cpu": "100m"}
    both = effective_kubelet_config(dict(HEADER, **RESERVED), [], ["--kube-reserved=cpu=100m", "--kube-reserved=memory=512Mi"])
    assert both["kubeReserved"] == {"cpu": "100m", "memory": "512Mi"}


def test_dropins_replace_lists_whole_and_null_deletes():
    main = dict(
        HEADER,
        reservedMemory=[{"numaNode": 0, "limits": {"memory": "1Gi"}}, {"numaNode": 1, "limits": {"memory": "1Gi"}}],
        kubeReserved={"cpu": "70m", "memory": "8362Mi", "ephemeral-storage": "1Gi"},
    )
    config = effective_kubelet_config(
        main, [{"reservedMemory": [{"numaNode": 0, "limits": {"memory": "2Gi"}}], "kubeReserved": {"memory": "8500Mi"}}, {"kubeReserved": {"cpu": None}}]
    )
    assert config["reservedMemory"] == [{"numaNode": 0, "limits": {"memory": "2Gi"}}]
    assert config["kubeReserved"] == {"memory": "8500Mi", "ephemeral-storage": "1Gi"}


def test_scalar_and_reserved_memory_flags():
    config = effective_kubelet_config(
        HEADER, [], ["--memory-manager-policy=Static", "--max-pods", "58", "--reserved-memory=0:memory=512Mi;1:memory=512Mi", "--reserved-memory=2:memory=1Gi"]
    )
    assert config["memoryManagerPolicy"] == "Static" and config["maxPods"] == 58
    assert [item["numaNode"] for item in config["reservedMemory"]] == [0, 1, 2]


def test_layer_flags_and_unknown_flags_are_sorted_out():
    parsed = parse_kubelet_flags(
        ["--config=/var/lib/kubelet/config.yaml", "--config-dir", "/etc/kubernetes/kubelet.conf.d", "--node-ip=10.0.0.1", "--kube-reserved=memory=1Gi"]
    )
    assert (parsed.config, parsed.config_dir) == ("/var/lib/kubelet/config.yaml", "/etc/kubernetes/kubelet.conf.d")
    assert parsed.config_flags == ["--kube-reserved=memory=1Gi"]
    assert parsed.other_flags == ["--node-ip=10.0.0.1"]


def test_the_input_is_not_changed():
    main = dict(HEADER, kubeReserved={"memory": "1Gi"})
    effective_kubelet_config(main, [{"kubeReserved": {"cpu": "1"}}], ["--kube-reserved=memory=2Gi"])
    assert main == dict(HEADER, kubeReserved={"memory": "1Gi"})


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--max-pods=many"], "invalid argument 'many' for \"--max-pods\" flag"),
        (["--kube-reserved=memory"], "malformed pair 'memory'"),
        (["--reserved-memory=x:memory=1Gi"], 'is not "<numa id>:<type>=<quantity>[,...]"'),
        (["--feature-gates=A=yes"], "is not a boolean"),
        (["--kube-reserved"], "flag needs an argument: --kube-reserved"),
        ("--kube-reserved=memory=1Gi", "must be a list of command-line words"),
    ],
)
def test_bad_flags_are_named(flags, message):
    with pytest.raises(KubeletConfigError, match=None) as raised:
        effective_kubelet_config(HEADER, [], flags)
    assert message in str(raised.value)


def test_merge_patch_is_rfc7386():
    assert merge_patch({"a": {"b": 1, "c": 2}, "l": [1, 2]}, {"a": {"b": None, "d": 3}, "l": [3]}) == {"a": {"c": 2, "d": 3}, "l": [3]}
