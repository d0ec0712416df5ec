# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The collection as its users get it: built with ansible-galaxy and installed into an empty collections path, once.

The distribution stage runs pytest with xdist, and every worker asks for the installed copy; the first one builds it
under a lock in the directory the workers share, the others reuse it (or fail with the first one's error).
"""

from __future__ import annotations

import dataclasses
import fcntl
import glob
import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.dirname(sys.executable)


@dataclasses.dataclass(frozen=True)
class Installed:
    work: str  # outside the checkout: its ansible.cfg and any ~/.ansible copy cannot shadow the installed one
    tarball: str
    collections: str  # for ANSIBLE_COLLECTIONS_PATH
    path: str  # <collections>/ansible_collections/numa/kubelet

    def env(self, **extra):
        """The environment in which Ansible finds numa.kubelet only in the installed copy."""
        return dict(
            os.environ,
            PATH=BIN + os.pathsep + os.environ.get("PATH", ""),
            ANSIBLE_HOME=os.path.join(self.work, "ansible-home"),
            ANSIBLE_COLLECTIONS_PATH=self.collections,
            ANSIBLE_LOCAL_TEMP=os.path.join(self.work, "ansible-tmp"),
            ANSIBLE_NOCOLOR="1",
            ANSIBLE_LOCALHOST_WARNING="false",
            **extra,
        )

    def run(self, *command, cwd=None, env=None):
        """COMMAND (a tool of the virtualenv or a path) in the isolated environment; its output is in the error."""
        result = subprocess.run(command, cwd=cwd or self.work, env=env or self.env(), capture_output=True, text=True, check=False, timeout=600)
        assert result.returncode == 0, "%s exited %d\n%s\n%s" % (" ".join(command), result.returncode, result.stdout[-4000:], result.stderr[-4000:])
        return result.stdout


def build_and_install(work):
    os.makedirs(work)
    build, collections = os.path.join(work, "build"), os.path.join(work, "collections")
    probe = Installed(work=work, tarball="", collections=collections, path="")
    probe.run("ansible-galaxy", "collection", "build", REPO, "--output-path", build)
    tarballs = glob.glob(os.path.join(build, "numa-kubelet-*.tar.gz"))
    if len(tarballs) != 1:
        raise AssertionError(f"expected one numa-kubelet tarball in {build}, got: {tarballs}")
    probe.run("ansible-galaxy", "collection", "install", "--offline", "-p", collections, tarballs[0])
    return Installed(work=work, tarball=tarballs[0], collections=collections, path=os.path.join(collections, "ansible_collections", "numa", "kubelet"))


def shared_install(directory):
    """The installed copy in DIRECTORY, built by the first caller (of any xdist worker) and reused by the others."""
    os.makedirs(directory, exist_ok=True)
    outcome = os.path.join(directory, "outcome.json")
    with open(os.path.join(directory, "lock"), "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not os.path.exists(outcome):
            try:
                installed = build_and_install(os.path.join(directory, "work"))
                result = {"installed": dataclasses.asdict(installed)}
            except Exception as error:  # every worker reports the build's own failure instead of building again
                result = {"error": str(error)}
            with open(outcome, "w", encoding="utf-8") as handle:
                json.dump(result, handle)
        with open(outcome, encoding="utf-8") as handle:
            result = json.load(handle)
    if "error" in result:
        raise AssertionError("building and installing the tarball failed: %s" % result["error"])
    return Installed(**result["installed"])
