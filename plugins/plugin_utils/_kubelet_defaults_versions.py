# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A config that one kubelet version's defaulting made, judged as another version's defaulting would have made it
(as_defaulted_for): the effective config of a v1.36 kubelet checked for a v1.33 one. The defaulting: _kubelet_defaults.
"""

from __future__ import annotations

from ._config import KubeletConfigError
from ._kubelet_defaults import set_defaults
from ._kubelet_field_table import checked_minor


def as_defaulted_for(config: dict, defaulted_by: str | None, kubelet_version: str | None) -> dict:
    """config, which the defaulting of kubelet defaulted_by made, as the defaulting of kubelet_version would have made it:
    a value equal to defaulted_by's default where kubelet_version's differs becomes kubelet_version's, or goes when that
    kubelet sets none (a v1.36 effective config judged for v1.33 loses v1.36's imagePullCredentialsVerificationPolicy).

    A value the user wrote that happens to equal such a default is read as the default: only the raw config tells them
    apart (set_defaults(config, kubelet_version) is then exact). Versions are judged as _kubelet_field_table.checked_minor.
    """
    source, target = checked_minor(defaulted_by), checked_minor(kubelet_version)
    if source is None or target is None or source == target or not isinstance(config, dict):
        return config
    gates = config.get("featureGates")
    seed = {"featureGates": gates} if isinstance(gates, dict) else {}
    try:
        theirs, ours = set_defaults(seed, source), set_defaults(seed, target)
    except KubeletConfigError:
        return config  # gates that do not decode: the kubelet refuses the config before defaulting matters
    return _replace_defaults(config, theirs, ours)


def _replace_defaults(config: dict, theirs: dict, ours: dict) -> dict:
    result = dict(config)
    for key, default in theirs.items():
        if key not in result:
            continue
        value, own = result[key], ours.get(key, _NO_DEFAULT)
        if isinstance(default, dict) and isinstance(value, dict):
            replaced = _replace_defaults(value, default, own if isinstance(own, dict) else {})
            if replaced or own is not _NO_DEFAULT or not value:
                result[key] = replaced
            else:
                del result[key]  # a struct only the other version's defaulting filled
        elif value == default and own != default:
            if own is _NO_DEFAULT:
                del result[key]
            else:
                result[key] = own
    return result


_NO_DEFAULT = object()
