# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The checkpoint guard: any start of the kubelet's unit, by whoever, removes the memory/CPU manager checkpoints when
the manager inputs on disk differ from those of the unit's last start, and only then.

A kept checkpoint is shown the way the kubelet shows it: a stale one planted by hand makes the start fail with the
kubelet's "differs from state checkpoint policy" (the kubelet STAND-IN refuses it with the kubelet's text).
"""

from __future__ import annotations

import json

DROPIN = "/etc/systemd/system/%s.d/90-numa-kubelet-reboot-reset.conf"
INPUTS = "/etc/numa-kubelet/%s.manager-inputs"
STARTED = "/var/lib/numa-kubelet/%s.started-inputs"
STALE = json.dumps({"policyName": "None", "machineState": {}})


def digest(text):
    return [line for line in (text or "").splitlines() if line.startswith("sha256:")]


def assert_ok(result):
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_plain_restart_keeps_the_checkpoints_and_changed_inputs_reset_them(node_factory):
    node = node_factory("kubeadm")
    assert_ok(node.role())
    inputs, started = node.read(INPUTS % node.unit), node.read(STARTED % node.unit)
    assert len(digest(inputs)) == 1 and started == inputs
    assert DROPIN % node.unit in node.sh(f"systemctl show --property DropInPaths {node.unit}").stdout
    assert node.checkpoint()["policyName"] == "Static"

    # Unchanged inputs: a plain restart keeps the checkpoint, stale or not (the guard is no reset on every start).
    node.write("/var/lib/kubelet/memory_manager_state", STALE)
    refused = node.restart()
    assert 'configured policy "Static" differs from state checkpoint policy "None"' in refused["error"]

    # Inputs on disk that differ from the last start's (another tool wrote a new config): any start resets.
    node.write(INPUTS % node.unit, inputs.replace(digest(inputs)[0], "sha256:" + "0" * 64))
    assert node.restart()["result"] == "started"
    assert node.checkpoint()["policyName"] == "Static"
    assert node.read(STARTED % node.unit) == node.read(INPUTS % node.unit)

    # The role puts its digest back, the started record follows at the next start, and a converged run changes nothing.
    assert_ok(node.role())
    assert node.read(INPUTS % node.unit) == inputs
    starts = len(node.starts())
    assert_ok(node.role())
    assert len(node.starts()) == starts


def test_without_the_boot_time_reset_the_guard_stays(node_factory):
    node = node_factory("kubeadm")
    assert_ok(node.role(kubelet_numa_reboot_reset=False))
    dropin = node.read(DROPIN % node.unit)
    assert "/run/numa-kubelet" not in dropin.split("[Service]")[1].replace("mkdir -p /var/lib/numa-kubelet /run/numa-kubelet", "")
    node.write(INPUTS % node.unit, "sha256:" + "1" * 64 + "\n")
    node.write("/var/lib/kubelet/memory_manager_state", STALE)
    assert node.restart()["result"] == "started"
    assert node.checkpoint()["policyName"] == "Static"


def test_lablabs_restart_of_rke2_meets_no_stale_checkpoint(node_factory):
    """The lablabs.rke2 flow: plan (the guard goes in, nothing restarts), lablabs writes config.yaml and restarts RKE2.

    The host is in lablabs.rke2's server group ('masters', its default rke2_servers_group_name), as in a lablabs
    inventory: the role refuses to hand options over to a host lablabs would not render them for."""
    node = node_factory("rke2-server")
    assert node.checkpoint()["policyName"] == "None"  # RKE2's kubelet ran without the memory manager
    starts = len(node.starts())
    planned = node.play(
        [
            {"name": "Plan and guard", "ansible.builtin.import_role": {"name": "numa.kubelet.kubelet_numa"}},
            {
                "name": "Hand the options over",
                "ansible.builtin.copy": {"content": "{{ kubelet_numa_rke2_options | to_json }}", "dest": "/root/options.json", "mode": "0600"},
            },
        ],
        groups=["masters"],
        kubelet_numa_rke2_write_files=False,
    )
    assert_ok(planned)
    assert len(node.starts()) == starts and node.active() == "active"
    assert digest(node.read(INPUTS % node.unit)) != digest(node.read(STARTED % node.unit))

    # What lablabs.rke2 does: copy each option line into config.yaml, then restart the unit from its own handler.
    options = json.loads(node.read("/root/options.json"))
    node.write("/etc/rancher/rke2/config.yaml", node.read("/etc/rancher/rke2/config.yaml") + "\n".join(options) + "\n")
    assert node.restart()["result"] == "started"
    assert node.checkpoint()["policyName"] == "Static"

    # The role now finds the node converged: no further restart.
    starts = len(node.starts())
    assert_ok(node.role(groups=["masters"], kubelet_numa_rke2_write_files=False))
    assert len(node.starts()) == starts


def test_nodeadm_run_restarting_the_kubelet_keeps_a_converged_checkpoint(node_factory):
    node = node_factory("nodeadm")
    assert_ok(node.role(kubelet_numa_instance_type="m5.large"))
    assert node.checkpoint()["policyName"] == "Static"
    # At every boot nodeadm-run rewrites the kubelet's drop-in from nodeadm.d and starts the kubelet: same inputs.
    node.write("/var/lib/kubelet/memory_manager_state", STALE)
    assert "differs from state checkpoint policy" in node.restart("nodeadm-run.service")["error"]
    node.write(INPUTS % node.unit, "sha256:" + "2" * 64 + "\n")
    assert node.restart("nodeadm-run.service")["result"] == "started"
    assert node.checkpoint()["policyName"] == "Static"
