# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every shipped playbook and example works for a normal login: a play that runs anything on the nodes sets become.

Plays on localhost, and plays whose tasks all run on the controller (debug, fail, assert, set_fact, add_host, meta),
need no become; every other play reads or writes root's files on the nodes.
"""

from __future__ import annotations

import glob
import os

import pytest
import yaml

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLAYBOOKS = sorted(
    os.path.relpath(path, REPO) for path in glob.glob(os.path.join(REPO, "playbooks", "*.yml")) + glob.glob(os.path.join(REPO, "examples", "*.yml"))
)
CONTROLLER_ONLY = {
    "ansible.builtin.debug",
    "ansible.builtin.fail",
    "ansible.builtin.assert",
    "ansible.builtin.set_fact",
    "ansible.builtin.add_host",
    "ansible.builtin.meta",
}
BLOCK_KEYS = ("block", "rescue", "always")


def modules(tasks):
    """The FQCN of every task's action, blocks included."""
    for task in tasks or []:
        if any(key in task for key in BLOCK_KEYS):
            for key in BLOCK_KEYS:
                yield from modules(task.get(key))
            continue
        actions = [key for key in task if "." in key]
        assert len(actions) == 1, f"a task without one FQCN action: {task!r}"
        yield actions[0]


def test_there_are_playbooks_and_examples():
    assert "playbooks/rollout.yml" in PLAYBOOKS and "examples/lablabs-rke2.yml" in PLAYBOOKS


@pytest.mark.parametrize("path", PLAYBOOKS)
def test_plays_on_the_nodes_use_become(path):
    with open(os.path.join(REPO, path), encoding="utf-8") as handle:
        plays = yaml.safe_load(handle)
    for play in plays:
        if play.get("hosts") == "localhost" or play.get("connection") == "local":
            continue
        used = set()
        for key in ("pre_tasks", "tasks", "post_tasks", "handlers"):
            used.update(modules(play.get(key)))
        if play.get("roles") or not used <= CONTROLLER_ONLY:
            assert play.get("become") is True, "%s: play %r runs %s on the nodes without become: true" % (
                path,
                play.get("name"),
                sorted(used - CONTROLLER_ONLY) or "roles",
            )
