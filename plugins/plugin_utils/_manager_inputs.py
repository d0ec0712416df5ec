# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The memory and CPU manager inputs of an effective kubelet config, and the memory_manager_state checkpoint.

When these inputs change, the kubelet refuses to start on its old checkpoints (docs/kubelet-facts.md), so the plan
resets them; the checkpoint guard of the unit compares their digest; the rollout compares a checkpoint with the plan.
"""

from __future__ import annotations

import decimal
import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from ..module_utils._kubelet_checkpoint import checkpoint_problems
from ._allocatable import memory_reservation
from ._config import MEMORY_MANAGER_STATIC, KubeletConfigError, reserved_resource_list
from ._kubelet_fields import type_name
from ._quantity import Quantity


def _memory_key(config: Mapping[str, Any], capacity: int | str | None) -> tuple[Any, ...]:
    policy = config.get("memoryManagerPolicy") or "None"
    if policy != MEMORY_MANAGER_STATIC:
        return (policy,)
    shares: dict[tuple[Any, Any], decimal.Decimal] = {}
    for item in config.get("reservedMemory") or []:
        for resource, text in (item.get("limits") or {}).items():
            shares[(item.get("numaNode"), resource)] = Quantity.parse(str(text)).exact
    return (policy, tuple(sorted(shares.items(), key=str)), memory_reservation(config, capacity).total.exact)


def _cpu_key(config: Mapping[str, Any]) -> tuple[Any, ...]:
    policy = config.get("cpuManagerPolicy") or "none"
    reserved: list[decimal.Decimal | None] = []
    for field_name in ("kubeReserved", "systemReserved"):
        cpu = reserved_resource_list(config, field_name).get("cpu")
        reserved.append(None if cpu is None else cpu.exact)
    return (
        policy,
        json.dumps(config.get("cpuManagerPolicyOptions") or {}, sort_keys=True),
        config.get("reservedSystemCPUs") or "",
        tuple(reserved) if policy == "static" else (),
    )


def manager_changes(before: Mapping[str, Any], after: Mapping[str, Any], capacity: int | str | None) -> tuple[bool, bool]:
    """(memory manager inputs changed, CPU manager inputs changed); a current config we cannot read counts as changed."""
    try:
        memory = _memory_key(before, capacity) != _memory_key(after, capacity)
    except (KubeletConfigError, ValueError, TypeError, AttributeError):
        memory = True
    try:
        cpu = _cpu_key(before) != _cpu_key(after)
    except (KubeletConfigError, ValueError, TypeError, AttributeError):
        cpu = True
    return memory, cpu


def manager_inputs_digest(config: Mapping[str, Any], capacity: int | str | None) -> str | None:
    """A digest of the memory and CPU manager inputs of an effective config (what manager_changes compares).

    The kubelet's unit compares the digest of the config on disk with the one it last started with, and removes the
    checkpoints when they differ (the checkpoint guard, roles/kubelet_numa/templates/reboot-reset.conf.j2). None when
    the config cannot be read, so that nothing is vouched for.
    """
    try:
        keys = {"memory": _memory_key(config, capacity), "cpu": _cpu_key(config)}
    except (KubeletConfigError, ValueError, TypeError, AttributeError):
        return None

    def exact(value: object) -> str:
        # Equal quantities spelled differently (1Gi, 1073741824) are one value; normalize() keeps it exact at int64 sizes.
        if isinstance(value, decimal.Decimal):
            return f"{value.normalize()}"
        raise TypeError(f"{value!r} ({type(value).__name__}) is not a manager input")

    text = json.dumps(keys, sort_keys=True, default=exact, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def expected_state(reserved: Iterable[Mapping[str, Any]]) -> dict[str, int | None]:
    """What memory_manager_state must say after a good start: the policy and systemReserved bytes per NUMA node."""
    shares: dict[str, int | None] = {}
    for item in reserved:
        shares[str(item["numaNode"])] = Quantity.parse(str(item["limits"]["memory"])).as_int64()
    return shares


def manager_summary(config: Mapping[str, Any], capacity: int | str | None) -> str:
    """The memory manager inputs of a config in words, for a message."""
    policy = config.get("memoryManagerPolicy") or "None"
    if policy != MEMORY_MANAGER_STATIC:
        return "memoryManagerPolicy %s" % policy
    total: Quantity | str
    try:
        total = memory_reservation(config, capacity).total
    except (KubeletConfigError, ValueError, TypeError, AttributeError):
        total = "?"
    return "memoryManagerPolicy Static, %s reserved for memory, reservedMemory %s" % (total, json.dumps(config.get("reservedMemory") or []))


def state_problems(state_text: str | None, expected: object) -> list[str]:
    """How a memory_manager_state checkpoint differs from the plan's expected_state; [] when it matches.

    The arguments are checked here, for the filter and the rollout; the comparison is the restart module's own
    (module_utils/_kubelet_checkpoint.py), which runs it on the node.
    """
    if not isinstance(expected, dict) or not isinstance(expected.get("systemReserved"), dict) or "policyName" not in expected:
        raise KubeletConfigError([f"expected state: {expected!r} must be a plan's expected_state {{policyName, systemReserved}}"])
    if state_text is not None and not isinstance(state_text, str):
        raise KubeletConfigError([f"memory_manager_state: {state_text!r} ({type_name(state_text)}) must be the checkpoint file's text"])
    return checkpoint_problems(state_text, expected)
