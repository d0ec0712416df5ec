# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubeReserved that nodeadm (EKS AL2023) writes into the kubelet config, computed exactly as nodeadm does.

Ported from awslabs/amazon-eks-ami nodeadm/internal/kubelet/config.go (read at 01375496231add8265f3fb1bc6e1e90d083b980b
and 221f45dadcf56a9fb108f702cb6367a9c3bf65f8; the functions are the same in both): memory ``11*maxPods + 255`` Mi
(int32), cpu a ladder over the node's online millicores, each rung truncated on its own, ephemeral-storage 1Gi; maxPods
from the instance table (_eks_instance_data). The rules and their limits: docs/kubelet-facts.md section 5.
"""

from __future__ import annotations

from ._eks_instance_data import INSTANCE_TYPES, SOURCE

# nodeadm/internal/kubelet/config.go getCPUMillicoresToReserve: cpuRanges {0, 1000, 2000, 4000, total} and
# cpuPercentageReservedForRanges {600, 100, 50, 25}, divided by 10000 in getResourceToReserveInRange.
_CPU_RANGE_STARTS = (0, 1000, 2000, 4000)
_CPU_RANGE_PARTS_PER_10000 = (600, 100, 50, 25)
# The fixed part of nodeadm's kubeReserved.
EPHEMERAL_STORAGE = "1Gi"
# nodeadm keeps maxPods in an int32 and computes 11*maxPods+255 in int32: the largest maxPods that does not overflow.
_MAX_PODS_LIMIT = (2**31 - 1 - 255) // 11


class EksError(ValueError):
    """A bad input to the EKS reservation functions; the message names the value and the rule it breaks."""


def _source() -> str:
    return "source %s %s at %s, retrieved %s" % (SOURCE["repository"], SOURCE["path"], SOURCE["commit"], SOURCE["retrieved"])


def _positive_int(name: str, value: object, meaning: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise EksError("%s must be an integer (%s), got %r (%s)" % (name, meaning, value, type(value).__name__))
    if value <= 0:
        raise EksError("%s must be a positive integer (%s), got %d" % (name, meaning, value))
    return value


def _checked_max_pods(value: object) -> int:
    value = _positive_int("max_pods", value, "the node's maxPods")
    if value > _MAX_PODS_LIMIT:
        raise EksError("max_pods %d is out of range: nodeadm computes 11*maxPods+255 in an int32, so maxPods must be at most %d" % (value, _MAX_PODS_LIMIT))
    return value


def _table_max_pods(instance_type: object) -> int:
    if not isinstance(instance_type, str):
        raise EksError(f"instance_type must be a string such as 'm5.large', got {instance_type!r} ({type(instance_type).__name__})")
    try:
        return INSTANCE_TYPES[instance_type][0]
    except KeyError:
        raise EksError(
            f"unknown EC2 instance type {instance_type!r}: not in the EKS max-pods table ({_source()}); pass max_pods= and vcpus= explicitly"
        ) from None


def max_pods(instance_type: str) -> int:
    """The maxPods nodeadm computes for an instance type: ENIs * (IPv4 addresses per ENI - 1) + 2."""
    return _table_max_pods(instance_type)


def kube_reserved_memory_mebibytes(max_pods: int) -> int:  # pylint: disable=redefined-outer-name
    """kubeReserved.memory in MiB for a node's maxPods: 11 * maxPods + 255 (nodeadm GetMemoryMebibytesToReserve)."""
    return 11 * _checked_max_pods(max_pods) + 255


def kube_reserved_cpu_millicores(vcpus: int) -> int:
    """kubeReserved.cpu in millicores for a node with this many online CPUs (nodeadm getCPUMillicoresToReserve)."""
    total = _positive_int("vcpus", vcpus, "the node's online CPUs") * 1000
    ends = _CPU_RANGE_STARTS[1:] + (total,)
    reserved = 0
    for start, end, parts in zip(_CPU_RANGE_STARTS, ends, _CPU_RANGE_PARTS_PER_10000, strict=True):
        # getResourceToReserveInRange: 0 when total <= start, else (min(total, end) - start) * percentage / 10000.
        if total > start:
            reserved += (min(total, end) - start) * parts // 10000
    return reserved


def kube_reserved(
    instance_type: str | None = None,
    *,
    max_pods: int | None = None,  # pylint: disable=redefined-outer-name
    vcpus: int | None = None,
) -> dict[str, str]:
    """The kubeReserved map nodeadm writes, with its exact strings: {"cpu": "<N>m", "ephemeral-storage": "1Gi", "memory": "<N>Mi"}.

    Give either instance_type (maxPods from the EKS table) or max_pods (a type missing from the table, or the
    result of a NodeConfig maxPodsExpression), and always vcpus, the node's online CPU count.
    """
    if instance_type is not None and max_pods is not None:
        raise EksError(
            "conflicting arguments: pass instance_type= (maxPods from the EKS table) or max_pods= "
            "(for a type missing from the table, or a maxPodsExpression result), not both"
        )
    if instance_type is not None:
        pods = _table_max_pods(instance_type)
    elif max_pods is not None:
        pods = max_pods
    else:
        raise EksError("kube_reserved needs instance_type= or max_pods=: kubeReserved.memory is 11*maxPods+255 MiB")
    if vcpus is None:
        raise EksError("vcpus= is required: nodeadm computes kubeReserved.cpu from the node's online CPUs, which the EKS instance table does not carry")
    # Key order as nodeadm's JSON has it (Go's encoding/json writes map keys sorted).
    return {
        "cpu": "%dm" % kube_reserved_cpu_millicores(vcpus),
        "ephemeral-storage": EPHEMERAL_STORAGE,
        "memory": "%dMi" % kube_reserved_memory_mebibytes(pods),
    }
