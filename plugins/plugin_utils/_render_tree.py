# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Writing and removing one host's rendered files under a destination directory, and nothing else.

numa.kubelet.render writes <dest>/<host>/<path on the node>. The rules that keep everything outside safe:

- the host name must be one plain file name (not empty, not . or .., no /, no control character, at most 255 bytes);
- every directory is opened relative to the one above it with O_NOFOLLOW, so a symlink anywhere under the
  destination is refused, never followed;
- a manifest (<dest>/<host>/.numa-kubelet-render.json) lists every file this code wrote with its SHA-256, and every
  directory it created; only those are ever replaced or removed, and a listed file the user changed since is left
  alone; a file in the way that the manifest does not list is refused, naming it;
- a host's new files are all written to temporary names first and renamed into place only when every one was
  written, so a failure leaves the host's previous files as they were, not half of each.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import stat
from collections.abc import Iterable, Sequence
from typing import Literal, TypedDict

from ._render_names import MANIFEST, TEMP_PREFIX, RenderPathError, check_outputs, destination_problem, host_name_problem, relative_parts

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


class Manifest(TypedDict):
    """What a render wrote for a host (MANIFEST): {relative path: sha256 of its content}, the directories it made, and
    whether it made the host's directory."""

    files: dict[str, str]
    dirs: list[str]
    host_dir_created: bool


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class _Tree:
    """Open directories under one root fd; every step refuses symlinks."""

    def __init__(self, root_fd: int, label: str) -> None:
        self.root_fd, self.label = root_fd, label
        self.fds: dict[tuple[str, ...], int] = {(): root_fd}

    def close(self) -> None:
        for key, fd in self.fds.items():
            if key:
                os.close(fd)
        self.fds = {(): self.root_fd}

    def kind(self, parts: Sequence[str]) -> Literal["dir", "file", "symlink", "other"] | None:
        """'dir', 'file', 'symlink', 'other' or None for what parts names, without following anything."""
        directory = self.directory(parts[:-1], create=None)
        if directory is None:
            return None
        try:
            mode = os.stat(parts[-1], dir_fd=directory, follow_symlinks=False).st_mode
        except FileNotFoundError:
            return None
        if stat.S_ISLNK(mode):
            return "symlink"
        if stat.S_ISDIR(mode):
            return "dir"
        return "file" if stat.S_ISREG(mode) else "other"

    def directory(self, names: Sequence[str], create: bool | None, created: list[tuple[str, ...]] | None = None) -> int | None:
        """The fd of directory parts; None when it does not exist and create is None; refuses symlinks and files."""
        parts = tuple(names)
        if parts in self.fds:
            return self.fds[parts]
        parent = self.directory(parts[:-1], create, created)
        if parent is None:
            return None
        try:
            fd = os.open(parts[-1], _DIR_FLAGS, dir_fd=parent)
        except FileNotFoundError:
            if create is None:
                return None
            os.mkdir(parts[-1], 0o755, dir_fd=parent)
            if created is not None:
                created.append(parts)
            fd = os.open(parts[-1], _DIR_FLAGS, dir_fd=parent)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                raise RenderPathError(
                    "%s/%s: %s, not a directory numa.kubelet.render made; it follows no link and replaces no file: "
                    "move it away" % (self.label, "/".join(parts), "is a symlink" if self._is_link(parent, parts[-1]) else "is a file")
                ) from None
            raise
        self.fds[parts] = fd
        return fd

    @staticmethod
    def _is_link(parent: int, name: str) -> bool:
        try:
            return stat.S_ISLNK(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode)
        except OSError:
            return False

    def read(self, parts: Sequence[str]) -> bytes | None:
        directory = self.directory(parts[:-1], create=None)
        if directory is None:
            return None
        try:
            fd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), dir_fd=directory)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                return None
            raise
        with os.fdopen(fd, "rb") as handle:
            return handle.read()


def _open_host(dest: str, host: str, create: bool) -> tuple[int, _Tree, bool] | tuple[None, None, bool]:
    """(dest fd, host tree or None, whether the host dir was created)."""
    problem = host_name_problem(host) or destination_problem(dest)
    if problem:
        raise RenderPathError(problem)
    if create and not os.path.lexists(dest):
        os.makedirs(dest, exist_ok=True)
    try:
        dest_fd = os.open(dest, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None, None, False
    label = os.path.join(dest, host)
    try:
        host_fd = os.open(host, _DIR_FLAGS, dir_fd=dest_fd)
        made = False
    except FileNotFoundError:
        if not create:
            os.close(dest_fd)
            return None, None, False
        os.mkdir(host, 0o755, dir_fd=dest_fd)
        host_fd = os.open(host, _DIR_FLAGS, dir_fd=dest_fd)
        made = True
    except OSError as exc:
        os.close(dest_fd)
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise RenderPathError(
                "%s: %s; numa.kubelet.render writes a host's files only into a directory of its own under dest and "
                "follows no link: move it away" % (label, "is a symlink" if os.path.islink(label) else "is not a directory")
            ) from exc
        raise
    return dest_fd, _Tree(host_fd, label), made


def _manifest(tree: _Tree) -> Manifest:
    data = tree.read([MANIFEST])
    if data is None:
        return {"files": {}, "dirs": [], "host_dir_created": False}
    try:
        manifest = json.loads(data.decode("utf-8"))
        files, dirs = manifest["files"], manifest["dirs"]
        if not isinstance(files, dict) or not isinstance(dirs, list):
            raise ValueError("bad shape")
        for path in list(files) + dirs:
            relative_parts(path)  # a listed path never leads out of the host directory
    except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError, RenderPathError):
        raise RenderPathError(
            f"{tree.label}/{MANIFEST}: is not a manifest numa.kubelet.render wrote; remove it (and the files you no longer want) by hand"
        ) from None
    return {
        "files": {str(path): str(digest) for path, digest in files.items()},
        "dirs": [str(path) for path in dirs],
        "host_dir_created": manifest.get("host_dir_created") is True,
    }


def _ours(tree: _Tree, relative: str, manifest: Manifest) -> bool:
    """True when relative is a regular file whose content is what the manifest says this code wrote."""
    data = tree.read(relative.split("/"))
    return data is not None and tree.kind(relative.split("/")) == "file" and manifest["files"].get(relative) == _sha256(data)


def write_host(dest: str, host: str, outputs: list[tuple[str, str]], check_mode: bool = False) -> list[str]:
    """Write outputs ([(path relative to the host dir, text)]) as <dest>/<host>/<path>, replacing what the manifest lists.

    Returns warnings (files the manifest lists that were changed by someone else and are left alone). Raises
    RenderPathError, with nothing changed, when a path cannot be written safely.
    """
    check_outputs(outputs)
    dest_fd, tree, made = _open_host(dest, host, create=not check_mode)
    if tree is None or dest_fd is None:
        return []
    # What to undo if a write fails: the directories made and the temporary files not yet moved into place.
    created: list[tuple[str, ...]] = []
    temps: list[tuple[int | None, str, str]] = []
    try:
        manifest = _manifest(tree)
        wanted = {"/".join(relative_parts(path)): text.encode("utf-8") for path, text in outputs}
        _refuse_unsafe(tree, wanted, manifest)
        if check_mode:
            return []
        digests = _write_all(tree, wanted, created, temps)
        warnings = _remove_stale(tree, [relative for relative in manifest["files"] if relative not in wanted], manifest)
        dirs = sorted(set(manifest["dirs"]) | {"/".join(parts) for parts in created})
        needed = {"/".join(relative.split("/")[:length]) for relative in wanted for length in range(1, relative.count("/") + 1)}
        _remove_empty_dirs(tree, [directory for directory in dirs if directory not in needed])
        dirs = [directory for directory in dirs if tree.kind(directory.split("/")) == "dir"]
        _write_manifest(tree, {"files": digests, "dirs": dirs, "host_dir_created": made or manifest["host_dir_created"]})
        return warnings
    except BaseException:
        _undo(tree, temps, created)
        if made:
            try:
                os.rmdir(host, dir_fd=dest_fd)
            except OSError:
                pass
        raise
    finally:
        tree.close()
        os.close(tree.root_fd)
        os.close(dest_fd)


def _refuse_unsafe(tree: _Tree, wanted: dict[str, bytes], manifest: Manifest) -> None:
    """Refuses, before anything is written, a path through a symlink or a file, and one that is not a file it wrote."""
    for relative in wanted:
        parts = relative.split("/")
        for length in range(1, len(parts)):
            tree.directory(parts[:length], create=None)  # refuses a symlink or a file on the way
        kind = tree.kind(parts)
        if kind is not None and not (kind == "file" and _ours(tree, relative, manifest)):
            raise RenderPathError(
                "%s/%s: exists and %s; numa.kubelet.render replaces only the files it wrote (listed in %s): move it away"
                % (
                    tree.label,
                    relative,
                    "is a symlink" if kind == "symlink" else "is a directory" if kind == "dir" else "is not a file it wrote, or was changed since",
                    MANIFEST,
                )
            )


def _write_all(tree: _Tree, wanted: dict[str, bytes], created: list[tuple[str, ...]], temps: list[tuple[int | None, str, str]]) -> dict[str, str]:
    """Writes every file beside its place, then moves them all in; {path: sha256}. created and temps record, as it
    goes, what write_host undoes when a step fails (so they are the caller's lists: a failure returns nothing)."""
    digests: dict[str, str] = {}
    for relative, data in wanted.items():
        parts = relative.split("/")
        directory = tree.directory(parts[:-1], create=True, created=created)
        temp = TEMP_PREFIX + parts[-1][:100]
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o644, dir_fd=directory)
        temps.append((directory, temp, parts[-1]))
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        digests[relative] = _sha256(data)
    for directory, temp, name in temps:
        os.replace(temp, name, src_dir_fd=directory, dst_dir_fd=directory)
    temps.clear()
    return digests


def _remove_stale(tree: _Tree, stale: list[str], manifest: Manifest) -> list[str]:
    """Removes the files an earlier render wrote that are no longer wanted; warns of those changed since."""
    warnings = []
    for relative in stale:
        if _ours(tree, relative, manifest):
            parts = relative.split("/")
            os.unlink(parts[-1], dir_fd=tree.directory(parts[:-1], create=None))
        elif tree.kind(relative.split("/")) is not None:
            warnings.append(f"{tree.label}/{relative}: written by an earlier render and changed since; left alone")
    return warnings


def _undo(tree: _Tree, temps: list[tuple[int | None, str, str]], created: list[tuple[str, ...]]) -> None:
    for directory, temp, _name in temps:
        try:
            os.unlink(temp, dir_fd=directory)
        except OSError:
            pass
    for made_dir in reversed(created):
        try:
            os.rmdir(made_dir[-1], dir_fd=tree.directory(made_dir[:-1], create=None))
        except OSError:
            pass


def _remove_empty_dirs(tree: _Tree, dirs: Iterable[str]) -> None:
    for directory in sorted(dirs, key=lambda path: -path.count("/")):
        parts = directory.split("/")
        parent = tree.directory(parts[:-1], create=None)
        if parent is None:
            continue
        for key in [key for key in tree.fds if key[: len(parts)] == tuple(parts)]:
            os.close(tree.fds.pop(key))
        try:
            os.rmdir(parts[-1], dir_fd=parent)  # only an empty real directory goes; a symlink gives ENOTDIR
        except OSError:
            pass


def _write_manifest(tree: _Tree, manifest: Manifest) -> None:
    data = (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode("utf-8")
    temp = TEMP_PREFIX + MANIFEST
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o644, dir_fd=tree.root_fd)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.replace(temp, MANIFEST, src_dir_fd=tree.root_fd, dst_dir_fd=tree.root_fd)


def remove_host(dest: str, host: str, check_mode: bool = False) -> list[str]:
    """Remove what an earlier render wrote for host (the files its manifest lists, unchanged, and its empty directories).

    Returns warnings for listed files changed since. A host directory without a manifest is left as it is.
    """
    dest_fd, tree, _made = _open_host(dest, host, create=False)
    if tree is None or dest_fd is None:
        return []
    warnings: list[str] = []
    try:
        try:
            manifest = _manifest(tree)
            if check_mode or tree.read([MANIFEST]) is None:
                return []
            for relative in manifest["files"]:
                parts = relative.split("/")
                if _ours(tree, relative, manifest):
                    os.unlink(parts[-1], dir_fd=tree.directory(parts[:-1], create=None))
                elif tree.kind(parts) is not None:
                    warnings.append(f"{tree.label}/{relative}: written by an earlier render and changed since; left alone")
            _remove_empty_dirs(tree, manifest["dirs"])
            os.unlink(MANIFEST, dir_fd=tree.root_fd)
        finally:
            tree.close()
            os.close(tree.root_fd)
        if manifest["host_dir_created"]:
            try:
                os.rmdir(host, dir_fd=dest_fd)  # only when empty: the user's own files keep it
            except OSError:
                pass
    finally:
        os.close(dest_fd)
    return warnings
