# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What numa.kubelet.render may name under its destination: the destination itself, a host's directory (one plain
file name) and the relative paths of a host's outputs; the names the writer (_render_tree) keeps for itself."""

from __future__ import annotations

import os
from collections.abc import Iterable

MANIFEST = ".numa-kubelet-render.json"
NAME_MAX = 255
TEMP_PREFIX = ".numa-kubelet-render-tmp-"


class RenderPathError(Exception):
    """A path numa.kubelet.render refuses to write or remove; nothing was changed."""


def host_name_problem(host: object) -> str | None:
    """Why a host name cannot be a directory name under the destination, or None."""
    if not isinstance(host, str) or not host:
        return f"inventory host name {host!r}: must be a non-empty string"
    if host in (".", ".."):
        return f"inventory host name {host!r}: is not a plain file name (. and .. name directories, not a host's own)"
    if "/" in host:
        return f"inventory host name {host!r}: is not a plain file name: '/' would put its files outside its own directory"
    control = next(((position, char) for position, char in enumerate(host) if ord(char) < 32 or ord(char) == 127), None)
    if control:
        position, char = control
        return (
            f"inventory host name {host!r}: holds a control character ({char!r}, U+{ord(char):04X}, at position {position}); "
            "the host's files go in a directory of its name, which must be a plain file name: rename the host"
        )
    if len(host.encode("utf-8", "surrogatepass")) > NAME_MAX:
        return "inventory host name %r...: is %d bytes long; a file name can have at most %d" % (
            host[:40],
            len(host.encode("utf-8", "surrogatepass")),
            NAME_MAX,
        )
    if host == MANIFEST or host.startswith(TEMP_PREFIX):
        return f"inventory host name {host!r}: is a name numa.kubelet.render keeps for itself"
    return None


def destination_problem(dest: object) -> str | None:
    """Why dest cannot hold rendered hosts, or None (a missing dest is created)."""
    if not isinstance(dest, str) or not dest:
        return f"dest {dest!r}: must be an absolute directory on the controller, not empty (kubelet_numa_render_dir of numa.kubelet.render)"
    if not os.path.isabs(dest):
        return f"dest {dest!r}: must be an absolute path on the controller"
    if os.path.lexists(dest) and not os.path.isdir(dest):
        return f"dest {dest}: exists and is not a directory"
    return None


def relative_parts(path: str) -> list[str]:
    parts = path.strip("/").split("/")
    if not path.strip("/") or any(part in ("", ".", "..") for part in parts):
        raise RenderPathError(f"{path!r}: is not a plain path (empty, '.', '..' or '//' parts are refused)")
    for part in parts:
        if len(part.encode("utf-8", "surrogatepass")) > NAME_MAX or "\0" in part:
            raise RenderPathError(f"{path!r}: the part {part[:40]!r} is not a valid file name")
    return parts


def check_outputs(outputs: Iterable[tuple[str, str]]) -> None:
    """outputs: [(relative path, text)]; refuses duplicates, a file that is another's directory, and reserved names."""
    seen: dict[tuple[str, ...], str] = {}
    for path, _text in outputs:
        parts = tuple(relative_parts(path))
        if parts[0] == MANIFEST or parts[-1].startswith(TEMP_PREFIX):
            raise RenderPathError("%s: is a name numa.kubelet.render keeps for itself" % path)
        if parts in seen:
            raise RenderPathError("%s: two of the host's outputs have this path (%s and %s)" % ("/".join(parts), seen[parts], path))
        seen[parts] = path
    for parts, path in seen.items():
        for length in range(1, len(parts)):
            if parts[:length] in seen:
                raise RenderPathError("%s: is both a file and the directory of %s among the host's outputs" % (seen[parts[:length]], path))
