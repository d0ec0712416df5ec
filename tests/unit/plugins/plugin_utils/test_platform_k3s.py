# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""k3s (_platform_k3s on _k3s_agent): RKE2's config.yaml / kubelet-arg rules under k3s's own names, units and version gate."""

from __future__ import annotations

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._discovery import detection_paths, discover
from ansible_collections.numa.kubelet.plugins.plugin_utils._plan_inputs import PlanError
from ansible_collections.numa.kubelet.tests.unit.plugins.plugin_utils.test_plan import DEFAULTS, FakeNode, plan, shares, written

CONFIG = "/etc/rancher/k3s/config.yaml"
FRAGMENT = "/etc/rancher/k3s/config.yaml.d/50-numa-kubelet.yaml"
DROPIN_DIR = "/var/lib/rancher/k3s/agent/etc/kubelet.conf.d"
DROPIN = DROPIN_DIR + "/50-numa-kubelet.conf"
DEFAULTS_DROPIN = DROPIN_DIR + "/00-k3s-defaults.conf"
# What k3s >= 1.32 writes there (agent.go defaultKubeletConfig), the fields that matter to the reservation.
K3S_DEFAULTS = (
    "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
    "evictionHard: {imagefs.available: 5%, nodefs.available: 5%}\n"
    "evictionMinimumReclaim: {imagefs.available: 10%, nodefs.available: 10%}\n"
)


def k3s(files=None, version="v1.32.5+k3s1", role="agent", **variables):
    return plan("k3s", dict({CONFIG: "token: x\n"}, **(files or {})), kubelet_numa_k3s_version=version, kubelet_numa_k3s_role=role, **variables)


@pytest.mark.parametrize(("role", "unit"), [("server", "k3s.service"), ("agent", "k3s-agent.service")])
def test_the_unit_is_the_one_install_sh_names(role, unit):
    assert k3s(role=role)["unit"] == unit


def test_from_1_32_a_dropin_after_k3s_defaults_and_no_memory_term():
    result = k3s({DEFAULTS_DROPIN: K3S_DEFAULTS})
    assert list(written(result)) == [DROPIN]
    entry = written(result)[DROPIN]
    assert (entry["template"], entry["mode"]) == ("k3s.j2", "0644")
    assert entry["content"]["reservedMemory"] == result["reserved_memory"]
    assert result["directories"] == [DROPIN_DIR]
    # --config-dir and no --config: 00-k3s-defaults.conf's disk-only evictionHard is the whole map, so 1Gi + 1Gi only.
    assert shares(result) == ["1Gi", "1Gi"]
    inputs = result["kubelet_inputs"]
    assert inputs["config"] is None and [dropin["path"] for dropin in inputs["dropins"]] == [DEFAULTS_DROPIN, DROPIN]
    assert result["k3s"]["version"] == "v1.32.5+k3s1" and result["k3s"]["role"] == "agent" and result["k3s"]["form"] == "dropin"


def test_before_its_first_start_the_defaults_dropin_k3s_will_write_is_counted():
    assert shares(k3s()) == shares(k3s({DEFAULTS_DROPIN: K3S_DEFAULTS}))


def test_before_1_32_kubelet_arg_items_in_config_yaml_d_like_rke2():
    result = k3s(version="v1.31.9+k3s1")
    assert list(written(result)) == [FRAGMENT]
    entry = written(result)[FRAGMENT]
    assert (entry["template"], entry["mode"]) == ("k3s.j2", "0600")
    assert entry["content"] == {"kubelet-arg+": result["k3s"]["kubelet_args"]}
    assert "reserved-memory=0:memory=1Gi;1:memory=1Gi" in result["k3s"]["kubelet_args"]
    # k3s's --eviction-hard (disk only) replaces the kubelet's map: no memory term.
    assert shares(result) == ["1Gi", "1Gi"]
    assert result["kubelet_config"]["evictionHard"] == {"imagefs.available": "5%", "nodefs.available": "5%"}
    assert result["directories"] == ["/etc/rancher/k3s/config.yaml.d"]


@pytest.mark.parametrize("version", ["1.31.9", "1.32.5"])
def test_the_same_rules_as_rke2_give_the_same_kubelet(version):
    ours = k3s(version=f"v{version}+k3s1")
    theirs = plan("rke2", {"/etc/rancher/rke2/config.yaml": "token: x\n"}, kubelet_numa_rke2_version=f"v{version}+rke2r1", kubelet_numa_rke2_role="agent")
    assert ours["kubelet_config"] == theirs["kubelet_config"]
    assert [entry["content"] for entry in ours["files"]] == [entry["content"] for entry in theirs["files"]]


def test_an_intent_eviction_hard_keeps_k3s_disk_thresholds_before_1_32():
    intent = {"memoryManagerPolicy": "Static", "evictionHard": {"memory.available": "200Mi"}, "systemReserved": {"memory": "1Gi"}}
    result = k3s(version="v1.30.2+k3s2", intent=intent)
    assert "eviction-hard=imagefs.available<5%,memory.available<200Mi,nodefs.available<5%" in result["k3s"]["kubelet_args"]
    assert result["kubelet_config"]["evictionHard"] == {"imagefs.available": "5%", "memory.available": "200Mi", "nodefs.available": "5%"}


def test_a_later_kubelet_arg_without_plus_is_refused_before_1_32_only():
    files = {"/etc/rancher/k3s/config.yaml.d/90-site.yaml": "kubelet-arg: [max-pods=58]\n"}
    with pytest.raises(PlanError) as raised:
        k3s(files, version="v1.31.9+k3s1")
    assert raised.value.problems == [
        (
            "/etc/rancher/k3s/config.yaml.d/90-site.yaml sets kubelet-arg without '+', which replaces every kubelet-arg "
            "before it, numa.kubelet's included; write it as kubelet-arg+ (k3s config.yaml.d rule)"
        )
    ]
    # From 1.32 ours is a drop-in: the item is one more flag.
    assert k3s(files)["kubelet_config"]["maxPods"] == 58


def test_a_user_flag_or_later_dropin_over_a_field_we_write_is_refused():
    files = {
        CONFIG: "token: x\nkubelet-arg: [kube-reserved=cpu=100m]\n",
        DROPIN_DIR + "/90-site.conf": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nsystemReserved: {memory: 2Gi}\n",
    }
    with pytest.raises(PlanError) as raised:
        k3s(files)
    assert raised.value.problems == [
        DROPIN_DIR + "/90-site.conf sets systemReserved, which overrides the value numa.kubelet writes (drop-ins are read in lexical order); "
        "move it into kubelet_numa_config or remove it",
        (
            "the kubelet flag --kube-reserved=cpu=100m overrides kubeReserved written by numa.kubelet (flags win over config files); "
            "remove the flag and set the field in kubelet_numa_config"
        ),
    ]


def test_a_kubelet_arg_config_file_is_a_dropin_from_1_32():
    # k3s copies it into the drop-in directory as 10-cli-config.conf (extractConfigArgs): no --config, no 100Mi default.
    files = {
        CONFIG: "token: x\nkubelet-arg: [config=/etc/rancher/k3s/kubelet.conf]\n",
        DROPIN_DIR + "/10-cli-config.conf": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: 58\n",
    }
    result = k3s(files)
    inputs = result["kubelet_inputs"]
    assert inputs["config"] is None and [dropin["path"] for dropin in inputs["dropins"]] == [DEFAULTS_DROPIN, DROPIN_DIR + "/10-cli-config.conf", DROPIN]
    assert result["kubelet_config"]["maxPods"] == 58 and shares(result) == ["1Gi", "1Gi"]


@pytest.mark.parametrize(
    ("variables", "message"),
    [
        ({"kubelet_numa_k3s_version": "1.32"}, "kubelet_numa_k3s_version: '1.32' is not a k3s version such as v1.32.5+k3s1"),
        (
            {"kubelet_numa_k3s_version": 1.32},
            "kubelet_numa_k3s_version: 1.32 (float) is not a k3s version such as v1.32.5+k3s1: write it as a quoted string (YAML reads 1.30 as the number 1.3)",
        ),
        ({"kubelet_numa_k3s_version": "latest"}, "kubelet_numa_k3s_version: 'latest' is not a k3s version such as v1.32.5+k3s1"),
        (
            {"kubelet_numa_k3s_role": "worker"},
            (
                "kubelet_numa_k3s_role: 'worker' is not one of server, agent (the k3s service this node runs: k3s.service for a server, "
                "k3s-agent.service for an agent)"
            ),
        ),
        (
            # A list is refused like any other role, not a TypeError (unhashable) from the unit lookup.
            {"kubelet_numa_k3s_role": ["agent"]},
            (
                "kubelet_numa_k3s_role: ['agent'] is not one of server, agent (the k3s service this node runs: k3s.service for a server, "
                "k3s-agent.service for an agent)"
            ),
        ),
        (
            {"kubelet_numa_k3s_data_dir": "var/lib/rancher/k3s"},
            (
                "kubelet_numa_k3s_data_dir: 'var/lib/rancher/k3s' must be an absolute path of plain characters (letters, digits, . _ - + @ : = /), "
                "without '.' or '..' parts"
            ),
        ),
    ],
)
def test_bad_k3s_variables_name_the_variable_the_value_and_the_rule(variables, message):
    merged = dict({"kubelet_numa_k3s_version": "v1.32.5+k3s1", "kubelet_numa_k3s_role": "agent"}, **variables)
    with pytest.raises(PlanError) as raised:
        plan("k3s", {}, **merged)
    assert message in raised.value.problems, raised.value.problems


def test_custom_config_and_data_directories():
    result = plan(
        "k3s",
        {"/srv/k3s-etc/config.yaml": "token: x\n"},
        kubelet_numa_k3s_version="v1.33.1+k3s1",
        kubelet_numa_k3s_role="server",
        kubelet_numa_k3s_config_dir="/srv/k3s-etc",
        kubelet_numa_k3s_data_dir="/srv/k3s",
    )
    assert list(written(result)) == ["/srv/k3s/agent/etc/kubelet.conf.d/50-numa-kubelet.conf"]


def test_discover_detects_k3s_then_asks_its_version_and_enabled_service():
    node = FakeNode({CONFIG: "token: x\n"}, dirs={"/etc/rancher/k3s"}, units={"k3s.service": "disabled", "k3s-agent.service": "enabled"})
    facts, _attributes = discover(dict(DEFAULTS), node)
    assert node.asked[0] == ("read", detection_paths(), [], False)
    assert node.asked[1] == (
        "read",
        [CONFIG, "/var/lib/kubelet/memory_manager_state", "/var/lib/kubelet/cpu_manager_state"],
        ["/etc/rancher/k3s/config.yaml.d", DROPIN_DIR],
        True,
    )
    assert node.asked[2:] == [("k3s_version",), ("unit_file_state", "k3s.service"), ("unit_file_state", "k3s-agent.service")]
    assert (facts["platform"], facts["k3s_role"], facts["k3s_version"]) == ("k3s", "agent", "k3s version v1.32.5+k3s1 (abc)")
    plan_from_facts = plan("k3s", facts["files"], kubelet_numa_k3s_version=facts["k3s_version"], kubelet_numa_k3s_role=facts["k3s_role"])
    assert plan_from_facts["unit"] == "k3s-agent.service"
    node = FakeNode(dirs={"/etc/rancher/k3s"})
    facts, _attributes = discover(dict(DEFAULTS, kubelet_numa_k3s_version="v1.31.9+k3s1", kubelet_numa_k3s_role="server"), node)
    assert [question[0] for question in node.asked] == ["read", "read"]
    assert (facts["k3s_version"], facts["k3s_role"]) == ("", "")
