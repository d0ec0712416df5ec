# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The changelog as antsibull's tools read it (the docs lint is antsibull-nox's stage docs-check): changelog lint, a trial release and, once a
release exists, a committed CHANGELOG.rst equal to what antsibull-changelog generates."""

from __future__ import annotations

import glob
import os
import re

import pytest
import yaml

from ansible_collections.numa.kubelet.scripts.lib.collection_copy import collection_copy
from ansible_collections.numa.kubelet.tests.distribution.tarball import REPO


def test_antsibull_changelog_lint(built_collection):
    built_collection.run("antsibull-changelog", "lint", cwd=REPO)


def _flat(text):
    """RST without its backslash escapes and line breaks, to find an entry that the release wrapped."""
    return re.sub(r"\\(.)", r"\1", " ".join(text.split()))


def test_a_trial_release_lists_every_fragment_and_new_plugin(built_collection, tmp_path):
    release = collection_copy(str(tmp_path))
    with open(os.path.join(REPO, "galaxy.yml"), encoding="utf-8") as handle:
        version = yaml.safe_load(handle)["version"]
    built_collection.run("antsibull-changelog", "release", "--version", str(version), cwd=release)
    with open(os.path.join(release, "CHANGELOG.rst"), encoding="utf-8") as handle:
        changelog = handle.read()
    missing = []
    fragments = glob.glob(os.path.join(REPO, "changelogs", "fragments", "*.y*ml"))
    for fragment in fragments:
        with open(fragment, encoding="utf-8") as handle:
            sections = yaml.safe_load(handle) or {}
        for section, entries in sections.items():
            if section == "trivial":
                continue
            for entry in entries if isinstance(entries, list) else [entries]:
                if " ".join(entry.split()) not in _flat(changelog):
                    missing.append(f"{os.path.basename(fragment)}: {entry[:60]}")
    # A renamed plugin keeps the version_added of the release that first shipped it (docs/contributing.md, Naming): it
    # is listed there under its old name, and its new name is in the fragment that renames it.
    with open(os.path.join(REPO, "meta", "runtime.yml"), encoding="utf-8") as handle:
        routing = yaml.safe_load(handle).get("plugin_routing", {})
    old_names = {}
    for kind in ("filter", "modules"):
        old_names.update({entry["redirect"].split(".", 2)[2]: old for old, entry in routing.get(kind, {}).items() if "redirect" in entry})
    plugins = glob.glob(os.path.join(REPO, "plugins", "modules", "*.py")) + glob.glob(os.path.join(REPO, "plugins", "filter", "*.*"))
    for path in plugins:
        with open(path, encoding="utf-8") as handle:
            name = re.search(r"^\s*(?:name|module): (\w+)$", handle.read(), re.M)
        if name is None:
            continue
        name = name.group(1)
        if name in old_names:
            if not re.search(rf"^- {old_names[name]} - ", changelog, re.M) or f"numa.kubelet.{name}``" not in _flat(changelog):
                missing.append(f"renamed plugin {name}: {old_names[name]} listed as new in a release, and the rename in a fragment")
        elif not re.search(rf"^- {name} - ", changelog, re.M):
            missing.append(f"new plugin {name} (is its version_added the galaxy.yml version?)")
    assert fragments and plugins
    assert missing == []


def test_the_committed_changelog_is_what_antsibull_changelog_generates(built_collection, tmp_path):
    if not os.path.exists(os.path.join(REPO, "CHANGELOG.rst")):
        pytest.skip("no release yet: CHANGELOG.rst is committed with the first one")
    generated = collection_copy(str(tmp_path))
    built_collection.run("antsibull-changelog", "generate", cwd=generated)
    with open(os.path.join(generated, "CHANGELOG.rst"), encoding="utf-8") as ours, open(os.path.join(REPO, "CHANGELOG.rst"), encoding="utf-8") as committed:
        assert ours.read() == committed.read(), "CHANGELOG.rst is not what antsibull-changelog generates from changelogs/changelog.yaml"
