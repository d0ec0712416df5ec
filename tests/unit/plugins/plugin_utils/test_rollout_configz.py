# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""configz_drift: the running kubelet's /configz against a plan, on answers captured from a real kubelet v1.36.2.

The answers and the inputs they were captured with are in tests/unit/fixtures/configz/ (README.md there says how).
"""

from __future__ import annotations

import copy
import json
import os

import pytest
import yaml

from ansible_collections.numa.kubelet.plugins.plugin_utils._effective import effective_kubelet_config
from ansible_collections.numa.kubelet.plugins.plugin_utils._plan import plan_host
from ansible_collections.numa.kubelet.plugins.plugin_utils._rollout_configz import configz_drift

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(HERE))))
FIXTURES = os.path.join(REPO, "tests", "unit", "fixtures", "configz")
with open(os.path.join(REPO, "roles", "kubelet_numa", "defaults", "main.yml"), encoding="utf-8") as _handle:
    DEFAULTS = yaml.safe_load(_handle)
TOPOLOGY = {
    "numa_nodes": [{"id": 0, "memory_bytes": 16 << 30, "cpus": [0]}, {"id": 1, "memory_bytes": 16 << 30, "cpus": [1]}],
    "numa_memory_capacity_bytes": 32 << 30,
}


def fixture_text(name):
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as handle:
        return handle.read()


def answer(name="static-cpu-dropin.json"):
    return json.loads(fixture_text(name))


def kubeadm_plan(split=None, **changes):
    """The plan of a kubeadm node with the captured main config, asking for what the captured drop-in sets."""
    intent = {key: value for key, value in yaml.safe_load(fixture_text("numa.conf")).items() if key not in ("apiVersion", "kind", "reservedMemory")}
    intent.update(changes)
    variables = dict(
        DEFAULTS,
        kubelet_numa_platform="kubeadm",
        kubelet_numa_config=intent,
        kubelet_numa_topology=TOPOLOGY,
        kubelet_numa_reserved_memory_split=split or {"0": "589299712", "1": "562Mi"},
    )
    return plan_host(variables, {"files": {"/var/lib/kubelet/config.yaml": fixture_text("main.yaml")}})


def test_the_plan_of_the_captured_inputs_matches_the_real_kubelets_configz():
    assert configz_drift(kubeadm_plan(), fixture_text("static-cpu-dropin.json")) == []


def test_the_decoded_answer_is_accepted_too():
    assert configz_drift(kubeadm_plan(), answer()) == []


def test_quantities_are_compared_by_value_not_text():
    # configz says "589299712" and "562Mi"; a plan written the other way round is the same reservation.
    assert configz_drift(kubeadm_plan(split={"0": "562Mi", "1": "589299712"}), answer()) == []
    changed = answer()
    changed["kubeletconfig"]["kubeReserved"]["memory"] = "536870912"
    changed["kubeletconfig"]["evictionHard"]["memory.available"] = "0.1Gi"  # 107374182.4 bytes, not 100Mi
    assert configz_drift(kubeadm_plan(), changed) == ["/configz: evictionHard[memory.available] is 0.1Gi in the running kubelet, the plan 100Mi"]


def test_flags_quantities_as_the_kubelet_prints_them_match_an_effective_config_from_the_same_flags():
    words = [
        "--memory-manager-policy=Static",
        "--reserved-memory=0:memory=1098907648;1:memory=79691776",
        "--kube-reserved=memory=536870912",
        "--system-reserved=memory=512Mi",
        "--eviction-hard=memory.available<104857600",
        "--topology-manager-policy=single-numa-node",
    ]
    plan = {"kubelet_config": effective_kubelet_config(yaml.safe_load(fixture_text("empty.yaml")), [], words)}
    assert configz_drift(plan, fixture_text("flags.json")) == []
    # The same plan in canonical form: the values agree, the texts do not.
    plan["kubelet_config"]["reservedMemory"] = [{"numaNode": 0, "limits": {"memory": "1048Mi"}}, {"numaNode": 1, "limits": {"memory": "76Mi"}}]
    assert configz_drift(plan, fixture_text("flags.json")) == []


def test_the_kubelets_reserved_cpus_rewrite_is_expected_not_drift():
    plan = kubeadm_plan()
    assert plan["kubelet_config"]["kubeReserved"] == {"memory": "512Mi", "cpu": "100m"}
    assert answer()["kubeletconfig"]["kubeReserved"] == {"memory": "512Mi"}
    assert answer()["kubeletconfig"]["systemReserved"] == {"cpu": "1", "memory": "536870912"}
    assert configz_drift(plan, answer()) == []


@pytest.mark.parametrize(
    "field, running, message",
    [
        ("memoryManagerPolicy", "None", "/configz: memoryManagerPolicy is None in the running kubelet, the plan Static"),
        ("cpuManagerPolicy", "none", "/configz: cpuManagerPolicy is none in the running kubelet, the plan static"),
        ("topologyManagerPolicy", "best-effort", "/configz: topologyManagerPolicy is best-effort in the running kubelet, the plan single-numa-node"),
        ("topologyManagerScope", "container", "/configz: topologyManagerScope is container in the running kubelet, the plan pod"),
        ("topologyManagerScope", None, "/configz: topologyManagerScope is not set in the running kubelet, the plan pod"),
        ("reservedSystemCPUs", "1", "/configz: reservedSystemCPUs is 1 in the running kubelet, the plan 0"),
        ("reservedSystemCPUs", None, "/configz: reservedSystemCPUs is not set in the running kubelet, the plan 0"),
    ],
)
def test_each_policy_field_that_drifted_is_named_with_both_values(field, running, message):
    changed = answer()
    if running is None:
        del changed["kubeletconfig"][field]
    else:
        changed["kubeletconfig"][field] = running
    assert configz_drift(kubeadm_plan(), changed) == [message]


@pytest.mark.parametrize(
    "edit, message",
    [
        (
            lambda c: c["reservedMemory"][0]["limits"].update(memory="1Gi"),
            "/configz: reservedMemory[numaNode=0][memory] is 1Gi in the running kubelet, the plan 589299712",
        ),
        (lambda c: c["reservedMemory"].pop(1), "/configz: reservedMemory[numaNode=1][memory] is not set in the running kubelet, the plan 562Mi"),
        (
            lambda c: c["reservedMemory"][1]["limits"].update({"hugepages-2Mi": "2Mi"}),
            "/configz: reservedMemory[numaNode=1][hugepages-2Mi] is 2Mi in the running kubelet, the plan not set",
        ),
        (lambda c: c["kubeReserved"].update(memory="600Mi"), "/configz: kubeReserved[memory] is 600Mi in the running kubelet, the plan 512Mi"),
        (lambda c: c["systemReserved"].pop("memory"), "/configz: systemReserved[memory] is not set in the running kubelet, the plan 536870912"),
        (lambda c: c["systemReserved"].update(cpu="2"), "/configz: systemReserved[cpu] is 2 in the running kubelet, the plan 1"),
        (
            lambda c: c["evictionHard"].update({"memory.available": "200Mi"}),
            "/configz: evictionHard[memory.available] is 200Mi in the running kubelet, the plan 100Mi",
        ),
        (lambda c: c["evictionHard"].update({"nodefs.available": "5%"}), "/configz: evictionHard[nodefs.available] is 5% in the running kubelet, the plan 10%"),
        (lambda c: c.pop("evictionHard"), "/configz: evictionHard[imagefs.available] is not set in the running kubelet, the plan 15%"),
    ],
)
def test_each_reservation_that_drifted_is_named_with_both_values(edit, message):
    changed = answer()
    edit(changed["kubeletconfig"])
    assert configz_drift(kubeadm_plan(), changed)[0] == message


def test_every_drifted_field_is_one_message():
    changed = answer()
    changed["kubeletconfig"].update(memoryManagerPolicy="None", reservedMemory=[])
    assert configz_drift(kubeadm_plan(), changed) == [
        "/configz: memoryManagerPolicy is None in the running kubelet, the plan Static",
        "/configz: reservedMemory[numaNode=0][memory] is not set in the running kubelet, the plan 589299712",
        "/configz: reservedMemory[numaNode=1][memory] is not set in the running kubelet, the plan 562Mi",
    ]


def test_a_plan_without_reserved_cpus_compares_the_cpu_reservations_as_planned():
    plan = kubeadm_plan(reservedSystemCPUs=None, cpuManagerPolicy="none")
    configz = copy.deepcopy(answer())
    configz["kubeletconfig"].update(cpuManagerPolicy="none")
    del configz["kubeletconfig"]["reservedSystemCPUs"]
    assert configz_drift(plan, configz) == [
        "/configz: kubeReserved[cpu] is not set in the running kubelet, the plan 100m",
        "/configz: systemReserved[cpu] is 1 in the running kubelet, the plan not set",
    ]


@pytest.mark.parametrize(
    "configz, message",
    [
        (
            "<html>503 Service Unavailable</html>",
            "/configz: the answer is not JSON (Expecting value: line 1 column 1 (char 0)): '<html>503 Service Unavailable</html>'",
        ),
        ('{"kind": "Status"}', "/configz: the answer has no kubeletconfig mapping (the kubelet answers {\"kubeletconfig\": {...}}): {'kind': 'Status'}"),
        ('{"kubeletconfig": []}', "/configz: the answer has no kubeletconfig mapping (the kubelet answers {\"kubeletconfig\": {...}}): {'kubeletconfig': []}"),
        (None, '/configz: the answer has no kubeletconfig mapping (the kubelet answers {"kubeletconfig": {...}}): None'),
    ],
)
def test_a_malformed_answer_is_one_clear_problem(configz, message):
    assert configz_drift(kubeadm_plan(), configz) == [message]


def test_a_malformed_reserved_memory_is_named():
    changed = answer()
    changed["kubeletconfig"]["reservedMemory"] = "0:memory=1Gi"
    assert configz_drift(kubeadm_plan(), changed)[0] == ("/configz: reservedMemory is '0:memory=1Gi' in the running kubelet, not a list of numaNode and limits")
