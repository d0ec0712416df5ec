# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Planning a node: reservations on the effective config per platform, what is written, when the kubelet restarts."""

from __future__ import annotations

import json
import os
import posixpath
import re

import pytest
import yaml

from ansible_collections.numa.kubelet.plugins.plugin_utils._discovery import detect_platform, detection_paths, discover, reads
from ansible_collections.numa.kubelet.plugins.plugin_utils._plan import plan_host
from ansible_collections.numa.kubelet.plugins.plugin_utils._plan_inputs import PlanError

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
with open(os.path.join(REPO, "roles", "kubelet_numa", "defaults", "main.yml"), encoding="utf-8") as _handle:
    DEFAULTS = yaml.safe_load(_handle)
TOPOLOGY = {
    "numa_nodes": [{"id": 0, "memory_bytes": 16 << 30, "cpus": [0, 1]}, {"id": 1, "memory_bytes": 16 << 30, "cpus": [2, 3]}],
    "numa_memory_capacity_bytes": 32 << 30,
}
INTENT = {"memoryManagerPolicy": "Static", "topologyManagerPolicy": "single-numa-node", "kubeReserved": {"memory": "1Gi"}, "systemReserved": {"memory": "1Gi"}}
# What every KubeletConfiguration file starts with: the kubelet refuses one without (test_plan_inputs.py).
HEAD = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
KUBEADM_MAIN = HEAD + "cgroupDriver: systemd\n"


def plan(platform, files=None, intent=None, **variables):
    merged = dict(
        DEFAULTS, kubelet_numa_platform=platform, kubelet_numa_config=INTENT if intent is None else intent, kubelet_numa_topology=TOPOLOGY, **variables
    )
    return plan_host(merged, {"files": files or {}})


def shares(result):
    return [item["limits"]["memory"] for item in result["reserved_memory"]]


def written(result):
    return {entry["path"]: entry for entry in result["files"]}


def test_kubeadm_default_eviction_and_the_config_dir_flag():
    result = plan("kubeadm", {"/var/lib/kubelet/config.yaml": KUBEADM_MAIN})
    assert shares(result) == ["1074Mi", "1074Mi"]  # 1Gi + 1Gi + the kubelet's 100Mi default
    files = written(result)
    dropin = files["/etc/kubernetes/kubelet.conf.d/50-numa-kubelet.conf"]
    assert dropin["template"] == "kubeadm.j2" and dropin["previous"] is None
    # Only what the user set plus reservedMemory: no kubelet defaults copied into the node's files.
    assert dropin["content"] == dict(
        {"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration"}, **INTENT, reservedMemory=result["reserved_memory"]
    )
    assert files["/etc/default/kubelet"]["text"] == 'KUBELET_EXTRA_ARGS="--config-dir=/etc/kubernetes/kubelet.conf.d"\n'
    assert result["kubelet_config"]["cgroupDriver"] == "systemd" and result["kubelet_config"]["maxPods"] == 110
    assert result["restart"] == "reset" and result["unit"] == "kubelet.service"
    assert result["expected_state"] == {"policyName": "Static", "systemReserved": {"0": 1074 << 20, "1": 1074 << 20}}
    assert result["health_url"] == "http://127.0.0.1:10248/healthz"


def test_kubeadm_main_config_with_partial_eviction_has_no_memory_term():
    main = KUBEADM_MAIN + "evictionHard:\n  nodefs.available: 5%\n"
    assert shares(plan("kubeadm", {"/var/lib/kubelet/config.yaml": main})) == ["1Gi", "1Gi"]


def test_kubeadm_existing_config_dir_flag_is_used_and_extra_args_kept():
    files = {
        "/var/lib/kubelet/config.yaml": KUBEADM_MAIN,
        "/var/lib/kubelet/kubeadm-flags.env": 'KUBELET_KUBEADM_ARGS="--container-runtime-endpoint=unix:///run/containerd/containerd.sock"\n',
        "/etc/default/kubelet": 'KUBELET_EXTRA_ARGS="--node-ip=10.0.0.5 --config-dir=/etc/kubelet.d"\n',
        "/etc/kubelet.d/10-site.conf": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: 58\n",
    }
    result = plan("kubeadm", files)
    assert sorted(written(result)) == ["/etc/kubelet.d/50-numa-kubelet.conf"]
    assert [dropin["path"] for dropin in result["kubelet_inputs"]["dropins"]] == ["/etc/kubelet.d/10-site.conf", "/etc/kubelet.d/50-numa-kubelet.conf"]
    assert result["kubelet_config"]["maxPods"] == 58


def test_a_later_dropin_or_a_flag_that_overrides_ours_is_refused():
    files = {
        "/var/lib/kubelet/config.yaml": KUBEADM_MAIN,
        "/etc/default/kubelet": 'KUBELET_EXTRA_ARGS="--config-dir=/etc/kubelet.d --kube-reserved=cpu=100m"\n',
        "/etc/kubelet.d/90-late.conf": HEAD + "kubeReserved: {memory: 2Gi}\n",
    }
    with pytest.raises(PlanError) as raised:
        plan("kubeadm", files)
    assert raised.value.problems == [
        (
            "/etc/kubelet.d/90-late.conf sets kubeReserved, which overrides the value numa.kubelet writes (drop-ins are read in lexical order); "
            "move it into kubelet_numa_config or remove it"
        ),
        (
            "the kubelet flag --kube-reserved=cpu=100m overrides kubeReserved written by numa.kubelet (flags win over config files); "
            "remove the flag and set the field in kubelet_numa_config"
        ),
    ]


def test_a_drop_in_without_kind_is_refused_before_anything_changes():
    # The real kubelet v1.36.2 does not start with it: "failed to load kubelet dropin file, path: ..., error: Object
    # 'Kind' is missing in '...'"; a restart over it would leave the kubelet stopped.
    files = {
        "/var/lib/kubelet/config.yaml": KUBEADM_MAIN,
        "/etc/default/kubelet": 'KUBELET_EXTRA_ARGS="--config-dir=/etc/kubelet.d"\n',
        "/etc/kubelet.d/20-site.conf": "maxPods: 40\n",
    }
    with pytest.raises(PlanError) as raised:
        plan("kubeadm", files)
    assert raised.value.problems == [
        "/etc/kubelet.d/20-site.conf: failed to load kubelet dropin file, path: /etc/kubelet.d/20-site.conf, error: Object 'Kind' is missing in 'maxPods: 40\n'"
    ]


def test_the_drop_ins_of_a_config_dir_s_subdirectories_count_in_the_kubelets_walk_order():
    # The kubelet v1.36.2 merges a subdirectory's .conf files too (a kubeReserved in <config-dir>/20-cli-config-dir/
    # changed its sum: "the total amount "1636Mi" ... is not equal to the value "2660Mi""), in filepath.Walk's order.
    files = {
        "/var/lib/kubelet/config.yaml": KUBEADM_MAIN,
        "/etc/default/kubelet": 'KUBELET_EXTRA_ARGS="--config-dir=/etc/kubelet.d"\n',
        "/etc/kubelet.d/20-site.conf": HEAD + "maxPods: 40\n",
        "/etc/kubelet.d/20-site/10-eviction.conf": HEAD + "evictionHard: {memory.available: 500Mi}\nmaxPods: 58\n",
    }
    result = plan("kubeadm", files)
    assert [dropin["path"] for dropin in result["kubelet_inputs"]["dropins"]] == [
        "/etc/kubelet.d/20-site/10-eviction.conf",
        "/etc/kubelet.d/20-site.conf",
        "/etc/kubelet.d/50-numa-kubelet.conf",
    ]
    assert result["kubelet_config"]["maxPods"] == 40
    assert shares(result) == ["1274Mi", "1274Mi"]  # 1Gi + 1Gi + the nested drop-in's 500Mi
    files["/etc/kubelet.d/90-late/x.conf"] = HEAD + "kubeReserved: {memory: 2Gi}\n"
    with pytest.raises(PlanError) as raised:
        plan("kubeadm", files)
    assert raised.value.problems[0].startswith("/etc/kubelet.d/90-late/x.conf sets kubeReserved, which overrides the value numa.kubelet writes")


def test_a_kube_reserved_flag_we_do_not_write_drops_the_files_memory_reservation():
    # The user's flag wins over the main file's kubeReserved.memory; the plan follows what the kubelet will run with.
    files = {
        "/var/lib/kubelet/config.yaml": KUBEADM_MAIN + "kubeReserved: {memory: 512Mi}\n",
        "/etc/default/kubelet": 'KUBELET_EXTRA_ARGS="--kube-reserved=cpu=100m"\n',
    }
    result = plan("kubeadm", files, intent={"memoryManagerPolicy": "Static", "systemReserved": {"memory": "1Gi"}})
    assert result["kubelet_config"]["kubeReserved"] == {"cpu": "100m"}
    assert shares(result) == ["562Mi", "562Mi"]  # 1Gi + 100Mi, without the file's 512Mi


@pytest.mark.parametrize(
    ("version", "expected", "path"),
    [
        ("v1.31.9+rke2r1", ["1Gi", "1Gi"], "/etc/rancher/rke2/config.yaml.d/50-numa-kubelet.yaml"),
        # No --config from 1.32: 00-rke2-defaults.conf's disk-only evictionHard is the whole map (memory term 0).
        ("v1.32.5+rke2r1", ["1Gi", "1Gi"], "/var/lib/rancher/rke2/agent/etc/kubelet.conf.d/50-numa-kubelet.conf"),
    ],
)
def test_rke2_eviction_term_and_form_by_version(version, expected, path):
    result = plan("rke2", {"/etc/rancher/rke2/config.yaml": "token: x\n"}, kubelet_numa_rke2_version=version, kubelet_numa_rke2_role="agent")
    assert shares(result) == expected
    assert list(written(result)) == [path]
    assert result["unit"] == "rke2-agent.service"
    if path.endswith(".yaml"):
        assert written(result)[path]["content"] == {"kubelet-arg+": result["rke2"]["kubelet_args"]}
        assert "reserved-memory=0:memory=1Gi;1:memory=1Gi" in result["rke2"]["kubelet_args"]


@pytest.mark.parametrize(
    ("platform", "version", "judged_as"),
    [("rke2", "v1.33.1+rke2r1", None), ("rke2", "v1.32.5+rke2r1", "1.31"), ("k3s", "v1.31.9+k3s1", None), ("k3s", "v1.35.0+k3s1", "1.33")],
)
def test_the_platforms_kubelet_version_chooses_the_rules(platform, version, judged_as):
    result = plan(platform, {}, **{f"kubelet_numa_{platform}_version": version, f"kubelet_numa_{platform}_role": "agent"})
    version_warnings = [warning for warning in result["warnings"] if warning.startswith("kubelet_version: ")]
    minor = version.split(".")[1]
    expected = [] if judged_as is None else [f"kubelet_version: 1.{minor} is checked with the rules of kubelet {judged_as}"]
    assert [warning.split(" (")[0] for warning in version_warnings] == expected


def test_rke2_later_kubelet_arg_without_plus_is_refused():
    files = {"/etc/rancher/rke2/config.yaml": "token: x\n", "/etc/rancher/rke2/config.yaml.d/90-site.yaml": "kubelet-arg: [max-pods=58]\n"}
    with pytest.raises(PlanError) as raised:
        plan("rke2", files, kubelet_numa_rke2_version="v1.30.1+rke2r1", kubelet_numa_rke2_role="server")
    assert raised.value.problems == [
        (
            "/etc/rancher/rke2/config.yaml.d/90-site.yaml sets kubelet-arg without '+', which replaces every kubelet-arg "
            "before it, numa.kubelet's included; write it as kubelet-arg+ (RKE2 config.yaml.d rule)"
        )
    ]


def test_rke2_lablabs_form_writes_nothing_and_hands_over_the_line():
    result = plan("rke2", {}, kubelet_numa_rke2_version="v1.32.5+rke2r1", kubelet_numa_rke2_role="server", kubelet_numa_rke2_write_files=False)
    assert result["files"] == []
    assert result["rke2"]["options"] == ["kubelet-arg: " + json.dumps(result["rke2"]["kubelet_args"])]
    # Flags go over RKE2's 00-rke2-defaults.conf drop-in, whose disk-only evictionHard leaves no memory term.
    assert shares(result) == ["1Gi", "1Gi"]


def test_rke2_lablabs_restarts_only_once_config_yaml_carries_our_line():
    lablabs = {"kubelet_numa_rke2_version": "v1.32.5+rke2r1", "kubelet_numa_rke2_role": "server", "kubelet_numa_rke2_write_files": False}
    before = plan("rke2", {"/etc/rancher/rke2/config.yaml": "token: x\n"}, **lablabs)
    assert before["restart"] == "none" and "does not carry numa.kubelet's kubelet settings yet" in before["warnings"][-1]
    config = "token: x\n" + "\n".join(before["rke2"]["options"]) + "\n"  # lablabs copies each option line verbatim
    stale = json.dumps({"policyName": "None"})
    after = plan("rke2", {"/etc/rancher/rke2/config.yaml": config, "/var/lib/kubelet/memory_manager_state": stale}, **lablabs)
    assert after["restart"] == "reset" and after["unit"] == "rke2-server.service"
    assert after["kubelet_inputs"]["flags"] == ["--" + item for item in sorted(before["rke2"]["kubelet_args"], key=lambda item: item.split("=")[0])]


def lablabs_plan(lablabs, files=None, intent=None, version="v1.32.5+rke2r1", **variables):
    """A plan in the lablabs.rke2 hand-over, the RKE2 role and version left to what lablabs knows (as discover() does)."""
    merged = dict(
        DEFAULTS,
        kubelet_numa_platform="rke2",
        kubelet_numa_config=INTENT if intent is None else intent,
        kubelet_numa_topology=TOPOLOGY,
        kubelet_numa_rke2_write_files=False,
        **variables,
    )
    node = FakeNode(files or {}, dirs={"/etc/rancher/rke2"})
    facts, _attributes = discover(merged, node, lablabs=dict(lablabs, rke2_version=version))
    assert ("rke2_version",) not in node.asked and not [ask for ask in node.asked if ask[0] == "unit_file_state"]
    return plan_host(merged, facts)


def test_lablabs_role_and_version_from_lablabs_on_a_fresh_node():
    # Nothing installed: `rke2 --version` would fail; lablabs' rke2_type / group and rke2_version are what it installs.
    server = lablabs_plan({"in_servers_group": True}, version="v1.31.9+rke2r1")
    assert (server["unit"], server["rke2"]["version"]) == ("rke2-server.service", "v1.31.9+rke2r1")
    agent = lablabs_plan({"rke2_type": "agent", "in_servers_group": True})
    assert agent["unit"] == "rke2-agent.service"
    with pytest.raises(PlanError, match=r"kubelet_numa_rke2_role: None is not one of server, agent .*rke2_type"):
        plan_host(
            dict(
                DEFAULTS,
                kubelet_numa_platform="rke2",
                kubelet_numa_config=INTENT,
                kubelet_numa_topology=TOPOLOGY,
                kubelet_numa_rke2_write_files=False,
                kubelet_numa_rke2_version="v1.32.5+rke2r1",
            ),
            {"files": {}, "lablabs": {}},
        )


def test_lablabs_options_merged_into_the_users_own_for_the_hosts_group():
    line = (
        'kubelet-arg: ["memory-manager-policy=Static", "topology-manager-policy=single-numa-node", "kube-reserved=memory=1Gi", '
        '"system-reserved=memory=1Gi", "reserved-memory=0:memory=1Gi;1:memory=1Gi"]'
    )
    server = lablabs_plan(
        {
            "in_servers_group": True,
            "rke2_server_options": ["node-ip: 192.0.2.11", {"write-kubeconfig-mode": "0600"}],
            "rke2_agent_options": ["node-label: [gpu=true]"],
        }
    )["rke2"]["lablabs"]
    assert server["rke2_server_options"] == ["node-ip: 192.0.2.11", {"write-kubeconfig-mode": "0600"}, line]
    assert server["rke2_agent_options"] == ["node-label: [gpu=true]"] and "rke2_kubelet_arg" not in server
    agent = lablabs_plan({"in_agents_group": True})["rke2"]["lablabs"]
    assert (agent["form"], agent["rke2_server_options"], agent["rke2_agent_options"]) == ("options", [], [line])


@pytest.mark.parametrize(
    "lablabs, message",
    [
        (
            {"in_servers_group": True, "rke2_server_options": ["kubelet-arg: [max-pods=58]"]},
            r"rke2_server_options\[0\] 'kubelet-arg: \[max-pods=58\]' sets kubelet-arg: lablabs.rke2 would render it beside",
        ),
        ({"in_agents_group": True, "rke2_agent_options": [{"kubelet-arg+": ["max-pods=58"]}]}, r"rke2_agent_options\[0\] .* sets kubelet-arg"),
        ({"rke2_type": "server"}, "this host is in neither lablabs.rke2 group 'masters' .* nor 'workers'"),
        (
            {"in_agents_group": True, "rke2_kubelet_arg": ["kube-reserved=memory=2Gi"]},
            "rke2_kubelet_arg item 'kube-reserved=memory=2Gi' contradicts numa.kubelet's 'kube-reserved=memory=1Gi'",
        ),
        ({"in_agents_group": True, "rke2_kubelet_arg": ["memory-manager-policy=None"]}, "contradicts numa.kubelet's 'memory-manager-policy=Static'"),
        ({"in_agents_group": True, "rke2_kubelet_arg": ["--config=/etc/kubelet.yaml"]}, "names kubelet config numa.kubelet cannot plan on"),
        (
            {"in_agents_group": True, "rke2_kubelet_config": {"kubeReserved": {"memory": "2Gi"}}},
            r"rke2_kubelet_config.kubeReserved.memory is '2Gi', kubelet_numa_config says '1Gi'",
        ),
    ],
)
def test_lablabs_refuses_by_name_what_would_be_lost_or_contradicted(lablabs, message):
    with pytest.raises(PlanError, match=message):
        lablabs_plan(lablabs)


def test_a_problem_in_the_kubelets_inputs_is_reported_once():
    """The plan layers the kubelet's inputs twice (before and after its reservedMemory); a problem they carry is one."""
    with pytest.raises(PlanError) as refused:
        lablabs_plan({"in_agents_group": True, "rke2_kubelet_config": {"kubeReserved": {"memory": "2Gi"}}})
    assert refused.value.problems == ["rke2_kubelet_config.kubeReserved.memory is '2Gi', kubelet_numa_config says '1Gi': set it in one place"]


def test_lablabs_kubelet_arg_merged_and_part_of_the_plan():
    # The user's own items stay and count: their eviction-hard sets the memory term, their kube-reserved cpu adds to ours.
    user = ["--kube-reserved=cpu=100m", "eviction-hard=memory.available<500Mi", "max-pods=58"]
    result = lablabs_plan({"in_agents_group": True, "rke2_kubelet_arg": user})
    handed = result["rke2"]["lablabs"]
    assert handed["form"] == "kubelet_arg" and handed["rke2_kubelet_arg"][:3] == user
    assert shares(result) == ["1274Mi", "1274Mi"]  # (1Gi + 1Gi + 500Mi) / 2
    # RKE2's disk thresholds would be replaced by the user's eviction-hard flag: ours carries them.
    assert "eviction-hard=imagefs.available<5%,nodefs.available<5%" in handed["rke2_kubelet_arg"]
    assert result["kubelet_config"]["evictionHard"] == {"imagefs.available": "5%", "memory.available": "500Mi", "nodefs.available": "5%"}
    assert result["kubelet_config"]["kubeReserved"] == {"cpu": "100m", "memory": "1Gi"} and result["kubelet_config"]["maxPods"] == 58
    assert handed["rke2_server_options"] == handed["rke2_agent_options"] == [] and result["rke2"]["options"] == []


@pytest.mark.parametrize("version", ["v1.31.9+rke2r1", "v1.32.5+rke2r1"])
def test_intent_eviction_hard_keeps_rke2_disk_thresholds(version):
    intent = dict(INTENT, evictionHard={"memory.available": "100Mi"})
    result = lablabs_plan({"in_servers_group": True}, intent=intent, version=version)
    assert "eviction-hard=imagefs.available<5%,memory.available<100Mi,nodefs.available<5%" in result["rke2"]["kubelet_args"]
    assert result["kubelet_config"]["evictionHard"] == {"imagefs.available": "5%", "memory.available": "100Mi", "nodefs.available": "5%"}
    assert shares(result) == ["1074Mi", "1074Mi"]
    written_items = plan("rke2", {}, intent=intent, kubelet_numa_rke2_version="v1.31.9+rke2r1", kubelet_numa_rke2_role="agent")
    assert "eviction-hard=imagefs.available<5%,memory.available<100Mi,nodefs.available<5%" in written_items["rke2"]["kubelet_args"]


def test_lablabs_kubelet_config_merged_with_its_config_item():
    user = {"imageGCHighThresholdPercent": 85, "kubeReserved": {"cpu": "200m"}}
    result = lablabs_plan({"in_agents_group": True, "rke2_kubelet_config": user})
    handed = result["rke2"]["lablabs"]
    assert handed["form"] == "kubelet_config" and handed["rke2_kubelet_arg"] == ["--config=/etc/rancher/rke2/kubelet-config.yaml"]
    assert handed["rke2_kubelet_config"]["imageGCHighThresholdPercent"] == 85
    assert handed["rke2_kubelet_config"]["kubeReserved"] == {"cpu": "200m", "memory": "1Gi"}
    assert handed["rke2_kubelet_config"]["reservedMemory"] == result["reserved_memory"]
    # From 1.32 RKE2 copies the file as the drop-in 10-cli-config.conf (no main file): RKE2's thresholds stay, no 100Mi.
    dropins = [item["path"] for item in result["kubelet_inputs"]["dropins"]]
    assert dropins == [
        "/var/lib/rancher/rke2/agent/etc/kubelet.conf.d/00-rke2-defaults.conf",
        "/var/lib/rancher/rke2/agent/etc/kubelet.conf.d/10-cli-config.conf",
    ]
    assert result["kubelet_inputs"]["config"] is None and shares(result) == ["1Gi", "1Gi"]
    # Before 1.32 it is the main --config file, and RKE2's --eviction-hard flag replaces its evictionHard default map.
    old = lablabs_plan({"in_agents_group": True, "rke2_kubelet_config": user}, version="v1.31.9+rke2r1")
    assert old["kubelet_inputs"]["config"]["path"] == "/etc/rancher/rke2/kubelet-config.yaml" and shares(old) == ["1Gi", "1Gi"]
    with pytest.raises(PlanError, match=re.escape("the kubelet flag --eviction-hard=imagefs.available<5%,nodefs.available<5% overrides evictionHard")):
        lablabs_plan(
            {"in_agents_group": True, "rke2_kubelet_config": user}, intent=dict(INTENT, evictionHard={"memory.available": "100Mi"}), version="v1.31.9+rke2r1"
        )


def test_lablabs_not_carried_until_config_yaml_gives_the_kubelet_the_plan():
    lablabs = {"in_servers_group": True}
    first = lablabs_plan(lablabs, {"/etc/rancher/rke2/config.yaml": "token: x\n"})
    assert "does not give the kubelet numa.kubelet's settings" in first["rke2"]["lablabs"]["not_carried"][0]
    carried = "token: x\n" + first["rke2"]["lablabs"]["rke2_server_options"][-1] + "\n"
    assert lablabs_plan(lablabs, {"/etc/rancher/rke2/config.yaml": carried})["rke2"]["lablabs"]["not_carried"] == []
    # An rke2_kubelet_arg the planning play could not see, rendered by lablabs as the later key: RKE2 keeps that one.
    lost = carried + "kubelet-arg:\n  - max-pods=58\n"
    assert "memoryManagerPolicy None" in lablabs_plan(lablabs, {"/etc/rancher/rke2/config.yaml": lost})["rke2"]["lablabs"]["not_carried"][0]


def test_nodeadm_formula_unless_pinned():
    intent = {"memoryManagerPolicy": "Static"}
    formula = plan("nodeadm", {}, intent=intent, kubelet_numa_instance_type="p4d.24xlarge")
    assert shares(formula) == ["4231Mi", "4231Mi"]  # (11 * 737 + 255)Mi + 100Mi = 8462Mi
    pinned = plan("nodeadm", {}, intent=dict(intent, kubeReserved={"memory": "8500Mi"}), kubelet_numa_instance_type="p4d.24xlarge")
    assert shares(pinned) == ["4300Mi", "4300Mi"]
    entry = written(pinned)["/etc/eks/nodeadm.d/50-numa-kubelet.yaml"]
    assert entry["content"]["kind"] == "NodeConfig" and entry["content"]["spec"]["kubelet"]["config"]["kubeReserved"] == {"memory": "8500Mi"}
    assert pinned["apply_unit"] == "nodeadm-run.service"


def test_nodeadm_reads_the_nodes_base_config():
    base = json.dumps(
        {
            "apiVersion": "kubelet.config.k8s.io/v1beta1",
            "kind": "KubeletConfiguration",
            "kubeReserved": {"memory": "574Mi"},
            "evictionHard": {"memory.available": "100Mi", "nodefs.available": "10%"},
        }
    )
    result = plan("nodeadm", {"/etc/kubernetes/kubelet/config.json": base}, intent={"memoryManagerPolicy": "Static"})
    assert shares(result) == ["337Mi", "337Mi"]


def test_change_detection():
    files = {"/var/lib/kubelet/config.yaml": KUBEADM_MAIN}
    first = plan("kubeadm", files)
    applied = dict(files)
    for entry in first["files"]:
        applied[entry["path"]] = entry.get("text") or yaml.safe_dump(entry["content"])
    applied["/var/lib/kubelet/memory_manager_state"] = json.dumps(
        {
            "policyName": "Static",
            "machineState": {
                str(node): {"memoryMap": {"memory": {"systemReserved": value}}} for node, value in first["expected_state"]["systemReserved"].items()
            },
        }
    )
    assert plan("kubeadm", applied)["restart"] == "none"
    # A comment in our file changes nothing the kubelet reads.
    commented = dict(applied)
    commented["/etc/kubernetes/kubelet.conf.d/50-numa-kubelet.conf"] = "# hand edit\n" + applied["/etc/kubernetes/kubelet.conf.d/50-numa-kubelet.conf"]
    assert plan("kubeadm", commented)["restart"] == "none"
    assert plan("kubeadm", applied, intent=dict(INTENT, maxPods=58))["restart"] == "restart"
    changed = plan("kubeadm", applied, intent=dict(INTENT, systemReserved={"memory": "2Gi"}))
    assert changed["restart"] == "reset" and not changed["reset_cpu_manager_state"]
    cpu = plan("kubeadm", applied, intent=dict(INTENT, cpuManagerPolicy="static", kubeReserved={"memory": "1Gi", "cpu": "500m"}))
    assert cpu["restart"] == "reset" and cpu["reset_cpu_manager_state"]
    drift = dict(applied, **{"/var/lib/kubelet/memory_manager_state": json.dumps({"policyName": "None"})})
    assert plan("kubeadm", drift)["restart"] == "reset"


@pytest.mark.parametrize(
    ("variables", "message"),
    [
        ({"kubelet_numa_platform": "k0s"}, "kubelet_numa_platform: 'k0s' is not one of kubeadm, rke2, nodeadm, k3s"),
        ({"kubelet_numa_kubelet_root_dir": "var/lib/kubelet"}, "kubelet_numa_kubelet_root_dir: 'var/lib/kubelet' must be an absolute path"),
        ({"kubelet_numa_kubeadm_config_dir": "/etc/../tmp"}, "kubelet_numa_kubeadm_config_dir: '/etc/../tmp' must be an absolute path"),
        ({"kubelet_numa_dropin_name": "../x"}, "kubelet_numa_dropin_name: '../x' must be a plain file name"),
        ({"kubelet_numa_reserved_memory_split": {3: "2148Mi"}}, "split: NUMA nodes [3] do not exist on this machine (it has [0, 1])"),
        ({"kubelet_numa_config": dict(INTENT, systemReserved={"memory": "40Gi"})}, "reservedMemory for NUMA node 0 is 21042Mi but that node has only 16Gi"),
        ({"kubelet_numa_config": dict(INTENT, reservedMemory=[])}, "kubelet_numa_config.reservedMemory: computed by the collection"),
        ({"kubelet_numa_config": dict(INTENT, memoryManagerPolicy="static")}, 'memoryManagerPolicy: unknown policy: "static"'),
    ],
)
def test_bad_input_fails_in_planning(variables, message):
    merged = dict(DEFAULTS, kubelet_numa_platform="kubeadm", kubelet_numa_config=INTENT, kubelet_numa_topology=TOPOLOGY)
    merged.update(variables)
    with pytest.raises(PlanError) as raised:
        plan_host(merged, {"files": {"/var/lib/kubelet/config.yaml": KUBEADM_MAIN}})
    assert any(message in problem for problem in raised.value.problems), raised.value.problems


def test_detection():
    assert detect_platform({"/var/lib/kubelet/config.yaml"}) == "kubeadm"
    assert detect_platform({"/etc/rancher/rke2/config.yaml"}) == "rke2"
    assert reads(dict(DEFAULTS), existing=["/etc/eks/nodeadm.d"])["platform"] == "nodeadm"
    with pytest.raises(PlanError, match=r"this host looks like kubeadm .* and rke2"):
        detect_platform({"/var/lib/kubelet/config.yaml", "/etc/rancher/rke2"})
    with pytest.raises(PlanError, match="cannot detect the platform: none of"):
        detect_platform(set())


class FakeNode:
    """A node as discover() asks it: files on disk, units, an IMDS; every question is logged."""

    def __init__(
        self,
        files=None,
        dirs=(),
        units=None,
        instance_type="m5.large",
        rke2_version="rke2 version v1.32.5+rke2r1 (abc)",
        k3s_version="k3s version v1.32.5+k3s1 (abc)",
    ):
        self.files = dict(files or {})
        self.dirs = set(dirs)
        self.units = dict(units or {})
        self.active = {}
        self._instance_type = instance_type
        self._rke2_version = rke2_version
        self._k3s_version = k3s_version
        self.asked = []

    def read(self, paths, dirs, topology, units=()):
        self.asked.append(("read", list(paths), list(dirs), topology))
        existing = [path for path in paths if path in self.files or path in self.dirs]
        files = {path: self.files.get(path) for path in paths if path not in self.dirs}
        for directory in dirs:
            if directory in self.dirs:
                existing.append(directory)
                files.update({path: text for path, text in self.files.items() if posixpath.dirname(path) == directory})
        found = {"files": files, "existing": existing, "attributes": {path: {"mode": "0644", "owner": "root", "group": "root"} for path in existing}}
        if topology:
            found["topology"] = TOPOLOGY
        if units:
            found["units"] = {unit: self.active.get(unit, {"active_state": "active", "sub_state": "running"}) for unit in units}
        return found

    def topology(self):
        self.asked.append(("topology",))
        return TOPOLOGY

    def rke2_version(self):
        self.asked.append(("rke2_version",))
        return self._rke2_version

    def k3s_version(self):
        self.asked.append(("k3s_version",))
        return self._k3s_version

    def unit_file_state(self, unit):
        self.asked.append(("unit_file_state", unit))
        return self.units.get(unit)

    def instance_type(self):
        self.asked.append(("instance_type",))
        return self._instance_type


def test_discover_kubeadm_reads_once_with_the_topology_and_what_the_caller_writes():
    node = FakeNode({"/var/lib/kubelet/config.yaml": KUBEADM_MAIN}, dirs={"/etc/kubernetes/kubelet.conf.d"})
    facts, attributes = discover(dict(DEFAULTS, kubelet_numa_platform="kubeadm"), node, ["/run/numa-kubelet"])
    assert node.asked == [
        (
            "read",
            [
                "/var/lib/kubelet/config.yaml",
                "/var/lib/kubelet/kubeadm-flags.env",
                "/etc/default/kubelet",
                "/var/lib/kubelet/memory_manager_state",
                "/var/lib/kubelet/cpu_manager_state",
                "/run/numa-kubelet",
            ],
            ["/etc/kubernetes/kubelet.conf.d"],
            True,
        )
    ]
    assert facts["platform"] == "kubeadm" and facts["numa_nodes"] == TOPOLOGY["numa_nodes"]
    assert facts["files"]["/var/lib/kubelet/config.yaml"] == KUBEADM_MAIN and facts["files"]["/etc/default/kubelet"] is None
    assert set(attributes) == {"/var/lib/kubelet/config.yaml", "/etc/kubernetes/kubelet.conf.d"}
    assert plan_host(dict(DEFAULTS, kubelet_numa_platform="kubeadm", kubelet_numa_config=INTENT), facts)["platform"] == "kubeadm"


def test_discover_reads_the_drop_in_directory_a_config_dir_flag_names():
    flags = 'KUBELET_KUBEADM_ARGS="--config-dir=/etc/kubelet-extra.d"\n'
    node = FakeNode(
        {
            "/var/lib/kubelet/config.yaml": KUBEADM_MAIN,
            "/var/lib/kubelet/kubeadm-flags.env": flags,
            "/etc/kubelet-extra.d/10-x.conf": "kind: KubeletConfiguration\n",
        },
        dirs={"/etc/kubelet-extra.d"},
    )
    facts, attributes = discover(dict(DEFAULTS, kubelet_numa_platform="kubeadm"), node)
    assert node.asked[1] == ("read", [], ["/etc/kubelet-extra.d"], False)
    assert len(node.asked) == 2
    assert facts["files"]["/etc/kubelet-extra.d/10-x.conf"] == "kind: KubeletConfiguration\n"
    assert "/etc/kubelet-extra.d" in attributes


def test_discover_detects_rke2_then_asks_its_version_and_enabled_service():
    node = FakeNode(
        {"/etc/rancher/rke2/config.yaml": "token: x\n"}, dirs={"/etc/rancher/rke2"}, units={"rke2-server.service": "disabled", "rke2-agent.service": "enabled"}
    )
    facts, _attributes = discover(dict(DEFAULTS), node)
    assert node.asked[0] == ("read", detection_paths(), [], False)
    assert node.asked[1][0] == "read" and "/etc/rancher/rke2/config.yaml" in node.asked[1][1]
    assert node.asked[2:] == [("rke2_version",), ("unit_file_state", "rke2-server.service"), ("unit_file_state", "rke2-agent.service")]
    assert (facts["platform"], facts["rke2_role"], facts["rke2_version"]) == ("rke2", "agent", "rke2 version v1.32.5+rke2r1 (abc)")
    node = FakeNode(dirs={"/etc/rancher/rke2"})
    facts, _attributes = discover(dict(DEFAULTS, kubelet_numa_rke2_version="v1.31.9+rke2r1", kubelet_numa_rke2_role="server"), node)
    assert [question[0] for question in node.asked] == ["read", "read"]
    assert (facts["rke2_version"], facts["rke2_role"]) == ("", "")


@pytest.mark.parametrize(
    "variables, files, asks",
    [
        ({}, {}, True),
        ({"kubelet_numa_instance_type": "p4d.24xlarge"}, {}, False),
        ({"kubelet_numa_max_pods": 110}, {}, False),
        ({}, {"/etc/kubernetes/kubelet/config.json": "{}"}, False),
    ],
)
def test_discover_asks_the_instance_metadata_only_when_nothing_else_gives_kube_reserved(variables, files, asks):
    node = FakeNode(files, dirs={"/etc/eks/nodeadm.d"})
    facts, _attributes = discover(dict(DEFAULTS, kubelet_numa_platform="nodeadm", **variables), node)
    assert (("instance_type",) in node.asked) is asks
    assert facts["instance_type"] == ("m5.large" if asks else "")


def test_discover_with_given_files_reads_nothing_but_the_topology_when_missing():
    given = {"/var/lib/kubelet/config.yaml": KUBEADM_MAIN}
    node = FakeNode()
    facts, attributes = discover(dict(DEFAULTS, kubelet_numa_node_files=given), node)
    assert node.asked == [("topology",)]
    assert (facts["platform"], facts["files"], attributes) == ("kubeadm", given, {})
    node = FakeNode()
    discover(dict(DEFAULTS, kubelet_numa_node_files=given, kubelet_numa_topology=TOPOLOGY), node)
    assert node.asked == []


def test_discover_refuses_an_undetectable_platform_before_reading_files():
    node = FakeNode()
    with pytest.raises(PlanError, match="cannot detect the platform: none of"):
        discover(dict(DEFAULTS), node)
    assert len(node.asked) == 1


def test_manager_inputs_digest_follows_the_reset_rule():
    """The checkpoint guard's digest changes exactly when a change of the config needs a reset."""
    files = {"/var/lib/kubelet/config.yaml": KUBEADM_MAIN}
    first = plan("kubeadm", files)
    assert first["manager_inputs"]["planned"].startswith("sha256:") and first["manager_inputs"]["current"] != first["manager_inputs"]["planned"]
    applied = dict(files)
    for entry in first["files"]:
        applied[entry["path"]] = entry.get("text") or yaml.safe_dump(entry["content"])
    again = plan("kubeadm", applied)
    assert again["manager_inputs"]["current"] == again["manager_inputs"]["planned"] == first["manager_inputs"]["planned"]
    # Not a manager input: a restart, same digest.
    assert plan("kubeadm", applied, intent=dict(INTENT, maxPods=58))["manager_inputs"]["planned"] == first["manager_inputs"]["planned"]
    # The same quantity spelled another way is the same input.
    spelled = plan("kubeadm", applied, intent=dict(INTENT, kubeReserved={"memory": "1024Mi"}, systemReserved={"memory": str(1 << 30)}))
    assert spelled["manager_inputs"]["planned"] == first["manager_inputs"]["planned"]
    for intent in (dict(INTENT, systemReserved={"memory": "2Gi"}), dict(INTENT, cpuManagerPolicy="static", kubeReserved={"memory": "1Gi", "cpu": "500m"})):
        changed = plan("kubeadm", applied, intent=intent)
        assert changed["restart"] == "reset" and changed["manager_inputs"]["planned"] != first["manager_inputs"]["planned"]


def test_a_kubelet_that_does_not_run_is_started_even_when_nothing_else_changes():
    files = {"/var/lib/kubelet/config.yaml": KUBEADM_MAIN}
    first = plan("kubeadm", files)
    applied = dict(files)
    for entry in first["files"]:
        applied[entry["path"]] = entry.get("text") or yaml.safe_dump(entry["content"])
    applied["/var/lib/kubelet/memory_manager_state"] = json.dumps(
        {
            "policyName": "Static",
            "machineState": {node: {"memoryMap": {"memory": {"systemReserved": value}}} for node, value in first["expected_state"]["systemReserved"].items()},
        }
    )
    merged = dict(DEFAULTS, kubelet_numa_platform="kubeadm", kubelet_numa_config=INTENT, kubelet_numa_topology=TOPOLOGY)
    running = plan_host(merged, {"files": applied, "unit_states": {"kubelet.service": {"active_state": "active", "sub_state": "running"}}})
    assert running["restart"] == "none" and running["unit_state"]["active_state"] == "active"
    stopped = plan_host(merged, {"files": applied, "unit_states": {"kubelet.service": {"active_state": "failed", "sub_state": "failed"}}})
    assert stopped["restart"] == "restart" and stopped["warnings"][-1] == "kubelet.service is failed (failed): numa.kubelet starts it"
    # A reset stays a reset.
    assert plan_host(merged, {"files": files, "unit_states": {"kubelet.service": {"active_state": "inactive", "sub_state": "dead"}}})["restart"] == "reset"


def test_discover_reads_the_units_state_with_the_files():
    node = FakeNode({"/var/lib/kubelet/config.yaml": KUBEADM_MAIN})
    node.active["kubelet.service"] = {"active_state": "inactive", "sub_state": "dead"}
    facts, _attributes = discover(dict(DEFAULTS, kubelet_numa_platform="kubeadm", kubelet_numa_topology=TOPOLOGY), node, also_units=["kubelet.service"])
    assert facts["unit_states"] == {"kubelet.service": {"active_state": "inactive", "sub_state": "dead"}}


def test_the_split_has_no_default_of_the_engines_own():
    # The role's defaults are the only defaults (even): a caller of the filter that leaves the split out is told so.
    variables = dict(DEFAULTS, kubelet_numa_platform="kubeadm", kubelet_numa_config=INTENT, kubelet_numa_topology=TOPOLOGY)
    del variables["kubelet_numa_reserved_memory_split"]
    with pytest.raises(PlanError) as raised:
        plan_host(variables, {"files": {"/var/lib/kubelet/config.yaml": KUBEADM_MAIN}})
    assert raised.value.problems == ["kubelet_numa_reserved_memory_split: None is not one of even, first, proportional or a mapping {numa_id: quantity}"]


@pytest.mark.parametrize(
    "platform, variable, extra, problem",
    [
        (
            "nodeadm",
            "kubelet_numa_nodeadm_apply_service",
            {"kubelet_numa_instance_type": "m5.large"},
            (
                "kubelet_numa_nodeadm_apply_service: %r must be a systemd unit name (ASCII letters, digits and : - _ . \\ @): "
                "the unit that applies /etc/eks/nodeadm.d and starts the kubelet"
            ),
        ),
        (
            "rke2",
            "kubelet_numa_rke2_write_files",
            {"kubelet_numa_rke2_version": "v1.32.5+rke2r1", "kubelet_numa_rke2_role": "server"},
            "kubelet_numa_rke2_write_files: %r must be true or false",
        ),
    ],
)
def test_platform_variables_have_no_default_of_the_engines_own(platform, variable, extra, problem):
    # The role's defaults are the only defaults: left out, or a value that is no value, is a problem naming the variable;
    # the role's default plans as before.
    assert plan(platform, {}, **extra)  # DEFAULTS hold the role's value of the variable
    for value in (None, "", "nodeadm-run.service; rm -rf /", 1) if platform == "nodeadm" else (None, "yes", 0):
        variables = dict(DEFAULTS, kubelet_numa_platform=platform, kubelet_numa_config=INTENT, kubelet_numa_topology=TOPOLOGY, **extra)
        if value is None:
            del variables[variable]
        else:
            variables[variable] = value
        with pytest.raises(PlanError) as raised:
            plan_host(variables, {"files": {}})
        assert raised.value.problems == [problem % (value,)], value


def test_the_nodeadm_apply_unit_is_the_variables():
    result = plan("nodeadm", {}, kubelet_numa_instance_type="m5.large", kubelet_numa_nodeadm_apply_service="nodeadm-run@custom.service")
    assert result["apply_unit"] == "nodeadm-run@custom.service"


@pytest.mark.parametrize(
    ("variables", "expected"),
    [
        ({"kubelet_numa_kubelet_version": "1.34"}, ["kubelet_version: 1.34 is checked with the rules of kubelet 1.33"]),
        ({"kubelet_numa_kubelet_version": "1.33"}, []),
        ({"kubelet_numa_kubelet_version": ""}, []),
    ],
)
def test_kubelet_numa_kubelet_version_chooses_the_rules_of_a_kubeadm_node(variables, expected):
    result = plan("kubeadm", {"/var/lib/kubelet/config.yaml": KUBEADM_MAIN}, **variables)
    assert [warning.split(" (")[0] for warning in result["warnings"] if warning.startswith("kubelet_version: ")] == expected


IMAGE_POLICY = {"imagePullCredentialsVerificationPolicy": "NeverVerifyPreloadedImages"}
IMAGE_POLICY_REFUSED = (
    "imagePullCredentialsVerificationPolicy: invalid configuration: `imagePullCredentialsVerificationPolicy` must not be set if "
    "KubeletEnsureSecretPulledImages feature gate is not enabled"
)
RKE2_USER_DROPIN = "/var/lib/rancher/rke2/agent/etc/kubelet.conf.d/40-user.conf"


@pytest.mark.parametrize(("version", "refused"), [("1.33", True), ("1.36", False)])
def test_a_value_equal_to_a_newer_kubelets_default_is_judged_by_the_nodes_kubelet(version, refused):
    # v1.36 defaults the policy to NeverVerifyPreloadedImages; kubelet 1.33 refuses it set while its gate is off.
    intent = dict(INTENT, **IMAGE_POLICY)
    if refused:
        with pytest.raises(PlanError) as raised:
            plan("kubeadm", {"/var/lib/kubelet/config.yaml": KUBEADM_MAIN}, intent=intent, kubelet_numa_kubelet_version=version)
        assert raised.value.problems == [IMAGE_POLICY_REFUSED]
    else:
        result = plan("kubeadm", {"/var/lib/kubelet/config.yaml": KUBEADM_MAIN}, intent=intent, kubelet_numa_kubelet_version=version)
        assert result["kubelet_config"]["imagePullCredentialsVerificationPolicy"] == "NeverVerifyPreloadedImages"


@pytest.mark.parametrize(("version", "refused"), [("v1.33.1+rke2r1", True), ("v1.36.0+rke2r1", False)])
def test_an_rke2_users_dropin_is_judged_by_the_nodes_kubelet(version, refused):
    files = {RKE2_USER_DROPIN: "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n" + yaml.safe_dump(IMAGE_POLICY)}
    if refused:
        with pytest.raises(PlanError) as raised:
            plan("rke2", files, kubelet_numa_rke2_version=version, kubelet_numa_rke2_role="agent")
        assert raised.value.problems == [IMAGE_POLICY_REFUSED]
    else:
        result = plan("rke2", files, kubelet_numa_rke2_version=version, kubelet_numa_rke2_role="agent")
        assert result["kubelet_config"]["imagePullCredentialsVerificationPolicy"] == "NeverVerifyPreloadedImages"


def test_the_users_kubelet_version_wins_over_the_platforms():
    result = plan("rke2", {}, kubelet_numa_rke2_version="v1.32.5+rke2r1", kubelet_numa_rke2_role="agent", kubelet_numa_kubelet_version="1.31")
    assert not [warning for warning in result["warnings"] if warning.startswith("kubelet_version: ")]


def test_a_kubelet_version_that_is_not_one_is_refused_by_its_variable():
    with pytest.raises(PlanError) as raised:
        plan("kubeadm", {"/var/lib/kubelet/config.yaml": KUBEADM_MAIN}, kubelet_numa_kubelet_version=1.3)
    assert raised.value.problems == [
        'kubelet_numa_kubelet_version: 1.3 is not a kubelet version such as "1.33" (a quoted string: YAML reads 1.30 as the number 1.3)'
    ]
