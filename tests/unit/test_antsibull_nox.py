# SPDX-License-Identifier: GPL-3.0-or-later
"""antsibull-nox.toml's sessions install the versions requirements-dev.txt pins, so that a stage of antsibull-nox checks
with the tools the rest of the test command uses."""

from __future__ import annotations

import os
import re
import tomllib

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _dev_pins():
    with open(os.path.join(REPO, "requirements-dev.txt"), encoding="utf-8") as handle:
        return dict(re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)$", handle.read(), re.MULTILINE))


def _session_packages():
    with open(os.path.join(REPO, "antsibull-nox.toml"), "rb") as handle:
        sessions = tomllib.load(handle)["sessions"]
    return [(f"{name}.{key}", value) for name, options in sessions.items() for key, value in options.items() if key.endswith("_package")]


@pytest.mark.parametrize(("option", "requirement"), _session_packages())
def test_a_session_package_is_pinned_as_requirements_dev_pins_it(option, requirement):
    name, pinned, version = requirement.partition("==")
    assert pinned and version, f"{option} = {requirement!r} names no version"
    assert _dev_pins().get(name) == version, f"{option} = {requirement!r}; requirements-dev.txt: {name}=={_dev_pins().get(name)}"


def test_the_sessions_install_something():
    # A renamed option would leave the parametrized test above with nothing to check.
    assert len(_session_packages()) >= 2
