# -*- coding: utf-8 -*-
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""RKE2: how RKE2 runs the kubelet, and where numa.kubelet's settings go (docs/kubelet-facts.md section 4).

RKE2 >= 1.32 runs the kubelet with --config-dir <data-dir>/agent/etc/kubelet.conf.d only; RKE2 writes its
00-rke2-defaults.conf there and leaves other files alone, so ours is a 50- drop-in. Before 1.32 RKE2 passes its
defaults as flags and ours go as `kubelet-arg+` items in config.yaml.d. User `kubelet-arg` items are flags and
override every file. With lablabs.rke2 (which writes only config.yaml) the items are handed over instead
(_platform_rke2_lablabs).
"""

from __future__ import annotations

import json
import re

from ._config import API_VERSION, KIND
from ._effective import parse_kubelet_flags
from ._flags import flag_key, kubelet_flags
from ._kubelet_fields import type_name
from ._plan_inputs import KubeletLayers, absolute_path, dir_files, dropin_document, dropins_in, load_mapping
from ._platform import Layout, Platform
from ._platform_rke2_lablabs import LABLABS_KUBELET_CONFIG, lablabs_hand_over, lablabs_inputs, lablabs_kubelet_config

RKE2_ROLES = ("server", "agent")
# The oldest RKE2 minor that writes its kubelet defaults as a drop-in (k3s PR #10433; docs/kubelet-facts.md section 4).
RKE2_DROPIN_MINOR = 32
# RKE2 < 1.32 passes these as kubelet flags; >= 1.32 writes them to 00-rke2-defaults.conf.
RKE2_EVICTION_HARD = {"imagefs.available": "5%", "nodefs.available": "5%"}
RKE2_EVICTION_MINIMUM_RECLAIM = {"imagefs.available": "10%", "nodefs.available": "10%"}
RKE2_DEFAULTS_DROPIN = "00-rke2-defaults.conf"
# k3s pkg/daemons/agent/agent.go startKubelet -> extractConfigArgs (RKE2 >= 1.32): a kubelet-arg config= file is copied here.
RKE2_CLI_CONFIG_DROPIN = "10-cli-config.conf"

_RKE2_VERSION = re.compile(r"v?(\d+)\.(\d+)\.(\d+)")


def _paths_to_read(variables, files, problems):
    wanted, dirs = [], []
    config_dir = absolute_path(variables, "kubelet_numa_rke2_config_dir", problems)
    data_dir = absolute_path(variables, "kubelet_numa_rke2_data_dir", problems)
    if config_dir:
        # kubelet-config.yaml: where lablabs.rke2 writes rke2_kubelet_config, read by the kubelet through a config= item.
        wanted += [config_dir + "/config.yaml", config_dir + "/" + LABLABS_KUBELET_CONFIG]
        dirs.append(config_dir + "/config.yaml.d")
    if data_dir:
        dirs.append(data_dir + "/agent/etc/kubelet.conf.d")
    return wanted, dirs


def _discover(variables, node, files, lablabs):
    facts = {}
    hand_over = variables.get("kubelet_numa_rke2_write_files") is False
    if not variables.get("kubelet_numa_rke2_version"):
        # lablabs.rke2 installs rke2_version before the kubelet runs with what it hands over (its tasks/rke2.yml).
        facts["rke2_version"] = lablabs.get("rke2_version") if hand_over and lablabs.get("rke2_version") else node.rke2_version()
    if not variables.get("kubelet_numa_rke2_role"):
        # The service the RKE2 installer enabled on this node; a server also runs an agent's kubelet.
        facts["rke2_role"] = lablabs_role(lablabs) or next(
            (role for role in RKE2_ROLES if node.unit_file_state("rke2-%s.service" % role) in ("enabled", "enabled-runtime")), "")
    return facts


def rke2_minor(version, problems):
    if version is not None and not isinstance(version, str):
        problems.append("kubelet_numa_rke2_version: %r (%s) is not an RKE2 version such as v1.32.5+rke2r1: write it as a quoted string "
                        "(YAML reads 1.30 as the number 1.3)" % (version, type_name(version)))
        return None
    match = _RKE2_VERSION.search(version or "")
    if not match or match.group(1) != "1":
        problems.append("kubelet_numa_rke2_version: %r is not an RKE2 version such as v1.32.5+rke2r1" % (version,))
        return None
    return int(match.group(2))


def lablabs_role(lablabs):
    """server / agent as lablabs.rke2 decides it: rke2_type, else the host's group (its rke2_type default); '' when neither."""
    if (lablabs or {}).get("rke2_type") in RKE2_ROLES:
        return lablabs["rke2_type"]
    if (lablabs or {}).get("in_servers_group"):
        return "server"
    if (lablabs or {}).get("in_agents_group"):
        return "agent"
    return ""


def _rke2_items(data, path, problems):
    result = {}
    for key in ("kubelet-arg", "kubelet-arg+"):
        if key not in data:
            continue
        value = data[key]
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
            problems.append("%s: %s must be a list of 'flag=value' strings, got %r" % (path, key, value))
            continue
        result[key] = items
    return result


def _rke2_kubelet_args(sources, problems):
    """RKE2's config.yaml then config.yaml.d/*.yaml: a later `kubelet-arg` replaces, `kubelet-arg+` appends."""
    items = []
    for path, data in sources:
        found = _rke2_items(data or {}, path, problems)
        if "kubelet-arg" in found:
            items = list(found["kubelet-arg"])
        items += found.get("kubelet-arg+", [])
    return items


def rke2_kubelet_argv(defaults, items):
    """k3s GetArgs: a user item replaces RKE2's default of the same key; repeated items repeat; sorted by key."""
    initial = dict(defaults)
    multi = {}
    for item in items:
        key, found, value = item.lstrip("-").partition("=")
        if not found:
            value = "true"
        initial.pop(key, None)
        multi.setdefault(key, []).append(value)
    pairs = list(initial.items()) + [(key, value) for key, values in multi.items() for value in values]
    return ["--%s=%s" % pair for pair in sorted(pairs, key=lambda pair: pair[0])]


def _rke2_default_args(minor, dropin_dir):
    if minor >= RKE2_DROPIN_MINOR:
        return {"config-dir": dropin_dir}
    return {"eviction-hard": ",".join("%s<%s" % item for item in sorted(RKE2_EVICTION_HARD.items())),
            "eviction-minimum-reclaim": ",".join("%s=%s" % item for item in sorted(RKE2_EVICTION_MINIMUM_RECLAIM.items()))}


def _with_rke2_thresholds(settings, other_items):
    """RKE2's disk eviction thresholds kept where a flag would replace them (docs/kubelet-facts.md sections 2 and 4).

    Before 1.32 a kubelet-arg eviction-hard replaces RKE2's own --eviction-hard; from 1.32 the flag replaces the map of
    00-rke2-defaults.conf. So when ours or another item sets the flag, ours carries RKE2's thresholds that nobody set.
    """
    result = dict(settings)
    for field_name, flag, defaults in (("evictionHard", "eviction-hard", RKE2_EVICTION_HARD),
                                       ("evictionMinimumReclaim", "eviction-minimum-reclaim", RKE2_EVICTION_MINIMUM_RECLAIM)):
        theirs = [item for item in other_items if flag_key(item) == flag]
        if field_name not in settings and not theirs:
            continue
        covered = set(settings.get(field_name) or {})
        for field, value, _kind, _word in parse_kubelet_flags(["--" + item.lstrip("-") for item in theirs]).overrides:
            covered |= set(value) if field == field_name and isinstance(value, dict) else set()
        missing = {key: value for key, value in defaults.items() if key not in covered}
        if missing:
            result[field_name] = dict(missing, **(settings.get(field_name) or {}))
    return result


def _layout(variables, facts, files, intent, dropin_name, nodes, problems):
    version = variables.get("kubelet_numa_rke2_version") or facts.get("rke2_version")
    minor = rke2_minor(version, problems)
    role = variables.get("kubelet_numa_rke2_role") or facts.get("rke2_role")
    if role not in RKE2_ROLES:
        problems.append("kubelet_numa_rke2_role: %r is not one of server, agent (the RKE2 service this node runs: rke2-server or rke2-agent; "
                        "with lablabs.rke2: rke2_type, or the host in its rke2_servers_group_name / rke2_agents_group_name group)" % (role,))
    write_files = variables.get("kubelet_numa_rke2_write_files", True)
    if not isinstance(write_files, bool):
        problems.append("kubelet_numa_rke2_write_files: %r must be true or false" % (write_files,))
    if problems:
        return None
    config_dir = variables["kubelet_numa_rke2_config_dir"]
    data_dir = variables["kubelet_numa_rke2_data_dir"]
    dropin_dir = data_dir + "/agent/etc/kubelet.conf.d"
    config_path = config_dir + "/config.yaml"
    fragment_dir = config_dir + "/config.yaml.d"
    ours_fragment = "%s/%s.yaml" % (fragment_dir, dropin_name)
    ours_dropin = "%s/%s.conf" % (dropin_dir, dropin_name)
    use_dropin = write_files and minor >= RKE2_DROPIN_MINOR
    fragments = [(path, load_mapping(path, files[path], problems)) for path in dir_files(files, fragment_dir, (".yaml", ".yml"))]
    config = load_mapping(config_path, files.get(config_path), problems) or {}
    if problems:
        return None
    lablabs = None
    if write_files:
        later = [(path, data) for path, data in fragments if path > ours_fragment and "kubelet-arg" in (data or {})]
        for path, _data in later:
            problems.append("%s sets kubelet-arg without '+', which replaces every kubelet-arg before it, numa.kubelet's included; "
                            "write it as kubelet-arg+ (RKE2 config.yaml.d rule)" % path)
    else:
        lablabs = lablabs_inputs(facts.get("lablabs") or {"in_servers_group": role == "server", "in_agents_group": role == "agent"},
                                 config_dir, problems)
    if problems:
        return None
    defaults_dropin = (dropin_dir + "/" + RKE2_DEFAULTS_DROPIN,
                       {"apiVersion": API_VERSION, "kind": KIND, "evictionHard": dict(RKE2_EVICTION_HARD),
                        "evictionMinimumReclaim": dict(RKE2_EVICTION_MINIMUM_RECLAIM)})

    def dropins_with(replace=None):
        if minor < RKE2_DROPIN_MINOR:
            return []
        dropins = dropins_in(files, dropin_dir, problems, replace=replace)
        if defaults_dropin[0] not in [path for path, _document in dropins]:
            # RKE2 writes its defaults drop-in at every start; a node planned before its first start has none yet.
            dropins = sorted(dropins + [defaults_dropin], key=lambda item: item[0])
        return dropins

    def layers_from(sources, replace=None, ours=None):
        """The kubelet RKE2 runs from these config.yaml sources (k3s startKubelet: extractConfigArgs, then GetArgs)."""
        items = _rke2_kubelet_args(sources, problems)
        named = [item for item in items if flag_key(item) == "config"]
        items = [item for item in items if flag_key(item) not in ("config", "config-dir")]
        argv = rke2_kubelet_argv(_rke2_default_args(minor, dropin_dir), items)
        if minor >= RKE2_DROPIN_MINOR:
            # From 1.32 a config= file is copied into the drop-in directory as 10-cli-config.conf, never loaded as --config.
            dropins = dropins_with(replace)
            position = [path for path, _document in dropins].index(replace[0]) if ours == "dropin" else None
            return KubeletLayers(None, None, dropins, argv, ours=None if ours is None else ("dropin" if ours == "dropin" else "flags", position))
        if named:
            path = named[-1].partition("=")[2]
            main = replace[1] if ours == "main" else load_mapping(path, files.get(path), problems) or {}
            return KubeletLayers(path, main, [], argv, ours=None if ours is None else (ours, None))
        return KubeletLayers(None, None, [], argv, ours=None if ours is None else ("flags", None))

    current_sources = [(config_path, config)] + fragments
    other_items = [] if lablabs is None else list(lablabs["kubelet_arg"] or [])

    def our_items(settings):
        return [flag[2:] for flag in kubelet_flags(_with_rke2_thresholds(settings, other_items))]

    def layers_for(settings):
        if use_dropin:
            return layers_from(current_sources, (ours_dropin, dropin_document(settings)), "dropin")
        if write_files:
            sources = [source for source in current_sources if source[0] != ours_fragment] + [(ours_fragment, {"kubelet-arg+": our_items(settings)})]
            sources.sort(key=lambda item: (item[0] != config_path, item[0]))
            return layers_from(sources, ours="flags")
        if lablabs["form"] == "kubelet_config":
            items = lablabs["kubelet_arg_with_config"]
            document = lablabs_kubelet_config(lablabs, settings, problems)
            if minor >= RKE2_DROPIN_MINOR:
                return layers_from([(config_path, {"kubelet-arg": items})] + fragments, (dropin_dir + "/" + RKE2_CLI_CONFIG_DROPIN, document), "dropin")
            return layers_from([(config_path, {"kubelet-arg": items})] + fragments, (lablabs["kubelet_config_path"], document), "main")
        return layers_from([(config_path, {"kubelet-arg": other_items + our_items(settings)})] + fragments, ours="flags")

    before = layers_from(current_sources)
    if use_dropin:
        entries = [{"path": ours_dropin, "template": "rke2.j2", "mode": "0644", "content_for": dropin_document}]
        directories = [dropin_dir]
    elif write_files:
        entries = [{"path": ours_fragment, "template": "rke2.j2", "mode": "0600",
                    "content_for": lambda settings: {"kubelet-arg+": our_items(settings)}}]
        directories = [fragment_dir]
    else:
        entries, directories = [], []
    form = "dropin" if use_dropin else ("config.yaml.d" if write_files else "lablabs")

    def hand_over(settings, before_config, effective, capacity):
        return lablabs_hand_over(lablabs, settings, our_items(settings), config_path, before_config, effective, capacity, problems)

    def report_for(settings, outputs):
        items = our_items(settings)
        # For lablabs.rke2's rke2_server_options / rke2_agent_options: one "option: value" line, copied verbatim into
        # config.yaml; a JSON list is valid YAML and keeps ';' and '<' quoted.
        options_form = outputs is None or outputs["form"] == "options"
        report = {"kubelet_args": items, "options": ["kubelet-arg: %s" % json.dumps(items)] if options_form else []}
        if outputs is not None:
            report["lablabs"] = outputs
        return report

    return Layout(unit="rke2-%s.service" % role, apply_unit=None, files=entries, directories=directories, before=before,
                  layers_for=layers_for, report_key="rke2", report={"version": version, "role": role, "form": form},
                  hand_over=None if lablabs is None else hand_over, report_for=report_for)


RKE2 = Platform(name="rke2", markers=("/etc/rancher/rke2", "/usr/local/bin/rke2", "/usr/bin/rke2"),
                paths_to_read=_paths_to_read, discover=_discover, layout=_layout)
