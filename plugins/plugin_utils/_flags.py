# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A KubeletConfiguration fragment written as kubelet command-line flags (RKE2 kubelet-arg, nodeadm flags).

The flag names and value syntaxes are those of _kubelet_fields.FLAG_FORMS. A map flag replaces the config file's
whole map (docs/kubelet-facts.md section 2), so every map is written whole, in one flag. A field with no flag form, or a
value the flag syntax cannot carry, is an error: nothing is dropped.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from ._config import KubeletConfigError
from ._kubelet_fields import FLAG_FORMS

_TYPE_FIELDS = ("apiVersion", "kind")


# Flags end up unquoted in kubeadm-flags.env, inside KUBELET_EXTRA_ARGS="..." in /etc/default/kubelet (a systemd
# EnvironmentFile, then split on whitespace by ExecStart's $KUBELET_EXTRA_ARGS), as RKE2 kubelet-arg items and in
# AL2's KUBELET_EXTRA_ARGS (a shell variable). None of them can carry whitespace or control characters, which end a
# flag or start another one, nor the characters a double-quoted value or a shell word interprets.
_QUOTING = "\"'\\$`"
_UNSAFE_RULE = (
    'a kubelet flag is written into kubeadm-flags.env, /etc/default/kubelet (KUBELET_EXTRA_ARGS="..."), RKE2 kubelet-arg '
    "and AL2 KUBELET_EXTRA_ARGS, so it must be free of whitespace, control characters and the quoting characters "
    "\" ' \\ $ `"
)


def _unsafe(character: str) -> bool:
    return character.isspace() or unicodedata.category(character) == "Cc" or character in _QUOTING


def _text(value: object, path: str, forbidden: str = "") -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise KubeletConfigError(["%s: %r (%s) cannot be written in a kubelet flag: use a string or an integer" % (path, value, type(value).__name__)])
    text = str(value)
    clash = [character for character in forbidden if character in text]
    if clash or not text:
        raise KubeletConfigError(
            [
                "%s: %r cannot be written in this kubelet flag: it %s"
                % (path, text, "contains %s, the flag's separator" % " ".join(repr(c) for c in clash) if clash else "is empty")
            ]
        )
    unsafe = [character for character in dict.fromkeys(text) if _unsafe(character)]
    if unsafe:
        raise KubeletConfigError(
            ["%s: %r cannot be written in a kubelet flag: it contains %s; %s" % (path, text, " ".join(repr(c) for c in unsafe), _UNSAFE_RULE)]
        )
    return text


def _mapping(value: object, path: str) -> dict[Any, Any]:
    if not isinstance(value, dict) or not value:
        raise KubeletConfigError(
            [
                "%s: %r cannot be written as a kubelet flag: a non-empty mapping is needed (a flag with an empty map "
                "would replace the config file's map with nothing)" % (path, value)
            ]
        )
    return value


def _sorted_items(value: object, path: str) -> list[tuple[Any, Any]]:
    # Sorted like the flag types' String(); keys compared as text so that a stray integer key is reported, not a crash.
    return sorted(_mapping(value, path).items(), key=lambda item: str(item[0]))


def _pairs(value: object, path: str, separator: str) -> str:
    return ",".join("%s%s%s" % (_text(key, path, ",=<"), separator, _text(item, "%s.%s" % (path, key), ",")) for key, item in _sorted_items(value, path))


def _feature_gates(value: object, path: str) -> str:
    items = _sorted_items(value, path)
    for key, enabled in items:
        if not isinstance(enabled, bool):
            raise KubeletConfigError(["%s.%s: %r must be true or false" % (path, key, enabled)])
    return ",".join("%s=%s" % (_text(key, path, ",="), "true" if enabled else "false") for key, enabled in items)


def _reserved_memory(value: object, path: str) -> str:
    if not isinstance(value, list) or not value:
        raise KubeletConfigError(["%s: %r cannot be written as a kubelet flag: a non-empty list of {numaNode, limits} is needed" % (path, value)])
    nodes: list[str] = []
    for index, item in enumerate(value):
        item_path = "%s[%d]" % (path, index)
        if not isinstance(item, dict) or isinstance(item.get("numaNode"), bool) or not isinstance(item.get("numaNode"), int):
            raise KubeletConfigError(["%s: %r must be {numaNode: <id>, limits: {memory: <quantity>}}" % (item_path, item)])
        # ReservedMemoryVar.Set: ';' between NUMA nodes, ':' after the id, ',' between limits, '=' inside a limit.
        nodes.append(
            "%d:%s"
            % (
                item["numaNode"],
                ",".join(
                    "%s=%s" % (_text(kind, item_path, ",=;:"), _text(quantity, "%s.limits.%s" % (item_path, kind), ",=;:"))
                    for kind, quantity in _sorted_items(item.get("limits"), item_path + ".limits")
                ),
            )
        )
    return ";".join(nodes)


def _list(value: object, path: str) -> str:
    if not isinstance(value, list) or not value:
        raise KubeletConfigError(["%s: %r cannot be written as a kubelet flag: a non-empty list is needed" % (path, value)])
    return ",".join(_text(item, path, ',"') for item in value)


def _flags_for(field: str, value: object) -> list[str]:
    name, kind = FLAG_FORMS[field]
    if kind == "scalar":
        return ["--%s=%s" % (name, _text(value, field))]
    if kind == "map_comma_equals":
        return ["--%s=%s" % (name, _pairs(value, field, "="))]
    if kind == "map_comma_lt":
        return ["--%s=%s" % (name, _pairs(value, field, "<"))]
    if kind == "map_repeat_equals":
        # Not split on commas by the kubelet: one option per flag.
        return ["--%s=%s=%s" % (name, _text(key, field, "="), _text(item, "%s.%s" % (field, key))) for key, item in _sorted_items(value, field)]
    if kind == "feature_gates":
        return ["--%s=%s" % (name, _feature_gates(value, field))]
    if kind == "reserved_memory":
        return ["--%s=%s" % (name, _reserved_memory(value, field))]
    return ["--%s=%s" % (name, _list(value, field))]


def kubelet_flags(config: object) -> list[str]:
    """The kubelet flags ('--name=value') that carry this config fragment, in the fragment's field order."""
    if not isinstance(config, dict):
        raise KubeletConfigError(["kubelet config: must be a mapping of KubeletConfiguration fields, got %s" % type(config).__name__])
    problems: list[str] = []
    flags: list[str] = []
    for field, value in config.items():
        if field in _TYPE_FIELDS:
            continue
        if field not in FLAG_FORMS:
            problems.append("%s: has no kubelet flag form this collection writes; set it in a KubeletConfiguration file or drop-in instead" % field)
            continue
        try:
            flags.extend(_flags_for(field, value))
        except KubeletConfigError as exc:
            problems.extend(exc.problems)
    if problems:
        raise KubeletConfigError(problems)
    return flags


def flag_key(item: str) -> str:
    """The flag name of one kubelet argument item, written 'name=value', '--name=value' or 'name' (an RKE2 kubelet-arg item)."""
    return item.lstrip("-").partition("=")[0]
