# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""validate_kubelet_config: the config passes through unchanged, or one error lists every problem."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError
from ansible.utils.display import Display

from ansible_collections.numa.kubelet.plugins.filter.reserved_memory import FilterModule as ReservedMemory
from ansible_collections.numa.kubelet.plugins.filter.validate_kubelet_config import FilterModule
from ansible_collections.numa.kubelet.tests.unit.plugins.filter.test_filter import P4D

reserved_memory = ReservedMemory().filters()["reserved_memory"]
validate_kubelet_config = FilterModule().filters()["validate_kubelet_config"]


def test_validate_returns_the_config_unchanged():
    config = dict(P4D, reservedMemory=reserved_memory(P4D, [0, 1]))
    assert validate_kubelet_config(config, [0, 1]) is config


def test_validate_lists_every_problem():
    broken = dict(P4D, memoryManagerPolicy="static", reservedMemroy=[])
    with pytest.raises(AnsibleFilterError) as error:
        validate_kubelet_config(broken, [0, 1])
    assert str(error.value).splitlines()[0] == "validate_kubelet_config: the kubelet would refuse this config:"
    assert '- memoryManagerPolicy: unknown policy: "static"' in str(error.value)
    assert "- reservedMemroy: unknown KubeletConfiguration" in str(error.value)


def test_validate_judges_the_file_with_the_kubelets_defaults():
    # A null duration decodes to "" and the kubelet refuses the file (time: invalid duration ""); as written, the dict
    # holds no wrong value, so only the defaulted config shows it.
    config = dict(P4D, reservedMemory=reserved_memory(P4D, [0, 1]), syncFrequency=None)
    with pytest.raises(AnsibleFilterError) as error:
        validate_kubelet_config(config, [0, 1])
    assert '- syncFrequency: time: invalid duration ""' in str(error.value)


def test_validate_keeps_an_explicit_empty_value_and_returns_the_config_as_given():
    config = dict(P4D, reservedMemory=reserved_memory(P4D, [0, 1]), enforceNodeAllocatable=[], cgroupsPerQOS=False)
    assert validate_kubelet_config(config, [0, 1]) is config
    assert "imageGCHighThresholdPercent" not in config


def test_validate_takes_the_kubelet_version(monkeypatch):
    warnings = []
    monkeypatch.setattr(Display, "warning", lambda _display, message: warnings.append(message))
    config = dict(P4D, reservedMemory=reserved_memory(P4D, [0, 1]))
    assert validate_kubelet_config(config, [0, 1], kubelet_version="1.33") is config
    assert warnings == []
    assert validate_kubelet_config(config, [0, 1], kubelet_version="v1.32.5+rke2r1") is config
    assert [warning.split(" (")[0] for warning in warnings] == [
        "validate_kubelet_config: kubelet_version: v1.32.5+rke2r1 is checked with the rules of kubelet 1.31"
    ]
    with pytest.raises(AnsibleFilterError) as error:
        validate_kubelet_config(config, [0, 1], kubelet_version=1.33)
    assert "- kubelet_version: 1.33 is not a kubelet version" in str(error.value)
