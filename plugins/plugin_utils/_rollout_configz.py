# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Configz drift: the running kubelet's effective config, as its /configz answers it ({"kubeletconfig": {...}}, the
v1beta1 JSON of the config it started with), against the effective config the plan computed, for the fields
numa.kubelet is responsible for. Quantities are compared by value ("589299712" and "562Mi" are equal). The kubelet
v1.36.2 prints them as written (tests/unit/fixtures/configz/README.md), but another version or a config management
tool may write another form of the same value.
"""

from __future__ import annotations

import json
from typing import Any

from ._config import plain_data
from ._quantity import Quantity, QuantityError

# The fields of the kubelet's config that numa.kubelet plans; anything else on /configz is not its business.
CONFIGZ_POLICY_FIELDS = ("memoryManagerPolicy", "cpuManagerPolicy", "topologyManagerPolicy", "topologyManagerScope")
CONFIGZ_RESERVATION_FIELDS = ("kubeReserved", "systemReserved", "evictionHard")


def _cpuset(text: str) -> frozenset[int] | None:
    """The CPUs of a cpuset list such as "0-3,8" (k8s.io/utils/cpuset Parse), or None when it is not one."""
    cpus: set[int] = set()
    for part in text.split(",") if text else []:
        first, dash, last = part.partition("-")
        if not first.isdigit() or (dash and not last.isdigit()):
            return None
        low, high = int(first), int(last) if dash else int(first)
        if high < low:
            return None
        cpus.update(range(low, high + 1))
    return frozenset(cpus)


def _as_the_kubelet_runs_it(planned: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """kubeReserved and systemReserved after the kubelet's own rewrite for reservedSystemCPUs.

    cmd/kubelet/app/server.go (v1.36.2, logged as "Option --reserved-cpus is specified, it will overwrite the cpu
    setting in KubeReserved and SystemReserved"): with reserved CPUs it deletes kubeReserved.cpu and sets
    systemReserved.cpu to their count, and /configz shows the result (tests/unit/fixtures/configz/).
    """
    reserved = dict(kubeReserved=dict(planned.get("kubeReserved") or {}), systemReserved=dict(planned.get("systemReserved") or {}))
    cpus = _cpuset(str(planned.get("reservedSystemCPUs") or ""))
    if cpus:
        reserved["kubeReserved"].pop("cpu", None)
        reserved["systemReserved"]["cpu"] = str(len(cpus))
    return reserved


def _differs(field: str, running: object, planned: object) -> str:
    return "/configz: %s is %s in the running kubelet, the plan %s" % (
        field,
        "not set" if running is None else running,
        "not set" if planned is None else planned,
    )


def _same_quantity(running: object, planned: object) -> bool:
    """Equal as Quantity values when both parse (percentages and other text compare as written)."""
    try:
        return Quantity.parse(str(running)) == Quantity.parse(str(planned))
    except QuantityError:
        return str(running) == str(planned)


def _map_drift(field: str, running: object, planned: dict[str, Any]) -> list[str]:
    if not isinstance(running, dict):
        return [_differs(field, running, planned)]
    return [
        _differs(f"{field}[{key}]", running.get(key), planned.get(key))
        for key in sorted(set(running) | set(planned))
        if key not in running or key not in planned or not _same_quantity(running[key], planned[key])
    ]


def _reserved_memory_limits(entries: object) -> dict[tuple[object, str], object] | None:
    """{(numaNode, resource): limit} of a reservedMemory list; None when it is not one."""
    if not isinstance(entries, list):
        return None
    limits = {}
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("limits"), dict):
            return None
        for resource, limit in entry["limits"].items():
            limits[(entry.get("numaNode"), resource)] = limit
    return limits


def _reserved_memory_drift(running: object, planned: object) -> list[str]:
    running_limits, planned_limits = _reserved_memory_limits(running or []), _reserved_memory_limits(planned or []) or {}
    if running_limits is None:
        return ["/configz: reservedMemory is %r in the running kubelet, not a list of numaNode and limits" % (running,)]
    return [
        _differs("reservedMemory[numaNode=%s][%s]" % key, running_limits.get(key), planned_limits.get(key))
        for key in sorted(set(running_limits) | set(planned_limits), key=str)
        if key not in running_limits or key not in planned_limits or not _same_quantity(running_limits[key], planned_limits[key])
    ]


def parse_configz(answer: object) -> tuple[dict[str, Any] | None, str | None]:
    """The kubeletconfig mapping of a /configz answer (its JSON text or already decoded), or a problem line."""
    if isinstance(answer, (str, bytes)):
        try:
            answer = json.loads(answer)
        except ValueError as exc:
            return None, "/configz: the answer is not JSON (%s): %.200r" % (exc, answer)
    if not isinstance(answer, dict) or not isinstance(answer.get("kubeletconfig"), dict):
        return None, ('/configz: the answer has no kubeletconfig mapping (the kubelet answers {"kubeletconfig": {...}}): %.200r' % (plain_data(answer),))
    return answer["kubeletconfig"], None


def configz_drift(plan: dict[str, Any], configz: object) -> list[str]:
    """How the running kubelet's config (a /configz answer) differs from the plan's effective config; [] when not.

    Compares the policies of the memory, CPU and topology managers and the topology manager's scope,
    reservedMemory per NUMA node and resource, kubeReserved, systemReserved and evictionHard per key (quantities
    by value), and reservedSystemCPUs when the plan sets it. A malformed answer is one problem line.
    """
    running, problem = parse_configz(configz)
    if running is None:
        return [str(problem)]
    planned = plan["kubelet_config"]
    problems: list[str] = []
    for field in CONFIGZ_POLICY_FIELDS:
        if running.get(field) != planned.get(field):
            problems.append(_differs(field, running.get(field), planned.get(field)))
    problems.extend(_reserved_memory_drift(running.get("reservedMemory"), planned.get("reservedMemory")))
    reservations = _as_the_kubelet_runs_it(planned)
    reservations["evictionHard"] = planned.get("evictionHard") or {}
    for field in CONFIGZ_RESERVATION_FIELDS:
        problems.extend(_map_drift(field, running.get(field) or {}, reservations[field]))
    if planned.get("reservedSystemCPUs"):
        cpus = running.get("reservedSystemCPUs")
        if cpus is None or _cpuset(str(cpus)) != _cpuset(str(planned["reservedSystemCPUs"])):
            problems.append(_differs("reservedSystemCPUs", cpus, planned["reservedSystemCPUs"]))
    return problems
