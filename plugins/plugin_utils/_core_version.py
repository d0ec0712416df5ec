# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Refuse an ansible-core older than meta/runtime.yml's requires_ansible, in one line.

ansible-core only warns that a collection "does not support" it and goes on; on an older core the first thing that
breaks may be deep inside a play. The actions call this first, so the run stops before any host is read or changed.
A newer core than the tested range only gets ansible-core's own warning.
"""

from __future__ import annotations

import os
import re

_RUNTIME = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "meta", "runtime.yml")


def _release(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3])


def minimum_core(runtime_path: str = _RUNTIME) -> str:
    """The lower bound of requires_ansible (">=2.18.0,<2.22.0" gives "2.18.0")."""
    with open(runtime_path, encoding="utf-8") as handle:
        match = re.search(r"""^requires_ansible:\s*["']?[^"'\n]*>=\s*([0-9.]+)""", handle.read(), re.MULTILINE)
    if not match:
        raise ValueError(f"{runtime_path} has no requires_ansible lower bound")
    return match.group(1)


def too_old_message(core_version: str, runtime_path: str = _RUNTIME) -> str | None:
    """The refusal for a core below the lower bound, else None."""
    minimum = minimum_core(runtime_path)
    if _release(core_version) >= _release(minimum):
        return None
    return f"numa.kubelet needs ansible-core >= {minimum} (meta/runtime.yml); this is ansible-core {core_version}"
