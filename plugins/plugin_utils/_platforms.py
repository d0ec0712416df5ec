# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every platform numa.kubelet plans, in the order detection and the messages list them (docs/contributing.md: adding one)."""

from __future__ import annotations

from ._platform import Platform
from ._platform_k3s import K3S
from ._platform_kubeadm import KUBEADM
from ._platform_nodeadm import NODEADM
from ._platform_rke2 import RKE2

PLATFORMS = (KUBEADM, RKE2, NODEADM, K3S)
PLATFORM_NAMES = tuple(platform.name for platform in PLATFORMS)


def units_of(platform: str = "") -> list[str]:
    """The systemd units a plan may restart on the platform called `platform`, or on any platform when it is "" (not
    known before the node is read), each once, in the platforms' order; KeyError for a name not in PLATFORM_NAMES."""
    platforms = (platform_named(platform),) if platform else PLATFORMS
    return list(dict.fromkeys(unit for each in platforms for unit in each.units))


def platform_named(name: str) -> Platform:
    """The Platform called `name`; KeyError for a name that is not in PLATFORM_NAMES."""
    for platform in PLATFORMS:
        if platform.name == name:
            return platform
    raise KeyError(name)
