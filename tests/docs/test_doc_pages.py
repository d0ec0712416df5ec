# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pages are for users: README.md opens with its two commands (the main job on its embedded default, the whole
test suite), then what the collection does, its requirements, how to install it and the 30-second render then
roll-out (the test tiers live in docs/contributing.md and tests/README.md), and no page speaks of who ran what when
(that history is the changelog's and the commit messages')."""

from __future__ import annotations

import glob
import os
import re

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGES = ["README.md"] + sorted(os.path.relpath(path, REPO) for path in glob.glob(os.path.join(REPO, "docs", "*.md")))
FIRST_SCREEN_SECTIONS = ["Requirements", "Install", "In 30 seconds: render, then roll out"]
# A run's circumstances, not the collection's: who worked beside whom, at what time of day, what someone ran here.
LAB_NOTEBOOK = re.compile(r"\bengineers?\b|\b\d{1,2}:\d{2}(:\d{2})? ?UTC\b|\bmeasured here\b|\bwe (ran|measured)\b|\bthis session\b", re.IGNORECASE)


def read(page):
    with open(os.path.join(REPO, page), encoding="utf-8") as handle:
        return handle.read()


def readme_first_screen():
    """README.md up to its Documentation section as a reader sees it: the example markers' HTML comments (for
    tests/docs/test_doc_examples.py) are not shown."""
    return re.sub(r"<!--.*?-->", "", read("README.md").split("\n## Documentation\n")[0], flags=re.S)


def test_readme_starts_with_the_two_commands():
    # The main job on its embedded default and the whole suite, each working on a fresh machine (.ci/run runs the second).
    title, commands, _rest = re.split(r"^```(?:bash)?\n", readme_first_screen(), maxsplit=2, flags=re.M)
    assert title.strip() == "# numa.kubelet"
    assert [line.split()[0] for line in commands.splitlines()] == ["./scripts/render", "./scripts/test"]


def test_readme_opens_with_what_a_user_needs_first():
    first_screen = readme_first_screen()
    assert re.findall(r"^## (.+)$", first_screen, re.M) == FIRST_SCREEN_SECTIONS
    after_the_commands = first_screen.split("./scripts/test", 1)[1].split("\n", 1)[1]
    assert "scripts/" not in after_the_commands and "tests/" not in after_the_commands, "the test harness belongs in docs/contributing.md"


@pytest.mark.parametrize("page", PAGES)
def test_no_page_speaks_of_who_ran_what_when(page):
    found = [(number, line) for number, line in enumerate(read(page).splitlines(), 1) if LAB_NOTEBOOK.search(line)]
    assert not found, f"{page}: {found}"
