# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""registerWithTaints as the kubelet's config validation checks it at start-up.

pkg/kubelet/apis/config/validation/validation.go (read at 001332b0422071acf4860769f18e34b5e9b7c1bc) runs
pkg/util/taints CheckTaintValidation on each taint and reports `invalid taint: %v` with the taint printed as a Go
struct (`{key value effect <nil>}`), dropping the reason; the reason (apimachinery validation IsQualifiedName,
IsValidLabelValue, the three effects) follows here as a hint. A taint with timeAdded is refused on its own.
The texts are the real kubelet v1.36.2's (tests/oracle/cases/taints.yml).
"""

from __future__ import annotations

import re

# k8s.io/apimachinery/pkg/util/validation: qualifiedNameFmt, DNS-1123 subdomain, label value.
_QUALIFIED_NAME_PART = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_NAME_MAX, _PREFIX_MAX, _VALUE_MAX = 63, 253, 63
# k8s.io/api core/v1 TaintEffect; an empty effect passes CheckTaintValidation.
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def _key_reason(key: str) -> str | None:
    """IsQualifiedName: [prefix/]name, the name 1-63 characters, the prefix a DNS-1123 subdomain."""
    parts = key.split("/")
    if len(parts) > 2:
        return "a taint key is a qualified name: an optional DNS subdomain prefix and '/', then a name"
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            return "the key's prefix part must be non-empty"
        if len(prefix) > _PREFIX_MAX or not _DNS1123_SUBDOMAIN.match(prefix):
            return "the key's prefix must be a lower-case DNS subdomain (example.com)"
    if not name:
        return "the key's name part must be non-empty"
    if len(name) > _NAME_MAX:
        return f"the key's name part must be no more than {_NAME_MAX} characters"
    if not _QUALIFIED_NAME_PART.match(name):
        return "the key's name part must consist of alphanumeric characters, '-', '_' or '.', and start and end with one"
    return None


def _taint_reason(taint: dict) -> str | None:
    key, value, effect = (taint.get(field) or "" for field in ("key", "value", "effect"))
    if not all(isinstance(item, str) for item in (key, value, effect)):
        return None  # the decoding refuses these first
    reason = _key_reason(key)
    if reason:
        return reason
    if value and (len(value) > _VALUE_MAX or not _LABEL_VALUE.match(value)):
        return f"the value must be at most {_VALUE_MAX} alphanumeric characters, '-', '_' or '.', starting and ending with one"
    if effect and effect not in TAINT_EFFECTS:
        return f"the effect must be {', '.join(TAINT_EFFECTS[:-1])} or {TAINT_EFFECTS[-1]}"
    return None


def register_with_taints_problems(config: dict) -> list[str]:
    """validation.go: `invalid taint: {key value effect <nil>}` for a taint CheckTaintValidation refuses, and
    `invalid configuration: taint.TimeAdded is not nil` for one that sets timeAdded."""
    taints = config.get("registerWithTaints")
    if not isinstance(taints, list):
        return []
    problems = []
    for index, taint in enumerate(taints):
        if not isinstance(taint, dict):
            continue
        path = f"registerWithTaints[{index}]"
        reason = _taint_reason(taint)
        time_added = taint.get("timeAdded")
        if reason:
            # Go's %v of the v1.Taint value; a set timeAdded prints as a pointer address, which varies.
            shown = "<nil>" if time_added is None else "0x..."
            printed = " ".join(str(taint.get(field) or "") for field in ("key", "value", "effect"))
            problems.append(f"{path}: invalid taint: {{{printed} {shown}}}; {reason}")
        if time_added is not None:
            problems.append(f"{path}.timeAdded: invalid configuration: taint.TimeAdded is not nil; leave timeAdded out")
    return problems
