# -*- coding: utf-8 -*-
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubelet_numa_configz_drift is thin: the engine's lines pass through, a non-plan input is refused naming the filter."""

from __future__ import annotations

import json

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.numa.kubelet.plugins.filter.kubelet_numa_drift import FilterModule

FILTER = FilterModule().filters()["kubelet_numa_configz_drift"]
PLAN = {
    "kubelet_config": {
        "memoryManagerPolicy": "Static",
        "cpuManagerPolicy": "none",
        "topologyManagerPolicy": "none",
        "topologyManagerScope": "container",
        "kubeReserved": {"memory": "1Gi"},
        "evictionHard": {"memory.available": "100Mi"},
        "reservedMemory": [{"numaNode": 0, "limits": {"memory": "1124Mi"}}],
    }
}


def running(**changes):
    config = json.loads(json.dumps(PLAN["kubelet_config"]))
    config["reservedMemory"][0]["limits"]["memory"] = "1178599424"
    config.update(changes)
    return json.dumps({"kubeletconfig": config})


def test_the_engines_lines_pass_through():
    assert FILTER(PLAN, running()) == []
    assert FILTER(PLAN, running(kubeReserved={"memory": "512Mi"})) == ["/configz: kubeReserved[memory] is 512Mi in the running kubelet, the plan 1Gi"]
    assert FILTER(PLAN, "Error from server (ServiceUnavailable)") == [
        "/configz: the answer is not JSON (Expecting value: line 1 column 1 (char 0)): 'Error from server (ServiceUnavailable)'"
    ]


@pytest.mark.parametrize("plan", [None, "plan", {"files": []}, {"kubelet_config": "Static"}])
def test_an_input_that_is_not_a_plan_is_refused_naming_the_filter(plan):
    with pytest.raises(AnsibleFilterError) as error:
        FILTER(plan, running())
    assert str(error.value).startswith("kubelet_numa_configz_drift: the input must be a kubelet_numa_plan result, got %r" % (plan,))
