# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""nodeadm's user data as the plan reads it (_platform_nodeadm): given as text, as a file on the node or from the
instance metadata (IMDS), or, when none is given, assumed from what the current 40-nodeadm.conf holds that no
/etc/eks/nodeadm.d file sets.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._config import KubeletConfigError
from ._eks_nodeadm import kubelet_config, user_data_nodeconfigs
from ._kubelet_fields import field_type_problems
from ._plan_inputs import NodeFiles, Variables

# The drop-in nodeadm rebuilds at every boot (and nodeadm-run) in the kubelet's config.json.d.
NODEADM_DROPIN = "40-nodeadm.conf"


def not_set_by(config: dict[str, Any], sources: dict[str, Any]) -> dict[str, Any]:
    """The part of a merged kubelet config that `sources` (merged last) does not set, leaf by leaf."""
    rest: dict[str, Any] = {}
    for key, value in config.items():
        if key not in sources:
            rest[key] = value
        elif isinstance(value, dict) and isinstance(sources[key], dict):
            inner = not_set_by(value, sources[key])
            if inner:
                rest[key] = inner
    return rest


_IMDS = "the instance's user data (IMDS)"


def _user_data_text(variables: Variables, facts: dict[str, Any], files: NodeFiles) -> tuple[object, str, list[str]]:
    """(the user data's text, or "" when not given or empty; where it came from; the problems in giving it)."""
    text, path = variables.get("kubelet_numa_nodeadm_user_data") or "", variables.get("kubelet_numa_nodeadm_user_data_path") or ""
    if text and path:
        return "", "", ["kubelet_numa_nodeadm_user_data and kubelet_numa_nodeadm_user_data_path are both set; give the user data once"]
    if path:
        if files.get(path) is None:
            return "", "", [f"kubelet_numa_nodeadm_user_data_path: {path} does not exist on the node (or is not readable)"]
        return files[path], path, []
    if not text and facts.get("nodeadm_user_data") is not None:
        return facts["nodeadm_user_data"], _IMDS, []
    return text, "kubelet_numa_nodeadm_user_data", []


def nodeadm_user_data(
    variables: Variables, facts: dict[str, Any], files: NodeFiles, current_dropin: dict[str, Any], nodeadm_d_now: dict[str, Any]
) -> tuple[Sequence[dict[str, Any] | None], str | None, list[str]]:
    """(user data kubelet configs in merge order, None standing for ours; what the plan assumed, or None when exact;
    the problems with the user data)."""
    if "nodeadm_user_data_parts" in facts:
        return list(facts["nodeadm_user_data_parts"]), None, []
    text, origin, problems = _user_data_text(variables, facts, files)
    if problems or (origin == _IMDS and not text):
        return [], None, problems  # an instance without user data: nodeadm reads none, and the plan is exact
    if text:
        if not isinstance(text, str):
            return [], None, ["kubelet_numa_nodeadm_user_data: %r must be the user data's text (MIME multi-part, NodeConfig YAML or base64)" % (text,)]
        try:
            configs = [kubelet_config(document) for document in user_data_nodeconfigs(text, origin)]
        except KubeletConfigError as exc:
            return [], None, ["%s; at boot nodeadm cannot use this user data" % problem for problem in exc.problems]
        return configs, None, [problem for config in configs for problem in field_type_problems(config, "%s: spec.kubelet.config." % origin)]
    # Not given: what the drop-in holds beyond the nodeadm.d files can only have come from the user data.
    inferred = not_set_by({key: value for key, value in current_dropin.items() if key not in ("apiVersion", "kind")}, nodeadm_d_now)
    assumption = (
        "the node's user data was not given (kubelet_numa_nodeadm_user_data, kubelet_numa_nodeadm_user_data_path or "
        "kubelet_numa_nodeadm_user_data_from_imds), so the "
        "plan assumes its kubelet settings are those of the current %s that no /etc/eks/nodeadm.d file sets: %s; a user data "
        "value that a nodeadm.d file overrides is not seen. Give the user data to make the plan exact" % (NODEADM_DROPIN, ", ".join(sorted(inferred)) or "none")
    )
    return [inferred] if inferred else [], assumption, []
