# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""patch_module_args on every ansible-core the collection supports (the version matrix runs these tests on 2.18 on)."""

from __future__ import annotations

try:
    from ansible.module_utils.testing import patch_module_args
except ImportError:  # ansible-core < 2.19: the module arguments are read from basic._ANSIBLE_ARGS
    import contextlib
    import json

    from ansible.module_utils import basic

    @contextlib.contextmanager
    def patch_module_args(args):
        """What ansible.module_utils.testing.patch_module_args does from ansible-core 2.19 on."""
        previous = basic._ANSIBLE_ARGS
        basic._ANSIBLE_ARGS = json.dumps({"ANSIBLE_MODULE_ARGS": args}).encode()
        try:
            yield
        finally:
            basic._ANSIBLE_ARGS = previous


__all__ = ["patch_module_args"]
