# SPDX-License-Identifier: GPL-3.0-or-later
"""The ee stage's ansible-runner (requirements-ee.txt, on the controller side of transmit | worker | process) is the
one its execution environment installs in the image (tests/ee/execution-environment.yml)."""

from __future__ import annotations

import os
import re

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_the_image_installs_the_pinned_ansible_runner():
    with open(os.path.join(REPO, "requirements-ee.txt"), encoding="utf-8") as handle:
        pins = dict(re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)$", handle.read(), re.MULTILINE))
    with open(os.path.join(REPO, "tests", "ee", "execution-environment.yml"), encoding="utf-8") as handle:
        dependencies = yaml.safe_load(handle)["dependencies"]
    assert dependencies["ansible_runner"]["package_pip"] == f"ansible-runner=={pins['ansible-runner']}"
