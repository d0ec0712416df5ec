# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet stand-in must refuse what the kubelet refuses and accept what it accepts (docs/kubelet-facts.md)."""

from __future__ import annotations

import json

import pytest

GI = 1024**3
MI = 1024**2
STATE_PATH = "/var/lib/kubelet/memory_manager_state"


def static(host, reserved, **fields):
    """Write /var/lib/kubelet/config.yaml with the Static memory manager and the given reservedMemory."""
    reserved_memory = [{"numaNode": node, "limits": {"memory": value}} for node, value in reserved]
    return host.kubelet_config(memoryManagerPolicy="Static", reservedMemory=reserved_memory, **fields)


def assert_refused(result, message):
    """The start was refused with exit 1, the exact kubelet message is logged and printed."""
    assert result.rc == 1, result.stderr
    assert result.start["result"] == "refused"
    assert result.start["error"] == message
    assert message in result.stderr


def assert_started(result):
    """The start succeeded and was logged as started."""
    assert result.rc == 0, result.stderr
    assert result.start["result"] == "started", result.start["error"]
    assert result.start["error"] is None


# ------------------------------------------------------------------------------------------------ the sum rule
def test_dropin_over_main_file_without_eviction_keeps_100mi_and_accepts_1gi(host):
    static(host, [(0, "1Gi")], kubeReserved={"memory": "512Mi"}, systemReserved={"memory": "412Mi"})
    host.kubelet_config("/etc/kubelet.conf.d/50-eviction.conf", evictionHard={"nodefs.available": "10%"})
    result = host.kubelet("--config=/var/lib/kubelet/config.yaml", "--config-dir=/etc/kubelet.conf.d")
    assert_started(result)
    assert result.start["effective_config"]["evictionHard"]["memory.available"] == "100Mi"
    assert host.state()["machineState"]["0"]["memoryMap"]["memory"]["systemReserved"] == GI


def test_dropin_over_main_file_without_eviction_refuses_924mi(host):
    static(host, [(0, "924Mi")], kubeReserved={"memory": "512Mi"}, systemReserved={"memory": "412Mi"})
    host.kubelet_config("/etc/kubelet.conf.d/50-eviction.conf", evictionHard={"nodefs.available": "10%"})
    result = host.kubelet("--config=/var/lib/kubelet/config.yaml", "--config-dir=/etc/kubelet.conf.d")
    assert_refused(result, 'the total amount "924Mi" of type "memory" is not equal to the value "1Gi" determined by Node Allocatable feature')
    assert not host.path(STATE_PATH).exists()


def test_wrong_sum_gives_the_kubelets_exact_message(host):
    static(host, [(0, "512Mi")], kubeReserved={"memory": "512Mi"}, systemReserved={"memory": "412Mi"})
    result = host.kubelet("--config=/var/lib/kubelet/config.yaml")
    assert_refused(result, 'the total amount "512Mi" of type "memory" is not equal to the value "1Gi" determined by Node Allocatable feature')


def test_eviction_in_main_file_without_memory_makes_the_term_zero(host):
    static(host, [(0, "924Mi")], kubeReserved={"memory": "512Mi"}, systemReserved={"memory": "412Mi"}, evictionHard={"nodefs.available": "10%"})
    assert_started(host.kubelet("--config=/var/lib/kubelet/config.yaml"))


def test_merge_default_eviction_settings_brings_100mi_back(host):
    static(
        host,
        [(0, "924Mi")],
        kubeReserved={"memory": "512Mi"},
        systemReserved={"memory": "412Mi"},
        evictionHard={"nodefs.available": "10%"},
        mergeDefaultEvictionSettings=True,
    )
    assert_refused(
        host.kubelet("--config=/var/lib/kubelet/config.yaml"),
        'the total amount "924Mi" of type "memory" is not equal to the value "1Gi" determined by Node Allocatable feature',
    )


def test_quantities_compare_exactly_not_textually(host):
    static(host, [(0, "1024Mi")], kubeReserved={"memory": "512Mi"}, systemReserved={"memory": "412Mi"})
    assert_started(host.kubelet("--config=/var/lib/kubelet/config.yaml"))


def test_percentage_uses_the_kubelets_float32_arithmetic(make_host):
    host = make_host([7910812])
    # 5 % of 7,910,812 kB is 405,033,580 bytes in the kubelet, not the exact 405,033,574.
    static(host, [(0, "405033574")], evictionHard={"memory.available": "5%"})
    assert_refused(
        host.kubelet("--config=/var/lib/kubelet/config.yaml"),
        'the total amount "405033574" of type "memory" is not equal to the value "405033580" determined by Node Allocatable feature',
    )
    static(host, [(0, "405033580")], evictionHard={"memory.available": "5%"})
    assert_started(host.kubelet("--config=/var/lib/kubelet/config.yaml"))


def test_reservation_must_convert_to_int64(host):
    fields = {"kubeReserved": {"memory": "5473566720"}, "evictionHard": {"nodefs.available": "10%"}}
    static(host, [(0, "5.09765625Gi")], **fields)
    assert_refused(host.kubelet("--config=/var/lib/kubelet/config.yaml"), "could not covert a variable of type Quantity to int64")
    static(host, [(0, "5.47356672G")], **fields)
    assert_started(host.kubelet("--config=/var/lib/kubelet/config.yaml"))


def test_zero_total_is_refused(host):
    static(host, [], evictionHard={"nodefs.available": "10%"})
    assert_refused(host.kubelet("--config=/var/lib/kubelet/config.yaml"), "[memorymanager] you should specify the system reserved memory")


def test_policy_names_are_case_sensitive(host):
    host.kubelet_config(memoryManagerPolicy="static")
    assert_refused(host.kubelet("--config=/var/lib/kubelet/config.yaml"), 'unknown policy: "static"')


def test_missing_numa_node_is_refused(host):
    static(host, [(0, "512Mi"), (1, "512Mi")], kubeReserved={"memory": "512Mi"}, systemReserved={"memory": "412Mi"})
    assert_refused(
        host.kubelet("--config=/var/lib/kubelet/config.yaml"), "the reserved memory configuration references a NUMA node 1 that does not exist on this machine"
    )


def test_config_validation_errors_are_joined(host):
    host.kubelet_config(
        memoryManagerPolicy="Static",
        reservedMemory=[
            {"numaNode": 0, "limits": {"cpu": "1", "memory": "0"}},
        ],
    )
    assert_refused(
        host.kubelet("--config=/var/lib/kubelet/config.yaml"),
        'failed to validate kubelet configuration, error: [invalid configuration: the limit type "cpu" '
        "for NUMA node 0 is not supported, only [memory hugepages-<HugePageSize>] is accepted, "
        'invalid configuration: reserved memory may not be zero for NUMA node 0 and resource "memory"]',
    )


def test_hugepages_cannot_be_system_reserved(host):
    host.kubelet_config(memoryManagerPolicy="Static", systemReserved={"hugepages-2Mi": "2Mi"})
    assert_refused(host.kubelet("--config=/var/lib/kubelet/config.yaml"), '--system-reserved value failed to parse: cannot reserve "hugepages-2Mi" resource')


def test_split_over_two_nodes_is_recorded_per_node(numa2):
    static(numa2, [(0, "640Mi"), (1, "384Mi")], kubeReserved={"memory": "512Mi"}, systemReserved={"memory": "412Mi"})
    assert_started(numa2.kubelet("--config=/var/lib/kubelet/config.yaml"))
    state = numa2.state()
    assert state["policyName"] == "Static"
    assert state["machineState"]["0"]["memoryMap"]["memory"]["systemReserved"] == 640 * MI
    assert state["machineState"]["1"]["memoryMap"]["memory"]["systemReserved"] == 384 * MI
    assert state["machineState"]["1"]["memoryMap"]["memory"]["total"] == 2 * GI
    assert state["machineState"]["1"]["memoryMap"]["memory"]["allocatable"] == 2 * GI - 384 * MI


# ------------------------------------------------------------------------------------------------ reading the file
# The stand-in reads the config as the engine does (kubelet_standin/go_yaml.py is plugins/plugin_utils/_yaml_text.py):
# the real kubelet v1.36.2 accepts a tab after a key's ':' and a tab right of a plain scalar's indentation on its next
# line, and refuses a tab left of it (tests/unit/plugins/plugin_utils/test_yaml_text.py holds its verdicts).
@pytest.mark.parametrize(
    "edit",
    [("memoryManagerPolicy: Static", "memoryManagerPolicy:\tStatic"), ("kind: KubeletConfiguration", "kind: KubeletConfiguration\nproviderID: a\n \tb")],
    ids=["a tab after a key's ':'", "a plain scalar's next line: a space, then a tab"],
)
def test_a_tab_the_kubelet_takes_starts_the_stand_in(host, edit):
    path = static(host, [(0, "1Gi")], kubeReserved={"memory": "512Mi"}, systemReserved={"memory": "412Mi"}, evictionHard={"memory.available": "100Mi"})
    text = host.path(path).read_text(encoding="utf-8")
    assert edit[0] in text
    host.write(path, text.replace(*edit))
    assert_started(host.kubelet(f"--config={path}"))


def test_a_tab_the_kubelet_refuses_is_refused_in_go_yamls_words(host):
    path = static(host, [(0, "1Gi")], kubeReserved={"memory": "512Mi"}, systemReserved={"memory": "412Mi"})
    text = host.path(path).read_text(encoding="utf-8")
    host.write(path, "kind: KubeletConfiguration\nproviderID: a\n\tb\n" + text.replace("kind: KubeletConfiguration\n", ""))
    assert_refused(
        host.kubelet(f"--config={path}"),
        f"failed to load Kubelet config file {path}, error: failed to decode: yaml: line 3: found a tab character that violates indentation",
    )


# ------------------------------------------------------------------------------------------------ flags
def test_one_eviction_flag_replaces_the_map_and_repeated_flags_accumulate(host):
    static(host, [(0, "924Mi")], kubeReserved={"memory": "512Mi"}, systemReserved={"memory": "412Mi"})
    result = host.kubelet("--config=/var/lib/kubelet/config.yaml", "--eviction-hard=imagefs.available<5%,nodefs.available<5%")
    assert_started(result)
    assert result.start["effective_config"]["evictionHard"] == {"imagefs.available": "5%", "nodefs.available": "5%"}
    host.path(STATE_PATH).unlink()
    result = host.kubelet(
        "--config=/var/lib/kubelet/config.yaml", "--eviction-hard=imagefs.available<5%,nodefs.available<5%", "--eviction-hard", "memory.available<100Mi"
    )
    assert_refused(result, 'the total amount "924Mi" of type "memory" is not equal to the value "1Gi" determined by Node Allocatable feature')


def test_kube_reserved_flag_replaces_the_files_map(host):
    static(host, [(0, "512Mi")], kubeReserved={"memory": "512Mi"}, systemReserved={"memory": "412Mi"})
    result = host.kubelet("--config=/var/lib/kubelet/config.yaml", "--kube-reserved=cpu=100m")
    assert_started(result)
    assert result.start["effective_config"]["kubeReserved"] == {"cpu": "100m"}


def test_reserved_memory_flag_replaces_the_files_list(numa2):
    static(numa2, [(0, "1Gi")], kubeReserved={"memory": "512Mi"}, systemReserved={"memory": "412Mi"})
    result = numa2.kubelet("--config=/var/lib/kubelet/config.yaml", "--reserved-memory=0:memory=512Mi;1:memory=512Mi")
    assert_started(result)
    assert result.start["reserved_memory_bytes"] == {"0": {"memory": 512 * MI}, "1": {"memory": 512 * MI}}


def test_dropin_lists_replace_whole_lists(numa2):
    static(numa2, [(0, "512Mi"), (1, "512Mi")], kubeReserved={"memory": "512Mi"}, systemReserved={"memory": "412Mi"})
    numa2.kubelet_config("/etc/kubelet.conf.d/60.conf", reservedMemory=[{"numaNode": 1, "limits": {"memory": "1Gi"}}])
    result = numa2.kubelet("--config=/var/lib/kubelet/config.yaml", "--config-dir=/etc/kubelet.conf.d")
    assert_started(result)
    assert result.start["effective_config"]["reservedMemory"] == [{"numaNode": 1, "limits": {"memory": "1Gi"}}]


def test_dropins_of_subdirectories_count_in_the_walks_order(host):
    """mergeKubeletConfigurations walks --config-dir down: 20-site/ is entered before 20-site.conf ("20-site" sorts
    first), and its kubeReserved counts (the real kubelet v1.36.2 refused the sum it changed)."""
    static(host, [(0, "1124Mi")], kubeReserved={"memory": "512Mi"}, systemReserved={"memory": "412Mi"})
    host.kubelet_config("/etc/kubelet.conf.d/20-site/10-reserved.conf", kubeReserved={"memory": "612Mi"}, maxPods=58)
    host.kubelet_config("/etc/kubelet.conf.d/20-site.conf", maxPods=40)
    result = host.kubelet("--config=/var/lib/kubelet/config.yaml", "--config-dir=/etc/kubelet.conf.d")
    assert_started(result)
    assert result.start["effective_config"]["maxPods"] == 40
    assert result.start["effective_config"]["kubeReserved"] == {"memory": "612Mi"}


def test_a_missing_config_dir_is_refused_in_the_kubelets_words(host):
    """cmd/kubelet/app/server.go mergeKubeletConfigurations (v1.36.2): filepath.Walk's lstat of a missing root."""
    static(host, [(0, "1Gi")], kubeReserved={"memory": "512Mi"}, systemReserved={"memory": "412Mi"})
    result = host.kubelet("--config=/var/lib/kubelet/config.yaml", "--config-dir=/etc/kubelet.conf.d")
    assert_refused(
        result,
        'failed to merge kubelet configs: failed to walk through kubelet dropin directory "/etc/kubelet.conf.d": '
        "lstat /etc/kubelet.conf.d: no such file or directory",
    )


def test_unknown_flag_is_refused(host):
    host.kubelet_config()
    assert_refused(
        host.kubelet("--config=/var/lib/kubelet/config.yaml", "--reserved-memroy=0:memory=1Gi"), "failed to parse kubelet flag: unknown flag: --reserved-memroy"
    )


def test_start_log_records_time_argv_and_config(host):
    host.kubelet_config(maxPods=42)
    result = host.kubelet("--config=/var/lib/kubelet/config.yaml", "--node-ip=10.0.0.1")
    assert_started(result)
    assert result.start["argv"] == ["--config=/var/lib/kubelet/config.yaml", "--node-ip=10.0.0.1"]
    assert result.start["effective_config"]["maxPods"] == 42
    assert result.start["time"]
    assert len(host.starts()) == 1


# ------------------------------------------------------------------------------------------------ checkpoints
def test_stale_state_with_another_policy_is_refused_until_deleted(host):
    host.kubelet_config()
    assert_started(host.kubelet("--config=/var/lib/kubelet/config.yaml"))
    assert host.state()["policyName"] == "None"
    static(host, [(0, "1Gi")], kubeReserved={"memory": "512Mi"}, systemReserved={"memory": "412Mi"})
    assert_refused(
        host.kubelet("--config=/var/lib/kubelet/config.yaml"),
        "start memory manager error: could not restore state from checkpoint: [memorymanager] configured "
        'policy "Static" differs from state checkpoint policy "None", please drain this node and delete '
        'the memory manager checkpoint file "/var/lib/kubelet/memory_manager_state" before restarting '
        "Kubelet",
    )
    host.path(STATE_PATH).unlink()
    assert_started(host.kubelet("--config=/var/lib/kubelet/config.yaml"))
    assert host.state()["policyName"] == "Static"


def test_changed_reservation_is_refused_and_identical_restart_accepted(numa2):
    fields = {"kubeReserved": {"memory": "512Mi"}, "systemReserved": {"memory": "412Mi"}}
    static(numa2, [(0, "512Mi"), (1, "512Mi")], **fields)
    assert_started(numa2.kubelet("--config=/var/lib/kubelet/config.yaml"))
    assert_started(numa2.kubelet("--config=/var/lib/kubelet/config.yaml"))
    static(numa2, [(0, "1Gi")], **fields)
    assert_refused(
        numa2.kubelet("--config=/var/lib/kubelet/config.yaml"),
        "start memory manager error: [memorymanager] the expected machine state is different from the real one",
    )
    # The refused start must not have rewritten the checkpoint.
    assert numa2.state()["machineState"]["1"]["memoryMap"]["memory"]["systemReserved"] == 512 * MI


def test_changed_memory_total_is_refused(host):
    static(host, [(0, "1Gi")], kubeReserved={"memory": "512Mi"}, systemReserved={"memory": "412Mi"})
    assert_started(host.kubelet("--config=/var/lib/kubelet/config.yaml"))
    host.machine([8388600])  # MemTotal drifted after a reboot
    assert_refused(
        host.kubelet("--config=/var/lib/kubelet/config.yaml"),
        "start memory manager error: [memorymanager] the expected machine state is different from the real one",
    )


def test_cpu_manager_policy_change_is_refused(host):
    host.kubelet_config()
    assert_started(host.kubelet("--config=/var/lib/kubelet/config.yaml"))
    assert host.state("cpu_manager_state")["policyName"] == "none"
    host.kubelet_config(cpuManagerPolicy="static", kubeReserved={"cpu": "100m"})
    assert_refused(
        host.kubelet("--config=/var/lib/kubelet/config.yaml"),
        'start cpu manager error: could not restore state from checkpoint: configured policy "static" '
        'differs from state checkpoint policy "none", please drain this node and delete the CPU manager '
        'checkpoint file "/var/lib/kubelet/cpu_manager_state" before restarting Kubelet',
    )


def test_static_cpu_policy_needs_reserved_cpu(host):
    host.kubelet_config(cpuManagerPolicy="static")
    assert_refused(host.kubelet("--config=/var/lib/kubelet/config.yaml"), "[cpumanager] unable to determine reserved CPU resources for static policy")


def test_state_files_live_in_the_root_dir(host):
    host.kubelet_config()
    assert_started(host.kubelet("--config=/var/lib/kubelet/config.yaml", "--root-dir=/srv/kubelet"))
    assert host.state(root_dir="/srv/kubelet")["policyName"] == "None"
    assert not host.path(STATE_PATH).exists()


# ------------------------------------------------------------------------------------------------ forced failure
def test_marker_fails_the_next_start_once(host):
    host.kubelet_config()
    host.write("/etc/kubelet-standin/fail-next-start", "")
    result = host.kubelet("--config=/var/lib/kubelet/config.yaml")
    assert_refused(result, "kubelet stand-in: forced failure: the marker /etc/kubelet-standin/fail-next-start was present (it is now removed)")
    assert result.start["effective_config"]["kind"] == "KubeletConfiguration"
    assert not host.path("/etc/kubelet-standin/fail-next-start").exists()
    assert_started(host.kubelet("--config=/var/lib/kubelet/config.yaml"))


@pytest.mark.parametrize(
    "text, canonical",
    [
        ("1Gi", "1Gi"),
        ("1024Mi", "1Gi"),
        ("1536Mi", "1536Mi"),
        ("1000", "1k"),
        ("1500000", "1500k"),
        ("0.5Gi", "512Mi"),
        ("1e3", "1e3"),
        ("100m", "100m"),
        ("512", "512"),
    ],
)
def test_quantity_canonical_form_in_messages(host, text, canonical):
    # The expected value printed by the kubelet is the canonical form of kubeReserved alone.
    host.kubelet_config(
        memoryManagerPolicy="Static",
        kubeReserved={"memory": text},
        evictionHard={"nodefs.available": "10%"},
        reservedMemory=[{"numaNode": 0, "limits": {"memory": "3Gi"}}],
    )
    result = host.kubelet("--config=/var/lib/kubelet/config.yaml")
    assert result.start["error"] == (
        f'the total amount "3Gi" of type "memory" is not equal to the value {json.dumps(canonical)} determined by Node Allocatable feature'
    )
