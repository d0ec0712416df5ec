# -*- coding: utf-8 -*-
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""meta/runtime.yml's filter routing: every renamed filter's old name, called through ansible-playbook of the
ansible-core under test (scripts/test-matrix runs this file on each core, 2.16 to 2.21), gives its new name's result
and a deprecation warning with the entry's text; ansible-doc lists each filter once and no old name."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest
import yaml

from ansible_collections.numa.kubelet.plugins.filter import plan as plan_filters
from ansible_collections.numa.kubelet.plugins.filter import rollout as rollout_filters

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, os.pardir)
BIN = os.path.dirname(sys.executable)
with open(os.path.join(REPO, "meta", "runtime.yml"), encoding="utf-8") as _handle:
    RUNTIME = yaml.safe_load(_handle)
with open(os.path.join(REPO, "galaxy.yml"), encoding="utf-8") as _handle:
    VERSION = yaml.safe_load(_handle)["version"]
FILTER_ROUTING = RUNTIME["plugin_routing"]["filter"]

# Each renamed filter's arguments, written once and passed to the old and the new name alike; PLAN is the first
# argument of the two drift filters (a plan of a kubeadm node with none of numa.kubelet's files yet).
PLAN_VARIABLES = {
    "kubelet_numa_platform": "kubeadm",
    "kubelet_numa_config": {"memoryManagerPolicy": "Static", "kubeReserved": {"memory": "1Gi"}},
    "kubelet_numa_reserved_memory_split": "even",
    "kubelet_numa_topology": {
        "numa_nodes": [{"id": 0, "memory_bytes": 68719476736, "cpus": [0, 1]}, {"id": 1, "memory_bytes": 68719476736, "cpus": [2, 3]}],
        "numa_memory_capacity_bytes": 137438953472,
    },
    "kubelet_numa_kubelet_root_dir": "/var/lib/kubelet",
    "kubelet_numa_dropin_name": "50-numa-kubelet",
    "kubelet_numa_kubeadm_config_file": "/var/lib/kubelet/config.yaml",
    "kubelet_numa_kubeadm_flags_file": "/var/lib/kubelet/kubeadm-flags.env",
    "kubelet_numa_kubeadm_extra_args_file": "/etc/default/kubelet",
    "kubelet_numa_kubeadm_config_dir": "/etc/kubernetes/kubelet.conf.d",
}
PLAN_FACTS = {"files": {"/var/lib/kubelet/config.yaml": "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"}}
CALLS = {
    "kubelet_numa_plan": "plan_variables | {name}(plan_facts)",
    "kubelet_numa_state_problems": "none | {name}({{'policyName': 'Static', 'systemReserved': {{'0': 1073741824}}}})",
    "kubelet_numa_drift": 'planned | {name}(\'{{"policyName": "None", "machineState": {{}}}}\')',
    "kubelet_numa_configz_drift": 'planned | {name}(\'{{"kubeletconfig": {{"memoryManagerPolicy": "None"}}}}\')',
    "kubelet_numa_rollout_problems": "'half' | {name}",
}


def _playbook(tmp_path):
    """One play: each renamed filter called by its old and its new name, the results written as JSON."""
    results = {}
    for old, routing in FILTER_ROUTING.items():
        results[old] = "{{ %s }}" % CALLS[old].format(name="numa.kubelet." + old)
        results[routing["redirect"]] = "{{ %s }}" % CALLS[old].format(name=routing["redirect"])
    play = [
        {
            "hosts": "localhost",
            "gather_facts": False,
            "vars": {
                "plan_variables": PLAN_VARIABLES,
                "plan_facts": PLAN_FACTS,
                "planned": "{{ plan_variables | numa.kubelet.plan(plan_facts) }}",
                "results": results,
            },
            "tasks": [
                {
                    "name": "Write what each name returned",
                    "ansible.builtin.copy": {"content": "{{ results | ansible.builtin.to_json }}", "dest": str(tmp_path / "results.json"), "mode": "0600"},
                }
            ],
        }
    ]
    path = tmp_path / "routing.yml"
    path.write_text(yaml.safe_dump(play, sort_keys=False), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def routed(collections_root, tmp_path_factory):
    """The results of the play and everything ansible-playbook printed, whitespace collapsed (warnings are wrapped)."""
    tmp_path = tmp_path_factory.mktemp("routing")
    env = dict(
        os.environ,
        ANSIBLE_COLLECTIONS_PATH=str(collections_root),
        ANSIBLE_HOME=str(tmp_path / "ansible-home"),
        ANSIBLE_LOCAL_TEMP=str(tmp_path / "ansible-tmp"),
        ANSIBLE_DEPRECATION_WARNINGS="true",
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_LOCALHOST_WARNING="false",
        ANSIBLE_INVENTORY_UNPARSED_WARNING="false",
    )
    command = [os.path.join(BIN, "ansible-playbook"), "-i", "localhost,", "-c", "local", "-e", "ansible_python_interpreter=%s" % sys.executable]
    done = subprocess.run([*command, str(_playbook(tmp_path))], cwd=str(tmp_path), env=env, capture_output=True, text=True, check=False)
    output = re.sub(r"\s+", " ", done.stdout + done.stderr)
    assert done.returncode == 0, output[-2000:]
    return json.loads((tmp_path / "results.json").read_text(encoding="utf-8")), output


def test_every_entry_redirects_a_filter_to_its_new_name_until_the_next_release():
    defined = set(plan_filters.FilterModule().filters()) | set(rollout_filters.FilterModule().filters())
    assert set(FILTER_ROUTING) == set(CALLS)
    major, minor = (int(part) for part in VERSION.split(".")[:2])
    assert major == 0, "from 1.0.0 on an old name lives until the next major release (docs/contributing.md, Naming)"
    for old, routing in FILTER_ROUTING.items():
        new = routing["redirect"]
        assert new.startswith("numa.kubelet.") and new.split(".", 2)[2] in defined, (old, new)
        assert routing["deprecation"]["removal_version"] == "0.%d.0" % (minor + 1), old
        text = routing["deprecation"]["warning_text"]
        assert "numa.kubelet.%s " % old in text and new in text, (old, text)


@pytest.mark.parametrize("old", sorted(CALLS))
def test_an_old_name_gives_the_new_names_result(routed, old):
    results = routed[0]
    new = FILTER_ROUTING[old]["redirect"]
    assert results[old] == results[new]
    assert results[new], "the call of %s is meant to give something to compare" % new


@pytest.mark.parametrize("old", sorted(CALLS))
def test_an_old_name_warns_with_its_deprecation(routed, old):
    output = routed[1]
    deprecation = FILTER_ROUTING[old]["deprecation"]
    text = re.sub(r"\s+", " ", deprecation["warning_text"])
    assert "[DEPRECATION WARNING]" in output
    assert text in output, "no deprecation warning %r in: %s" % (text, output[-2000:])
    # Each core words the rest its own way; all of them name the collection and the version.
    assert re.search(r"removed from (collection '?)?numa\.kubelet'? (in )?version 0\.3\.0", output), output[-2000:]


def test_the_playbook_names_no_other_deprecation(routed):
    output = routed[1]
    warned = re.findall(r"\[DEPRECATION WARNING\]", output)
    assert len(warned) == len(CALLS), output[-2000:]


def test_ansible_doc_lists_each_filter_once_and_no_old_name(collections_root, tmp_path):
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=str(collections_root), ANSIBLE_HOME=str(tmp_path / "ansible-home"), ANSIBLE_NOCOLOR="1")
    done = subprocess.run(
        [os.path.join(BIN, "ansible-doc"), "-t", "filter", "-l", "numa.kubelet"], cwd=str(tmp_path), env=env, capture_output=True, text=True, check=True
    )
    listed = [line.split()[0] for line in done.stdout.splitlines() if line.startswith("numa.kubelet.")]
    assert len(listed) == len(set(listed)), done.stdout
    assert not {name.split(".", 2)[2] for name in listed} & set(FILTER_ROUTING)
    assert {"numa.kubelet.plan", "numa.kubelet.state_problems", "numa.kubelet._drift"} <= set(listed)
