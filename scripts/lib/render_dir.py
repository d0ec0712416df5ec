# SPDX-License-Identifier: GPL-3.0-or-later
"""Prints the absolute kubelet_numa_render_dir that `ansible-playbook ARGS numa.kubelet.render` writes into.

scripts/render lists the files of that run. The arguments are parsed by ansible-playbook's own parser and extra-vars
loader (key=value, JSON/YAML, @file; the last -e wins), so the directory is the one the playbook used, not a guess.
Usage: render_dir.py ANSIBLE_PLAYBOOK_ARGUMENT...
"""

from __future__ import annotations

import os
import sys

from ansible.cli.playbook import PlaybookCLI
from ansible.parsing.dataloader import DataLoader
from ansible.utils.vars import load_extra_vars


def main(argv):
    # The playbook argument is only there because the parser requires one; it is not read.
    PlaybookCLI(["ansible-playbook"] + argv + ["numa.kubelet.render"]).parse()
    render_dir = load_extra_vars(DataLoader()).get("kubelet_numa_render_dir")
    if not render_dir:
        return "no kubelet_numa_render_dir in the arguments"
    print(os.path.realpath(render_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
