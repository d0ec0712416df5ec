# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""_pending: what applying a plan writes (the plan's files, the checkpoint guard's, the reset marker) and what of it
differs from the node, decided once for the role (roles/kubelet_numa/tasks/main.yml skips apply.yml on nothing pending)."""

from __future__ import annotations

import hashlib
import json

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._pending import guard_paths, guard_state_paths, role_writes
from ansible_collections.numa.kubelet.tests.unit.plugins.plugin_utils.test_plan import KUBEADM_MAIN, plan

DROPIN = "/etc/kubernetes/kubelet.conf.d/50-numa-kubelet.conf"
EXTRA_ARGS = "/etc/default/kubelet"
GUARD = guard_paths("kubelet.service")
ROOT_DIR = {"mode": "0755", "owner": "root", "group": "root"}
ROOT_FILE = {"mode": "0644", "owner": "root", "group": "root"}


def render(template, template_vars):
    """A stand-in for the role's templates: the template's name and what the engine handed it, as text."""
    handed = {key: value for key, value in template_vars.items() if key != "kubelet_numa_plan"}
    return "%s %s %s" % (template, template_vars.get("kubelet_numa_plan", {}).get("unit"), json.dumps(handed, sort_keys=True, default=str))


def kubeadm_plan(**variables):
    return plan("kubeadm", {"/var/lib/kubelet/config.yaml": KUBEADM_MAIN}, **variables)


def converged(result, reboot_reset=True):
    """files and attributes of a node where everything role_writes() says was written as it says (a second run); the
    reset marker too, which the first run's start made (as check mode shows it)."""
    decided = role_writes(result, {}, {}, reboot_reset, True, render)
    files = {write["path"]: write["content"] for write in decided["writes"]}
    attributes = {path: dict(ROOT_FILE, mode=write["mode"]) for path, write in ((write["path"], write) for write in decided["writes"])}
    attributes.update({path: dict(ROOT_DIR) for path in decided["directories"]})
    return files, attributes


def test_a_node_with_nothing_in_place_gets_everything():
    result = kubeadm_plan()
    assert result["restart"] == "reset" and result["manager_inputs"]["current"] is not None
    decided = role_writes(result, {}, {}, True, False, render)
    # The guard of a running kubelet is seeded with the inputs it started with; a reset's start makes the marker itself.
    assert decided["guard"]["seed_started"] is True and decided["guard"]["reset_marker"] is False
    assert decided["directories"] == ["/etc/kubernetes/kubelet.conf.d", "/etc/systemd/system/kubelet.service.d", "/etc/numa-kubelet", "/var/lib/numa-kubelet"]
    assert [write["path"] for write in decided["writes"]] == [DROPIN, EXTRA_ARGS, GUARD["dropin"], GUARD["inputs"], GUARD["heal"], GUARD["started"]]
    assert decided["pending_directories"] == decided["directories"]
    assert decided["pending_writes"] == [write["path"] for write in decided["writes"]]
    assert decided["pending"] is True
    assert decided["guard"]["directories"] == decided["directories"][1:]
    assert decided["guard"]["writes"] == decided["writes"][2:]


def test_each_file_is_rendered_from_its_template_with_what_the_role_gives_it():
    result = kubeadm_plan()
    writes = {write["path"]: write for write in role_writes(result, {}, {}, True, False, render)["writes"]}
    dropin_entry = next(entry for entry in result["files"] if entry["path"] == DROPIN)
    assert writes[DROPIN] == {
        "path": DROPIN,
        "mode": dropin_entry["mode"],
        "content": render("kubeadm.j2", {"kubelet_numa_plan": result, "item": dropin_entry}),
    }
    # A file the plan gives as text is written as it is.
    assert writes[EXTRA_ARGS]["content"] == 'KUBELET_EXTRA_ARGS="--config-dir=/etc/kubernetes/kubelet.conf.d"\n'
    assert writes[GUARD["dropin"]] == {
        "path": "/etc/systemd/system/kubelet.service.d/90-numa-kubelet-reboot-reset.conf",
        "mode": "0644",
        "content": render("reboot-reset.conf.j2", {"kubelet_numa_plan": result, "guard": GUARD}),
    }
    assert writes[GUARD["inputs"]] == {
        "path": "/etc/numa-kubelet/kubelet.service.manager-inputs",
        "mode": "0644",
        "content": render("manager-inputs.j2", {"digest": result["manager_inputs"]["planned"]}),
    }
    assert writes[GUARD["started"]] == {
        "path": "/var/lib/numa-kubelet/kubelet.service.started-inputs",
        "mode": "0644",
        "only_if_absent": True,
        "content": render("manager-inputs.j2", {"digest": result["manager_inputs"]["current"]}),
    }


def test_a_converged_node_has_nothing_pending_unless_the_plan_restarts():
    result = kubeadm_plan()
    files, attributes = converged(result)
    result["restart"] = "none"
    decided = role_writes(result, files, attributes, True, False, render)
    assert (decided["pending_directories"], decided["pending_writes"], decided["pending"]) == ([], [], False)
    # Once the guard's copy and the marker exist, they are neither seeded nor written again.
    assert decided["guard"]["seed_started"] is False and decided["guard"]["reset_marker"] is False
    assert GUARD["started"] not in [write["path"] for write in decided["writes"]]
    for restart in ("restart", "reset"):
        result["restart"] = restart
        decided = role_writes(result, files, attributes, True, False, render)
        assert (decided["pending_writes"], decided["pending"]) == ([], True), restart


@pytest.mark.parametrize(
    "change, pending_path",
    [
        (lambda files, attributes: files.update({DROPIN: files[DROPIN] + "# edited by hand\n"}), DROPIN),
        (lambda files, attributes: attributes[DROPIN].update(mode="0600"), DROPIN),
        (lambda files, attributes: attributes[GUARD["inputs"]].update(owner="kubelet"), GUARD["inputs"]),
        (lambda files, attributes: attributes[GUARD["dropin"]].update(group="adm"), GUARD["dropin"]),
        (lambda files, attributes: [files.pop(EXTRA_ARGS), attributes.pop(EXTRA_ARGS)], EXTRA_ARGS),
    ],
)
def test_a_file_differing_in_text_mode_owner_or_group_or_missing_is_pending(change, pending_path):
    result = kubeadm_plan()
    files, attributes = converged(result)
    result["restart"] = "none"
    change(files, attributes)
    decided = role_writes(result, files, attributes, True, False, render)
    assert (decided["pending_directories"], decided["pending_writes"], decided["pending"]) == ([], [pending_path], True)


def test_a_directory_not_root_0755_is_pending():
    result = kubeadm_plan()
    files, attributes = converged(result)
    result["restart"] = "none"
    attributes["/etc/numa-kubelet"]["mode"] = "0700"
    del attributes["/etc/systemd/system/kubelet.service.d"]
    decided = role_writes(result, files, attributes, True, False, render)
    assert decided["pending_directories"] == ["/etc/systemd/system/kubelet.service.d", "/etc/numa-kubelet"]
    assert decided["pending_writes"] == [] and decided["pending"] is True


def test_the_started_copy_is_kept_once_it_exists_whatever_it_says():
    # The unit's ExecStartPre owns that file after the install: a different digest there is never overwritten.
    result = kubeadm_plan()
    files, attributes = converged(result)
    result["restart"] = "none"
    files[GUARD["started"]] = "another digest\n"
    attributes[GUARD["started"]] = dict(ROOT_FILE, mode="0600")
    assert role_writes(result, files, attributes, True, False, render)["pending"] is False


def test_no_started_copy_for_a_kubelet_whose_inputs_cannot_be_read():
    result = kubeadm_plan()
    result["manager_inputs"] = dict(result["manager_inputs"], current=None)
    decided = role_writes(result, {}, {}, True, False, render)
    assert decided["guard"]["seed_started"] is False
    assert "/var/lib/numa-kubelet" not in decided["directories"]
    assert GUARD["started"] not in [write["path"] for write in decided["writes"]]


@pytest.mark.parametrize(
    "reboot_reset, restart, check_mode, marker",
    [
        (True, "none", False, True),
        (True, "restart", False, True),
        (True, "reset", False, False),  # the reset's start runs the drop-in, which makes the marker
        (True, "reset", True, True),  # check mode restarts nothing, so it shows the marker as a write
        (False, "none", False, False),
        (False, "reset", True, False),
    ],
)
def test_the_reset_marker_is_written_with_the_boot_time_reset_only_where_no_start_makes_it(reboot_reset, restart, check_mode, marker):
    result = kubeadm_plan()
    result["restart"] = restart
    decided = role_writes(result, {}, {}, reboot_reset, check_mode, render)
    assert decided["guard"]["reset_marker"] is marker
    assert ("/run/numa-kubelet" in decided["directories"]) is marker
    marker_writes = [write for write in decided["writes"] if write["path"] == GUARD["marker"]]
    assert marker_writes == ([{"path": "/run/numa-kubelet/kubelet.service.reset", "mode": "0644", "content": "", "only_if_absent": True}] if marker else [])
    # A marker already there (this boot's) is left alone.
    files, attributes = {}, {GUARD["marker"]: dict(ROOT_FILE)}
    assert role_writes(result, files, attributes, reboot_reset, check_mode, render)["guard"]["reset_marker"] is False


def test_the_guard_is_the_units_own():
    result = plan("rke2", {}, kubelet_numa_rke2_version="v1.32.4+rke2r1", kubelet_numa_rke2_role="agent")
    assert result["unit"] == "rke2-agent.service"
    decided = role_writes(result, {}, {}, True, False, render)
    assert decided["guard"]["directories"][0] == "/etc/systemd/system/rke2-agent.service.d"
    assert [write["path"] for write in decided["guard"]["writes"]][:2] == [
        "/etc/systemd/system/rke2-agent.service.d/90-numa-kubelet-reboot-reset.conf",
        "/etc/numa-kubelet/rke2-agent.service.manager-inputs",
    ]


def test_discovery_reads_every_guard_file_of_every_unit_a_plan_can_name():
    assert guard_state_paths(["kubelet.service", "rke2-server.service"]) == [
        "/run/numa-kubelet",
        "/etc/numa-kubelet",
        "/var/lib/numa-kubelet",
        "/run/numa-kubelet/kubelet.service.reset",
        "/etc/systemd/system/kubelet.service.d",
        "/etc/systemd/system/kubelet.service.d/90-numa-kubelet-reboot-reset.conf",
        "/etc/numa-kubelet/kubelet.service.manager-inputs",
        "/var/lib/numa-kubelet/kubelet.service.started-inputs",
        "/var/lib/numa-kubelet/kubelet.service.healed.json",
        "/run/numa-kubelet/rke2-server.service.reset",
        "/etc/systemd/system/rke2-server.service.d",
        "/etc/systemd/system/rke2-server.service.d/90-numa-kubelet-reboot-reset.conf",
        "/etc/numa-kubelet/rke2-server.service.manager-inputs",
        "/var/lib/numa-kubelet/rke2-server.service.started-inputs",
        "/var/lib/numa-kubelet/rke2-server.service.healed.json",
        "/etc/numa-kubelet/numa-kubelet-heal",
    ]
    # What role_writes() compares for a unit is what discovery read for it.
    result = kubeadm_plan()
    decided = role_writes(result, {}, {}, True, True, render)
    guard_files = {GUARD["dropin"], GUARD["inputs"], GUARD["started"], GUARD["marker"], GUARD["heal"]}
    assert guard_files <= set(guard_state_paths(["kubelet.service"]))
    assert guard_files == {write["path"] for write in decided["guard"]["writes"]} | {GUARD["marker"]}


def test_the_self_heal_never_puts_back_the_guards_own_files():
    decided = role_writes(kubeadm_plan(), {}, {}, True, False, render)
    assert decided["heal_exclude"] == [GUARD["heal"], GUARD["dropin"], GUARD["started"], GUARD["marker"]]
    # The kubelet's own files and the manager inputs' digest are what a heal puts back.
    assert not {DROPIN, EXTRA_ARGS, GUARD["inputs"]} & set(decided["heal_exclude"])
    assert next(write for write in decided["writes"] if write["path"] == GUARD["heal"])["mode"] == "0644"


def heal_record(**fields):
    record = {
        "unit": "kubelet.service",
        "time": "2026-11-27T23:40:00Z",
        "change_time": "2026-11-27T23:38:00Z",
        "failures": 3,
        "kubelet_error": 'E1127 run.go:72] "Failed to start ContainerManager" err="boom"',
        "restored": [DROPIN, GUARD["inputs"]],
        "healed": True,
    }
    record.update(fields)
    return json.dumps(record)


def test_a_heal_the_node_recorded_is_reported_by_every_plan_until_the_next_change():
    files = {GUARD["healed"]: heal_record()}
    healed = role_writes(kubeadm_plan(), files, {}, True, False, render)["healed"]
    assert healed == (
        "numa.kubelet: kubelet.service failed 3 time(s) after the change numa.kubelet made at 2026-11-27T23:38:00Z, and at "
        "2026-11-27T23:40:00Z the node restored %s, %s (what ran healthy before that change), reset the checkpoints and "
        'started it. The kubelet\'s last error: E1127 run.go:72] "Failed to start ContainerManager" err="boom"' % (DROPIN, GUARD["inputs"])
    )
    assert role_writes(kubeadm_plan(), {}, {}, True, False, render)["healed"] == ""


def test_a_heal_the_node_declined_is_reported_with_its_reason():
    files = {GUARD["healed"]: heal_record(healed=False, restored=[], reason="another tool changed the files", kubelet_error="")}
    healed = role_writes(kubeadm_plan(), files, {}, True, False, render)["healed"]
    assert "the node did NOT heal itself: another tool changed the files. The kubelet's last error: none in the journal" in healed


def test_an_unreadable_heal_record_is_reported_not_a_crash():
    healed = role_writes(kubeadm_plan(), {GUARD["healed"]: "{not json"}, {}, True, False, render)["healed"]
    assert healed.startswith("numa.kubelet: kubelet.service: the self-heal's record /var/lib/numa-kubelet/kubelet.service.healed.json cannot be read")


def test_each_write_carries_what_the_node_held_when_planned():
    # restart_kubelet refuses to write over a file that changed since (numa.kubelet.rollout applies its planning play's
    # plan minutes later): the digest of the text read, 'absent' for a missing file.
    result = kubeadm_plan()
    files, attributes = converged(result)
    files[DROPIN] = "edited by hand\n"
    del files[EXTRA_ARGS], attributes[EXTRA_ARGS]
    writes = {write["path"]: write for write in role_writes(result, files, attributes, True, False, render)["writes"]}
    assert writes[DROPIN]["previous_sha256"] == "sha256:" + hashlib.sha256(b"edited by hand\n").hexdigest()
    assert writes[EXTRA_ARGS]["previous_sha256"] == "absent"
    assert writes[GUARD["inputs"]]["previous_sha256"] == "sha256:" + hashlib.sha256(files[GUARD["inputs"]].encode()).hexdigest()


def test_no_digest_for_files_given_rather_than_read_nor_for_a_file_written_only_where_missing():
    result = kubeadm_plan()
    assert not [write for write in role_writes(result, {}, {}, True, False, render)["writes"] if "previous_sha256" in write]
    files, attributes = converged(result)
    del files[GUARD["started"]], attributes[GUARD["started"]]
    writes = {write["path"]: write for write in role_writes(result, files, attributes, True, False, render)["writes"]}
    assert writes[GUARD["started"]]["only_if_absent"] and "previous_sha256" not in writes[GUARD["started"]]
