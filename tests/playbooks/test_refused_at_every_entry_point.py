# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Issue 26's table through every entry point a user has, each through ansible-playbook: numa.kubelet.render, the
kubelet_numa role in check mode (its plan, numa.kubelet.plan_node), numa.kubelet.eks_userdata and the
numa.kubelet.validate_kubelet_config filter. Each configuration the real kubelet v1.36.2 refuses is refused with the
kubelet's own text and nothing is written; each accepted neighbour passes.

The cases are tests/oracle/cases/issue_table.yml (the baseline with one field changed), the kubelet's verdicts and
texts those recorded in tests/oracle/data/kubelet_verdicts.json, and the agreement rule oracle_cases.engine_agrees:
the same as the differential corpus. One ansible-playbook run per entry point, one host (or node class) per case.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys

import pytest
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BIN = os.path.dirname(sys.executable)
MAIN = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
# Managed by a node group whose own user data part names the cluster (docs/eks.md); any instance type gives maxPods.
EKS_CLASS = {"instance_type": "m5.4xlarge", "cluster_in_another_part": True}
# nodeadm's base config sets systemReservedCgroup /system and kubeReservedCgroup /runtime, beside which upstream
# validation.go refuses reservedSystemCPUs (the oracle's OpenShift build does not): on EKS the accepted neighbour
# empties them, as the refusal says to.
EKS_NEIGHBOURS = {"issue-reserved-system-cpus-one": {"systemReservedCgroup": "", "kubeReservedCgroup": ""}}
FATAL = re.compile(r"^fatal: \[(?P<host>[^\]]+)\]: FAILED! => (?P<result>\{.*\})$", re.M)
RECAP = re.compile(r"^(?P<host>\S+)\s+: ok=\d+\s+changed=(?P<changed>\d+)\s+unreachable=\d+\s+failed=(?P<failed>\d+)", re.M)
EKS_CLASS_PROBLEM = re.compile(r"node_classes\[\d+\] \((?P<name>[a-z0-9-]+)\): ")


def _load(name):
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, os.path.join(REPO, "scripts", "lib", name + ".py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # its dataclasses look their module up there
        spec.loader.exec_module(module)
    return sys.modules[name]


oracle_cases = _load("oracle_cases")
with open(os.path.join(REPO, "tests", "oracle", "data", "kubelet_verdicts.json"), encoding="utf-8") as _handle:
    RECORDED = json.load(_handle)
CASES = [case for case in oracle_cases.load_cases() if case.source == "issue_table.yml"]
# The CPUs of the machine the verdicts were recorded on: kubelet-check dealt them out to its fake NUMA nodes.
CPUS = RECORDED["machine"]["cpus"]


def topology(case):
    nodes = case.numa_topology(CPUS)
    return {"numa_nodes": nodes, "numa_memory_capacity_bytes": sum(node["memory_bytes"] for node in nodes)}


def intent(case):
    """The case's config as a user's intent: the collection writes apiVersion and kind and computes reservedMemory."""
    return {key: value for key, value in case.config.items() if key not in ("apiVersion", "kind", "reservedMemory")}


def kubeadm_host(case):
    return {
        "kubelet_numa_platform": "kubeadm",
        "kubelet_numa_topology": topology(case),
        "kubelet_numa_node_files": {"/var/lib/kubelet/config.yaml": MAIN},
        "kubelet_numa_config": intent(case),
    }


def ansible_playbook(collections_root, tmp_path, playbook, hosts=None, *extra):
    """(rc, output) of one ansible-playbook run; hosts: {name: variables} for its inventory, or localhost alone."""
    inventory = tmp_path / "inventory.yml"
    inventory.write_text(yaml.safe_dump({"all": {"hosts": hosts or {"localhost": {}}}}))
    env = dict(
        os.environ,
        ANSIBLE_COLLECTIONS_PATH=str(collections_root),
        ANSIBLE_HOME=str(tmp_path / "ansible-home"),
        ANSIBLE_LOCAL_TEMP=str(tmp_path / "ansible-tmp"),
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_FORCE_COLOR="0",
    )
    argv = [os.path.join(BIN, "ansible-playbook"), "-i", str(inventory), "-f", "8", *extra, str(playbook)]
    result = subprocess.run(argv, env=env, capture_output=True, text=True, check=False, timeout=900, cwd=str(tmp_path))
    output = result.stdout + result.stderr
    assert "Traceback" not in output, output
    return result.returncode, output


def failures(output):
    """{host: its failure's text (msg and problems)} for every host the run failed."""
    found = {}
    for match in FATAL.finditer(output):
        result = json.loads(match.group("result"))
        messages = result.get("msg")
        found[match.group("host")] = "\n".join([*(messages if isinstance(messages, list) else [str(messages)]), *(result.get("problems") or [])])
    return found


def recap(output):
    return {match.group("host"): (int(match.group("changed")), int(match.group("failed"))) for match in RECAP.finditer(output.split("PLAY RECAP")[-1])}


def disagreements(refusals):
    """Where an entry point's refusals ({case id: its error text, or None when accepted}) differ from the kubelet's."""
    found = []
    for case in CASES:
        entry = RECORDED["verdicts"].get(case.id)
        assert oracle_cases.is_recorded(case, entry), f"{case.id}: no verdict recorded for these inputs: re-record with scripts/record-kubelet-verdicts"
        errors = [] if refusals.get(case.id) is None else [refusals[case.id]]
        why = oracle_cases.engine_agrees(entry["verdict"], entry["text"], errors)
        if why:
            found.append(f"{case.id} ({json.dumps(case.patch)}): {why}\n  kubelet: {entry['text']}\n  ours: {errors}")
    return found


def refused_by_render(collections_root, tmp_path):
    dest = tmp_path / "render"
    hosts = {case.id: kubeadm_host(case) for case in CASES}
    _rc, output = ansible_playbook(
        collections_root, tmp_path, os.path.join(REPO, "playbooks", "render.yml"), hosts, "-e", json.dumps({"kubelet_numa_render_dir": str(dest)})
    )
    refused = failures(output)
    rendered = set(os.listdir(dest)) if dest.is_dir() else set()
    assert not rendered & set(refused), f"files written for refused hosts: {sorted(rendered & set(refused))}"
    assert rendered | set(refused) == set(hosts), output
    return refused


def refused_by_the_roles_plan(collections_root, tmp_path):
    # Check mode, the node's files and topology given: the role's plan (numa.kubelet.plan_node) on every host, and
    # nothing on this machine changes.
    play = [
        {
            "name": "The role in check mode",
            "hosts": "all",
            "gather_facts": False,
            "tasks": [{"ansible.builtin.include_role": {"name": "numa.kubelet.kubelet_numa"}}],
        }
    ]
    playbook = tmp_path / "role.yml"
    playbook.write_text(yaml.safe_dump(play, sort_keys=False))
    local = {"ansible_connection": "local", "ansible_python_interpreter": sys.executable}
    hosts = {case.id: dict(kubeadm_host(case), **local) for case in CASES}
    _rc, output = ansible_playbook(collections_root, tmp_path, playbook, hosts, "--check")
    refused = failures(output)
    outcome = recap(output)
    assert set(outcome) == set(hosts), output
    assert {host for host, (_changed, failed) in outcome.items() if failed} == set(refused), output
    assert not [host for host in refused if outcome[host][0]], "a refused host reports a change"
    for host in refused:
        assert f"fatal: [{host}]: FAILED! => " in output.split("TASK [numa.kubelet.kubelet_numa : Discover and plan the node]")[1].split("TASK [")[0], (
            f"{host} is not refused by the plan"
        )
    return refused


def refused_by_eks_userdata(collections_root, tmp_path):
    output_dir = tmp_path / "eks"
    playbook = os.path.join(REPO, "playbooks", "eks_userdata.yml")
    classes = [dict(EKS_CLASS, name=case.id, topology=topology(case), intent=dict(intent(case), **EKS_NEIGHBOURS.get(case.id, {}))) for case in CASES]
    variables = tmp_path / "classes.yml"
    variables.write_text(yaml.safe_dump({"kubelet_numa_eks_node_classes": classes, "kubelet_numa_eks_output_dir": str(output_dir)}))
    rc, output = ansible_playbook(collections_root, tmp_path, playbook, None, "-c", "local", "-e", f"@{variables}")
    message = failures(output).get("localhost", "")
    refused = {}
    matches = list(EKS_CLASS_PROBLEM.finditer(message))
    for match, following in zip(matches, [*matches[1:], None], strict=True):
        text = message[match.end() : following.start() if following else len(message)]
        refused[match.group("name")] = (refused.get(match.group("name")) or "") + text
    if refused:
        assert rc != 0 and not output_dir.exists(), "eks_userdata wrote files while refusing a class"
    # The accepted classes alone: every one is written.
    accepted = [node_class for node_class in classes if node_class["name"] not in refused]
    variables.write_text(yaml.safe_dump({"kubelet_numa_eks_node_classes": accepted, "kubelet_numa_eks_output_dir": str(output_dir)}))
    rc, output = ansible_playbook(collections_root, tmp_path, playbook, None, "-c", "local", "-e", f"@{variables}")
    assert rc == 0, output
    assert sorted(os.listdir(output_dir)) == sorted(f"{node_class['name']}.user-data.mime" for node_class in accepted)
    return refused


def refused_by_the_filter(collections_root, tmp_path):
    task = {
        "name": "Validate the host's config",
        "ansible.builtin.set_fact": {"checked": "{{ case_config | numa.kubelet.validate_kubelet_config(case_numa_nodes) }}"},
    }
    playbook = tmp_path / "filter.yml"
    playbook.write_text(yaml.safe_dump([{"name": "The filter", "hosts": "all", "gather_facts": False, "tasks": [task]}], sort_keys=False))
    hosts = {case.id: {"ansible_connection": "local", "case_config": case.config, "case_numa_nodes": topology(case)["numa_nodes"]} for case in CASES}
    _rc, output = ansible_playbook(collections_root, tmp_path, playbook, hosts)
    assert set(recap(output)) == set(hosts), output
    return failures(output)


ENTRY_POINTS = {
    "render": refused_by_render,
    "role-plan-check-mode": refused_by_the_roles_plan,
    "eks_userdata": refused_by_eks_userdata,
    "validate_kubelet_config": refused_by_the_filter,
}


@pytest.mark.parametrize("entry_point", list(ENTRY_POINTS))
def test_the_issue_table_is_refused_with_the_kubelets_words_and_its_neighbours_pass(entry_point, collections_root, tmp_path):
    refusals = ENTRY_POINTS[entry_point](collections_root, tmp_path)
    assert set(refusals) <= {case.id for case in CASES}, refusals
    found = disagreements(refusals)
    assert not found, f"{entry_point} disagrees with the kubelet v1.36.2 on {len(found)} of {len(CASES)} cases:\n" + "\n".join(found)
