# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One Karpenter class that may launch a 1-, 2- and 4-NUMA-node type, split at boot, on the REAL kubelet.

numa.kubelet.eks_userdata renders the class once (boot_split: true); its text/x-shellscript part is read back from the
user data and the program it installs is run, with the options it installs, as the kubelet unit's ExecStartPre runs
it: over each type's fake NUMA tree and the kubelet's arguments (nodeadm's config.json for that type, its
40-nodeadm.conf without reservedMemory). The real kubelet (kubelet-check, on the same fake topology) then reads the
same files and must start with exactly the split the program wrote, which is the split the render planned for that
type. The split of another type, which is what one fixed reservedMemory in the user data would give, is refused by the
kubelet on a node of another layout, in its own words.
"""

from __future__ import annotations

import email
import json
import os
import re
import subprocess

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._boot_split import DROPIN_NAME, ROOT_ENV
from ansible_collections.numa.kubelet.plugins.plugin_utils._boot_split_bundle import OPTIONS_PATH, PROGRAM_PATH, SHELLSCRIPT_CONTENT_TYPE
from ansible_collections.numa.kubelet.plugins.plugin_utils._eks_userdata import render_node_classes
from ansible_collections.numa.kubelet.tests.oracle.test_real_kubelet import KubeletInputs, Oracle, filled, require_verdict, spec_nodes
from ansible_collections.numa.kubelet.tests.unit.plugins.modules.fake_sysfs import make_tree
from ansible_collections.numa.kubelet.tests.unit.plugins.plugin_utils.eks_node_classes import karpenter_class
from ansible_collections.numa.kubelet.tests.unit.plugins.plugin_utils.test_boot_split_differential import PYTHON

# The types the class may launch (its NodePool's node.kubernetes.io/instance-type values) and kubelet-check's fake
# NUMA nodes for each: the same 32Gi, on 1, 2 and 4 nodes.
TYPES = {"r5.xlarge": "1x32Gi", "m5.2xlarge": "2x16Gi", "c5.4xlarge": "4x8Gi"}
CPUS_PER_NODE = 2
# Their maxPods differ (58, 58 and 234), and so would EKS's maxPods-derived kubeReserved.memory: it is pinned, so that
# every type reserves the same total, as a boot_split class needs.
PINNED = {"kubeReserved": {"memory": "1948Mi"}}
# The kubelet's own words (kubernetes/kubernetes pkg/kubelet/cm/memorymanager/memory_manager.go, validateReservedMemory,
# at 03830db82de748fe063ff3db1d471080f4d5a48a).
NO_SUCH_NODE = "the reserved memory configuration references a NUMA node 1 that does not exist on this machine"
NOT_THE_TOTAL = re.compile(r'the total amount "[^"]+" of type "memory" is not equal to the value "[^"]+" determined by Node Allocatable feature')


def _topology(spec):
    count, size = spec_nodes(spec)
    nodes = [{"id": node, "memory_bytes": size, "cpus": list(range(node * CPUS_PER_NODE, (node + 1) * CPUS_PER_NODE))} for node in range(count)]
    return {"numa_nodes": nodes, "numa_memory_capacity_bytes": count * size}


def _mixed_class():
    node_class = karpenter_class(kubelet=dict(PINNED))
    for key in ("instance_type", "topology"):
        node_class.pop(key)
    return dict(node_class, instance_types={name: _topology(spec) for name, spec in TYPES.items()}, boot_split=True)


def _installed_files(user_data):
    """{path: text} that the user data's text/x-shellscript part writes (its cat >PATH <<'EOF' here-documents)."""
    (script,) = [part.get_payload() for part in email.message_from_string(user_data).walk() if part.get_content_type() == SHELLSCRIPT_CONTENT_TYPE]
    return {path: text + "\n" for path, text in re.findall(r"^cat >(\S+) <<'EOF'\n(.*?)\nEOF$", script, flags=re.M | re.S)}


@pytest.fixture(scope="module")
def rendered():
    """The class rendered once: (its details, the files its user data installs)."""
    result = render_node_classes([_mixed_class()])
    return result["classes"]["m5"], _installed_files(result["files"]["m5.user-data.mime"])


@pytest.fixture(scope="module")
def oracle(oracle_script_path, oracle_shared_dir):
    cache = oracle_shared_dir / "eks-boot-split-verdicts"
    cache.mkdir(exist_ok=True)
    return Oracle(oracle_script_path, cache)


def _boot(instance_type, installed, tmp_path):
    """As at a kubelet start on instance_type: (config.json, 40-nodeadm.conf, the program's drop-in text)."""
    single = render_node_classes([dict(_mixed_class(), instance_types={instance_type: _topology(TYPES[instance_type])})])["classes"]["m5"]
    inputs = single["kubelet_inputs"]
    base = inputs["config"]["content"]
    nodeadm_dropin = {key: value for key, value in inputs["dropins"][0]["content"].items() if key != "reservedMemory"}
    count, size = spec_nodes(TYPES[instance_type])
    make_tree(tmp_path / "host", {node: (size >> 10, f"{node * CPUS_PER_NODE}-{node * CPUS_PER_NODE + 1}", {}) for node in range(count)})
    config_dir = tmp_path / "config.json.d"
    config_dir.mkdir()
    (tmp_path / "config.json").write_text(json.dumps(base), encoding="utf-8")
    (config_dir / "40-nodeadm.conf").write_text(json.dumps(nodeadm_dropin), encoding="utf-8")
    for path in (PROGRAM_PATH, OPTIONS_PATH):
        (tmp_path / os.path.basename(path)).write_text(installed[path], encoding="utf-8")
    arguments = [f"--config={tmp_path / 'config.json'}", f"--config-dir={config_dir}", f"--root-dir={tmp_path / 'kubelet'}", "--node-ip=10.0.0.1"]
    program = [PYTHON, str(tmp_path / os.path.basename(PROGRAM_PATH)), str(tmp_path / os.path.basename(OPTIONS_PATH)), "--", *arguments]
    proc = subprocess.run(program, capture_output=True, text=True, check=False, timeout=60, env=dict(os.environ, **{ROOT_ENV: str(tmp_path / "host")}))
    assert (proc.returncode, proc.stderr) == (0, ""), f"{instance_type}: {proc.stderr}"
    return json.dumps(base, indent=2) + "\n", json.dumps(nodeadm_dropin, indent=2) + "\n", (config_dir / DROPIN_NAME).read_text(encoding="utf-8")


@pytest.mark.parametrize("instance_type", list(TYPES))
def test_the_real_kubelet_starts_with_the_split_the_program_writes(instance_type, rendered, oracle, tmp_path):
    details, installed = rendered
    base, nodeadm_dropin, ours = _boot(instance_type, installed, tmp_path)
    written = json.loads(ours)["reservedMemory"]
    assert written == details["reserved_memory_by_type"][instance_type]
    inputs = KubeletInputs(TYPES[instance_type], base, [("40-nodeadm.conf", nodeadm_dropin), (DROPIN_NAME, ours)])
    verdict = require_verdict(oracle.check(inputs), inputs)
    assert verdict.kind == "ACCEPTED", f"{verdict.text}\n{inputs.describe()}"
    count, _size = spec_nodes(TYPES[instance_type])
    assert verdict.numa == count
    planned = {entry["numaNode"]: _bytes(entry["limits"]["memory"]) for entry in written}
    assert filled(verdict.reserved, count) == filled(planned, count)


def _bytes(quantity):
    match = re.fullmatch(r"(\d+)(Ki|Mi|Gi)?", quantity)
    assert match, quantity
    return int(match.group(1)) << {None: 0, "Ki": 10, "Mi": 20, "Gi": 30}[match.group(2)]


def _short_by_one_mebibyte(split):
    """The same split with NUMA node 0's share 1Mi smaller: the per-node sum no longer matches the totals."""
    wrong = [dict(entry, limits=dict(entry["limits"])) for entry in split]
    wrong[0]["limits"]["memory"] = f"{(_bytes(wrong[0]['limits']['memory']) >> 20) - 1}Mi"
    return wrong


@pytest.mark.parametrize(
    "instance_type, wrong_split, words",
    [
        # What one fixed reservedMemory in the user data would do: the 4-NUMA type's split on the 1-NUMA type.
        ("r5.xlarge", lambda by_type: by_type["c5.4xlarge"], re.compile(re.escape(NO_SUCH_NODE))),
        ("m5.2xlarge", lambda by_type: _short_by_one_mebibyte(by_type["m5.2xlarge"]), NOT_THE_TOTAL),
    ],
    ids=["4-numa-split-on-1-numa-type", "split-1Mi-short"],
)
def test_a_wrong_split_is_refused_by_the_real_kubelet_in_its_words(instance_type, wrong_split, words, rendered, oracle, tmp_path):
    details, installed = rendered
    base, nodeadm_dropin, _ours = _boot(instance_type, installed, tmp_path)
    wrong = {"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration", "reservedMemory": wrong_split(details["reserved_memory_by_type"])}
    inputs = KubeletInputs(TYPES[instance_type], base, [("40-nodeadm.conf", nodeadm_dropin), (DROPIN_NAME, json.dumps(wrong, indent=2) + "\n")])
    verdict = require_verdict(oracle.check(inputs), inputs)
    assert verdict.kind == "REJECTED", f"{verdict.text}\n{inputs.describe()}"
    assert words.search(verdict.text), verdict.text
