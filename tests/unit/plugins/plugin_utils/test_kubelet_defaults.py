# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet's v1beta1 defaulting of a main --config file (v1.36, Linux) and loadConfigFile's evictionHard step.

The expected values are written out from kubernetes pkg/kubelet/apis/config/v1beta1/defaults.go,
cmd/kubelet/app/server.go loadConfigFile and pkg/kubelet/eviction/defaults_linux.go (see KUBELET_DEFAULTS_SOURCE),
not computed by the code under test; they match the /configz of the kubelet v1.36.2 oracle.
"""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ansible_collections.numa.kubelet.plugins.plugin_utils._config import KubeletConfigError
from ansible_collections.numa.kubelet.plugins.plugin_utils._kubelet_defaults import (
    DEFAULT_EVICTION_HARD,
    KUBELET_DEFAULTS_SOURCE,
    apply_defaults,
    merge_default_eviction_settings,
)
from ansible_collections.numa.kubelet.plugins.plugin_utils._kubelet_field_table import KUBELET_CONFIGURATION_FIELDS

EVICTION_DEFAULTS = {
    "memory.available": "100Mi",
    "nodefs.available": "10%",
    "nodefs.inodesFree": "5%",
    "imagefs.available": "15%",
    "imagefs.inodesFree": "5%",
}

# SetDefaults_KubeletConfiguration on an empty v1beta1 object, in source order, then loadConfigFile's
# DefaultEvictionHard; written as a user writes them (Go duration strings, *int32 as int, *bool as bool).
FULL_DEFAULTS = {
    "apiVersion": "kubelet.config.k8s.io/v1beta1",
    "kind": "KubeletConfiguration",
    "enableServer": True,
    "syncFrequency": "1m0s",
    "fileCheckFrequency": "20s",
    "httpCheckFrequency": "20s",
    "address": "0.0.0.0",
    "port": 10250,
    "authentication": {
        "anonymous": {"enabled": False},
        "webhook": {"enabled": True, "cacheTTL": "2m0s"},
    },
    "authorization": {
        "mode": "Webhook",
        "webhook": {"cacheAuthorizedTTL": "5m0s", "cacheUnauthorizedTTL": "30s"},
    },
    "registryPullQPS": 5,
    "registryBurst": 10,
    "eventRecordQPS": 50,
    "eventBurst": 100,
    "enableDebuggingHandlers": True,
    "healthzPort": 10248,
    "healthzBindAddress": "127.0.0.1",
    "oomScoreAdj": -999,
    "streamingConnectionIdleTimeout": "4h0m0s",
    "nodeStatusReportFrequency": "5m0s",
    "nodeStatusUpdateFrequency": "10s",
    "nodeLeaseDurationSeconds": 40,
    "imageMinimumGCAge": "2m0s",
    "imageGCHighThresholdPercent": 85,
    "imageGCLowThresholdPercent": 80,
    "volumeStatsAggPeriod": "1m0s",
    "cgroupsPerQOS": True,
    "cgroupDriver": "cgroupfs",
    "cpuManagerPolicy": "none",
    "cpuManagerReconcilePeriod": "10s",
    "memoryManagerPolicy": "None",
    "topologyManagerPolicy": "none",
    "topologyManagerScope": "container",
    "runtimeRequestTimeout": "2m0s",
    "hairpinMode": "promiscuous-bridge",
    "maxPods": 110,
    "podPidsLimit": -1,
    "resolvConf": "/etc/resolv.conf",
    "cpuCFSQuota": True,
    "cpuCFSQuotaPeriod": "100ms",
    "nodeStatusMaxImages": 50,
    "maxOpenFiles": 1000000,
    "contentType": "application/vnd.kubernetes.protobuf",
    "kubeAPIQPS": 50,
    "kubeAPIBurst": 100,
    "serializeImagePulls": True,
    "evictionPressureTransitionPeriod": "5m0s",
    "mergeDefaultEvictionSettings": False,
    "enableControllerAttachDetach": True,
    "makeIPTablesUtilChains": True,
    "iptablesMasqueradeBit": 14,
    "iptablesDropBit": 15,
    "failSwapOn": True,
    "containerLogMaxSize": "10Mi",
    "containerLogMaxFiles": 5,
    "containerLogMaxWorkers": 1,
    "containerLogMonitorInterval": "10s",
    "configMapAndSecretChangeDetectionStrategy": "Watch",
    "enforceNodeAllocatable": ["pods"],
    "volumePluginDir": "/usr/libexec/kubernetes/kubelet-plugins/volume/exec/",
    "logging": {
        "format": "text",
        "flushFrequency": "5s",
        "options": {"text": {"infoBufferSize": "0"}, "json": {"infoBufferSize": "0"}},
    },
    "enableSystemLogHandler": True,
    "enableProfilingHandler": True,
    "enableDebugFlagsHandler": True,
    "seccompDefault": False,
    "failCgroupV1": True,
    "memoryThrottlingFactor": 0.9,
    "memoryReservationPolicy": "None",
    "registerNode": True,
    "localStorageCapacityIsolation": True,
    "containerRuntimeEndpoint": "unix:///run/containerd/containerd.sock",
    "podLogsDir": "/var/log/pods",
    "crashLoopBackOff": {"maxContainerRestartPeriod": "5m0s"},
    "imagePullCredentialsVerificationPolicy": "NeverVerifyPreloadedImages",
    "evictionHard": EVICTION_DEFAULTS,
}


def main(**fields):
    return dict({"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration"}, **fields)


def test_empty_config_gets_every_default():
    assert apply_defaults({}) == FULL_DEFAULTS


def test_only_apiversion_and_kind():
    assert apply_defaults(main()) == FULL_DEFAULTS


def test_apiversion_and_kind_kept_as_given():
    result = apply_defaults({"apiVersion": "kubelet.config.k8s.io/v1", "kind": "Other"})
    assert (result["apiVersion"], result["kind"]) == ("kubelet.config.k8s.io/v1", "Other")


def test_default_eviction_hard_is_the_v1_36_linux_map():
    assert DEFAULT_EVICTION_HARD == EVICTION_DEFAULTS


def test_every_produced_key_is_a_kubelet_field():
    for config in ({}, main(mergeDefaultEvictionSettings=True, evictionHard={"memory.available": "1Gi"})):
        assert set(apply_defaults(config)) <= KUBELET_CONFIGURATION_FIELDS


def test_user_values_are_kept():
    config = main(
        maxPods=250,
        syncFrequency="30s",
        nodeStatusUpdateFrequency="1m",  # kept as written, not rewritten to "1m0s"
        memoryManagerPolicy="Static",
        reservedMemory=[{"numaNode": 0, "limits": {"memory": "1124Mi"}}],
        kubeReserved={"memory": "512Mi"},
        authentication={"x509": {"clientCAFile": "/ca.crt"}, "webhook": {"enabled": False, "cacheTTL": "1m"}},
        authorization={"mode": "AlwaysAllow"},
        logging={"format": "json", "flushFrequency": 2000000000, "verbosity": 4, "options": {"json": {"infoBufferSize": "1Mi"}}},
        crashLoopBackOff={"maxContainerRestartPeriod": "1m"},
        imagePullCredentialsVerificationPolicy="AlwaysVerify",
        evictionHard={"memory.available": "500Mi"},
        featureGates={"MemoryQoS": True},
    )
    result = apply_defaults(config)
    for field in (
        "maxPods",
        "syncFrequency",
        "nodeStatusUpdateFrequency",
        "memoryManagerPolicy",
        "reservedMemory",
        "kubeReserved",
        "crashLoopBackOff",
        "imagePullCredentialsVerificationPolicy",
        "evictionHard",
        "featureGates",
    ):
        assert result[field] == config[field]
    assert result["nodeStatusReportFrequency"] == "1m"  # follows an explicit update frequency
    assert result["authentication"] == {
        "x509": {"clientCAFile": "/ca.crt"},
        "webhook": {"enabled": False, "cacheTTL": "1m"},
        "anonymous": {"enabled": False},
    }
    assert result["authorization"] == {
        "mode": "AlwaysAllow",
        "webhook": {"cacheAuthorizedTTL": "5m0s", "cacheUnauthorizedTTL": "30s"},
    }
    assert result["logging"] == {
        "format": "json",
        "flushFrequency": 2000000000,
        "verbosity": 4,
        "options": {"json": {"infoBufferSize": "1Mi"}, "text": {"infoBufferSize": "0"}},
    }


def test_input_is_not_mutated_and_result_shares_nothing():
    config = main(
        authentication={"webhook": {}},
        logging={"options": {}},
        evictionHard={"memory.available": "1Gi"},
        mergeDefaultEvictionSettings=True,
        crashLoopBackOff={},
        enforceNodeAllocatable=["pods", "kube-reserved"],
    )
    before = copy.deepcopy(config)
    result = apply_defaults(config)
    assert config == before
    result["authentication"]["webhook"]["enabled"] = "changed"
    result["evictionHard"]["x"] = "y"
    result["enforceNodeAllocatable"].append("z")
    assert config == before
    again = apply_defaults({})
    again["evictionHard"]["memory.available"] = "1Gi"
    again["enforceNodeAllocatable"].append("z")
    assert apply_defaults({}) == FULL_DEFAULTS
    assert DEFAULT_EVICTION_HARD == EVICTION_DEFAULTS


# --- evictionHard and mergeDefaultEvictionSettings (server.go loadConfigFile)


def test_partial_eviction_hard_is_not_filled():
    result = apply_defaults(main(evictionHard={"nodefs.available": "7%"}))
    assert result["evictionHard"] == {"nodefs.available": "7%"}
    assert result["mergeDefaultEvictionSettings"] is False


def test_empty_eviction_hard_is_not_nil():
    assert apply_defaults(main(evictionHard={}))["evictionHard"] == {}


def test_null_eviction_hard_gets_the_defaults():
    assert apply_defaults(main(evictionHard=None))["evictionHard"] == EVICTION_DEFAULTS


def test_merge_default_eviction_settings_fills_missing_signals_only():
    config = main(
        mergeDefaultEvictionSettings=True,
        evictionHard={"nodefs.available": "7%", "memory.available": "1Gi"},
        evictionSoft={"memory.available": "300Mi"},
        evictionSoftGracePeriod={"memory.available": "1m"},
        evictionMinimumReclaim={"memory.available": "50Mi"},
    )
    result = apply_defaults(config)
    assert result["evictionHard"] == {
        "memory.available": "1Gi",
        "nodefs.available": "7%",
        "nodefs.inodesFree": "5%",
        "imagefs.available": "15%",
        "imagefs.inodesFree": "5%",
    }
    # No defaults exist for these, and loadConfigFile merges evictionHard only.
    assert result["evictionSoft"] == {"memory.available": "300Mi"}
    assert result["evictionSoftGracePeriod"] == {"memory.available": "1m"}
    assert result["evictionMinimumReclaim"] == {"memory.available": "50Mi"}


def test_merge_into_empty_map_gives_every_default():
    assert apply_defaults(main(mergeDefaultEvictionSettings=True, evictionHard={}))["evictionHard"] == EVICTION_DEFAULTS


def test_merge_default_eviction_settings_alone():
    config = main(mergeDefaultEvictionSettings=True, evictionHard={"memory.available": "200Mi"})
    before = copy.deepcopy(config)
    result = merge_default_eviction_settings(config)
    assert config == before
    assert result == main(
        mergeDefaultEvictionSettings=True,
        evictionHard={
            "memory.available": "200Mi",
            "nodefs.available": "10%",
            "nodefs.inodesFree": "5%",
            "imagefs.available": "15%",
            "imagefs.inodesFree": "5%",
        },
    )
    assert merge_default_eviction_settings({}) == {"evictionHard": EVICTION_DEFAULTS}
    assert merge_default_eviction_settings({"evictionHard": {"a": "1"}}) == {"evictionHard": {"a": "1"}}
    assert merge_default_eviction_settings({"evictionHard": {"a": "1"}, "mergeDefaultEvictionSettings": False}) == {
        "evictionHard": {"a": "1"},
        "mergeDefaultEvictionSettings": False,
    }


# --- Go zero-value rules


@pytest.mark.parametrize(
    "field, zero",
    [
        # pointer fields: only nil is defaulted, so a written zero stays
        ("eventRecordQPS", 0),
        ("registryPullQPS", 0),
        ("kubeAPIQPS", 0),
        ("healthzPort", 0),
        ("oomScoreAdj", 0),
        ("imageGCHighThresholdPercent", 0),
        ("imageGCLowThresholdPercent", 0),
        ("nodeStatusMaxImages", 0),
        ("containerLogMaxFiles", 0),
        ("containerLogMaxWorkers", 0),
        ("iptablesMasqueradeBit", 0),
        ("memoryThrottlingFactor", 0.0),
        ("enableServer", False),
        ("failSwapOn", False),
        ("failCgroupV1", False),
        ("cgroupsPerQOS", False),
        ("registerNode", False),
        ("resolvConf", ""),
        ("cpuCFSQuotaPeriod", "0s"),
        ("containerLogMonitorInterval", "0s"),
        ("enforceNodeAllocatable", []),
        ("podPidsLimit", 0),
    ],
)
def test_pointer_zero_is_kept(field, zero):
    assert apply_defaults(main(**{field: zero}))[field] == zero


@pytest.mark.parametrize(
    "field, zero, default",
    [
        # plain fields: `if obj.X == 0` / `== ""` / `== zeroDuration` replaces the zero value
        ("maxPods", 0, 110),
        ("registryBurst", 0, 10),
        ("eventBurst", 0, 100),
        ("kubeAPIBurst", 0, 100),
        ("port", 0, 10250),
        ("nodeLeaseDurationSeconds", 0, 40),
        ("maxOpenFiles", 0, 1000000),
        ("address", "", "0.0.0.0"),
        ("cgroupDriver", "", "cgroupfs"),
        ("memoryManagerPolicy", "", "None"),
        ("containerRuntimeEndpoint", "", "unix:///run/containerd/containerd.sock"),
        ("syncFrequency", "0s", "1m0s"),
        ("syncFrequency", "0", "1m0s"),
        ("syncFrequency", "-0h0m0s", "1m0s"),
        ("httpCheckFrequency", "0ms", "20s"),
        ("volumeStatsAggPeriod", "0.0s", "1m0s"),
    ],
)
def test_plain_zero_is_defaulted(field, zero, default):
    assert apply_defaults(main(**{field: zero}))[field] == default


@pytest.mark.parametrize(
    "field, default",
    [
        ("eventRecordQPS", 50),
        ("enableServer", True),
        ("maxPods", 110),
        ("address", "0.0.0.0"),
        ("enforceNodeAllocatable", ["pods"]),
        ("resolvConf", "/etc/resolv.conf"),
        ("mergeDefaultEvictionSettings", False),
    ],
)
def test_null_is_defaulted(field, default):
    assert apply_defaults(main(**{field: None}))[field] == default


def test_nested_zero_values():
    result = apply_defaults(
        main(
            authentication={"anonymous": {"enabled": False}, "webhook": {"enabled": False, "cacheTTL": "0s"}},
            authorization={"mode": "", "webhook": {"cacheAuthorizedTTL": "0s", "cacheUnauthorizedTTL": "1s"}},
            logging={"format": "", "flushFrequency": 0, "options": {"text": {"infoBufferSize": "0"}}},
            crashLoopBackOff={"maxContainerRestartPeriod": "0s"},
        )
    )
    assert result["authentication"] == {"anonymous": {"enabled": False}, "webhook": {"enabled": False, "cacheTTL": "2m0s"}}
    assert result["authorization"] == {"mode": "Webhook", "webhook": {"cacheAuthorizedTTL": "5m0s", "cacheUnauthorizedTTL": "1s"}}
    assert result["logging"] == FULL_DEFAULTS["logging"]
    assert result["crashLoopBackOff"] == {"maxContainerRestartPeriod": "0s"}  # a pointer: kept


@pytest.mark.parametrize("limit, expected", [(None, -1), (-5, -1), (-1, -1), (0, 0), (4096, 4096)])
def test_pod_pids_limit_negative_becomes_minus_one(limit, expected):
    assert apply_defaults(main(podPidsLimit=limit))["podPidsLimit"] == expected


@pytest.mark.parametrize("parallel, serialize", [(None, True), (0, True), (1, True), (2, False), (5, False)])
def test_serialize_image_pulls_follows_max_parallel_image_pulls(parallel, serialize):
    assert apply_defaults(main(maxParallelImagePulls=parallel))["serializeImagePulls"] is serialize


def test_explicit_serialize_image_pulls_is_kept():
    assert apply_defaults(main(maxParallelImagePulls=5, serializeImagePulls=True))["serializeImagePulls"] is True


def test_node_status_report_frequency_follows_update_frequency():
    assert apply_defaults(main(nodeStatusUpdateFrequency="20s"))["nodeStatusReportFrequency"] == "20s"
    assert apply_defaults(main(nodeStatusUpdateFrequency="0s"))["nodeStatusReportFrequency"] == "5m0s"
    result = apply_defaults(main(nodeStatusUpdateFrequency="20s", nodeStatusReportFrequency="2m"))
    assert (result["nodeStatusUpdateFrequency"], result["nodeStatusReportFrequency"]) == ("20s", "2m")


# --- feature-gated defaults (v1.36: KubeletCrashLoopBackOffMax and KubeletEnsureSecretPulledImages beta, on)


def test_gate_off_leaves_crash_loop_back_off_unset():
    result = apply_defaults(main(featureGates={"KubeletCrashLoopBackOffMax": False}))
    assert "crashLoopBackOff" not in result
    assert result["imagePullCredentialsVerificationPolicy"] == "NeverVerifyPreloadedImages"


def test_gate_off_leaves_image_pull_policy_unset():
    result = apply_defaults(main(featureGates={"KubeletEnsureSecretPulledImages": False}))
    assert "imagePullCredentialsVerificationPolicy" not in result
    assert result["crashLoopBackOff"] == {"maxContainerRestartPeriod": "5m0s"}


def test_all_beta_false_turns_both_off_unless_set_explicitly():
    result = apply_defaults(main(featureGates={"AllBeta": False}))
    assert "crashLoopBackOff" not in result and "imagePullCredentialsVerificationPolicy" not in result
    result = apply_defaults(main(featureGates={"AllBeta": False, "KubeletCrashLoopBackOffMax": True}))
    assert result["crashLoopBackOff"] == {"maxContainerRestartPeriod": "5m0s"}
    assert "imagePullCredentialsVerificationPolicy" not in result
    # AllAlpha does not touch beta gates; memoryReservationPolicy is not gated.
    result = apply_defaults(main(featureGates={"AllAlpha": False, "MemoryQoS": False}))
    assert result["crashLoopBackOff"] == {"maxContainerRestartPeriod": "5m0s"}
    assert result["memoryReservationPolicy"] == "None"


# --- bad input that Go's decoding refuses


@pytest.mark.parametrize(
    "config, text",
    [
        (main(syncFrequency=None), 'syncFrequency: time: invalid duration ""'),
        (main(syncFrequency=60), "syncFrequency: a duration must be a string"),
        (main(syncFrequency="1x"), 'syncFrequency: time: unknown unit "x" in duration "1x"'),
        (main(syncFrequency="10"), 'syncFrequency: time: missing unit in duration "10"'),
        (main(maxPods="110"), "maxPods: must be an integer"),
        (main(maxPods=True), "maxPods: must be an integer"),
        (main(podPidsLimit=1.5), "podPidsLimit: must be an integer"),
        (main(featureGates={"AllBeta": "false"}), "featureGates.AllBeta: must be true or false"),
        (main(authentication="none"), "authentication: must be a mapping"),
        (main(evictionHard=["memory.available<100Mi"]), "evictionHard: must be a mapping"),
        (main(mergeDefaultEvictionSettings="yes", evictionHard={}), "mergeDefaultEvictionSettings: must be true or false"),
    ],
)
def test_bad_input_is_named(config, text):
    with pytest.raises(KubeletConfigError) as info:
        apply_defaults(config)
    assert text in str(info.value)


def test_not_a_mapping():
    with pytest.raises(KubeletConfigError):
        apply_defaults(["kind: KubeletConfiguration"])
    with pytest.raises(KubeletConfigError):
        merge_default_eviction_settings(None)


_FIELD_VALUES = st.fixed_dictionaries(
    {},
    optional={
        "maxPods": st.sampled_from([0, 1, 110, 250, None]),
        "eventRecordQPS": st.sampled_from([0, 5, None]),
        "syncFrequency": st.sampled_from(["0s", "30s", "1m", "0"]),
        "nodeStatusUpdateFrequency": st.sampled_from(["0s", "20s"]),
        "podPidsLimit": st.sampled_from([-7, -1, 0, 4096, None]),
        "maxParallelImagePulls": st.sampled_from([None, 1, 3]),
        "evictionHard": st.sampled_from([None, {}, {"memory.available": "1Gi"}]),
        "mergeDefaultEvictionSettings": st.sampled_from([None, True, False]),
        "featureGates": st.sampled_from([{}, {"AllBeta": False}, {"KubeletCrashLoopBackOffMax": False}]),
        "authentication": st.sampled_from([None, {}, {"webhook": {"enabled": False}}]),
        "logging": st.sampled_from([None, {"format": "json"}, {"flushFrequency": 0}]),
    },
)


@settings(max_examples=200, deadline=None)
@given(_FIELD_VALUES)
def test_defaulting_is_idempotent_and_stays_in_the_field_list(config):
    once = apply_defaults(config)
    assert apply_defaults(once) == once
    assert set(once) <= KUBELET_CONFIGURATION_FIELDS


def test_source_names_repository_files_and_commits():
    for part in (
        "kubernetes/kubernetes",
        "pkg/kubelet/apis/config/v1beta1/defaults.go",
        "cmd/kubelet/app/server.go",
        "pkg/kubelet/eviction/defaults_linux.go",
        "001332b0422071acf4860769f18e34b5e9b7c1bc",
        "8a4d98ac2f6dfd69fc5649b7bb23de0add56be56",
    ):
        assert part in KUBELET_DEFAULTS_SOURCE
