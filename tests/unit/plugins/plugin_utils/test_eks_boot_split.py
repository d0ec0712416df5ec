# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""AL2023 classes with several instance types, and the split decided on the node at every boot (boot_split)."""

from __future__ import annotations

import copy
import email

import pytest
import yaml

from ansible_collections.numa.kubelet.plugins.plugin_utils._boot_split_bundle import OTHER_PARTS_ALLOWANCE, USER_DATA_LIMIT, shell_part
from ansible_collections.numa.kubelet.plugins.plugin_utils._eks_userdata import EksUserDataError, render_node_classes
from ansible_collections.numa.kubelet.plugins.plugin_utils._quantity import Quantity
from ansible_collections.numa.kubelet.tests.unit.plugins.plugin_utils.eks_node_classes import TWO_NODES, karpenter_class, node_class, problems_of

GI = 1 << 30
ONE_NODE = {"numa_nodes": [{"id": 0, "memory_bytes": 16 * GI, "cpus": [0, 1, 2, 3]}], "numa_memory_capacity_bytes": 16 * GI}
FOUR_NODES = {
    "numa_nodes": [{"id": node, "memory_bytes": 16 * GI, "cpus": [2 * node, 2 * node + 1]} for node in range(4)],
    "numa_memory_capacity_bytes": 64 * GI,
}
# A 1-, 2- and 4-NUMA-node type behind one class (the topologies are the user's: the EKS table has no NUMA data).
MIXED = {"m5.xlarge": ONE_NODE, "m5.2xlarge": copy.deepcopy(TWO_NODES), "m5.4xlarge": FOUR_NODES}
PINNED = {"kubeReserved": {"memory": "1948Mi"}}


def mixed_class(boot_split=True, kubelet=None, types=None, **overrides):
    single = karpenter_class(kubelet=copy.deepcopy(PINNED if kubelet is None else kubelet))
    for key in ("instance_type", "topology"):
        single.pop(key)
    return dict(single, instance_types=copy.deepcopy(MIXED if types is None else types), boot_split=boot_split, **overrides)


def parts(user_data):
    return [(part.get_content_type(), part.get_payload()) for part in email.message_from_string(user_data).walk() if not part.is_multipart()]


def test_a_mixed_karpenter_class_gets_the_program_and_no_reserved_memory():
    rendered = render_node_classes([mixed_class()])
    details = rendered["classes"]["m5"]
    user_data = rendered["files"]["m5.user-data.mime"]
    (script_type, script), (config_type, config) = parts(user_data)
    assert (script_type, config_type) == ("text/x-shellscript", "application/node.eks.aws")
    # MIME: the line break before a boundary belongs to the boundary.
    assert script == shell_part("even").removesuffix("\n")
    nodeconfig = yaml.safe_load(config)
    assert "reservedMemory" not in nodeconfig["spec"]["kubelet"]["config"]
    assert nodeconfig["spec"]["kubelet"]["config"]["memoryManagerPolicy"] == "Static"
    # The totals stay in spec.kubelet, where Karpenter schedules with them: 1948Mi + 100Mi on every type.
    ec2nodeclass = yaml.safe_load(rendered["files"]["m5.ec2nodeclass.yaml"])
    assert ec2nodeclass["spec"]["kubelet"] == {"kubeReserved": {"memory": "1948Mi"}, "evictionHard": {"memory.available": "100Mi"}}
    assert ec2nodeclass["spec"]["userData"] == user_data
    # Each type was planned: what the program will write there is the engine's split for that layout.
    assert details["reserved_memory_by_type"] == {
        "m5.xlarge": [{"numaNode": 0, "limits": {"memory": "2Gi"}}],
        "m5.2xlarge": [{"numaNode": node, "limits": {"memory": "1Gi"}} for node in (0, 1)],
        "m5.4xlarge": [{"numaNode": node, "limits": {"memory": "512Mi"}} for node in range(4)],
    }
    assert (details["boot_split"], details["reserved_memory"], details["instance_types"]) == (True, [], list(MIXED))
    assert details["user_data_bytes"] + OTHER_PARTS_ALLOWANCE <= USER_DATA_LIMIT
    assert render_node_classes([mixed_class()]) == rendered


def test_without_boot_split_types_of_different_layouts_are_refused_by_name():
    (problem,) = problems_of([mixed_class(boot_split=False)])
    assert problem.startswith(
        "node_classes[0] (m5): its instance types need different reservedMemory (m5.xlarge: [{'numaNode': 0, 'limits': {'memory': '2Gi'}}]; "
        "m5.2xlarge: [{'numaNode': 0, 'limits': {'memory': '1Gi'}}, {'numaNode': 1, 'limits': {'memory': '1Gi'}}]; m5.4xlarge: "
    )
    assert "set boot_split: true" in problem


def test_without_boot_split_types_of_one_layout_share_one_user_data():
    types = {"m5.2xlarge": copy.deepcopy(TWO_NODES), "m5.4xlarge": copy.deepcopy(TWO_NODES)}
    rendered = render_node_classes([mixed_class(boot_split=False, types=types)])
    (only,) = parts(rendered["files"]["m5.user-data.mime"])
    assert only[0] == "application/node.eks.aws"
    assert yaml.safe_load(only[1])["spec"]["kubelet"]["config"]["reservedMemory"] == [{"numaNode": node, "limits": {"memory": "1Gi"}} for node in (0, 1)]
    assert rendered["classes"]["m5"]["instance_types"] == list(types)


def _totals(kube_reserved, **pinned):
    return {**pinned, "kubeReserved": {"memory": kube_reserved}, "evictionHard": {"memory.available": "100Mi"}}


@pytest.mark.parametrize(
    "kubelet",
    [{}, {"maxPods": 58}],
    ids=["unpinned", "only-maxPods-pinned"],
)
def test_unpinned_totals_that_differ_by_type_are_refused_by_name(kubelet):
    """maxPods 58 for the xlarge and 2xlarge, 234 for the 4xlarge: nodeadm's kubeReserved (11 * maxPods + 255 Mi, from
    its own table even when the kubelet config sets maxPods) differs, and one spec.kubelet cannot carry both."""
    (problem,) = problems_of([mixed_class(kubelet=kubelet)])
    assert problem == (
        f"node_classes[0] (m5): its instance types reserve different totals (m5.xlarge, m5.2xlarge: {_totals('893Mi', **kubelet)}; "
        f"m5.4xlarge: {_totals('2829Mi', **kubelet)}); one class carries one NodeConfig and one spec.kubelet: pin kubeReserved.memory "
        "(karpenter.kubelet or intent) so that every type reserves the same total and Karpenter schedules with it"
    )


@pytest.mark.parametrize("where", ["karpenter.kubelet", "intent"])
def test_totals_pinned_in_either_place_give_every_type_one_spec_kubelet(where):
    pinned_class = mixed_class(kubelet={} if where == "intent" else PINNED)
    if where == "intent":
        pinned_class["intent"] = dict(pinned_class["intent"], **PINNED)
    details = render_node_classes([pinned_class])["classes"]["m5"]
    assert details["karpenter_kubelet"]["kubeReserved"] == PINNED["kubeReserved"]
    assert set(details["reserved_memory_by_type"]) == set(MIXED)


def test_a_launch_template_class_keeps_each_types_own_totals():
    """Without Karpenter nothing schedules with one class-wide total: each node's program splits the kubeReserved
    nodeadm computes for its own type, so differing maxPods need no pin."""
    launch_template = {key: value for key, value in node_class().items() if key not in ("instance_type", "topology")}
    details = render_node_classes([dict(launch_template, instance_types=copy.deepcopy(MIXED), boot_split=True)])["classes"]["m5"]
    totals = {name: sum(Quantity.parse(entry["limits"]["memory"]).as_int64() for entry in split) for name, split in details["reserved_memory_by_type"].items()}
    # 11 * maxPods + 255 Mi of kubeReserved, plus the base config.json's 100Mi memory.available.
    assert totals == {"m5.xlarge": (893 + 100) << 20, "m5.2xlarge": (893 + 100) << 20, "m5.4xlarge": (2829 + 100) << 20}


def test_a_class_of_several_types_reports_each_types_own_plan_and_only_what_they_share_at_its_top():
    """maxPods, the reservation and the kubelet's inputs differ by type (nodeadm's table): none of them is one type's
    value passed off as the class's."""
    launch_template = {key: value for key, value in node_class().items() if key not in ("instance_type", "topology")}
    details = render_node_classes([dict(launch_template, instance_types=copy.deepcopy(MIXED), boot_split=True)])["classes"]["m5"]
    assert {name: (own["max_pods"], own["reservation"]) for name, own in details["by_type"].items()} == {
        "m5.xlarge": (58, "993Mi"),
        "m5.2xlarge": (58, "993Mi"),
        "m5.4xlarge": (234, "2929Mi"),
    }
    assert {name: own["reserved_memory"] for name, own in details["by_type"].items()} == details["reserved_memory_by_type"]
    assert {name: len(own["numa_nodes"]) for name, own in details["by_type"].items()} == {"m5.xlarge": 1, "m5.2xlarge": 2, "m5.4xlarge": 4}
    for differing in ("max_pods", "reservation", "numa_nodes", "kubelet_config", "kubelet_inputs"):
        assert differing not in details, differing
    assert (details["ami_family"], details["reserved_memory"], details["instance_types"]) == ("AL2023", [], list(MIXED))


def test_types_that_share_everything_keep_it_at_the_classs_top():
    types = {"m5.2xlarge": copy.deepcopy(TWO_NODES), "m5.4xlarge": copy.deepcopy(TWO_NODES)}
    details = render_node_classes([mixed_class(boot_split=False, types=types)])["classes"]["m5"]
    assert details["reservation"] == "2Gi"
    assert details["reserved_memory"] == [{"numaNode": node, "limits": {"memory": "1Gi"}} for node in (0, 1)]
    assert details["by_type"]["m5.2xlarge"]["max_pods"] == 58 and details["by_type"]["m5.4xlarge"]["max_pods"] == 234
    assert "max_pods" not in details


def test_a_type_whose_split_the_engine_refuses_is_named():
    tiny = {"numa_nodes": [{"id": 0, "memory_bytes": GI, "cpus": [0]}], "numa_memory_capacity_bytes": 4 * GI}
    problems = problems_of([mixed_class(types=dict(MIXED, **{"t3.medium": tiny}))])
    assert problems == [
        "node_classes[0] (m5) instance type t3.medium: reservedMemory for NUMA node 0 is 2Gi but that node has only 1Gi of memory (node MemTotal)"
    ]


def test_boot_split_with_one_topology_and_a_launch_template():
    rendered = render_node_classes([node_class(boot_split=True, intent=dict(node_class()["intent"], kubeReserved={"memory": "924Mi"}))])
    (script_type, _script), (_config_type, config) = parts(rendered["files"]["m5.user-data.mime"])
    assert script_type == "text/x-shellscript"
    assert yaml.safe_load(config)["spec"]["cluster"]["name"] == "my-cluster"
    assert rendered["classes"]["m5"]["reserved_memory_by_type"] == {"m5.large": [{"numaNode": node, "limits": {"memory": "512Mi"}} for node in (0, 1)]}


def test_shape_of_the_new_keys():
    assert problems_of([node_class(ami_family="AL2", boot_split=True)]) == [
        "node_classes[0] (m5): instance_types and boot_split are for ami_family AL2023 (the program runs as the kubelet unit's ExecStartPre there)"
    ]
    assert problems_of([mixed_class(boot_split="yes", topology=ONE_NODE)]) == [
        "node_classes[0] (m5).boot_split: 'yes' must be true or false",
        "node_classes[0] (m5): instance_types gives each type's topology and maxPods; leave out topology",
    ]
    assert problems_of([mixed_class(types=[])]) == [
        "node_classes[0] (m5).instance_types: [] must be a mapping {instance type: its topology} with at least one type"
    ]


def test_too_large_for_user_data_is_refused():
    with pytest.raises(EksUserDataError) as caught:
        render_node_classes([mixed_class()], header="\n".join("a header line of the playbook's ansible_managed text" for _line in range(80)))
    (problem,) = caught.value.problems
    assert problem.startswith("node_classes[0] (m5): the user data with the boot-time split program is 1")
    assert problem.endswith(
        f"bytes; EC2 takes 16384 and {OTHER_PARTS_ALLOWANCE} are kept for the other parts (Karpenter's NodeConfig); shorten the intent or the header"
    )
