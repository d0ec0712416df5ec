#!/usr/bin/python
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
---
module: node_files
short_description: Read the kubelet-related files of a node in one go
version_added: 0.1.0
description:
  - Reads text files and the files directly inside directories, read-only, in one task, so that planning a node
    costs one round trip whatever the platform (kubeadm, RKE2, nodeadm, k3s).
  - With O(topology=true), also reads the NUMA topology as M(numa.kubelet.numa_facts) does, in the same round trip.
  - Also returns the mode, owner and group of every path found, so that a role can tell a file already in place
    without a C(stat) task per file.
  - A missing file or directory is reported as missing (C(null) content), not as an error; a file that cannot be read
    (permissions, not UTF-8, larger than O(max_bytes)) fails the task naming the file.
author:
  - numa.kubelet developers (!UNKNOWN)
options:
  paths:
    description: Absolute paths of files to read. A path that is a directory is reported as existing, with no content.
    type: list
    elements: path
    default: []
  dirs:
    description:
      - Absolute paths of directories whose regular files are read, those of their subdirectories too (the kubelet
        merges the C(.conf) files of its C(--config-dir) at any depth); a symlink to a directory is not followed.
    type: list
    elements: path
    default: []
  max_bytes:
    description: Largest file read; kubelet configs are a few KiB.
    type: int
    default: 1048576
  topology:
    description:
      - Also read the NUMA topology (RV(topology)); fails, like M(numa.kubelet.numa_facts), on a host without a
        sysfs NUMA tree.
    type: bool
    default: false
  units:
    description:
      - systemd units whose state to read too (RV(units)), in the same round trip; a unit systemd does not know is
        reported as C(inactive).
    type: list
    elements: str
    default: []
attributes:
  check_mode:
    description: Reads only, so check mode returns the same result.
    support: full
  diff_mode:
    description: Changes nothing.
    support: none
"""

EXAMPLES = r"""
- name: Read a kubeadm node's kubelet files
  numa.kubelet.node_files:
    paths:
      - /var/lib/kubelet/config.yaml
      - /var/lib/kubelet/kubeadm-flags.env
    dirs:
      - /etc/kubernetes/kubelet.conf.d
  register: kubelet_files
"""

RETURN = r"""
files:
  description: Every file read, and every requested path that does not exist (value C(null)), by absolute path.
  returned: always
  type: dict
  sample: {"/var/lib/kubelet/config.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\n...", "/etc/default/kubelet": null}
existing:
  description: The requested paths and directories that exist.
  returned: always
  type: list
  elements: str
attributes:
  description: Mode (four octal digits), owner and group of every existing path in RV(existing) and every file read.
  returned: always
  type: dict
  sample: {"/etc/default/kubelet": {"mode": "0644", "owner": "root", "group": "root"}}
units:
  description:
    - "Per unit of O(units): C(active_state) and C(sub_state), as systemd's ActiveState and SubState."
    - Empty when systemd cannot be asked on the host.
  returned: when O(units) is given
  type: dict
  sample: {"kubelet.service": {"active_state": "active", "sub_state": "running"}}
topology:
  description: The NUMA topology, as the C(ansible_facts) of M(numa.kubelet.numa_facts).
  returned: when O(topology=true)
  type: dict
  sample: {"numa_nodes": [{"id": 0, "memory_bytes": 1339027456, "cpus": [0], "hugepages": {}}], "numa_memory_capacity_bytes": 1339027456}
"""

import grp
import os
import pwd
import stat

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.numa.kubelet.plugins.module_utils._numa_topology import TopologyError, read_topology


def _attributes(path):
    info = os.stat(path)
    try:
        owner = pwd.getpwuid(info.st_uid).pw_name
    except KeyError:
        owner = str(info.st_uid)
    try:
        group = grp.getgrgid(info.st_gid).gr_name
    except KeyError:
        group = str(info.st_gid)
    return {"mode": f"{stat.S_IMODE(info.st_mode):04o}", "owner": owner, "group": group}


def _files_under(directory):
    """The regular files under `directory` at any depth, as the kubelet walks its --config-dir (filepath.Walk, which
    does not enter a symlink to a directory)."""
    found = []
    for root, subdirectories, names in os.walk(directory):
        subdirectories.sort()
        found.extend(os.path.join(root, name) for name in sorted(names) if os.path.isfile(os.path.join(root, name)))
    return found


def _read(module, path, max_bytes):
    size = os.path.getsize(path)
    if size > max_bytes:
        module.fail_json(msg="node_files: %s is %d bytes, larger than max_bytes %d" % (path, size, max_bytes))
    try:
        with open(path, "rb") as handle:
            return handle.read().decode("utf-8")
    except UnicodeDecodeError as exc:
        module.fail_json(msg=f"node_files: {path} is not UTF-8 text: {exc}")
    except OSError as exc:
        module.fail_json(msg=f"node_files: cannot read {path}: {exc.strerror}")
    return None


def _unit_states(module, units):
    """ActiveState and SubState of each unit, from one `systemctl show` (one block per unit, in the order asked)."""
    systemctl = module.get_bin_path("systemctl")
    if systemctl is None:
        return {}  # no systemd at all (a container or controller without it): nothing is known
    rc, out, _err = module.run_command([systemctl, "show", "--property=ActiveState,SubState", "--"] + list(units))
    if rc != 0:
        return {}  # no systemd to ask (a container, the controller in check mode): nothing is known
    blocks = [dict(line.split("=", 1) for line in block.splitlines() if "=" in line) for block in out.strip().split("\n\n")]
    if len(blocks) != len(units):
        module.fail_json(msg="node_files: systemctl show answered %d units for %d: %r" % (len(blocks), len(units), out))
    return {unit: {"active_state": block.get("ActiveState", "inactive"), "sub_state": block.get("SubState", "dead")} for unit, block in zip(units, blocks)}


def main():
    module = AnsibleModule(
        argument_spec={
            "paths": {"type": "list", "elements": "path", "default": []},
            "dirs": {"type": "list", "elements": "path", "default": []},
            "max_bytes": {"type": "int", "default": 1048576},
            "topology": {"type": "bool", "default": False},
            "units": {"type": "list", "elements": "str", "default": []},
        },
        supports_check_mode=True,
    )
    files = {}
    existing = []
    for path in module.params["paths"] + module.params["dirs"]:
        if not os.path.isabs(path):
            module.fail_json(msg=f"node_files: {path!r} is not an absolute path")
    for path in module.params["paths"]:
        if os.path.isdir(path):
            existing.append(path)
        elif os.path.isfile(path):
            existing.append(path)
            files[path] = _read(module, path, module.params["max_bytes"])
        else:
            files[path] = None
    for directory in module.params["dirs"]:
        if not os.path.isdir(directory):
            continue
        existing.append(directory)
        for path in _files_under(directory):
            files[path] = _read(module, path, module.params["max_bytes"])
    attributes = {path: _attributes(path) for path in existing + [path for path, text in files.items() if text is not None]}
    result = {"files": files, "existing": existing, "attributes": attributes}
    if module.params["units"]:
        result["units"] = _unit_states(module, module.params["units"])
    if module.params["topology"]:
        try:
            result["topology"] = read_topology("/")
        except TopologyError as exc:
            module.fail_json(msg=f"node_files: {exc}")
    module.exit_json(changed=False, **result)


if __name__ == "__main__":
    main()
