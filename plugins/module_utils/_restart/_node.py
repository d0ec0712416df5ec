# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The node as numa.kubelet.restart_kubelet's transaction sees it: systemd, the kubelet's /healthz and journal, and
files written atomically, owned by root."""

from __future__ import annotations

import hashlib
import os
import re
import stat
import subprocess
import urllib.error

from ansible.module_utils.urls import open_url

SYSTEMCTL_TIMEOUT = 600
UNIT_PROPERTIES = "ActiveState,SubState,MainPID,NRestarts,ActiveEnterTimestampMonotonic,InactiveExitTimestampMonotonic"
# The kubelet's own last words in its journal (klog), before systemd's "Main process exited" lines.
KUBELET_ERROR = re.compile(r'"command failed"|Failed to start ContainerManager')
ANY_ERROR = re.compile(r"(?i)error|failed|refused")


class StepFailed(Exception):
    """A step of the transaction failed; the message says why."""


def systemctl(*args):
    command = " ".join(args)
    try:
        done = subprocess.run(["systemctl", *args], capture_output=True, text=True, timeout=SYSTEMCTL_TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        raise StepFailed(f"systemctl {command} did not return in {SYSTEMCTL_TIMEOUT} s") from None
    except OSError as exc:  # no systemd on this node: a failed step with the reason, never a traceback
        raise StepFailed(f"systemctl {command} could not run: {exc}") from None
    if done.returncode != 0:
        raise StepFailed(f"systemctl {command} failed (rc {done.returncode}): {(done.stderr or done.stdout).strip()}")
    return done.stdout


def unit_show(unit):
    text = systemctl("show", f"--property={UNIT_PROPERTIES}", unit)
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def healthz(url):
    try:
        # The node's own kubelet on a URL from its config: never through a proxy.
        with open_url(url, timeout=2, use_proxy=False) as answer:
            return answer.getcode() == 200
    except (urllib.error.URLError, OSError, ValueError):
        return False


def journal_error(unit, since=None):
    """The kubelet's last error line in the unit's journal ("" when there is none); with `since` (time.time()), only
    its lines from then on."""
    window = [] if since is None else ["--since", f"@{since:.3f}"]
    try:
        lines = subprocess.run(
            ["journalctl", "--unit", unit, *window, "--lines", "50", "--no-pager", "--output", "cat"], capture_output=True, text=True, timeout=60, check=False
        ).stdout.splitlines()
    except (OSError, subprocess.TimeoutExpired):
        return ""
    chosen = [line for line in lines if KUBELET_ERROR.search(line)] or [line for line in lines if ANY_ERROR.search(line)]
    return chosen[-1].strip() if chosen else ""


def octal(mode):
    return f"{int(str(mode), 8):04o}"


def read_file(path):
    """(text, mode, uid, gid) of a file, or None when there is none. Newlines are kept as they are."""
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            text = handle.read()
            found = os.fstat(handle.fileno())
    except FileNotFoundError:
        return None
    return text, f"{stat.S_IMODE(found.st_mode):04o}", found.st_uid, found.st_gid


def write_file(path, text, mode):
    """Write atomically with the given mode, owner and group root (as the role writes them); no temporary file is left
    behind when the write fails (a full disk)."""
    temporary = f"{path}.numa-kubelet-tmp"
    try:
        with open(temporary, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.chmod(temporary, int(str(mode), 8))
        os.chown(temporary, 0, 0)
        os.replace(temporary, path)
    except BaseException:
        remove(temporary)
        raise


def remove(path):
    try:
        os.remove(path)
    except FileNotFoundError:
        pass


def file_digest(path):
    """sha256:<hex> of the file's bytes, or None when there is none (as numa-kubelet-heal compares them)."""
    try:
        with open(path, "rb") as handle:
            return "sha256:" + hashlib.sha256(handle.read()).hexdigest()
    except FileNotFoundError:
        return None
