# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""check_main_config_file judges what the kubelet holds for a main config file: its defaults applied, as written."""

from __future__ import annotations

from ansible_collections.numa.kubelet.plugins.plugin_utils._kubelet_defaults import apply_defaults
from ansible_collections.numa.kubelet.plugins.plugin_utils._validation import check_kubelet_config, check_main_config_file

ACCEPTED = {
    "memoryManagerPolicy": "Static",
    "topologyManagerPolicy": "single-numa-node",
    "kubeReserved": {"memory": "512Mi"},
    "systemReserved": {"memory": "412Mi"},
    "reservedMemory": [{"numaNode": 0, "limits": {"memory": "1Gi"}}],
}


def test_an_accepted_file_is_judged_as_its_defaulted_config():
    report = check_main_config_file(ACCEPTED, [0], kubelet_version="1.33")
    expected = check_kubelet_config(apply_defaults(ACCEPTED), [0], kubelet_version="1.33")
    assert (report.errors, report.warnings) == (expected.errors, expected.warnings) == ([], [])


def test_the_default_eviction_threshold_counts_in_the_sum():
    report = check_main_config_file(dict(ACCEPTED, reservedMemory=[{"numaNode": 0, "limits": {"memory": "924Mi"}}]), [0])
    assert [error.split(" (")[0] for error in report.errors] == [
        'reservedMemory: the total amount "924Mi" of type "memory" is not equal to the value "1Gi" determined by Node Allocatable feature'
    ]


def test_a_value_the_defaults_cannot_read_is_refused_with_what_the_kubelet_says():
    assert check_main_config_file(dict(ACCEPTED, syncFrequency=None), [0]).errors == [
        'syncFrequency: time: invalid duration "" (a duration field cannot be null)'
    ]


def test_a_field_that_does_not_decode_is_judged_as_written():
    report = check_main_config_file(dict(ACCEPTED, syncFrequency=5), [0])
    assert report.errors == check_kubelet_config(dict(ACCEPTED, syncFrequency=5), [0]).errors
    assert len(report.errors) == 1 and report.errors[0].startswith("syncFrequency: 5 (integer) is not a duration string")


def test_not_a_mapping_is_said_once():
    assert check_main_config_file(["memoryManagerPolicy"]).errors == [
        "kubelet config: must be a mapping of KubeletConfiguration fields, got list ['memoryManagerPolicy']"
    ]
