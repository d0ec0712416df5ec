# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A class that may launch a 1-, 2- and 4-NUMA-node type, with boot_split, through nodeadm's and Karpenter's own code.

Karpenter v1's merge keeps our text/x-shellscript part (byte for byte, before its NodeConfig), nodeadm parses the
merged user data, validates it and writes a 40-nodeadm.conf without reservedMemory; then, as at boot on each type, the
installed program reads nodeadm's base config.json and that drop-in through the kubelet's arguments and writes the
split the render planned for that type; the real kubelet (NUMA_KUBELET_ORACLE) starts with it on the two-node type.
"""

from __future__ import annotations

import base64
import email
import json
import os
import subprocess

import yaml

from ansible_collections.numa.kubelet.plugins.plugin_utils._boot_split import DROPIN_NAME, ROOT_ENV
from ansible_collections.numa.kubelet.plugins.plugin_utils._boot_split_bundle import program_text, shell_part
from ansible_collections.numa.kubelet.plugins.plugin_utils._eks_userdata import render_node_classes
from ansible_collections.numa.kubelet.tests.nodeadm.test_nodeadm_config import (
    KubeletInputs,
    filled,
    kubelet_spec,
    nodeadm_config,
    nodeadm_json,
    planned_bytes,
    require_verdict,
)
from ansible_collections.numa.kubelet.tests.unit.plugins.modules.fake_sysfs import make_tree
from ansible_collections.numa.kubelet.tests.unit.plugins.plugin_utils.test_boot_split_differential import PYTHON
from ansible_collections.numa.kubelet.tests.unit.plugins.plugin_utils.test_eks_boot_split import MIXED, mixed_class


def _host(root, topology):
    nodes = {node["id"]: (node["memory_bytes"] >> 10, ",".join(map(str, node["cpus"])), {}) for node in topology["numa_nodes"]}
    make_tree(root, nodes, mem_total_kib=topology["numa_memory_capacity_bytes"] >> 10)


def test_a_mixed_class_through_karpenter_nodeadm_and_the_program(nodeadm_config_path, kubelet_oracle, tmp_path):
    node_class = mixed_class(split="proportional")
    rendered = render_node_classes([node_class])
    details = rendered["classes"]["m5"]
    user_data = tmp_path / "m5.user-data.mime"
    user_data.write_text(rendered["files"]["m5.user-data.mime"], encoding="utf-8")
    spec = yaml.safe_load(rendered["files"]["m5.ec2nodeclass.yaml"])["spec"]
    kubelet = tmp_path / "kubelet.json"
    kubelet.write_text(json.dumps(spec["kubelet"]), encoding="utf-8")
    merged = tmp_path / "karpenter.mime"
    merged.write_bytes(base64.b64decode(nodeadm_config(nodeadm_config_path, "karpenter", user_data, kubelet)))

    # Karpenter keeps our parts first and in order, the program's part byte for byte.
    parts = [(part.get_content_type(), part.get_payload()) for part in email.message_from_bytes(merged.read_bytes()).walk() if not part.is_multipart()]
    assert [kind for kind, _payload in parts] == ["text/x-shellscript", "application/node.eks.aws", "application/node.eks.aws"]
    assert parts[0][1].rstrip("\n") == shell_part("proportional").rstrip("\n")
    assert len(merged.read_bytes()) <= 16384

    # nodeadm parses and validates the merged user data; its drop-in carries the totals and no reservedMemory.
    result = nodeadm_json(nodeadm_config_path, "parse", merged)
    assert (result["ok"], result["validate"]) == (True, "ok"), json.dumps(result, indent=2)
    planned = dict(details["by_type"][list(MIXED)[-1]]["kubelet_inputs"]["dropins"][0]["content"])
    planned.pop("reservedMemory")
    assert result["dropin"] == planned
    assert "reservedMemory" not in result["dropin"]

    program = tmp_path / "numa-kubelet-boot-split"
    program.write_text(program_text(), encoding="utf-8")
    for instance_type, topology in MIXED.items():
        # As at boot on this type: nodeadm's base config.json for its maxPods, its 40-nodeadm.conf, the kubelet's args.
        single = render_node_classes([dict(node_class, instance_types={instance_type: topology})])["classes"]["m5"]
        node = tmp_path / instance_type
        _host(node / "host", topology)
        dropins = node / "config.json.d"
        dropins.mkdir()
        base = single["kubelet_inputs"]["config"]["content"]
        (node / "config.json").write_text(json.dumps(base), encoding="utf-8")
        (dropins / "40-nodeadm.conf").write_text(json.dumps(result["dropin"]), encoding="utf-8")
        (node / "boot-split.json").write_text(json.dumps({"split": "proportional"}), encoding="utf-8")
        arguments = [f"--config={node / 'config.json'}", "--kubeconfig=/var/lib/kubelet/kubeconfig", f"--config-dir={dropins}", "--node-ip=10.0.0.1"]
        proc = subprocess.run(
            [PYTHON, str(program), str(node / "boot-split.json"), "--", *arguments],
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
            env=dict(os.environ, **{ROOT_ENV: str(node / "host")}),
        )
        assert (proc.returncode, proc.stderr) == (0, ""), instance_type
        ours = json.loads((dropins / DROPIN_NAME).read_text())
        assert ours["reservedMemory"] == details["reserved_memory_by_type"][instance_type], instance_type
        if kubelet_oracle is not None and len(topology["numa_nodes"]) == 2:
            inputs = KubeletInputs(
                kubelet_spec(topology),
                yaml.safe_dump(base, sort_keys=False),
                [("40-nodeadm.conf", json.dumps(result["dropin"], indent=2) + "\n"), (DROPIN_NAME, (dropins / DROPIN_NAME).read_text())],
            )
            verdict = require_verdict(kubelet_oracle.check(inputs), inputs)
            assert verdict.kind == "ACCEPTED", f"{verdict.text}\n{inputs.describe()}"
            assert filled(verdict.reserved, 2) == planned_bytes(ours["reservedMemory"], 2)
