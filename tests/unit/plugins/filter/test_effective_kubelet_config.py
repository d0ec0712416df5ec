# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""effective_kubelet_config: careless input is a named error, never a Python error."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.numa.kubelet.plugins.filter.effective_kubelet_config import effective_kubelet_config


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: effective_kubelet_config({}, flags="--max-pods=3"), "must be a list of command-line words"),
        (lambda: effective_kubelet_config([]), "main config: must be a KubeletConfiguration mapping"),
    ],
)
def test_filters_name_a_list_none_or_string_where_a_mapping_belongs(call, message):
    with pytest.raises(AnsibleFilterError) as raised:
        call()
    assert message in str(raised.value) and "_Ansible" not in str(raised.value)
