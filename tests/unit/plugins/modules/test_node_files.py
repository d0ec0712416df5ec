# -*- coding: utf-8 -*-
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""node_files reports mode, owner and group beside the text, so the role can skip writing what is already in place."""

from __future__ import annotations

import grp
import os
import pwd

from ansible_collections.numa.kubelet.plugins.modules.node_files import _attributes


def test_attributes_of_a_file_and_a_directory(tmp_path):
    path = tmp_path / "50-numa-kubelet.conf"
    path.write_text("kind: KubeletConfiguration\n")
    path.chmod(0o640)
    (tmp_path / "conf.d").mkdir()
    (tmp_path / "conf.d").chmod(0o2750)
    owner, group = pwd.getpwuid(os.getuid()).pw_name, grp.getgrgid(os.getgid()).gr_name
    assert _attributes(str(path)) == {"mode": "0640", "owner": owner, "group": group}
    assert _attributes(str(tmp_path / "conf.d")) == {"mode": "2750", "owner": owner, "group": group}
