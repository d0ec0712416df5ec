# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The KubeletConfiguration a kubelet really runs with: defaults, main file, --config-dir drop-ins, flags.

The layering, verified on a real kubelet (docs/kubelet-facts.md section 2; kubernetes cmd/kubelet/app/server.go
loadConfigFile / mergeKubeletConfigurations):
1. the main --config file, decoded, defaulted and given the default evictionHard when it has none
   (_kubelet_defaults.apply_defaults, server.go loadConfigFile); without --config (RKE2 >= 1.32) the kubelet starts
   from the v1beta1 defaults alone, which hold no evictionHard (set_defaults; verified on the kubelet v1.36.2: a
   drop-in with only disk thresholds then leaves a memory eviction term of 0);
2. each --config-dir drop-in (*.conf, lexical order) merged as a JSON merge patch (RFC 7386): maps merge key by
   key, lists such as reservedMemory are replaced whole, null deletes; mergeKubeletConfigurations marshals the
   config first (omitempty drops empty lists and maps) and runs the v1beta1 defaulting again afterwards;
3. the command-line flags that carry config fields (_kubelet_fields.FLAG_FORMS): a scalar flag replaces the
   value; the first use of a map, list or reserved-memory flag replaces the file's value and repeated uses add to
   it (cliflag.MapStringString and friends, pflag StringSlice, utilflag.ReservedMemoryVar).

This is independent of the test hosts' kubelet stand-in, which layers configs with its own code.
"""

from __future__ import annotations

import copy
import re
import shlex
from dataclasses import dataclass, field
from typing import Any

from ._config import KubeletConfigError
from ._kubelet_defaults import apply_defaults, set_defaults
from ._kubelet_fields import FLAG_FORMS

# Flags that choose the layers rather than carry a config field (cmd/kubelet/app/options/options.go).
LAYER_FLAGS = ("config", "config-dir")
_FIELD_BY_FLAG = {flag: (field_name, kind) for field_name, (flag, kind) in FLAG_FORMS.items()}
_INT_FLAGS = ("max-pods",)
_TRUE, _FALSE = ("1", "t", "T", "TRUE", "true", "True"), ("0", "f", "F", "FALSE", "false", "False")  # strconv.ParseBool


@dataclass
class ParsedFlags:
    """Kubelet command-line words, sorted into what matters for the effective config."""

    config: str | None = None
    config_dir: str | None = None
    # (field, value, kind, flag word) in command-line order, for the config fields of FLAG_FORMS.
    overrides: list[tuple[str, Any, str, str]] = field(default_factory=list)
    # Every config-carrying flag as a normalised "--name=value" word, in order (what a real kubelet must be given).
    config_flags: list[str] = field(default_factory=list)
    # Flags this engine does not interpret (--kubeconfig, --node-ip, ...): kept, not part of the memory plan.
    other_flags: list[str] = field(default_factory=list)


def split_words(text: str, source: str) -> list[str]:
    """The words of a systemd Environment value or shell-style KUBELET_EXTRA_ARGS string."""
    try:
        return shlex.split(text)
    except ValueError as exc:
        raise KubeletConfigError([f"{source}: cannot split {text!r} into kubelet flags: {exc}"]) from exc


def _pairs(value: str, separator: str, flag_word: str) -> dict[str, str]:
    result = {}
    for pair in value.split(","):
        if not pair.strip():
            continue
        key, found, item = pair.partition(separator)
        if not found:
            raise KubeletConfigError([f'{flag_word}: malformed pair {pair!r}, expected "key{separator}value"'])
        result[key.strip()] = item.strip()
    return result


def _reserved_memory(value: str, flag_word: str) -> list[dict[str, Any]]:
    # utilflag.ReservedMemoryVar.Set: ";" between NUMA nodes, ":" after the id, "," between limits, "=" in a limit.
    items = []
    for node in value.split(";"):
        if not node.strip():
            continue
        node_id, found, limits = node.partition(":")
        if not found or not node_id.strip().isdigit():
            raise KubeletConfigError([f'{flag_word}: {node!r} is not "<numa id>:<type>=<quantity>[,...]"'])
        items.append({"numaNode": int(node_id), "limits": _pairs(limits, "=", flag_word)})
    return items


def _feature_gates(value: str, flag_word: str) -> dict[str, bool]:
    gates = {}
    for key, text in _pairs(value, "=", flag_word).items():
        if text not in _TRUE + _FALSE:
            raise KubeletConfigError([f"{flag_word}: feature gate {key}={text!r} is not a boolean (strconv.ParseBool)"])
        gates[key] = text in _TRUE
    return gates


def _parse_value(name: str, kind: str, value: str, flag_word: str) -> Any:
    if kind == "scalar":
        if name in _INT_FLAGS:
            if not re.match(r"^[+-]?[0-9]+$", value):
                raise KubeletConfigError([f'{flag_word}: invalid argument {value!r} for "--{name}" flag: strconv.ParseInt: parsing {value!r}: invalid syntax'])
            return int(value)
        return value
    if kind == "map_comma_equals":
        return _pairs(value, "=", flag_word)
    if kind == "map_comma_lt":
        return _pairs(value, "<", flag_word)
    if kind == "map_repeat_equals":
        key, _separator, item = value.partition("=")
        return {key: item}
    if kind == "feature_gates":
        return _feature_gates(value, flag_word)
    if kind == "reserved_memory":
        return _reserved_memory(value, flag_word)
    return [item for item in value.split(",") if item]


def parse_kubelet_flags(words: object) -> ParsedFlags:
    """Sort kubelet command-line words (--name=value or --name value) into layers, config overrides and others."""
    if isinstance(words, str) or not isinstance(words, (list, tuple)):
        raise KubeletConfigError([f"kubelet flags: {words!r} must be a list of command-line words such as '--kube-reserved=memory=1Gi'"])
    parsed = ParsedFlags()
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if not isinstance(word, str):
            raise KubeletConfigError([f"kubelet flags: {word!r} is not a string"])
        if not word.startswith("-") or word in ("-", "--"):
            parsed.other_flags.append(word)
            continue
        name, has_value, value = word.lstrip("-").partition("=")
        interpreted = name in LAYER_FLAGS or name in _FIELD_BY_FLAG
        if interpreted and not has_value:
            if index >= len(words):
                raise KubeletConfigError([f"kubelet flags: flag needs an argument: {word}"])
            value = words[index]
            index += 1
        if name == "config":
            parsed.config = value
        elif name == "config-dir":
            parsed.config_dir = value
        elif name in _FIELD_BY_FLAG:
            field_name, kind = _FIELD_BY_FLAG[name]
            flag_word = f"--{name}={value}"
            parsed.overrides.append((field_name, _parse_value(name, kind, value, flag_word), kind, flag_word))
            parsed.config_flags.append(flag_word)
        else:
            parsed.other_flags.append(word)
    return parsed


def walk_order(path: str) -> list[str]:
    """The order the kubelet merges its --config-dir drop-ins in (mergeKubeletConfigurations walks the directory down),
    as the sort key of a path: filepath.Walk's, names sorted in each directory, a directory's files before its next
    sibling ("a/x.conf" before "a.conf", which a plain string sort puts the other way round)."""
    return path.split("/")


def merge_patch(target: object, patch: object) -> Any:
    """RFC 7386 JSON merge patch: maps merge key by key, anything else (lists included) replaces, null deletes."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def apply_flag_overrides(config: dict[str, Any], overrides: list[tuple[str, Any, str, str]]) -> dict[str, Any]:
    """Apply parsed flag overrides in order: first use of a map or list flag replaces, repeats add to it."""
    result = copy.deepcopy(config)
    seen = set()
    for field_name, value, kind, _word in overrides:
        if kind == "scalar":
            result[field_name] = value
        elif field_name not in seen:
            result[field_name] = copy.deepcopy(value)
        elif isinstance(value, list):
            result[field_name] = result[field_name] + copy.deepcopy(value)
        else:
            result[field_name] = dict(result[field_name], **value)
        seen.add(field_name)
    return result


def _document(value: object, what: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise KubeletConfigError([f"{what}: must be a KubeletConfiguration mapping, got {type(value).__name__} {value!r}"])
    return value


def effective_kubelet_config(main: object = None, dropins: object = (), flags: object = (), kubelet_version: str | None = None) -> dict[str, Any]:
    """The config the kubelet runs with, defaults included (those of kubelet_version: None is 1.36; _kubelet_defaults).

    main: the --config file as a dict, or None when the kubelet gets no --config (all defaults);
    dropins: the --config-dir documents in the order the kubelet reads them (lexical order of their file names);
    flags: kubelet command-line words; --config/--config-dir among them are ignored here (the caller reads those files).
    """
    config = set_defaults({}, kubelet_version) if main is None else apply_defaults(_document(main, "main config"), kubelet_version)
    if isinstance(dropins, (str, dict)) or not isinstance(dropins, (list, tuple)):
        raise KubeletConfigError([f"dropins: {dropins!r} must be a list of KubeletConfiguration documents"])
    if dropins:
        config = {key: value for key, value in config.items() if value not in ({}, [])}
        for index, dropin in enumerate(dropins):
            config = merge_patch(config, _document(dropin, "dropins[%d]" % index))
        config = set_defaults(config, kubelet_version)
        if config.get("evictionHard") is None:
            # The only default evictionHard is the main file's (server.go loadConfigFile); one the marshal dropped
            # ({}) stays nil: no hard-eviction threshold, so no memory term (verified on the kubelet 1.31 to 1.36).
            config["evictionHard"] = {}
    return apply_flag_overrides(config, parse_kubelet_flags(flags).overrides)
