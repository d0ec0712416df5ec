#!/usr/bin/python
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: restart_kubelet
short_description: Write the kubelet's files and restart it as one transaction on the node, rolling back on failure
version_added: 0.1.0
description:
  - "Runs on the node, in one call: write the files of O(write) that differ from what is on the node (keeping what each
    held before), stop the unit, remove C(memory_manager_state) (and C(cpu_manager_state) with
    O(reset_cpu_manager_state)), start it, wait for C(/healthz), compare the new C(memory_manager_state) with
    O(expected_state), then watch the unit until it has run O(settle) seconds since that checkpoint matched (since its
    start without O(expected_state)). Without O(reset), the unit is restarted instead of stopped and started, and the
    checkpoints stay."
  - "Once the kubelet is up and its checkpoint matches, the transaction reports so (RV(settled) false, with
    RV(settling_until)) and goes on watching the unit for the rest of O(settle): a kubelet that exits in that time is
    rolled back by the transaction itself, which then reports that. O(settled=false) returns that first report, so the
    caller can go on (a rollout verifies the node meanwhile) and read the final verdict later with O(only_report) and
    the same O(token)."
  - "When a write fails (a full disk, say), the files already written are put back, the directories it made are
    removed, and the kubelet is not touched."
  - "On any failure after the writes it stops the unit (so that no kubelet reads a tree half put back), puts back the
    previous files (those of O(write) it changed, and O(files)), removes both checkpoints, starts the kubelet with the
    old config, waits for it, and fails reporting the kubelet's own last error and the rollback's outcome. The
    directories it made stay: a kubelet flag may name one (C(--config-dir)), and the kubelet does not start on a
    C(--config-dir) that does not exist."
  - "The transaction runs in a process of its own session on the node, detached from the connection: when the
    controller is killed or the connection drops mid-restart, it still finishes or rolls back, so the kubelet is never
    left stopped. The task waits for it and returns its result; two transactions on one unit take turns (a lock in
    C(/run/numa-kubelet))."
  - The role P(numa.kubelet.kubelet_numa#role) runs it from its handler (topic C(kubelet_numa reset)).
author:
  - numa.kubelet developers (!UNKNOWN)
options:
  unit:
    description:
      - The systemd unit that runs the kubelet (C(kubelet.service), C(rke2-server.service), C(rke2-agent.service), C(k3s.service),
        C(k3s-agent.service)).
    type: str
    required: true
  start_unit:
    description:
      - A unit restarted instead of starting O(unit), which starts the kubelet itself (nodeadm's C(nodeadm-run.service),
        which rewrites the kubelet's files from C(/etc/eks/nodeadm.d) first).
    type: str
  reset:
    description: Stop, remove the checkpoints, start. V(false) restarts the unit and keeps the checkpoints.
    type: bool
    default: true
  reset_cpu_manager_state:
    description: Also remove C(cpu_manager_state) (the CPU manager's inputs changed).
    type: bool
    default: false
  root_dir:
    description: The kubelet's C(--root-dir), where the checkpoints are.
    type: path
    default: /var/lib/kubelet
  daemon_reload:
    description: Reload systemd first (a unit drop-in changed).
    type: bool
    default: false
  health_url:
    description: The kubelet's healthz URL; none (healthz disabled) waits for the unit to be active instead.
    type: str
  health_timeout:
    description:
      - Seconds to wait for the kubelet to answer O(health_url) after a start, before rolling back.
      - "Within the same time, the check against O(expected_state) waits for the kubelet to write the machine state
        into C(memory_manager_state): the real kubelet answers C(/healthz) before its memory manager starts."
    type: int
    default: 120
  settle:
    description:
      - Seconds the kubelet must have run, and still run, since its C(memory_manager_state) matched O(expected_state)
        (the file's modification time, never before the process's start; without O(expected_state), since its start),
        before the transaction counts it as up. After its memory manager, the kubelet's container manager still
        validates the node allocatable, sets up the node's cgroups and starts the device manager, any of which can end
        it.
    type: float
    default: 2
  expected_state:
    description:
      - "What C(memory_manager_state) must say after the start, as the plan's C(expected_state)
        (C(policyName), and C(systemReserved) bytes per NUMA node); omitted, the checkpoint is not compared."
    type: dict
  files:
    description:
      - Files written before this call, each with what it held before, for the rollback. Files of O(write) need no entry
        here.
    type: list
    elements: dict
    default: []
    suboptions:
      path:
        description: The file (an absolute path).
        type: path
        required: true
      previous:
        description: What it held before; V(null) when it did not exist (the rollback removes it).
        type: str
      mode:
        description: The mode it is put back with.
        type: str
        default: "0644"
  write:
    description:
      - "Files to write first, as part of the transaction, owner and group root. A file whose content, mode, owner and
        group already match is left alone; each file written is put back as it was (or removed) by a rollback. A changed
        file under a systemd directory (C(/systemd/) in its path) reloads systemd before the start."
    type: list
    elements: dict
    default: []
    version_added: 0.2.0
    suboptions:
      path:
        description: The file (an absolute path).
        type: path
        required: true
      content:
        description: Its whole text. Required; an item without it is refused, naming its O(write[].path).
        type: str
      mode:
        description: Its mode, in octal (V("0644")). Required; an item without it is refused, naming its O(write[].path).
        type: str
      only_if_absent:
        description: Write it only when there is no such file.
        type: bool
        default: false
      previous_sha256:
        description:
          - "What the file held when the plan that wrote O(write[].content) read it: C(sha256:) and the hex digest of its
            bytes, or V(absent) for no file (as M(numa.kubelet.plan_node) plans it). When the file differs from
            O(write[].content) and no longer holds that, someone changed it since the plan: the task fails naming it,
            before anything is written or restarted (also under the transaction's lock, against a transaction that ran
            meanwhile)."
          - Omitted, the file is written whatever it holds.
        type: str
        version_added: 0.2.0
  directories:
    description:
      - Directories to create (mode C(0755), owner and group root) before the writes, or to give that mode, owner and
        group; those it created are removed again, where empty, when the writes fail (nothing was restarted). A rollback
        of the restart keeps them.
    type: list
    elements: path
    default: []
    version_added: 0.2.0
  restart:
    description:
      - V(false) writes O(write) (reloading systemd when a unit drop-in changed) and restarts nothing.
    type: bool
    default: true
    version_added: 0.2.0
  only_report:
    description:
      - "Restart nothing: wait until the transaction running on O(unit), if any, has ended (a lock on the node), and
        return the report of the last one (RV(report_found) false when there is none). For a rescue whose connection
        was lost mid-restart, so that it never races the transaction that goes on on the node."
      - With O(token), wait for the report of that transaction (started with O(wait=false)) and return it as its own
        result.
    type: bool
    default: false
  settled:
    description:
      - "V(true): return the transaction's final verdict, once it has ended (after O(settle), or after its rollback)."
      - "V(false): return as soon as the kubelet is up with the new config and its checkpoint matches, while the
        transaction still watches it until RV(settling_until) and rolls back by itself if it exits; its final verdict
        is read later with O(only_report) and its O(token) (and V(true)). A failure before that point is returned
        as with V(true)."
    type: bool
    default: true
    version_added: 0.2.0
  wait:
    description:
      - "V(false): start the transaction on the node and return at once with its RV(token) (and, with C(--diff), the
        files it writes); a later call with O(only_report) and that O(token) waits for its report. So one task starts
        the restarts of every host of a play without a fork of the controller waiting out each one."
    type: bool
    default: true
    version_added: 0.2.0
  token:
    description: With O(only_report), the RV(token) of the transaction to wait for.
    type: str
    version_added: 0.2.0
  heal_record:
    description:
      - "Once the restarted kubelet has settled, keep this change for the node's self-heal (the role's
        C(numa-kubelet-heal)): in C(/var/lib/numa-kubelet/UNIT.change.json), each file written (and of O(files)) with
        the digest of what it holds now and what it held before. A heal record of an earlier change
        (C(UNIT.healed.json)) is moved to C(UNIT.healed-before.json)."
    type: bool
    default: false
    version_added: 0.2.0
  heal_exclude:
    description: Files the self-heal never puts back (the checkpoint guard's own files); only with O(heal_record).
    type: list
    elements: path
    default: []
    version_added: 0.2.0
  progress_record:
    description:
      - "A file written (mode C(0644), owner and group root, its directory made) just before the transaction starts,
        and left on the node whatever the outcome: the caller's record that a change of this node began, on the node
        before anything of the change (C(numa.kubelet.rollout)'s node-local progress, docs/rollout.md, \"Resuming after
        a lost controller\"). Not written in check mode, nor when nothing is written and nothing restarted."
    type: dict
    version_added: 0.2.0
    suboptions:
      path:
        description: The file (an absolute path).
        type: path
        required: true
      content:
        description: Its whole text.
        type: str
        required: true
  remove_when_settled:
    description:
      - "Files removed once the task's result is a kubelet that runs settled with its config (a final verdict that did
        not fail, or nothing to write and nothing to restart); never after a failure or a rollback, nor in check mode.
        With O(only_report) and O(token), the final verdict of the rollout's restart removes its node-local progress
        record (O(progress_record)) in the same call. A file that cannot be removed is a warning."
    type: list
    elements: path
    default: []
    version_added: 0.2.0
attributes:
  check_mode:
    description: Reports which files of O(write) it would change and that it would restart the kubelet, and does nothing.
    support: full
  diff_mode:
    description: Each file of O(write) that differs, before and after.
    support: full
"""

EXAMPLES = r"""
- name: Write the drop-in, reset the kubelet's checkpoints and restart it, rolling back on failure
  numa.kubelet.restart_kubelet:
    unit: kubelet.service
    reset: true
    health_url: http://127.0.0.1:10248/healthz
    expected_state:
      policyName: Static
      systemReserved: {"0": 1126170624, "1": 1126170624}
    directories: [/etc/kubernetes/kubelet.conf.d]
    write:
      - path: /etc/kubernetes/kubelet.conf.d/50-numa-kubelet.conf
        mode: "0644"
        content: "{{ {'apiVersion': 'kubelet.config.k8s.io/v1beta1', 'kind': 'KubeletConfiguration'} | combine(kubelet_config) | to_nice_yaml }}"
  register: restarted
"""

RETURN = r"""
written:
  description: The files of O(write) that differed and were written (in check mode, would be).
  returned: always
  type: list
  elements: str
  version_added: 0.2.0
steps:
  description: Each step of the transaction, in order, with its time in seconds and, for the step that failed, why.
  returned: always
  type: list
  elements: dict
  sample: [{"step": "stop", "seconds": 0.21, "ok": true}, {"step": "start", "seconds": 0.34, "ok": true}]
settled:
  description:
    - Whether this is the transaction's final verdict. V(false) (only with O(settled=false)) says the kubelet is up with
      the new config and its checkpoint matches, and the transaction goes on watching it until RV(settling_until).
  returned: when the transaction reported, and in check mode
  type: bool
  version_added: 0.2.0
settling_until:
  description: With RV(settled) V(false), when the settle time ends (UTC, ISO 8601); until then an exit is rolled back on the node.
  returned: when RV(settled) is V(false)
  type: str
  sample: "2026-11-27T02:31:04.512Z"
  version_added: 0.2.0
rolled_back:
  description: Whether the change was rolled back (the previous files are back and the kubelet was started with them).
  returned: always
  type: bool
rollback:
  description: The rollback's steps and outcome (C(ok), C(error)), when there was one.
  returned: when rolled back
  type: dict
kubelet_error:
  description: The kubelet's last error line from the unit's journal, when the new config failed.
  returned: when rolled back
  type: str
active_state:
  description: The unit's ActiveState when the transaction ended.
  returned: always
  type: str
seconds:
  description: The whole transaction, in seconds.
  returned: always
  type: float
report_found:
  description: With O(only_report), whether a report of an earlier transaction was found.
  returned: with O(only_report)
  type: bool
token:
  description: The transaction's token, for O(only_report) (its final verdict after a report with RV(settled) V(false)).
  returned: when the transaction was started or has reported
  type: str
  version_added: 0.2.0
removed:
  description: The files of O(remove_when_settled) that were removed.
  returned: when one was removed
  type: list
  elements: str
  version_added: 0.2.0
transaction_failed:
  description: With O(only_report), whether the transaction reported failed (also when the task's C(failed_when) hides it).
  returned: with O(only_report), when a report was found
  type: bool
  version_added: 0.2.0
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.numa.kubelet.plugins.module_utils._restart._module import ARGUMENT_SPEC, run


def main():
    run(AnsibleModule(argument_spec=ARGUMENT_SPEC, supports_check_mode=True))


if __name__ == "__main__":
    main()
