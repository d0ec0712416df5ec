# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Make `ansible_collections.numa.kubelet` importable from a plain checkout, for pytest and ansible-playbook.

One mechanism for the whole project: the committed link .collections/ansible_collections/numa/kubelet points at the
checkout (ansible.cfg's collections_path, scripts/lib/common.sh's collections_path, scripts/benchmark use it too). When
the tests already run inside an ansible_collections tree (ansible-test, an installed collection), that tree is used.
"""

from __future__ import annotations

import os
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _collections_root():
    parts = REPO.split(os.sep)
    if parts[-3:-1] == ["ansible_collections", "numa"] and parts[-1] == "kubelet":
        return os.sep.join(parts[:-3])
    root = os.path.join(REPO, ".collections")
    link = os.path.join(root, "ansible_collections", "numa", "kubelet")
    if os.path.realpath(link) != os.path.realpath(REPO):
        raise pytest.UsageError(f"{link} must be the committed link to the checkout (../../..); restore it with git checkout -- .collections")
    return root


COLLECTIONS_ROOT = _collections_root()
if COLLECTIONS_ROOT not in sys.path:
    sys.path.insert(0, COLLECTIONS_ROOT)


def pytest_addoption(parser):
    parser.addoption(
        "--built-collection",
        action="store_true",
        help="run tests/docs against the collection built with ansible-galaxy and installed into an empty collections path "
        "(the distribution stage), not against the checkout",
    )


@pytest.fixture(scope="session")
def collections_root():
    """The directory to put in ANSIBLE_COLLECTIONS_PATH so Ansible finds this checkout as numa.kubelet."""
    return COLLECTIONS_ROOT


@pytest.fixture(scope="session")
def built_collection(request, tmp_path_factory):
    """numa.kubelet built and installed into an empty collections path, once for all xdist workers."""
    from ansible_collections.numa.kubelet.tests.distribution.tarball import shared_install

    # pytest-xdist gives every worker (a config with workerinput) a base directory of its own inside one they share.
    shared = tmp_path_factory.getbasetemp().parent if hasattr(request.config, "workerinput") else tmp_path_factory.getbasetemp()
    return shared_install(str(shared / "built-collection"))


@pytest.fixture(scope="session")
def docs_collections_path(request, collections_root):
    """Where tests/docs finds numa.kubelet: the installed tarball with --built-collection, else the checkout."""
    if request.config.getoption("--built-collection"):
        return request.getfixturevalue("built_collection").collections
    return collections_root
