# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The nodeadm plan is what nodeadm rebuilds at the next boot: user data, then /etc/eks/nodeadm.d, never the old drop-in."""

from __future__ import annotations

import base64
import gzip
import json

import pytest
import yaml

from ansible_collections.numa.kubelet.plugins.plugin_utils._allocatable import memory_reservation
from ansible_collections.numa.kubelet.plugins.plugin_utils._discovery import discover, reads
from ansible_collections.numa.kubelet.plugins.plugin_utils._plan import plan_host
from ansible_collections.numa.kubelet.plugins.plugin_utils._plan_inputs import PlanError
from ansible_collections.numa.kubelet.tests.unit.plugins.plugin_utils.test_plan import DEFAULTS, TOPOLOGY

OURS = "/etc/eks/nodeadm.d/50-numa-kubelet.yaml"
DROPIN = "/etc/kubernetes/kubelet/config.json.d/40-nodeadm.conf"
BASE = "/etc/kubernetes/kubelet/config.json"
CA = base64.b64encode(b"-----BEGIN CERTIFICATE-----\nTUlJQm51bWEta3ViZWxldA==\n-----END CERTIFICATE-----\n").decode()
# m5.large as nodeadm writes its base: kubeReserved 11 * 29 + 255 = 574Mi, evictionHard memory.available 100Mi.
BASE_CONFIG = json.dumps(
    {
        "apiVersion": "kubelet.config.k8s.io/v1beta1",
        "kind": "KubeletConfiguration",
        "kubeReserved": {"cpu": "80m", "ephemeral-storage": "1Gi", "memory": "574Mi"},
        "evictionHard": {"memory.available": "100Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%"},
    }
)
# The node class's user data pins kubeReserved at 2Gi.
USER_DATA = f"""MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="//"

--//
Content-Type: text/x-shellscript; charset="us-ascii"

#!/bin/sh
echo hello
--//
Content-Type: application/node.eks.aws

---
apiVersion: node.eks.aws/v1alpha1
kind: NodeConfig
spec:
  cluster:
    name: my-cluster
    apiServerEndpoint: https://example.com
    certificateAuthority: {CA}
    cidr: 10.100.0.0/16
  kubelet:
    config:
      kubeReserved:
        memory: 2Gi
--//--
"""
OLD_INTENT = {"memoryManagerPolicy": "Static", "topologyManagerPolicy": "single-numa-node", "systemReserved": {"memory": "512Mi"}}
NEW_INTENT = {"memoryManagerPolicy": "Static", "topologyManagerPolicy": "single-numa-node"}


def nodeconfig(config):
    return yaml.safe_dump({"apiVersion": "node.eks.aws/v1alpha1", "kind": "NodeConfig", "spec": {"kubelet": {"config": config}}})


def plan(files, intent=None, **variables):
    merged = dict(
        DEFAULTS, kubelet_numa_platform="nodeadm", kubelet_numa_config=NEW_INTENT if intent is None else intent, kubelet_numa_topology=TOPOLOGY, **variables
    )
    return plan_host(merged, {"files": files})


def problems(files, intent=None, **variables):
    with pytest.raises(PlanError) as raised:
        plan(files, intent, **variables)
    return raised.value.problems


def booted_with(intent, **variables):
    """The node after numa.kubelet applied `intent` and nodeadm-run rebuilt 40-nodeadm.conf from the user data + nodeadm.d."""
    files = {BASE: BASE_CONFIG}
    applied = plan(files, intent, kubelet_numa_nodeadm_user_data=USER_DATA)
    files[OURS] = yaml.safe_dump(applied["files"][0]["content"])
    files[DROPIN] = json.dumps(applied["kubelet_inputs"]["dropins"][0]["content"])
    return files, applied


def test_removing_a_setting_from_the_intent_is_planned_as_nodeadm_rebuilds_it():
    files, applied = booted_with(OLD_INTENT)
    assert str(memory_reservation(applied["kubelet_config"]).total) == "2660Mi"  # 2Gi + 512Mi + 100Mi
    # systemReserved dropped: nodeadm's next 40-nodeadm.conf has no systemReserved, whatever the old one held.
    exact = plan(files, kubelet_numa_nodeadm_user_data=USER_DATA)
    assert str(memory_reservation(exact["kubelet_config"]).total) == "2148Mi"
    assert "systemReserved" not in exact["kubelet_inputs"]["dropins"][0]["content"]
    assert exact["restart"] == "reset" and exact["warnings"] == []
    assert exact["nodeadm"] == {"user_data": "given", "sources": ["user data", "numa.kubelet"]}
    # Without the user data the plan infers it from the old drop-in minus what nodeadm.d sets, and says so.
    inferred = plan(files)
    assert inferred["kubelet_config"] == exact["kubelet_config"] and inferred["restart"] == "reset"
    assert inferred["warnings"] == [
        (
            "the node's user data was not given (kubelet_numa_nodeadm_user_data, kubelet_numa_nodeadm_user_data_path or "
            "kubelet_numa_nodeadm_user_data_from_imds), so the plan assumes its kubelet settings are those of the current 40-nodeadm.conf "
            "that no /etc/eks/nodeadm.d file sets: kubeReserved; a user data value "
            "that a nodeadm.d file overrides is not seen. Give the user data to make the plan exact"
        )
    ]


def test_the_same_intent_again_is_no_restart():
    files, applied = booted_with(OLD_INTENT)
    again = plan(files, OLD_INTENT, kubelet_numa_nodeadm_user_data=USER_DATA)
    assert again["kubelet_config"] == applied["kubelet_config"] and again["restart"] != "reset"


def test_a_user_data_change_since_the_last_boot_is_a_restart_now():
    files, _applied = booted_with(NEW_INTENT)
    changed = USER_DATA.replace("memory: 2Gi", "memory: 3Gi")
    result = plan(files, kubelet_numa_nodeadm_user_data=changed)
    assert str(memory_reservation(result["kubelet_config"]).total) == "3172Mi" and result["restart"] == "reset"


def test_user_data_from_a_copy_on_the_node_base64_or_gzip():
    files, applied = booted_with(NEW_INTENT)
    copy = "/var/lib/cloud/instance/user-data.txt"
    assert copy in reads(dict(DEFAULTS, kubelet_numa_platform="nodeadm", kubelet_numa_nodeadm_user_data_path=copy))["files"]
    from_copy = plan(dict(files, **{copy: USER_DATA}), kubelet_numa_nodeadm_user_data_path=copy)
    assert from_copy["kubelet_config"] == applied["kubelet_config"] and from_copy["warnings"] == []
    for encoded in (base64.b64encode(USER_DATA.encode()).decode(), base64.b64encode(gzip.compress(USER_DATA.encode(), mtime=0)).decode()):
        assert plan(files, kubelet_numa_nodeadm_user_data=encoded)["kubelet_config"] == applied["kubelet_config"]
    assert problems(files, kubelet_numa_nodeadm_user_data_path=copy) == [
        "kubelet_numa_nodeadm_user_data_path: /var/lib/cloud/instance/user-data.txt does not exist on the node (or is not readable)"
    ]
    assert problems(dict(files, **{copy: USER_DATA}), kubelet_numa_nodeadm_user_data_path=copy, kubelet_numa_nodeadm_user_data=USER_DATA) == [
        "kubelet_numa_nodeadm_user_data and kubelet_numa_nodeadm_user_data_path are both set; give the user data once"
    ]


def test_only_the_first_document_of_a_nodeadm_d_file_counts_and_only_config_suffixes():
    files = {
        BASE: BASE_CONFIG,
        "/etc/eks/nodeadm.d/10-site.yaml": nodeconfig({"kubeReserved": {"memory": "1Gi"}}) + "---\n" + nodeconfig({"systemReserved": {"memory": "1Gi"}}),
        "/etc/eks/nodeadm.d/20-upper.YAML": nodeconfig({"evictionHard": {"memory.available": "300Mi"}}),
        "/etc/eks/nodeadm.d/30-notes.txt": "systemReserved: {memory: 5Gi}\n",
    }
    result = plan(files, kubelet_numa_nodeadm_user_data=USER_DATA)
    assert str(memory_reservation(result["kubelet_config"]).total) == "1324Mi"  # 1Gi + 300Mi; the second document is not read
    assert result["nodeadm"]["sources"] == ["user data", "/etc/eks/nodeadm.d/10-site.yaml", "/etc/eks/nodeadm.d/20-upper.YAML", "numa.kubelet"]


@pytest.mark.parametrize(
    "files, variables, phrase",
    [
        (
            {"/etc/eks/nodeadm.d/10-x.yaml": "apiVersion: v1\nkind: ConfigMap\n"},
            {},
            (
                "/etc/eks/nodeadm.d/10-x.yaml: the first YAML document must be apiVersion node.eks.aws/v1alpha1, kind NodeConfig (nodeadm reads only "
                "that one), got ('v1', 'ConfigMap'); nodeadm would fail on it and leave the kubelet unconfigured"
            ),
        ),
        ({"/etc/eks/nodeadm.d/10-x.yaml": ""}, {}, "/etc/eks/nodeadm.d/10-x.yaml: the first YAML document must be"),
        (
            {},
            {"kubelet_numa_nodeadm_user_data": USER_DATA.replace(CA, "|\n      -----BEGIN CERTIFICATE-----\n      abc\n      -----END CERTIFICATE-----")},
            "spec.cluster.certificateAuthority is a PEM; nodeadm wants it base64-encoded",
        ),
        (
            {},
            {
                "kubelet_numa_nodeadm_user_data": (
                    'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="b"\n\n--b\nContent-Type: text/x-shellscript\n\necho\n--b--\n'
                )
            },
            "kubelet_numa_nodeadm_user_data: a MIME multi-part document without an application/node.eks.aws part",
        ),
        (
            {"/etc/eks/nodeadm.d/90-late.yaml": nodeconfig({"systemReserved": {"memory": "1Gi"}})},
            {"kubelet_numa_nodeadm_user_data": USER_DATA},
            "/etc/eks/nodeadm.d/90-late.yaml sets systemReserved, which overrides the value numa.kubelet writes",
        ),
    ],
)
def test_what_nodeadm_would_fail_on_or_override_is_refused(files, variables, phrase):
    found = problems(dict({BASE: BASE_CONFIG}, **files), OLD_INTENT, **variables)
    assert any(phrase in problem for problem in found), found


class _Node:
    """What discover() asks a nodeadm node: its files, and IMDS."""

    def __init__(self, files, user_data):
        self.files, self._user_data, self.asked = files, user_data, []

    def read(self, paths, dirs, topology, units=()):
        files = {path: self.files.get(path) for path in paths}
        for directory in dirs:
            files.update({path: text for path, text in self.files.items() if path.startswith(directory + "/")})
        return {"files": files, "existing": [path for path in files if files[path] is not None], "attributes": {}}

    def instance_type(self):
        self.asked.append("instance_type")
        return "m5.large"

    def user_data(self):
        self.asked.append("user_data")
        return self._user_data


@pytest.mark.parametrize(
    "variables, asks",
    [
        ({}, False),
        ({"kubelet_numa_nodeadm_user_data_from_imds": True}, True),
        ({"kubelet_numa_nodeadm_user_data_from_imds": True, "kubelet_numa_nodeadm_user_data": USER_DATA}, False),
    ],
)
def test_the_user_data_from_imds_as_nodeadm_reads_it(variables, asks):
    files, applied = booted_with(NEW_INTENT)
    node = _Node(files, USER_DATA)
    merged = dict(DEFAULTS, kubelet_numa_platform="nodeadm", kubelet_numa_topology=TOPOLOGY, kubelet_numa_config=NEW_INTENT, **variables)
    facts, _attributes = discover(merged, node)
    assert ("user_data" in node.asked) is asks and "instance_type" not in node.asked  # the base config.json gives kubeReserved
    result = plan_host(merged, facts)
    assert result["kubelet_config"] == applied["kubelet_config"]
    assert (result["warnings"] == []) is (asks or "kubelet_numa_nodeadm_user_data" in variables)
    if asks:
        # An instance without user data (IMDS 404): nodeadm reads none.
        facts["nodeadm_user_data"] = ""
        assert "kubeReserved" not in plan_host(merged, facts)["kubelet_inputs"]["dropins"][0]["content"]


def test_without_a_base_file_the_plan_runs_over_nodeadm_s_whole_base_config():
    planned = plan({}, kubelet_numa_instance_type="m5.large")
    base = planned["kubelet_inputs"]["config"]["content"]
    # m5.large: maxPods 29 from the ENI table, kubeReserved.memory 11 * 29 + 255 = 574Mi; the reserved cgroups and the
    # non-memory fields nodeadm writes take part in the kubelet's validation.
    assert base["maxPods"] == 29 and base["kubeReserved"]["memory"] == "574Mi"
    assert (base["systemReservedCgroup"], base["kubeReservedCgroup"], base["cgroupDriver"]) == ("/system", "/runtime", "systemd")
    assert planned["kubelet_config"]["serializeImagePulls"] is False


def test_reserved_cpus_on_nodeadm_s_reserved_cgroups_are_refused_with_the_kubelet_s_text():
    intent = dict(NEW_INTENT, reservedSystemCPUs="0")
    found = problems({}, intent, kubelet_numa_instance_type="m5.large")
    assert any("can't use reservedSystemCPUs (--reserved-cpus) with systemReservedCgroup" in problem for problem in found), found
    # Written as nodeadm's own fields allow it: both reserved cgroups emptied.
    cleared = dict(intent, systemReservedCgroup="", kubeReservedCgroup="")
    assert plan({}, cleared, kubelet_numa_instance_type="m5.large")["kubelet_config"]["reservedSystemCPUs"] == "0"


# nodeadm starts the kubelet with --config-dir=/etc/kubernetes/kubelet/config.json.d, which the kubelet walks down as
# any --config-dir (cmd/kubelet/app/server.go mergeKubeletConfigurations): a site's drop-in there, at any depth,
# counts after (or before) 40-nodeadm.conf.
SITE_DIR = "/etc/kubernetes/kubelet/config.json.d/60-site"


def kubelet_dropin(**fields):
    return json.dumps(dict({"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration"}, **fields))


def test_the_kubelets_drop_in_directory_is_read_at_every_depth():
    assert "/etc/kubernetes/kubelet/config.json.d" in reads(dict(DEFAULTS, kubelet_numa_platform="nodeadm"))["dirs"]
    files, applied = booted_with(NEW_INTENT)
    assert str(memory_reservation(applied["kubelet_config"]).total) == "2148Mi"  # 2Gi + 100Mi
    files[f"{SITE_DIR}/10-eviction.conf"] = kubelet_dropin(evictionHard={"memory.available": "300Mi"})
    files["/etc/kubernetes/kubelet/config.json.d/30-notes.txt"] = kubelet_dropin(evictionHard={"memory.available": "5Gi"})
    result = plan(files, kubelet_numa_nodeadm_user_data=USER_DATA)
    assert [dropin["path"] for dropin in result["kubelet_inputs"]["dropins"]] == [DROPIN, f"{SITE_DIR}/10-eviction.conf"]
    assert str(memory_reservation(result["kubelet_config"]).total) == "2348Mi"  # 2Gi + 300Mi; only *.conf files count


def test_a_drop_in_below_config_json_d_that_overrides_what_numa_kubelet_writes_is_refused():
    files, _applied = booted_with(OLD_INTENT)
    files[f"{SITE_DIR}/10-reserved.conf"] = kubelet_dropin(systemReserved={"memory": "1Gi"})
    overridden = (
        f"{SITE_DIR}/10-reserved.conf sets systemReserved, which overrides the value numa.kubelet writes (drop-ins are read in lexical order); "
        "move it into kubelet_numa_config or remove it"
    )
    assert problems(files, OLD_INTENT, kubelet_numa_nodeadm_user_data=USER_DATA) == [overridden]
