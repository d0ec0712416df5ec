# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""_rollout.summary_lines: the rollout's summary table (roles/kubelet_numa_rollout/templates/summary.j2 prints it)."""

from __future__ import annotations

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._rollout import numa_split, result_text, summary_lines

SPLIT = [{"numaNode": 0, "limits": {"memory": "1Gi"}}, {"numaNode": 1, "limits": {"memory": "512Mi"}}]


@pytest.mark.parametrize(
    "record, text",
    [
        ({"result": "applied", "message": "uncordoned"}, "applied, uncordoned"),
        ({"result": "applied", "message": "already converged, not drained"}, "applied, already converged, not drained"),
        ({"result": "failed", "step": "drain", "unreachable": False, "cordoned": True}, "FAILED at drain, nothing applied, left cordoned"),
        ({"result": "failed", "step": "apply", "unreachable": False, "cordoned": True}, "FAILED at apply, rolled back by the role, left cordoned"),
        ({"result": "failed", "step": "apply", "unreachable": False, "cordoned": False}, "FAILED at apply, rolled back by the role"),
        ({"result": "failed", "step": "apply", "unreachable": True, "cordoned": True}, "FAILED at apply, unreachable (not rolled back), left cordoned"),
        ({"result": "failed", "step": "verify", "unreachable": False, "cordoned": True}, "FAILED at verify, left cordoned"),
        # As a template that is not native renders the booleans.
        ({"result": "failed", "step": "ready", "unreachable": "False", "cordoned": "True"}, "FAILED at ready, left cordoned"),
        ({}, "untouched (not reached)"),
    ],
)
def test_the_result_says_what_the_record_says_happened(record, text):
    assert result_text(record) == text


def test_the_split_is_each_numa_nodes_limit_or_a_dash():
    assert numa_split(SPLIT) == "0=1Gi 1=512Mi"
    assert numa_split([]) == numa_split(None) == "-"


def test_each_column_is_as_wide_as_its_longest_cell_and_healed_hosts_follow():
    hosts = [
        {"host": "kubeadm-node-01", "platform": "kubeadm", "reserved_memory": SPLIT, "result": {"result": "applied", "message": "uncordoned"}, "healed": ""},
        {
            "host": "n2",
            "platform": "rke2",
            "reserved_memory": SPLIT[:1],
            "result": {"result": "failed", "step": "apply", "unreachable": False, "cordoned": True},
        },
        {"host": "n3", "platform": "", "reserved_memory": [], "result": {}, "healed": "kubelet.service healed itself"},
    ]
    assert summary_lines(hosts) == [
        "HOST             PLATFORM  NUMA SPLIT     RESULT",
        "kubeadm-node-01  kubeadm   0=1Gi 1=512Mi  applied, uncordoned",
        "n2               rke2      0=1Gi          FAILED at apply, rolled back by the role, left cordoned",
        "n3               -         -              untouched (not reached)",
        "n3: kubelet.service healed itself",
    ]


def test_no_host_leaves_the_header_alone():
    assert summary_lines([]) == ["HOST  PLATFORM  NUMA SPLIT  RESULT"]
