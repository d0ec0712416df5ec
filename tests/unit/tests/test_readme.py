# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""tests/README.md is the map of the tests, and the tree keeps to it: every tier it lists is there, every test file
outside tests/unit is in a tier it lists, and tests/unit mirrors the source tree.

The mirror: tests/unit/<folder>/test_<name>.py tests <folder>/<name> (a file of any suffix, or a folder; a leading
underscore and a dash read as in Python names), tests/unit/plugins/filter/test_quantity_to_bytes.py tests
plugins/filter/quantity_to_bytes.py and tests/unit/plugins/plugin_utils/test_split.py tests
plugins/plugin_utils/_split.py. One module's tests may be split by aspect (test_<name>_<aspect>.py, as
test_restart_kubelet_settle.py), and test_<folder>.py tests what the modules of that folder share (as
plugins/filter/'s test_filter.py). Below roles/, the name is looked for in every role (test_argument_specs.py: each
role's meta/argument_specs.yml); at the top, only the checkout's own files count (test_requirements_tools.py).
"""

from __future__ import annotations

import os
import re

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
TESTS = os.path.join(REPO, "tests")
UNIT = os.path.join(TESTS, "unit")


def _test_files(top):
    for folder, folders, files in os.walk(top):
        folders[:] = sorted(name for name in folders if not name.startswith((".", "__")))
        for name in sorted(files):
            if name.startswith("test_") and name.endswith(".py"):
                yield os.path.relpath(os.path.join(folder, name), REPO)


def _python_name(name):
    """The name a test file uses for a source file or folder: no suffix, no leading underscore, dashes as underscores."""
    stem = name.split(".", 1)[0] if not name.startswith(".") else name
    return stem.lstrip("_").replace("-", "_").lower()


def _source_names(folder):
    """The names a test in the mirror of `folder` may be named after (recursive below roles/, else the folder's own)."""
    path = os.path.join(REPO, folder)
    if not os.path.isdir(path):
        return set()
    if folder.split(os.sep)[0] == "roles":
        names = set()
        for _parent, folders, files in os.walk(path):
            names.update(_python_name(name) for name in folders + files)
        return names
    return {_python_name(name) for name in os.listdir(path) if not name.startswith(".")}


def _mirrored_source(test_file):
    """Why a file of tests/unit is where it is, or None: the source it is named after."""
    folder = os.path.relpath(os.path.dirname(os.path.join(REPO, test_file)), UNIT)
    folder = "" if folder == "." else folder
    name = os.path.basename(test_file)[len("test_") : -len(".py")]
    if folder and name == os.path.basename(folder).lstrip("_"):
        return folder + os.sep
    names = _source_names(folder) if folder else {_python_name(entry) for entry in os.listdir(REPO) if os.path.isfile(os.path.join(REPO, entry))}
    for candidate in sorted(names, key=len, reverse=True):
        if name == candidate or name.startswith(candidate + "_"):
            return os.path.join(folder, candidate)
    return None


def _tiers():
    """The tests/ folders named in the Where column of tests/README.md's table of tiers."""
    with open(os.path.join(TESTS, "README.md"), encoding="utf-8") as handle:
        rows = [line for line in handle if line.startswith("| ") and not line.startswith("| Tier")]
    return {match for row in rows for match in re.findall(r"`tests/([a-z_]+)`", row.split("|")[2])}


def test_every_unit_test_file_is_named_after_the_source_it_tests():
    unmapped = [path for path in _test_files(UNIT) if _mirrored_source(path) is None]
    assert not unmapped, f"not named after a file or folder of the source tree they mirror (tests/unit/tests/test_readme.py says how): {unmapped}"


def test_every_unit_test_folder_is_a_package_so_two_folders_may_hold_the_same_file_name():
    # pytest imports a test file by its dotted name below the first folder without __init__.py: outside packages, two
    # test_eks_userdata.py (the filter's and the engine's) would both be the module test_eks_userdata and collide.
    packages = set()
    for folder in {os.path.dirname(path) for path in _test_files(UNIT)}:
        while folder != "tests":
            packages.add(folder)
            folder = os.path.dirname(folder)
    missing = sorted(os.path.join(folder, "__init__.py") for folder in packages if not os.path.isfile(os.path.join(REPO, folder, "__init__.py")))
    assert not missing, f"missing (empty, as ansible-test sanity's empty-init wants): {missing}"


def test_every_test_file_outside_tests_unit_is_in_a_tier_the_readme_lists():
    tiers = _tiers()
    outside = [path for path in _test_files(TESTS) if not path.startswith(os.path.join("tests", "unit") + os.sep)]
    assert outside, "found no test outside tests/unit: the walk is wrong"
    misplaced = [path for path in outside if path.split(os.sep)[1] not in tiers]
    assert not misplaced, f"test files in no tier of tests/README.md: {misplaced} (tiers: {sorted(tiers)})"


def test_every_tier_the_readme_lists_is_a_folder_of_tests():
    tiers = _tiers()
    assert {"unit", "playbooks", "standins", "restart", "apiserver"} <= tiers, tiers
    empty = sorted(tier for tier in tiers if not any(_test_files(os.path.join(TESTS, tier))))
    assert not empty, f"tests/README.md lists tiers without a test file: {empty}"


def _files_named_after_a_stand_in(top):
    for folder, folders, files in os.walk(top):
        folders[:] = sorted(name for name in folders if not name.startswith((".", "__")) and os.path.join(folder, name) != os.path.join(TESTS, "output"))
        for name in sorted(files + folders):
            if "standin" in name.replace("-", "").lower():
                yield os.path.relpath(os.path.join(folder, name), REPO)


def test_every_stand_in_is_in_tests_standins():
    found = list(_files_named_after_a_stand_in(TESTS))
    assert os.path.join("tests", "standins", "image", "kubelet-standin") in found, f"the walk is wrong: {found}"
    elsewhere = [path for path in found if path != os.path.join("tests", "standins") and not path.startswith(os.path.join("tests", "standins") + os.sep)]
    assert not elsewhere, f"stand-ins outside tests/standins (tests/README.md, 'Where the stand-ins are'): {elsewhere}"


def test_every_file_of_the_image_folder_goes_into_the_test_hosts():
    # scripts/build-test-hosts rebuilds the machine-wide images when a hash of tests/standins/image/ changes: a file there
    # that it does not install would rebuild them for nothing (and be missing on the hosts).
    with open(os.path.join(REPO, "scripts", "build-test-hosts"), encoding="utf-8") as handle:
        script = handle.read()
    assert re.search(r"^STANDINS=\$REPO/tests/standins/image$", script, re.MULTILINE), "scripts/build-test-hosts no longer installs tests/standins/image"
    installed = set(re.findall(r'"\$STANDINS/([^"/]+)"', script))
    assert installed == set(os.listdir(os.path.join(TESTS, "standins", "image"))), f"installed by scripts/build-test-hosts: {sorted(installed)}"


def test_the_mirror_rule_refuses_a_theme_and_accepts_a_module_an_aspect_and_a_folder():
    assert _mirrored_source(os.path.join("tests", "unit", "plugins", "plugin_utils", "test_reservation.py")) is None
    assert _mirrored_source(os.path.join("tests", "unit", "plugins", "filter", "test_filters.py")) is None
    assert _mirrored_source(os.path.join("tests", "unit", "test_tool_pins.py")) is None
    assert _mirrored_source(os.path.join("tests", "unit", "plugins", "plugin_utils", "test_split.py")) == os.path.join("plugins", "plugin_utils", "split")
    assert _mirrored_source(os.path.join("tests", "unit", "plugins", "plugin_utils", "test_platform_k3s.py")) == os.path.join(
        "plugins", "plugin_utils", "platform_k3s"
    )
    assert _mirrored_source(os.path.join("tests", "unit", "plugins", "modules", "test_restart_kubelet_settle.py")) == os.path.join(
        "plugins", "modules", "restart_kubelet"
    )
    assert _mirrored_source(os.path.join("tests", "unit", "plugins", "filter", "test_filter.py")) == os.path.join("plugins", "filter") + os.sep
    assert _mirrored_source(os.path.join("tests", "unit", "test_requirements_tools.py")) == "requirements_tools"
