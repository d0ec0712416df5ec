#!/usr/bin/python
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: container_numa
short_description: Read the kernel's NUMA view of a node's pod containers and the kubelet's checkpoints
version_added: 0.2.0
description:
  - Read-only, in one round trip, what the C(numa.kubelet.alignment) filter compares (the alignment
    check of C(numa.kubelet.verify)).
  - The kubelet's C(memory_manager_state) and C(cpu_manager_state) checkpoints in its root directory.
  - Every pod container the kubelet runs, from the links the kubelet keeps in C(/var/log/containers)
    (C(<pod>_<namespace>_<container>-<container id>.log), pointing into C(/var/log/pods/<namespace>_<pod>_<pod uid>/<container>/)),
    so that no container runtime client is needed.
  - For each container, the first process whose C(/proc/PID/cgroup) names the container id, and its
    C(Cpus_allowed_list) and C(Mems_allowed_list) from C(/proc/PID/status). Containers without a running process
    are left out.
  - The NUMA nodes and their CPUs from sysfs.
  - With O(unit), the kubelet's C("Pod admission denied") lines from that unit's journal since its last start.
author:
  - numa.kubelet developers (!UNKNOWN)
options:
  root_dir:
    description: The kubelet's C(--root-dir), where its checkpoints live.
    type: path
    default: /var/lib/kubelet
  unit:
    description:
      - The systemd unit whose journal holds the kubelet's log (C(kubelet.service) on kubeadm and nodeadm nodes).
      - Empty, no admission refusals are read (RKE2 writes the kubelet's log to a file, not to its unit's journal).
    type: str
    default: ""
  root:
    description: Directory that holds the C(sys), C(proc) and C(var/log) trees to read, for tests.
    type: path
    default: /
attributes:
  check_mode:
    description: Reads only, so check mode returns the same result.
    support: full
  diff_mode:
    description: Changes nothing, so there is nothing to diff.
    support: none
"""

EXAMPLES = r"""
# On a kubeadm or nodeadm node, add `unit: kubelet.service` to read the kubelet's admission refusals too.
- name: Read the kernel's view of the pod containers
  numa.kubelet.container_numa:
  register: view

- name: Fail when a container runs off the NUMA node the kubelet assigned it
  ansible.builtin.assert:
    that: (view | numa.kubelet.alignment).problems | length == 0
"""

RETURN = r"""
memory_manager_state:
  description: The text of C(memory_manager_state); null when the file is missing.
  returned: always
  type: str
cpu_manager_state:
  description: The text of C(cpu_manager_state); null when the file is missing.
  returned: always
  type: str
numa_nodes:
  description: One item per NUMA node with its C(id) and C(cpus), as in C(numa.kubelet.numa_facts).
  returned: always
  type: list
  elements: dict
  sample: [{"id": 0, "cpus": [0]}, {"id": 1, "cpus": [1]}]
containers:
  description: The running pod containers, with their first process's kernel lists.
  returned: always
  type: list
  elements: dict
  sample:
    - pod_uid: 3c1b6e0a5e8f4c7e9b0d2a1f4e6c8b0a
      namespace: default
      pod: numa-guaranteed-node1
      container: app
      container_id: 9f2c6d4e1b7a3c5d8e0f2a4b6c8d0e1f3a5b7c9d1e3f5a7b9c1d3e5f7a9b1c3d
      pid: 714
      cpus_allowed_list: "1"
      mems_allowed_list: "1"
admission_denials:
  description: The kubelet's C("Pod admission denied") log lines of the unit's current run.
  returned: always
  type: list
  elements: str
"""

import os
import re

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.numa.kubelet.plugins.module_utils._numa_topology import TopologyError, read_topology

# pkg/kubelet/kuberuntime/kuberuntime_container.go (BuildContainerLogsDirectory, buildContainerLogsPath) and
# pkg/kubelet/kuberuntime/helpers.go (BuildPodLogsDirectory: <namespace>_<pod>_<uid>).
_LOG_LINK = re.compile(r"^(?P<pod>[^_]+)_(?P<namespace>[^_]+)_(?P<container>.+)-(?P<id>[0-9a-f]{64})\.log$")
_POD_DIR = re.compile(r"^(?P<namespace>[^_]+)_(?P<pod>[^_]+)_(?P<uid>[^_/]+)$")


def _read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return None


def _containers(root):
    links = os.path.join(root, "var/log/containers")
    found = []
    for name in sorted(os.listdir(links)) if os.path.isdir(links) else []:
        match = _LOG_LINK.match(name)
        target = os.readlink(os.path.join(links, name)) if match and os.path.islink(os.path.join(links, name)) else ""
        pod_dir = _POD_DIR.match(os.path.basename(os.path.dirname(os.path.dirname(target)))) if target else None
        if pod_dir:
            found.append(
                {
                    "pod_uid": pod_dir.group("uid"),
                    "namespace": pod_dir.group("namespace"),
                    "pod": pod_dir.group("pod"),
                    "container": match.group("container"),
                    "container_id": match.group("id"),
                }
            )
    if not found:
        return []
    pids = sorted(int(entry) for entry in os.listdir(os.path.join(root, "proc")) if entry.isdigit())
    first_pid = {}
    for pid in pids:
        cgroup = _read(os.path.join(root, "proc", str(pid), "cgroup")) or ""
        for container in found:
            if container["container_id"] in cgroup and container["container_id"] not in first_pid:
                first_pid[container["container_id"]] = pid
    running = []
    for container in found:
        pid = first_pid.get(container["container_id"])
        status = _read(os.path.join(root, "proc", str(pid), "status")) if pid else None
        if status is None:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        running.append(
            dict(
                container, pid=pid, cpus_allowed_list=fields.get("Cpus_allowed_list", "").strip(), mems_allowed_list=fields.get("Mems_allowed_list", "").strip()
            )
        )
    return running


def _admission_denials(module, unit):
    if not unit:
        return []
    rc, invocation, err = module.run_command(["systemctl", "show", "--property", "InvocationID", "--value", unit])
    if rc != 0:
        module.fail_json(msg=f"container_numa: cannot ask systemd about {unit}: {err.strip()}")
    if not invocation.strip():
        return []
    rc, out, err = module.run_command(["journalctl", "--no-pager", "--output", "cat", "_SYSTEMD_INVOCATION_ID=" + invocation.strip()])
    if rc != 0:
        module.fail_json(msg=f"container_numa: cannot read the journal of {unit}: {err.strip()}")
    return [line for line in out.splitlines() if '"Pod admission denied"' in line]


def main():
    module = AnsibleModule(
        argument_spec={
            "root_dir": {"type": "path", "default": "/var/lib/kubelet"},
            "unit": {"type": "str", "default": ""},
            "root": {"type": "path", "default": "/"},
        },
        supports_check_mode=True,
    )
    root = module.params["root"]
    try:
        topology = read_topology(root)
    except TopologyError as exc:
        module.fail_json(msg=f"container_numa: {exc}")
    state_dir = os.path.join(root, module.params["root_dir"].lstrip("/"))
    module.exit_json(
        changed=False,
        memory_manager_state=_read(os.path.join(state_dir, "memory_manager_state")),
        cpu_manager_state=_read(os.path.join(state_dir, "cpu_manager_state")),
        numa_nodes=[{"id": node["id"], "cpus": node["cpus"]} for node in topology["numa_nodes"]],
        containers=_containers(root),
        admission_denials=_admission_denials(module, module.params["unit"]),
    )


if __name__ == "__main__":
    main()
