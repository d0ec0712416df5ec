# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The EXAMPLES of every filter and module run through ansible-playbook, and print what their comments say.

Each plugin's examples run as one play on localhost in check mode (no file is written), after numa.kubelet.numa_facts
has read a fake two-NUMA-node machine, with `kubelet_config` set to a Static memory manager intent: the context the
examples' prose assumes ("from this host's facts"). An ansible.builtin.debug example followed by a result comment
(`msg: "{{ ... }}"  # 8600Mi`, or a `# {...}` line closing the task) must print exactly that value. Ansible finds
numa.kubelet as tests/docs/test_doc_examples.py says.
"""

from __future__ import annotations

import glob
import os
import re
import subprocess
import sys

import pytest
import yaml
from ansible.parsing.plugin_docs import read_docstring

from ansible_collections.numa.kubelet.tests.unit.plugins.modules.fake_sysfs import make_tree

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.dirname(sys.executable)
CONTEXT = {
    "kubelet_config": {
        "memoryManagerPolicy": "Static",
        "topologyManagerPolicy": "single-numa-node",
        "kubeReserved": {"memory": "1Gi"},
        "systemReserved": {"memory": "1Gi"},
    }
}
INLINE_RESULT = re.compile(r"^\s+msg: .*[\"'}]\s+# (?P<value>.+)$")
LINE_RESULT = re.compile(r"^  # (?P<value>.+)$")


def plugin_paths():
    """The filter and module files, and the filters' documentation sidecars (.yml)."""
    paths = sorted(glob.glob(os.path.join(REPO, "plugins", "filter", "*.*")) + glob.glob(os.path.join(REPO, "plugins", "modules", "*.py")))
    return [path for path in paths if path.endswith((".py", ".yml"))]


def documented_plugins():
    """(name, EXAMPLES) of every filter and module that carries documentation."""
    found = []
    for path in plugin_paths():
        data = read_docstring(path)
        if data.get("doc"):
            kind = "module" if os.sep + "modules" + os.sep in path else "filter"
            found.append(("%s/%s" % (kind, data["doc"].get("name") or data["doc"].get("module")), data["plainexamples"]))
    return found


PLUGINS = documented_plugins()


def example_tasks(examples):
    """The example tasks, each followed by an assert of the result its comment promises."""
    chunks, current = [], []
    for line in examples.strip("\n").splitlines():
        if line.startswith("- ") and current:
            chunks.append(current)
            current = []
        if line.startswith("- ") or current:  # a comment above the first task belongs to no task
            current.append(line)
    chunks.append(current)
    tasks = []
    for number, chunk in enumerate(chunks):
        task = yaml.safe_load("\n".join(chunk))[0]
        expected = None
        for line in chunk:
            match = INLINE_RESULT.match(line)
            if match:
                expected = match.group("value")
        closing = [line for line in chunk if line.strip()][-1]
        if LINE_RESULT.match(closing):
            expected = LINE_RESULT.match(closing).group("value")
        tasks.append(task)
        if expected is not None:
            assert "ansible.builtin.debug" in task, "%s: a result comment on a task that is not ansible.builtin.debug" % task["name"]
            register = "__example_%d" % number
            task["register"] = register
            tasks.append(
                {
                    "name": "Check the result of: %s" % task["name"],
                    "ansible.builtin.assert": {
                        "that": ["%s.msg == __expected" % register],
                        "fail_msg": "printed {{ %s.msg }}, the example says {{ __expected }}" % register,
                    },
                    "vars": {"__expected": yaml.safe_load(expected)},
                }
            )
    return tasks


def test_every_documentation_parses():
    # Documentation that does not parse is left out of PLUGINS (read_docstring only prints an error): name it here.
    written = [path for path in plugin_paths() if path.endswith(".yml") or "DOCUMENTATION = " in open(path, encoding="utf-8").read()]
    assert [os.path.relpath(path, REPO) for path in written if not read_docstring(path).get("doc")] == []


def test_every_plugin_has_examples():
    assert len(PLUGINS) >= 10
    for name, examples in PLUGINS:
        assert examples and examples.strip(), f"{name} has no EXAMPLES"


@pytest.mark.parametrize("name, examples", PLUGINS, ids=[name for name, _examples in PLUGINS])
def test_plugin_examples_run(name, examples, tmp_path, docs_collections_path):
    root = tmp_path / "host"
    make_tree(root, {0: (33554432, "0-3", {2048: (0, 0)}), 1: (33554432, "4-7", {2048: (0, 0)})})
    play = [
        {
            "name": f"EXAMPLES of {name}",
            "hosts": "localhost",
            "gather_facts": False,
            "vars": CONTEXT,
            "module_defaults": {"numa.kubelet.numa_facts": {"root": str(root)}},
            "pre_tasks": [{"name": "Read the fake machine", "numa.kubelet.numa_facts": None}],
            "tasks": example_tasks(examples),
        }
    ]
    playbook = tmp_path / "examples.yml"
    playbook.write_text(yaml.safe_dump(play, sort_keys=False))
    env = dict(
        os.environ,
        ANSIBLE_COLLECTIONS_PATH=str(docs_collections_path),
        ANSIBLE_HOME=str(tmp_path / "home"),
        ANSIBLE_LOCAL_TEMP=str(tmp_path / "tmp"),
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_LOCALHOST_WARNING="false",
    )
    result = subprocess.run(
        [
            os.path.join(BIN, "ansible-playbook"),
            "-i",
            "localhost,",
            "-c",
            "local",
            "--check",
            "-e",
            f"ansible_python_interpreter={sys.executable}",
            str(playbook),
        ],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert result.returncode == 0, f"{name} EXAMPLES failed:\n{result.stdout[-6000:]}\n{result.stderr[-3000:]}"
