# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every fenced block in README.md and docs/*.md runs (or says why it cannot), in page order, in one directory per page.

The line right above each fenced block is a marker (the convention is documented in docs/contributing.md):

    <!-- example: file NAME -->        the block is saved as NAME for the page's later blocks
    <!-- example: shell [OPTS] -->     bash -euo pipefail; OPTS {rc: N, stdout: TEXT}: the exit code and a text stdout holds
    <!-- example: playbook [OPTS] -->  ansible-playbook on localhost; OPTS {check: true} runs it in check mode
    <!-- example: tasks [OPTS] -->     a task list, run in a play on localhost on a fake two-NUMA-node machine
                                        (numa_facts reads a fake sysfs tree); OPTS {check: true, vars: {...}}
    <!-- example: syntax -->           a playbook for real nodes: ansible-playbook --syntax-check only
    <!-- example: output OPTS -->      OPTS {file: PATH, key: K}: the block equals what an earlier block wrote (as data)
    <!-- example: copy-of PATH -->     the block is the collection's file PATH, verbatim
    <!-- example: not-run REASON -->   not runnable (a formula, a log line, the commands of this very suite); REASON says why

Ansible finds numa.kubelet through ANSIBLE_COLLECTIONS_PATH: the built tarball installed into an empty collections path
with pytest's --built-collection (the distribution stage; tests/conftest.py), else the checkout.
"""

from __future__ import annotations

import glob
import json
import os
import re
import subprocess
import sys

import pytest
import yaml

from ansible_collections.numa.kubelet.tests.unit.plugins.modules.fake_sysfs import make_tree

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.dirname(sys.executable)
PAGES = ["README.md"] + sorted(os.path.relpath(path, REPO) for path in glob.glob(os.path.join(REPO, "docs", "*.md")))
MARKER = re.compile(r"^<!-- example: (?P<kind>[a-z-]+)(?: (?P<options>.*?))? -->$")
FENCE = re.compile(r"^(?P<fence>```+|~~~+)")
KINDS = {"file", "shell", "playbook", "tasks", "syntax", "output", "copy-of", "not-run"}


class Block:
    def __init__(self, page, line, kind, options, text):
        self.page, self.line, self.kind, self.options, self.text = page, line, kind, options, text

    def __repr__(self):
        return "%s:%d (%s)" % (self.page, self.line, self.kind)


def blocks(page):
    """The fenced blocks of a page with their markers; a block without a marker is an error naming its line."""
    with open(os.path.join(REPO, page), encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    found, problems, index = [], [], 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        fence, start = opening.group("fence"), index
        index += 1
        while index < len(lines) and not lines[index].startswith(fence):
            index += 1
        text = "\n".join(lines[start + 1 : index]) + "\n"
        index += 1
        marker = MARKER.match(lines[start - 1].strip()) if start else None
        if not marker or marker.group("kind") not in KINDS:
            problems.append(
                "%s:%d: a fenced block without an <!-- example: KIND --> marker (kinds: %s) on the line above" % (page, start + 1, ", ".join(sorted(KINDS)))
            )
            continue
        kind, options = marker.group("kind"), marker.group("options") or ""
        if kind in ("not-run", "file", "copy-of") and not options:
            problems.append("%s:%d: <!-- example: %s --> needs %s" % (page, start + 1, kind, "a reason" if kind == "not-run" else "a path"))
        if kind in ("shell", "playbook", "tasks", "output"):
            options = yaml.safe_load(options) if options else {}
        found.append(Block(page, start + 2, kind, options, text))
    return found, problems


def test_there_are_pages_with_examples():
    assert "docs/README.md" in PAGES and len(PAGES) > 3


def test_every_fenced_block_says_how_it_is_run():
    problems = [problem for page in PAGES for problem in blocks(page)[1]]
    assert problems == [], "\n".join(problems)


@pytest.fixture()
def ansible_env(tmp_path, docs_collections_path):
    return dict(
        os.environ,
        PATH=BIN + os.pathsep + os.environ.get("PATH", ""),
        ANSIBLE_COLLECTIONS_PATH=str(docs_collections_path),
        ANSIBLE_HOME=str(tmp_path / "ansible-home"),
        ANSIBLE_LOCAL_TEMP=str(tmp_path / "ansible-tmp"),
        ANSIBLE_NOCOLOR="1",
        ANSIBLE_FORCE_COLOR="0",
        ANSIBLE_LOCALHOST_WARNING="false",
        ANSIBLE_INVENTORY_UNPARSED_WARNING="false",
        ANSIBLE_PYTHON_INTERPRETER=sys.executable,
    )


def run(block, command, env, cwd, rc=0):
    result = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, check=False, timeout=300)
    assert result.returncode == rc, "%r exited %d, expected %d\n%s\n%s\n%s" % (block, result.returncode, rc, block.text, result.stdout, result.stderr)
    return result


def playbook_command(path, *extra):
    return [os.path.join(BIN, "ansible-playbook"), "-i", "localhost,", "-c", "local", *extra, str(path)]


def as_data(path, text):
    if path.endswith(".json"):
        return json.loads(text)
    if path.endswith((".yml", ".yaml", ".conf")):
        return yaml.safe_load(text)
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


def run_block(block, workdir, env, fake_root):
    options = block.options
    if block.kind == "file":
        target = workdir / block.options
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(block.text)
    elif block.kind == "shell":
        result = run(block, ["bash", "-euo", "pipefail", "-c", block.text], env, workdir, options.get("rc", 0))
        if "stdout" in options:
            assert options["stdout"] in result.stdout, "%r: %r not in its output\n%s" % (block, options["stdout"], result.stdout)
    elif block.kind == "playbook":
        path = workdir / ("example-%d.yml" % block.line)
        path.write_text(block.text)
        run(block, playbook_command(path, *(["--check"] if options.get("check") else [])), env, workdir)
    elif block.kind == "tasks":
        play = [
            {
                "name": "Example from %s line %d" % (block.page, block.line),
                "hosts": "localhost",
                "gather_facts": False,
                "module_defaults": {"numa.kubelet.numa_facts": {"root": str(fake_root)}},
                "vars": options.get("vars", {}),
                "tasks": yaml.safe_load(block.text),
            }
        ]
        path = workdir / ("example-%d.yml" % block.line)
        path.write_text(yaml.safe_dump(play, sort_keys=False))
        run(block, playbook_command(path, *(["--check"] if options.get("check") else [])), env, workdir)
    elif block.kind == "syntax":
        path = workdir / ("example-%d.yml" % block.line)
        path.write_text(block.text)
        run(block, playbook_command(path, "--syntax-check"), env, workdir)
    elif block.kind == "output":
        path = workdir / options["file"]
        assert path.exists(), "%r: no earlier block wrote %s" % (block, options["file"])
        written = as_data(options["file"], path.read_text())
        for key in str(options.get("key", "")).split(".") if options.get("key") else []:
            written = written[key]
        shown = as_data(options["file"], block.text) if "key" not in options else yaml.safe_load(block.text)
        assert shown == written, "%r differs from %s:\nshown:   %r\nwritten: %r" % (block, options["file"], shown, written)
    elif block.kind == "copy-of":
        with open(os.path.join(REPO, block.options), encoding="utf-8") as handle:
            assert block.text == handle.read(), "%r is not a verbatim copy of %s" % (block, block.options)


@pytest.mark.parametrize("page", PAGES)
def test_page_examples_run(page, tmp_path, ansible_env):
    found, problems = blocks(page)
    assert problems == [], "\n".join(problems)
    fake_root = tmp_path / "fake-host"
    make_tree(fake_root, {0: (33554432, "0-3", {2048: (0, 0)}), 1: (33554432, "4-7", {2048: (0, 0)})})
    workdir = tmp_path / "work"
    workdir.mkdir()
    for block in found:
        run_block(block, workdir, ansible_env, fake_root)
