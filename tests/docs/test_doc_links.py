# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every relative link in README.md and docs/*.md names a file of the repository, and every #anchor a heading there."""

from __future__ import annotations

import glob
import os
import re

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGES = ["README.md"] + sorted(os.path.relpath(path, REPO) for path in glob.glob(os.path.join(REPO, "docs", "*.md")))
LINK = re.compile(r"\]\((?P<target>[^)\s]+)\)")


def anchors(path):
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    with open(path, encoding="utf-8") as handle:
        text = re.sub(r"^```.*?^```", "", handle.read(), flags=re.M | re.S)
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-") for heading in re.findall(r"^#+ (.+)$", text, re.M)}


@pytest.mark.parametrize("page", PAGES)
def test_relative_links_resolve(page):
    with open(os.path.join(REPO, page), encoding="utf-8") as handle:
        text = re.sub(r"^```.*?^```", "", handle.read(), flags=re.M | re.S)
    problems = []
    for match in LINK.finditer(text):
        target = match.group("target")
        if re.match(r"^[a-z]+:", target):
            continue
        path, _hash, anchor = target.partition("#")
        resolved = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
        if not os.path.exists(os.path.join(REPO, resolved)):
            problems.append(f"{page} links to {target}, which does not exist")
            continue
        if anchor and resolved.endswith(".md") and anchor not in anchors(os.path.join(REPO, resolved)):
            problems.append(f"{page} links to {target}: no heading makes the anchor #{anchor}")
    assert problems == [], "\n".join(problems)
