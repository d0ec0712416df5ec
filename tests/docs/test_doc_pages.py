# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pages are for users: README.md opens with what the collection does, its requirements, how to install it and
the 30-second render then roll-out (the test command lives in docs/contributing.md and tests/README.md), and no page
speaks of who ran what when (that history is the changelog's and the commit messages')."""

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


def test_readme_opens_with_what_a_user_needs_first():
    # What a reader sees: the example markers' HTML comments (for tests/docs/test_doc_examples.py) are not shown.
    first_screen = re.sub(r"<!--.*?-->", "", read("README.md").split("\n## Documentation\n")[0], flags=re.S)
    assert re.findall(r"^## (.+)$", first_screen, re.M) == FIRST_SCREEN_SECTIONS
    assert "scripts/" not in first_screen and "tests/" not in first_screen, "the test harness belongs in docs/contributing.md"


@pytest.mark.parametrize("page", PAGES)
def test_no_page_speaks_of_who_ran_what_when(page):
    found = [(number, line) for number, line in enumerate(read(page).splitlines(), 1) if LAB_NOTEBOOK.search(line)]
    assert not found, f"{page}: {found}"
