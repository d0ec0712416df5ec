# -*- coding: utf-8 -*-
# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Planning one node: from the user's intent and what the node already has to the files to write and how to restart.

The role (roles/kubelet_numa) and the offline renderer (playbooks/render.yml) both call plan_host(); every
platform rule lives here (docs/kubelet-facts.md section 4):

- kubeadm: the main config /var/lib/kubelet/config.yaml belongs to kubeadm (`kubeadm upgrade` rewrites it), so
  our settings go in a --config-dir drop-in; the flag comes from kubeadm-flags.env or /etc/default/kubelet
  (kubeadm's 10-kubeadm.conf passes $KUBELET_KUBEADM_ARGS then $KUBELET_EXTRA_ARGS) and is added to the latter
  where missing.
- RKE2 >= 1.32 runs the kubelet with --config-dir <data-dir>/agent/etc/kubelet.conf.d only; RKE2 writes its
  00-rke2-defaults.conf there and leaves other files alone, so ours is a 50- drop-in. Before 1.32 RKE2 passes its
  defaults as flags and ours go as `kubelet-arg+` items in config.yaml.d. User `kubelet-arg` items are flags and
  override every file. With lablabs.rke2 (which writes only config.yaml) the items are handed over instead.
- nodeadm (EKS AL2023) rebuilds the drop-in config.json.d/40-nodeadm.conf at every boot (and nodeadm-run) from the
  user data, then the /etc/eks/nodeadm.d files (_eks_nodeadm); it goes over its base config.json, whose kubeReserved
  comes from its maxPods formula. Ours is a nodeadm.d file, so the plan is that rebuild, never the old drop-in.

The reservation is always computed on the effective config the kubelet will run with (_effective), never on
the user's fragment alone.
"""

from __future__ import annotations

import decimal
import hashlib
import json
import posixpath
import re

import yaml

from ..module_utils.kubelet_checkpoint import checkpoint_problems
from ._allocatable import memory_reservation
from ._config import API_VERSION, KIND, MEMORY_MANAGER_STATIC, KubeletConfigError, lookalike_hint, reserved_resource_list
from ._eks import EksError, kube_reserved
from ._eks_nodeadm import NODECONFIG_API_VERSION, NODECONFIG_KIND, config_files, file_nodeconfigs, kubelet_config, merge_kubelet_configs, user_data_nodeconfigs
from ._effective import effective_kubelet_config, merge_patch, parse_kubelet_flags
from ._flags import kubelet_flags
from ._kubelet_fields import as_kubelet_decodes, field_type_problems, type_name
from ._quantity import Quantity
from ._split import SPLIT_STRATEGIES, numa_nodes_from, reserved_memory
from ._validation import check_kubelet_config

PLATFORMS = ("kubeadm", "rke2", "nodeadm")
RKE2_ROLES = ("server", "agent")
# The oldest RKE2 minor that writes its kubelet defaults as a drop-in (k3s PR #10433; docs/kubelet-facts.md section 4).
RKE2_DROPIN_MINOR = 32
# RKE2 < 1.32 passes these as kubelet flags; >= 1.32 writes them to 00-rke2-defaults.conf.
RKE2_EVICTION_HARD = {"imagefs.available": "5%", "nodefs.available": "5%"}
RKE2_EVICTION_MINIMUM_RECLAIM = {"imagefs.available": "10%", "nodefs.available": "10%"}
RKE2_DEFAULTS_DROPIN = "00-rke2-defaults.conf"
# nodeadm's base config.json (awslabs/amazon-eks-ami nodeadm internal/kubelet/config.go defaultKubeletSubConfig):
# the memory-relevant part; kubeReserved is added from the instance type.
NODEADM_EVICTION_HARD = {"memory.available": "100Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%"}
NODEADM_DROPIN = "40-nodeadm.conf"

_SAFE_PATH = re.compile(r"^/[A-Za-z0-9._/+@:=-]*$")
_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_RKE2_VERSION = re.compile(r"v?(\d+)\.(\d+)\.(\d+)")
_MEMORY_FIELDS = ("memoryManagerPolicy", "reservedMemory")
_CPU_FIELDS = ("cpuManagerPolicy", "cpuManagerPolicyOptions", "reservedSystemCPUs")


class PlanError(KubeletConfigError):
    """One or more reasons a host cannot be planned; nothing may change on it."""


# ------------------------------------------------------------------------------------------------ inputs
def safe_path(value):
    """True for an absolute path of plain characters whose every part is a name: no '.', '..', '//', not '/' alone."""
    return (isinstance(value, str) and bool(_SAFE_PATH.fullmatch(value))
            and all(part not in ("", ".", "..") for part in value[1:].rstrip("/").split("/")))


def _absolute_path(variables, name, problems):
    value = variables.get(name)
    if not safe_path(value):
        problems.append("%s: %r must be an absolute path of plain characters (letters, digits, . _ - + @ : = /), without '.' or '..' parts"
                        % (name, value))
        return None
    return posixpath.normpath(value)


def _file_name(variables, name, problems):
    value = variables.get(name)
    if not isinstance(value, str) or not _SAFE_NAME.match(value):
        problems.append("%s: %r must be a plain file name (letters, digits, . _ -), not a path" % (name, value))
        return None
    return value


def topology_from(variables, facts):
    """The NUMA nodes and memory capacity: kubelet_numa_topology when set, else what numa_facts discovered."""
    given = variables.get("kubelet_numa_topology") or {}
    source = "kubelet_numa_topology" if given else "numa_facts"
    topology = given if given else facts
    if not isinstance(topology, dict):
        raise PlanError(["kubelet_numa_topology: %r must be a mapping {numa_nodes: [...], numa_memory_capacity_bytes: N}" % (topology,)])
    nodes = topology.get("numa_nodes")
    capacity = topology.get("numa_memory_capacity_bytes")
    problems = []
    if not nodes:
        problems.append("%s: numa_nodes is missing or empty; set kubelet_numa_topology or let the role run numa.kubelet.numa_facts on the host" % source)
    if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity <= 0:
        problems.append("%s: numa_memory_capacity_bytes %r must be a positive integer (MemTotal of /proc/meminfo x 1024)" % (source, capacity))
    if problems:
        raise PlanError(problems)
    if not isinstance(nodes, list):
        raise PlanError(["%s: numa_nodes %r (%s) must be a list of NUMA nodes {id, memory_bytes, cpus}" % (source, nodes, type_name(nodes))])
    for index, node in enumerate(nodes):
        if not isinstance(node, dict):
            raise PlanError(["%s: numa_nodes[%d] %r must be a mapping {id, memory_bytes, cpus}" % (source, index, node)])
    unknown = sorted(str(key) for key in topology if key not in ("numa_nodes", "numa_memory_capacity_bytes"))
    if unknown and given:
        raise PlanError(["%s: unknown keys %s; it has only numa_nodes and numa_memory_capacity_bytes" % (source, ", ".join(unknown))])
    try:
        numa_nodes_from(nodes)
    except KubeletConfigError as exc:
        raise PlanError(["%s: %s" % (source, problem) for problem in exc.problems]) from None
    return nodes, capacity


def _node_files(files):
    """The node's files {absolute path: text, or null when missing}, as numa.kubelet.node_files reads them or
    kubelet_numa_node_files gives them."""
    if files is None:
        return {}
    if not isinstance(files, dict):
        raise PlanError(["kubelet_numa_node_files: %r (%s) must be a mapping {absolute path on the node: file content}"
                         % (files, type_name(files))])
    problems = []
    for path, text in files.items():
        if not isinstance(path, str) or not path.startswith("/"):
            problems.append("kubelet_numa_node_files: the key %r must be an absolute path on the node" % (path,))
        elif text is not None and not isinstance(text, str):
            problems.append("kubelet_numa_node_files[%s]: %r (%s) must be the file's text (a string; null for a missing file): "
                            "write a YAML file's content as a block scalar (|)" % (path, text, type_name(text)))
    if problems:
        raise PlanError(problems)
    return dict(files)


def _vcpus(nodes):
    cpus = [cpu for node in nodes for cpu in (node.get("cpus") or [])]
    return len(cpus) or None


def parse_env_file(text):
    """A systemd EnvironmentFile: KEY=VALUE lines, '#' comments, optional single or double quotes around VALUE."""
    values = {}
    for line in (text or "").splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")) or "=" not in line:
            continue
        key, _separator, value = line.partition("=")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        values[key.strip()] = value
    return values


def env_words(text, names=None):
    """The kubelet words an EnvironmentFile contributes; systemd splits an unbraced $VAR on whitespace."""
    values = parse_env_file(text)
    return [word for key, value in values.items() if names is None or key in names for word in value.split()]


def _load(path, text, problems):
    if text is None:
        return None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        problems.append("%s: not valid YAML/JSON: %s" % (path, str(exc).replace("\n", " ")))
        return None
    if data is not None and not isinstance(data, dict):
        problems.append("%s: must hold a mapping, got %s" % (path, type(data).__name__))
        return None
    return data or {}


def _load_kubelet_config(path, text, problems):
    """A KubeletConfiguration file (main config or drop-in) read as the kubelet decodes it: its kind and field types."""
    data = _load(path, text, problems)
    if data:
        for key, expected in (("apiVersion", API_VERSION), ("kind", KIND)):
            if key in data and data[key] != expected:
                problems.append("%s: %s %r is not %r; the kubelet refuses a file of another kind here" % (path, key, data[key], expected))
        problems.extend(field_type_problems(data, "%s: " % path))
    return data


def _dir_files(files, directory, suffixes):
    prefix = directory.rstrip("/") + "/"
    return sorted(path for path, text in files.items()
                  if text is not None and path.startswith(prefix) and "/" not in path[len(prefix):] and path.endswith(suffixes))


# ------------------------------------------------------------------------------------------------ detection
# What each platform's installer leaves on a node (kubeadm join, the RKE2 install script or RPM, the EKS AL2023 AMI).
_PLATFORM_MARKERS = {
    "kubeadm": ("/var/lib/kubelet/kubeadm-flags.env", "/var/lib/kubelet/config.yaml"),
    "rke2": ("/etc/rancher/rke2", "/usr/local/bin/rke2", "/usr/bin/rke2"),
    "nodeadm": ("/etc/eks/nodeadm.d", "/etc/kubernetes/kubelet/config.json"),
}


def detect_platform(existing):
    """The platform from the paths that exist on the node (kubeadm, RKE2 or nodeadm), or a PlanError."""
    found = {platform: [path for path in paths if any(seen == path or seen.startswith(path + "/") for seen in existing)]
             for platform, paths in _PLATFORM_MARKERS.items()}
    found = {platform: paths for platform, paths in found.items() if paths}
    if len(found) == 1:
        return next(iter(found))
    if not found:
        raise PlanError(["kubelet_numa_platform: cannot detect the platform: none of %s exists on this host; set kubelet_numa_platform "
                         "to one of %s" % (detection_paths(), ", ".join(PLATFORMS))])
    raise PlanError(["kubelet_numa_platform: cannot detect the platform: this host looks like %s; set kubelet_numa_platform"
                     % " and ".join("%s (%s)" % (platform, ", ".join(paths)) for platform, paths in sorted(found.items()))])


def detection_paths():
    """Every path detect_platform looks at."""
    return [path for paths in _PLATFORM_MARKERS.values() for path in paths]


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


# ------------------------------------------------------------------------------------------------ layouts
def _platform(variables, facts, problems):
    platform = variables.get("kubelet_numa_platform") or facts.get("platform")
    if platform not in PLATFORMS:
        problems.append("kubelet_numa_platform: %r is not one of %s%s" % (platform, ", ".join(PLATFORMS), lookalike_hint(platform)))
        return None
    return platform


def paths_to_read(variables, platform, files=None):
    """Files and directories the plan of this platform reads on the node: {"files": [...], "dirs": [...]}.

    With the files already read (kubeadm), the drop-in directory a --config-dir flag names is added.
    """
    problems = []
    root_dir = _absolute_path(variables, "kubelet_numa_kubelet_root_dir", problems)
    wanted, dirs = [], []
    if platform == "kubeadm":
        wanted += [_absolute_path(variables, "kubelet_numa_kubeadm_config_file", problems),
                   _absolute_path(variables, "kubelet_numa_kubeadm_flags_file", problems),
                   _absolute_path(variables, "kubelet_numa_kubeadm_extra_args_file", problems)]
        dirs += [_absolute_path(variables, "kubelet_numa_kubeadm_config_dir", problems)]
    elif platform == "rke2":
        config_dir = _absolute_path(variables, "kubelet_numa_rke2_config_dir", problems)
        data_dir = _absolute_path(variables, "kubelet_numa_rke2_data_dir", problems)
        if config_dir:
            # kubelet-config.yaml: where lablabs.rke2 writes rke2_kubelet_config, read by the kubelet through a config= item.
            wanted += [config_dir + "/config.yaml", config_dir + "/" + LABLABS_KUBELET_CONFIG]
            dirs.append(config_dir + "/config.yaml.d")
        if data_dir:
            dirs.append(data_dir + "/agent/etc/kubelet.conf.d")
    elif platform == "nodeadm":
        wanted += [_absolute_path(variables, "kubelet_numa_nodeadm_kubelet_config", problems),
                   _absolute_path(variables, "kubelet_numa_nodeadm_kubelet_environment", problems)]
        dirs += [_absolute_path(variables, "kubelet_numa_nodeadm_config_dir", problems),
                 _absolute_path(variables, "kubelet_numa_nodeadm_kubelet_dropin_dir", problems)]
        if variables.get("kubelet_numa_nodeadm_user_data_path"):
            wanted.append(_absolute_path(variables, "kubelet_numa_nodeadm_user_data_path", problems))
    if root_dir:
        wanted += [root_dir + "/memory_manager_state", root_dir + "/cpu_manager_state"]
    if problems:
        raise PlanError(problems)
    if platform == "kubeadm" and files:
        named = _kubeadm_layers(variables, files, [])[3]
        if safe_path(named) and named not in dirs:
            dirs.append(named)
    return {"files": [path for path in wanted if path], "dirs": [path for path in dirs if path]}


def _intent(variables, problems):
    intent = variables.get("kubelet_numa_config")
    if intent is None:
        intent = {}
    if not isinstance(intent, dict):
        problems.append("kubelet_numa_config: must be a KubeletConfiguration fragment (a mapping), got %s %r" % (type(intent).__name__, intent))
        return None
    for key in ("apiVersion", "kind"):
        if key in intent and intent[key] != {"apiVersion": API_VERSION, "kind": KIND}[key]:
            problems.append("kubelet_numa_config.%s: %r; leave it out (the collection writes %s %s)" % (key, intent[key], API_VERSION, KIND))
    bad_keys = [key for key in intent if not isinstance(key, str)]
    if bad_keys:
        problems.append("kubelet_numa_config: field names must be strings, got %s" % ", ".join("%r" % (key,) for key in bad_keys))
        return None
    intent = as_kubelet_decodes(intent)
    problems.extend(field_type_problems({key: value for key, value in intent.items() if key not in ("apiVersion", "kind")},
                                        "kubelet_numa_config."))
    if "reservedMemory" in intent:
        problems.append("kubelet_numa_config.reservedMemory: computed by the collection from the effective config; leave it out "
                        "and choose the spread with kubelet_numa_reserved_memory_split")
    return {key: value for key, value in intent.items() if key not in ("apiVersion", "kind")}


def _split(variables, problems):
    split = variables.get("kubelet_numa_reserved_memory_split", "even")
    if isinstance(split, dict) or split in SPLIT_STRATEGIES:
        return split
    problems.append("kubelet_numa_reserved_memory_split: %r is not one of %s or a mapping {numa_id: quantity}" % (split, ", ".join(SPLIT_STRATEGIES)))
    return None


def _dropin_document(settings):
    return dict({"apiVersion": API_VERSION, "kind": KIND}, **settings)


class _Layers:
    """The inputs of one kubelet: main file, drop-ins (path, document) in order, flags; with `ours` marking our layer."""

    def __init__(self, main_path=None, main=None, dropins=None, flags=None, ours=None):
        self.main_path, self.main = main_path, main
        self.dropins = list(dropins or [])
        self.flags = list(flags or [])
        self.ours = ours

    def effective(self):
        return effective_kubelet_config(self.main, [document for _path, document in self.dropins], self.flags)

    def describe(self):
        return {
            "config": None if self.main_path is None else {"path": self.main_path, "content": self.main or {}},
            "dropins": [{"path": path, "content": document} for path, document in self.dropins],
            "flags": parse_kubelet_flags(self.flags).config_flags,
        }


def _overrides_of_ours(layers, ours_fields, problems):
    """A later drop-in or a flag that sets a field we write silently wins over us: refuse, naming it."""
    if layers.ours is None:
        return
    kind, position = layers.ours
    later_dropins = layers.dropins[position + 1:] if kind == "dropin" else []
    for path, document in later_dropins:
        for name in sorted(set(document) & set(ours_fields)):
            problems.append("%s sets %s, which overrides the value numa.kubelet writes (drop-ins are read in lexical order); "
                            "move it into kubelet_numa_config or remove it" % (path, name))
    if kind in ("dropin", "main"):
        for field_name, _value, _kind, word in parse_kubelet_flags(layers.flags).overrides:
            if field_name in ours_fields:
                problems.append("the kubelet flag %s overrides %s written by numa.kubelet (flags win over config files); "
                                "remove the flag and set the field in kubelet_numa_config" % (word, field_name))


def _kubeadm_layers(variables, files, problems):
    config_file = variables["kubelet_numa_kubeadm_config_file"]
    flags_file = variables["kubelet_numa_kubeadm_flags_file"]
    extra_file = variables["kubelet_numa_kubeadm_extra_args_file"]
    main = _load_kubelet_config(config_file, files.get(config_file), problems)
    if files.get(config_file) is None:
        problems.append("%s does not exist: this is not a kubeadm node that has joined its cluster (kubelet_numa_kubeadm_config_file)" % config_file)
    # 10-kubeadm.conf: $KUBELET_KUBECONFIG_ARGS $KUBELET_CONFIG_ARGS $KUBELET_KUBEADM_ARGS $KUBELET_EXTRA_ARGS
    kubeadm_words = env_words(files.get(flags_file), ("KUBELET_KUBEADM_ARGS",))
    extra_env = parse_env_file(files.get(extra_file))
    extra_words = extra_env.get("KUBELET_EXTRA_ARGS", "").split()
    flags = kubeadm_words + extra_words
    parsed = parse_kubelet_flags(flags)
    config_dir = parsed.config_dir or variables["kubelet_numa_kubeadm_config_dir"]
    return main, flags, parsed, config_dir, extra_words


def _env_file_with(text, name, words):
    """The EnvironmentFile text with NAME set to the words; other lines kept as they are."""
    line = '%s="%s"' % (name, " ".join(words))
    lines = (text or "").splitlines()
    for index, existing in enumerate(lines):
        if existing.strip().startswith(name + "="):
            lines[index] = line
            break
    else:
        lines.append(line)
    return "\n".join(lines) + "\n"


def _dropins_in(files, directory, problems, replace=None):
    paths = _dir_files(files, directory, (".conf",))
    documents = [(path, _load_kubelet_config(path, files[path], problems) or {}) for path in paths]
    if replace is not None:
        documents = [(path, document) for path, document in documents if path != replace[0]] + [replace]
        documents.sort(key=lambda item: item[0])
    return documents


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


# ------------------------------------------------------------------------------------------------ change detection
def _memory_key(config, capacity):
    policy = config.get("memoryManagerPolicy") or "None"
    if policy != MEMORY_MANAGER_STATIC:
        return (policy,)
    shares = {}
    for item in config.get("reservedMemory") or []:
        for resource, text in (item.get("limits") or {}).items():
            shares[(item.get("numaNode"), resource)] = Quantity.parse(str(text)).exact
    return (policy, tuple(sorted(shares.items(), key=str)), memory_reservation(config, capacity).total.exact)


def _cpu_key(config):
    policy = config.get("cpuManagerPolicy") or "none"
    reserved = []
    for field_name in ("kubeReserved", "systemReserved"):
        cpu = reserved_resource_list(config, field_name).get("cpu")
        reserved.append(None if cpu is None else cpu.exact)
    return (policy, json.dumps(config.get("cpuManagerPolicyOptions") or {}, sort_keys=True), config.get("reservedSystemCPUs") or "",
            tuple(reserved) if policy == "static" else ())


def _manager_changes(before, after, capacity):
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


def manager_inputs_digest(config, capacity):
    """A digest of the memory and CPU manager inputs of an effective config (what _manager_changes compares).

    The kubelet's unit compares the digest of the config on disk with the one it last started with, and removes the
    checkpoints when they differ (the checkpoint guard, roles/kubelet_numa/templates/reboot-reset.conf.j2). None when
    the config cannot be read, so that nothing is vouched for.
    """
    try:
        keys = {"memory": _memory_key(config, capacity), "cpu": _cpu_key(config)}
    except (KubeletConfigError, ValueError, TypeError, AttributeError):
        return None

    def exact(value):
        # Equal quantities spelled differently (1Gi, 1073741824) are one value; normalize() keeps it exact at int64 sizes.
        if isinstance(value, decimal.Decimal):
            return "%s" % value.normalize()
        raise TypeError("%r (%s) is not a manager input" % (value, type(value).__name__))

    text = json.dumps(keys, sort_keys=True, default=exact, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def expected_state(reserved):
    """What memory_manager_state must say after a good start: the policy and systemReserved bytes per NUMA node."""
    shares = {}
    for item in reserved:
        shares[str(item["numaNode"])] = Quantity.parse(str(item["limits"]["memory"])).as_int64()
    return shares


# ------------------------------------------------------------------------------------------------ the plan
def plan_host(variables, facts):
    """Plan one host. variables: the kubelet_numa_* variables; facts: discovered topology, files, versions.

    facts keys: numa_nodes and numa_memory_capacity_bytes (unless kubelet_numa_topology is set), files
    ({absolute path: text or None} as read on the node; an offline render passes kubelet_numa_node_files), and
    platform, rke2_version, rke2_role, instance_type when discovered. Raises PlanError with every problem.
    """
    for name, value in (("variables", variables), ("facts", facts)):
        if value is not None and not isinstance(value, dict):
            raise PlanError(["%s must be a mapping (%s), got %s %r"
                             % (name, "the host's kubelet_numa_* variables" if name == "variables" else "what discovery read",
                                type_name(value), value)])
    problems = []
    variables = dict(variables or {})
    facts = dict(facts or {})
    platform = _platform(variables, facts, problems)
    intent = _intent(variables, problems)
    split = _split(variables, problems)
    root_dir = _absolute_path(variables, "kubelet_numa_kubelet_root_dir", problems)
    dropin_name = _file_name(variables, "kubelet_numa_dropin_name", problems)
    try:
        nodes, capacity = topology_from(variables, facts)
    except KubeletConfigError as exc:
        problems.extend(exc.problems)
        nodes = capacity = None
    if problems:
        raise PlanError(problems)
    paths_to_read(variables, platform)  # validates the platform's path variables
    files = _node_files(facts.get("files"))
    builder = {"kubeadm": _plan_kubeadm, "rke2": _plan_rke2, "nodeadm": _plan_nodeadm}[platform]
    plan = builder(variables, facts, files, intent, dropin_name, nodes, problems)
    if problems:
        raise PlanError(problems)
    plan["node_directories"] = facts.get("directories") or []
    plan = _finish(plan, variables, files, intent, split, nodes, capacity, root_dir, platform, problems)
    state = (facts.get("unit_states") or {}).get(plan["unit"])
    plan["unit_state"] = state
    # With lablabs.rke2 (the lablabs form), lablabs installs and starts RKE2 itself, after this plan.
    hand_over = plan.get("rke2", {}).get("form") == "lablabs"
    if state is not None and state.get("active_state") != "active" and plan["restart"] == "none" and not hand_over:
        # A kubelet that does not run is never a converged node: start it (the unit's checkpoint guard resets the
        # checkpoints if the manager inputs changed since its last start), and the restart's checks say why if it fails.
        plan["restart"] = "restart"
        plan["warnings"].append("%s is %s (%s): numa.kubelet starts it" % (plan["unit"], state.get("active_state"), state.get("sub_state")))
    return plan


def _compute(layers_for, intent, split, nodes, capacity, problems):
    """Reservation on the effective config with our settings (reservedMemory left to the kubelet's default first)."""
    settings = dict(intent)
    effective = layers_for(settings).effective()
    if effective.get("memoryManagerPolicy") == MEMORY_MANAGER_STATIC:
        try:
            settings["reservedMemory"] = reserved_memory(effective, nodes, split, capacity)
        except KubeletConfigError as exc:
            problems.extend(exc.problems)
            return settings, None
    layers = layers_for(settings)
    return settings, layers


def _write_conflicts(plan, files, node_directories):
    """Each file the plan writes is one file: not twice, not a directory on the node nor the directory of another."""
    problems = []
    paths = [entry["path"] for entry in plan["files"]]
    directories = set(plan.get("directories") or []) | set(node_directories)
    directories |= {path.rsplit("/", 1)[0] for path in files if "/" in path.strip("/")}
    for index, path in enumerate(paths):
        if path in paths[:index]:
            problems.append("%s: numa.kubelet would write this file twice (check the kubelet_numa_* paths)" % path)
        elif path in directories or any(other.startswith(path + "/") for other in paths + sorted(directories)):
            problems.append("%s: is a directory (on the node or in the plan), so numa.kubelet cannot write it as a file "
                            "(check the kubelet_numa_* paths)" % path)
    return problems


def _finish(plan, variables, files, intent, split, nodes, capacity, root_dir, platform, problems):
    before_layers, layers_for = plan.pop("before"), plan.pop("layers_for")
    settings, layers = _compute(layers_for, intent, split, nodes, capacity, problems)
    if layers is None:
        raise PlanError(problems)
    _overrides_of_ours(layers, set(settings), problems)
    effective = layers.effective()
    report = check_kubelet_config(effective, nodes, capacity)
    problems.extend(report.errors)
    if problems:
        raise PlanError(problems)
    before = before_layers.effective()
    reserved = settings.get("reservedMemory") or []
    policy = effective.get("memoryManagerPolicy") or "None"
    shares = expected_state(reserved)
    restart = "none"
    reset_cpu = False
    memory_changed, cpu_changed = _manager_changes(before, effective, capacity)
    if memory_changed or cpu_changed:
        restart = "reset"
        reset_cpu = cpu_changed
    elif before != effective:
        restart = "restart"
    expected = {"policyName": policy, "systemReserved": shares}
    state_text = files.get(root_dir + "/memory_manager_state")
    if state_text is not None and state_problems(state_text, expected):
        restart = "reset"
    warnings = report.warnings + plan.get("warnings", [])
    items_for, lablabs_for = plan.pop("rke2_items_for", None), plan.pop("lablabs_for", None)
    lablabs = lablabs_for(settings) if lablabs_for else None
    if problems:
        raise PlanError(problems)
    if lablabs is not None and before != effective:
        # lablabs.rke2 owns config.yaml: restarting before it carries our settings would check an old config.
        restart = "none"
        config_path = variables["kubelet_numa_rke2_config_dir"] + "/config.yaml"
        lablabs["not_carried"] = [
            "%s does not give the kubelet numa.kubelet's settings: with it the kubelet would run with %s, the plan is %s. Pass "
            "kubelet_numa_rke2_server_options, _agent_options, _kubelet_arg and _kubelet_config to lablabs.rke2 as "
            "examples/lablabs-rke2.yml does, and set no rke2_kubelet_arg or rke2_*_options where the planning play cannot see "
            "them (the lablabs.rke2 play's or task's vars): lablabs renders them as a later kubelet-arg key, which RKE2 keeps"
            % (config_path, _manager_summary(before, capacity), _manager_summary(effective, capacity))]
        warnings.append("%s does not carry numa.kubelet's kubelet settings yet: lablabs.rke2 writes them from kubelet_numa_rke2_* "
                        "(examples/lablabs-rke2.yml)" % config_path)
    elif lablabs is not None:
        lablabs["not_carried"] = []
    plan.update({
        "platform": platform,
        "numa_nodes": [node["id"] for node in nodes],
        "reserved_memory": reserved,
        "kubelet_config": effective,
        "kubelet_inputs": layers.describe(),
        "root_dir": root_dir,
        "restart": restart,
        "reset_cpu_manager_state": reset_cpu,
        "expected_state": expected,
        "manager_inputs": {"planned": manager_inputs_digest(effective, capacity), "current": manager_inputs_digest(before, capacity)},
        "health_url": _health_url(effective),
        "warnings": warnings,
    })
    plan["files"] = [_file_entry(entry, settings, files) for entry in plan["files"]]
    problems.extend(_write_conflicts(plan, files, plan.pop("node_directories")))
    if problems:
        raise PlanError(problems)
    if platform == "rke2":
        items = items_for(settings)
        # For lablabs.rke2's rke2_server_options / rke2_agent_options: one "option: value" line, copied verbatim into
        # config.yaml; a JSON list is valid YAML and keeps ';' and '<' quoted.
        options_form = lablabs is None or lablabs["form"] == "options"
        plan["rke2"].update({"kubelet_args": items, "options": ["kubelet-arg: %s" % json.dumps(items)] if options_form else []})
        if lablabs is not None:
            plan["rke2"]["lablabs"] = lablabs
    return plan


def _manager_summary(config, capacity):
    """The memory manager inputs of a config in words, for a message."""
    policy = config.get("memoryManagerPolicy") or "None"
    if policy != MEMORY_MANAGER_STATIC:
        return "memoryManagerPolicy %s" % policy
    try:
        total = memory_reservation(config, capacity).total
    except (KubeletConfigError, ValueError, TypeError, AttributeError):
        total = "?"
    return "memoryManagerPolicy Static, %s reserved for memory, reservedMemory %s" % (total, json.dumps(config.get("reservedMemory") or []))


def _health_url(config):
    port = config.get("healthzPort")
    if not port:
        return None
    address = config.get("healthzBindAddress") or "127.0.0.1"
    if address in ("0.0.0.0", "::"):
        address = "127.0.0.1"
    host = "[%s]" % address if ":" in address else address
    return "http://%s:%d/healthz" % (host, port)


def _file_entry(entry, settings, files):
    entry = dict(entry, previous=files.get(entry["path"]))
    if "content_for" in entry:
        entry["content"] = entry.pop("content_for")(settings)
    return entry


def _plan_kubeadm(variables, facts, files, intent, dropin_name, nodes, problems):
    main, flags, parsed, config_dir, extra_words = _kubeadm_layers(variables, files, problems)
    if problems:
        return {}
    if parsed.config and parsed.config != variables["kubelet_numa_kubeadm_config_file"]:
        problems.append("the kubelet flags name --config=%s, but kubelet_numa_kubeadm_config_file is %s"
                        % (parsed.config, variables["kubelet_numa_kubeadm_config_file"]))
    if not safe_path(config_dir):
        problems.append("--config-dir=%s in the kubelet flags is not a path numa.kubelet can write to safely (an absolute path of "
                        "plain characters without '.' or '..' parts)" % config_dir)
        return {}
    ours_path = "%s/%s.conf" % (config_dir, dropin_name)
    main_path = variables["kubelet_numa_kubeadm_config_file"]
    extra_file = variables["kubelet_numa_kubeadm_extra_args_file"]
    needs_flag = parsed.config_dir is None
    new_flags = flags + (["--config-dir=%s" % config_dir] if needs_flag else [])
    before_dropins = _dropins_in(files, config_dir, problems) if parsed.config_dir else []

    def layers_for(settings):
        dropins = _dropins_in(files, config_dir, problems, replace=(ours_path, _dropin_document(settings)))
        position = [path for path, _document in dropins].index(ours_path)
        return _Layers(main_path, main, dropins, new_flags, ours=("dropin", position))

    entries = [{"path": ours_path, "template": "kubeadm.j2", "mode": "0644",
                "content_for": _dropin_document}]
    inputs = {main_path: "kubelet_numa_kubeadm_config_file (the kubelet's main config)",
              variables["kubelet_numa_kubeadm_flags_file"]: "kubelet_numa_kubeadm_flags_file (kubeadm's flags)",
              ours_path: "numa.kubelet's drop-in"}
    if needs_flag and (extra_file in inputs or extra_file == config_dir or extra_file.startswith(config_dir.rstrip("/") + "/")):
        problems.append("kubelet_numa_kubeadm_extra_args_file: %s is %s; numa.kubelet would replace it with KUBELET_EXTRA_ARGS "
                        "(it must be the kubelet's own EnvironmentFile, such as /etc/default/kubelet or /etc/sysconfig/kubelet)"
                        % (extra_file, inputs.get(extra_file, "in the kubelet's drop-in directory %s" % config_dir)))
        return {}
    if needs_flag:
        entries.append({"path": extra_file, "mode": "0644",
                        "text": _env_file_with(files.get(extra_file), "KUBELET_EXTRA_ARGS", extra_words + ["--config-dir=%s" % config_dir])})
    return {"unit": "kubelet.service", "apply_unit": None, "files": entries, "directories": [config_dir],
            "before": _Layers(main_path, main, before_dropins, flags), "layers_for": layers_for}


def _plan_rke2(variables, facts, files, intent, dropin_name, nodes, problems):
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
        return {}
    config_dir = variables["kubelet_numa_rke2_config_dir"]
    data_dir = variables["kubelet_numa_rke2_data_dir"]
    dropin_dir = data_dir + "/agent/etc/kubelet.conf.d"
    config_path = config_dir + "/config.yaml"
    fragment_dir = config_dir + "/config.yaml.d"
    ours_fragment = "%s/%s.yaml" % (fragment_dir, dropin_name)
    ours_dropin = "%s/%s.conf" % (dropin_dir, dropin_name)
    use_dropin = write_files and minor >= RKE2_DROPIN_MINOR
    fragments = [(path, _load(path, files[path], problems)) for path in _dir_files(files, fragment_dir, (".yaml", ".yml"))]
    config = _load(config_path, files.get(config_path), problems) or {}
    if problems:
        return {}
    lablabs = None
    if write_files:
        later = [(path, data) for path, data in fragments if path > ours_fragment and "kubelet-arg" in (data or {})]
        for path, _data in later:
            problems.append("%s sets kubelet-arg without '+', which replaces every kubelet-arg before it, numa.kubelet's included; "
                            "write it as kubelet-arg+ (RKE2 config.yaml.d rule)" % path)
    else:
        lablabs = _lablabs_inputs(facts.get("lablabs") or {"in_servers_group": role == "server", "in_agents_group": role == "agent"},
                                  config_dir, problems)
    if problems:
        return {}
    defaults_dropin = (dropin_dir + "/" + RKE2_DEFAULTS_DROPIN,
                       {"apiVersion": API_VERSION, "kind": KIND, "evictionHard": dict(RKE2_EVICTION_HARD),
                        "evictionMinimumReclaim": dict(RKE2_EVICTION_MINIMUM_RECLAIM)})

    def dropins_with(replace=None):
        if minor < RKE2_DROPIN_MINOR:
            return []
        dropins = _dropins_in(files, dropin_dir, problems, replace=replace)
        if defaults_dropin[0] not in [path for path, _document in dropins]:
            # RKE2 writes its defaults drop-in at every start; a node planned before its first start has none yet.
            dropins = sorted(dropins + [defaults_dropin], key=lambda item: item[0])
        return dropins

    def layers_from(sources, replace=None, ours=None):
        """The kubelet RKE2 runs from these config.yaml sources (k3s startKubelet: extractConfigArgs, then GetArgs)."""
        items = _rke2_kubelet_args(sources, problems)
        named = [item for item in items if _flag_key(item) == "config"]
        items = [item for item in items if _flag_key(item) not in ("config", "config-dir")]
        argv = rke2_kubelet_argv(_rke2_default_args(minor, dropin_dir), items)
        if minor >= RKE2_DROPIN_MINOR:
            # From 1.32 a config= file is copied into the drop-in directory as 10-cli-config.conf, never loaded as --config.
            dropins = dropins_with(replace)
            position = [path for path, _document in dropins].index(replace[0]) if ours == "dropin" else None
            return _Layers(None, None, dropins, argv, ours=None if ours is None else ("dropin" if ours == "dropin" else "flags", position))
        if named:
            path = named[-1].partition("=")[2]
            main = replace[1] if ours == "main" else _load(path, files.get(path), problems) or {}
            return _Layers(path, main, [], argv, ours=None if ours is None else (ours, None))
        return _Layers(None, None, [], argv, ours=None if ours is None else ("flags", None))

    current_sources = [(config_path, config)] + fragments
    other_items = [] if lablabs is None else list(lablabs["kubelet_arg"] or [])

    def our_items(settings):
        return [flag[2:] for flag in kubelet_flags(_with_rke2_thresholds(settings, other_items))]

    def layers_for(settings):
        if use_dropin:
            return layers_from(current_sources, (ours_dropin, _dropin_document(settings)), "dropin")
        if write_files:
            sources = [source for source in current_sources if source[0] != ours_fragment] + [(ours_fragment, {"kubelet-arg+": our_items(settings)})]
            sources.sort(key=lambda item: (item[0] != config_path, item[0]))
            return layers_from(sources, ours="flags")
        if lablabs["form"] == "kubelet_config":
            items = lablabs["kubelet_arg_with_config"]
            document = _lablabs_kubelet_config(lablabs, settings, problems)
            if minor >= RKE2_DROPIN_MINOR:
                return layers_from([(config_path, {"kubelet-arg": items})] + fragments, (dropin_dir + "/" + RKE2_CLI_CONFIG_DROPIN, document), "dropin")
            return layers_from([(config_path, {"kubelet-arg": items})] + fragments, (lablabs["kubelet_config_path"], document), "main")
        return layers_from([(config_path, {"kubelet-arg": other_items + our_items(settings)})] + fragments, ours="flags")

    before = layers_from(current_sources)
    unit = "rke2-%s.service" % role
    if use_dropin:
        entries = [{"path": ours_dropin, "template": "rke2.j2", "mode": "0644", "content_for": _dropin_document}]
        directories = [dropin_dir]
    elif write_files:
        entries = [{"path": ours_fragment, "template": "rke2.j2", "mode": "0600",
                    "content_for": lambda settings: {"kubelet-arg+": our_items(settings)}}]
        directories = [fragment_dir]
    else:
        entries, directories = [], []
    plan = {"unit": unit, "apply_unit": None, "files": entries, "directories": directories, "before": before, "layers_for": layers_for,
            "rke2": {"version": version, "role": role, "form": "dropin" if use_dropin else ("config.yaml.d" if write_files else "lablabs")},
            "rke2_items_for": our_items}
    if lablabs is not None:
        plan["lablabs_for"] = lambda settings: _lablabs_outputs(lablabs, settings, our_items(settings), problems)
    return plan


# lablabs.rke2 1.53.0 (https://github.com/lablabs/ansible-role-rke2, defaults/main.yml, tasks/first_server.yml and
# templates/config.yaml.j2): its group names, where it writes rke2_kubelet_config, and what its template renders.
LABLABS_SERVERS_GROUP = "masters"
LABLABS_AGENTS_GROUP = "workers"
LABLABS_KUBELET_CONFIG = "kubelet-config.yaml"
# k3s pkg/daemons/agent/agent.go startKubelet -> extractConfigArgs (RKE2 >= 1.32): a kubelet-arg config= file is copied here.
RKE2_CLI_CONFIG_DROPIN = "10-cli-config.conf"
LABLABS_FORMS = ("options", "kubelet_arg", "kubelet_config")


def _flag_key(item):
    return item.lstrip("-").partition("=")[0]


def _sets_kubelet_arg(option):
    """Whether one rke2_server_options / rke2_agent_options item renders a kubelet-arg key (copied verbatim, or key: value)."""
    data = option
    if isinstance(option, str):
        try:
            data = yaml.safe_load(option)
        except yaml.YAMLError:
            return option.lstrip().startswith("kubelet-arg")
    return isinstance(data, dict) and any(str(key).rstrip("+") == "kubelet-arg" for key in data)


def lablabs_role(lablabs):
    """server / agent as lablabs.rke2 decides it: rke2_type, else the host's group (its rke2_type default); '' when neither."""
    if (lablabs or {}).get("rke2_type") in RKE2_ROLES:
        return lablabs["rke2_type"]
    if (lablabs or {}).get("in_servers_group"):
        return "server"
    if (lablabs or {}).get("in_agents_group"):
        return "agent"
    return ""


def _lablabs_inputs(lablabs, config_dir, problems):
    """What the lablabs.rke2 play will render for this host, from its own variables as the planning play sees them."""
    result = {"servers_group": lablabs.get("servers_group") or LABLABS_SERVERS_GROUP,
              "agents_group": lablabs.get("agents_group") or LABLABS_AGENTS_GROUP,
              "in_servers_group": bool(lablabs.get("in_servers_group")), "in_agents_group": bool(lablabs.get("in_agents_group")),
              "kubelet_config_path": config_dir + "/" + LABLABS_KUBELET_CONFIG}
    for name in ("rke2_server_options", "rke2_agent_options"):
        value = lablabs.get(name)
        if value is not None and (not isinstance(value, list) or not all(isinstance(item, (str, dict)) for item in value)):
            problems.append("%s: %r must be a list of 'option: value' strings or mappings (lablabs.rke2)" % (name, value))
            value = None
        result[name] = value
    kubelet_arg = lablabs.get("rke2_kubelet_arg")
    if kubelet_arg is not None and (not isinstance(kubelet_arg, list) or not all(isinstance(item, str) for item in kubelet_arg)):
        problems.append("rke2_kubelet_arg: %r must be a list of 'flag=value' strings (lablabs.rke2)" % (kubelet_arg,))
        kubelet_arg = None
    kubelet_config = lablabs.get("rke2_kubelet_config") or {}
    if not isinstance(kubelet_config, dict):
        problems.append("rke2_kubelet_config: %r must be a KubeletConfiguration mapping (lablabs.rke2)" % (kubelet_config,))
        kubelet_config = {}
    result["kubelet_arg"], result["kubelet_config"] = kubelet_arg, kubelet_config
    result["form"] = "kubelet_config" if kubelet_config else ("kubelet_arg" if kubelet_arg is not None else "options")
    rendered = [name for name, group in (("rke2_server_options", "in_servers_group"), ("rke2_agent_options", "in_agents_group")) if result[group]]
    for name in rendered:
        for index, option in enumerate(result[name] or []):
            if _sets_kubelet_arg(option):
                problems.append("%s[%d] %r sets kubelet-arg: lablabs.rke2 would render it beside numa.kubelet's kubelet-arg and RKE2 keeps only "
                                "the later key, so one of them would be lost; move its items to rke2_kubelet_arg (numa.kubelet merges "
                                "them and plans on them) or into kubelet_numa_config" % (name, index, option))
    if result["form"] == "options" and not rendered:
        problems.append("this host is in neither lablabs.rke2 group %r (rke2_servers_group_name) nor %r (rke2_agents_group_name): "
                        "lablabs.rke2 renders rke2_server_options only for the first and rke2_agent_options only for the second, so "
                        "numa.kubelet's kubelet-arg would not reach config.yaml; add the host to its group"
                        % (result["servers_group"], result["agents_group"]))
    items = list(kubelet_arg or [])
    for item in items:
        key = _flag_key(item)
        if key == "config-dir" or (key == "config" and result["form"] != "kubelet_config"):
            problems.append("rke2_kubelet_arg item %r names kubelet config numa.kubelet cannot plan on; give the settings as "
                            "rke2_kubelet_config (lablabs.rke2 writes it to %s) and numa.kubelet merges its own into it"
                            % (item, result["kubelet_config_path"]))
        elif key == "config" and item.partition("=")[2] != result["kubelet_config_path"]:
            problems.append("rke2_kubelet_arg item %r: lablabs.rke2 writes rke2_kubelet_config to %s; name that file or leave the item "
                            "out (numa.kubelet adds it)" % (item, result["kubelet_config_path"]))
    if result["form"] == "kubelet_config" and not any(_flag_key(item) == "config" for item in items):
        items.append("--config=" + result["kubelet_config_path"])
    result["kubelet_arg_with_config"] = items
    return result


def _conflicting_items(user_items, ours):
    """User kubelet-arg items that contradict ours: the same scalar or list flag, or the same key of a map flag."""
    found = []
    for item in user_items:
        parsed = parse_kubelet_flags(["--" + item.lstrip("-")]).overrides
        for field_name, value, kind, _word in parsed:
            for our_field, our_value, _our_kind, our_word in parse_kubelet_flags(["--" + our for our in ours]).overrides:
                if our_field != field_name:
                    continue
                if kind.startswith("map") and isinstance(value, dict) and not set(value) & set(our_value):
                    continue  # repeated map flags add up (docs/kubelet-facts.md section 2): theirs and ours both apply
                found.append((item, our_word[2:]))
    return found


def _with_rke2_thresholds(settings, other_items):
    """RKE2's disk eviction thresholds kept where a flag would replace them (docs/kubelet-facts.md sections 2 and 4).

    Before 1.32 a kubelet-arg eviction-hard replaces RKE2's own --eviction-hard; from 1.32 the flag replaces the map of
    00-rke2-defaults.conf. So when ours or another item sets the flag, ours carries RKE2's thresholds that nobody set.
    """
    result = dict(settings)
    for field_name, flag, defaults in (("evictionHard", "eviction-hard", RKE2_EVICTION_HARD),
                                       ("evictionMinimumReclaim", "eviction-minimum-reclaim", RKE2_EVICTION_MINIMUM_RECLAIM)):
        theirs = [item for item in other_items if _flag_key(item) == flag]
        if field_name not in settings and not theirs:
            continue
        covered = set(settings.get(field_name) or {})
        for field, value, _kind, _word in parse_kubelet_flags(["--" + item.lstrip("-") for item in theirs]).overrides:
            covered |= set(value) if field == field_name and isinstance(value, dict) else set()
        missing = {key: value for key, value in defaults.items() if key not in covered}
        if missing:
            result[field_name] = dict(missing, **(settings.get(field_name) or {}))
    return result


def _lablabs_kubelet_config(lablabs, settings, problems):
    """The user's rke2_kubelet_config with numa.kubelet's settings merged in; a field both set differently is refused."""
    user = lablabs["kubelet_config"]
    for name, value in settings.items():
        if name not in user or user[name] == value:
            continue
        if name == "reservedMemory":
            problems.append("rke2_kubelet_config.reservedMemory: computed by numa.kubelet; leave it out")
        elif isinstance(user[name], dict) and isinstance(value, dict):
            for key in sorted(set(user[name]) & set(value)):
                if user[name][key] != value[key]:
                    problems.append("rke2_kubelet_config.%s.%s is %r, kubelet_numa_config says %r: set it in one place"
                                    % (name, key, user[name][key], value[key]))
        else:
            problems.append("rke2_kubelet_config.%s is %r, kubelet_numa_config says %r: set it in one place" % (name, user[name], value))
    document = merge_patch({key: value for key, value in user.items() if key not in ("apiVersion", "kind")}, settings)
    return _dropin_document(document)


def _lablabs_outputs(lablabs, settings, ours, problems):
    """lablabs.rke2's variables for this host: the user's own values with numa.kubelet's merged in, for one wiring."""
    line = "kubelet-arg: %s" % json.dumps(ours)
    server = list(lablabs["rke2_server_options"] or [])
    agent = list(lablabs["rke2_agent_options"] or [])
    outputs = {"form": lablabs["form"], "rke2_kubelet_config": lablabs["kubelet_config"]}
    user_items = lablabs["kubelet_arg"]
    if lablabs["form"] == "options":
        if lablabs["in_servers_group"]:
            server.append(line)
        else:
            agent.append(line)
    elif lablabs["form"] == "kubelet_arg":
        for item, our in _conflicting_items(user_items, ours):
            problems.append("rke2_kubelet_arg item %r contradicts numa.kubelet's %r (both reach the kubelet; the later wins): move the "
                            "setting into kubelet_numa_config" % (item, our))
        outputs["rke2_kubelet_arg"] = list(user_items) + ours
    else:
        outputs["rke2_kubelet_arg"] = lablabs["kubelet_arg_with_config"]
        outputs["rke2_kubelet_config"] = {key: value for key, value in _lablabs_kubelet_config(lablabs, settings, problems).items()
                                          if key not in ("apiVersion", "kind")}
    outputs.update(rke2_server_options=server, rke2_agent_options=agent)
    return outputs


def _nodeadm_base(variables, facts, nodes, problems):
    instance_type = variables.get("kubelet_numa_instance_type") or facts.get("instance_type")
    max_pods = variables.get("kubelet_numa_max_pods") or None
    vcpus = _vcpus(nodes)
    if vcpus is None:
        problems.append("nodeadm: the NUMA topology lists no CPUs; nodeadm reserves CPU by the node's online CPU count, so give cpus per NUMA node")
        return None
    try:
        if max_pods:
            reserved = kube_reserved(max_pods=max_pods, vcpus=vcpus)
        elif instance_type:
            reserved = kube_reserved(instance_type, vcpus=vcpus)
        else:
            problems.append("kubelet_numa_instance_type: unset and not readable from the instance metadata, and the node has no "
                            "nodeadm base config to read kubeReserved from; set it (e.g. m5.large) or kubelet_numa_max_pods")
            return None
    except EksError as exc:
        problems.append("kubelet_numa_instance_type: %s" % exc)
        return None
    return {"apiVersion": API_VERSION, "kind": KIND, "evictionHard": dict(NODEADM_EVICTION_HARD), "kubeReserved": reserved}


def _nodeconfig(settings):
    return {"apiVersion": NODECONFIG_API_VERSION, "kind": NODECONFIG_KIND, "spec": {"kubelet": {"config": settings}}}


def _nodeadm_file_kubelet(path, text, problems):
    try:
        configs = [kubelet_config(document) for document in file_nodeconfigs(path, text)]
    except KubeletConfigError as exc:
        problems.extend("%s; nodeadm would fail on it and leave the kubelet unconfigured" % problem for problem in exc.problems)
        return {}
    for config in configs:
        problems.extend(field_type_problems(config, "%s: spec.kubelet.config." % path))
    return merge_kubelet_configs(configs)


def _not_set_by(config, sources):
    """The part of a merged kubelet config that `sources` (merged last) does not set, leaf by leaf."""
    rest = {}
    for key, value in config.items():
        if key not in sources:
            rest[key] = value
        elif isinstance(value, dict) and isinstance(sources[key], dict):
            inner = _not_set_by(value, sources[key])
            if inner:
                rest[key] = inner
    return rest


def _nodeadm_user_data(variables, facts, files, current_dropin, nodeadm_d_now, problems):
    """(user data kubelet configs in merge order, None standing for ours; what the plan assumed, or None when exact)."""
    if "nodeadm_user_data_parts" in facts:
        return list(facts["nodeadm_user_data_parts"]), None
    text, path = variables.get("kubelet_numa_nodeadm_user_data") or "", variables.get("kubelet_numa_nodeadm_user_data_path") or ""
    if text and path:
        problems.append("kubelet_numa_nodeadm_user_data and kubelet_numa_nodeadm_user_data_path are both set; give the user data once")
        return [], None
    if path:
        if files.get(path) is None:
            problems.append("kubelet_numa_nodeadm_user_data_path: %s does not exist on the node (or is not readable)" % path)
            return [], None
        text, origin = files[path], path
    elif not text and facts.get("nodeadm_user_data") is not None:
        text, origin = facts["nodeadm_user_data"], "the instance's user data (IMDS)"
        if not text:
            return [], None  # the instance has no user data: nodeadm reads none
    else:
        origin = "kubelet_numa_nodeadm_user_data"
    if text:
        if not isinstance(text, str):
            problems.append("kubelet_numa_nodeadm_user_data: %r must be the user data's text (MIME multi-part, NodeConfig YAML or base64)"
                            % (text,))
            return [], None
        try:
            configs = [kubelet_config(document) for document in user_data_nodeconfigs(text, origin)]
        except KubeletConfigError as exc:
            problems.extend("%s; at boot nodeadm cannot use this user data" % problem for problem in exc.problems)
            return [], None
        for config in configs:
            problems.extend(field_type_problems(config, "%s: spec.kubelet.config." % origin))
        return configs, None
    # Not given: what the drop-in holds beyond the nodeadm.d files can only have come from the user data.
    inferred = _not_set_by({key: value for key, value in current_dropin.items() if key not in ("apiVersion", "kind")}, nodeadm_d_now)
    assumption = ("the node's user data was not given (kubelet_numa_nodeadm_user_data, kubelet_numa_nodeadm_user_data_path or "
                  "kubelet_numa_nodeadm_user_data_from_imds), so the "
                  "plan assumes its kubelet settings are those of the current %s that no /etc/eks/nodeadm.d file sets: %s; a user data "
                  "value that a nodeadm.d file overrides is not seen. Give the user data to make the plan exact"
                  % (NODEADM_DROPIN, ", ".join(sorted(inferred)) or "none"))
    return [inferred] if inferred else [], assumption


def _plan_nodeadm(variables, facts, files, intent, dropin_name, nodes, problems):
    base_path = variables["kubelet_numa_nodeadm_kubelet_config"]
    source_dir = variables["kubelet_numa_nodeadm_config_dir"]
    dropin_dir = variables["kubelet_numa_nodeadm_kubelet_dropin_dir"]
    environment = variables["kubelet_numa_nodeadm_kubelet_environment"]
    ours_path = "%s/%s.yaml" % (source_dir, dropin_name)
    if files.get(base_path) is not None:
        base = _load_kubelet_config(base_path, files[base_path], problems)
    else:
        base = _nodeadm_base(variables, facts, nodes, problems)
    if problems:
        return {}
    flags = [word for word in env_words(files.get(environment)) if not word.startswith(("--config=", "--config-dir="))]
    dropin_path = dropin_dir + "/" + NODEADM_DROPIN
    current_dropin = _load_kubelet_config(dropin_path, files.get(dropin_path), problems) or {}
    # nodeadm.d as it is now (ours included as last written), and as it will be (ours in its lexical place).
    on_disk = {path: _nodeadm_file_kubelet(path, files[path], problems) for path in config_files(files, source_dir)}
    user_data, assumption = _nodeadm_user_data(variables, facts, files, current_dropin, merge_kubelet_configs(on_disk.values()), problems)
    if problems:
        return {}
    ours_in_user_data = None in user_data
    nodeadm_d = sorted(set(on_disk) - {ours_path} | ({ours_path} if not ours_in_user_data else set()),
                       key=lambda path: posixpath.basename(path).encode("utf-8"))
    sources = [(None if config is None else "user data", config) for config in user_data]
    sources += [(None if path == ours_path else path, None if path == ours_path else on_disk[path]) for path in nodeadm_d]
    ours_at = next(index for index, (label, _config) in enumerate(sources) if label is None)
    if not ours_in_user_data:
        for path, config in sources[ours_at + 1:]:
            for name in sorted(set(config) & set(intent) | ({"reservedMemory"} & set(config))):
                problems.append("%s sets %s, which overrides the value numa.kubelet writes (nodeadm merges /etc/eks/nodeadm.d in lexical "
                                "order); move it into kubelet_numa_config or remove it" % (path, name))

    def layers_for(settings):
        # 40-nodeadm.conf as nodeadm rebuilds it at the next boot or nodeadm-run: the sources only, in order.
        dropin = merge_kubelet_configs(settings if label is None else config for label, config in sources)
        return _Layers(base_path, base, [(dropin_path, dict(dropin, apiVersion=API_VERSION, kind=KIND))], flags, ours=("dropin", 0))

    before_dropins = [(dropin_path, current_dropin)] if current_dropin else []
    warnings = [assumption] if assumption else []
    instance_type = variables.get("kubelet_numa_instance_type") or facts.get("instance_type")
    if files.get(base_path) is not None and instance_type and not variables.get("kubelet_numa_max_pods"):
        expected = _nodeadm_base(variables, facts, nodes, [])
        actual = ((base or {}).get("kubeReserved") or {}).get("memory")
        if expected and actual and expected["kubeReserved"]["memory"] != actual:
            warnings.append("%s has kubeReserved.memory %s, but nodeadm's formula gives %s for %s: the node's value is used"
                            % (base_path, actual, expected["kubeReserved"]["memory"], instance_type))
    return {"unit": "kubelet.service", "apply_unit": variables.get("kubelet_numa_nodeadm_apply_service") or "nodeadm-run.service",
            "files": [{"path": ours_path, "template": "nodeadm.j2", "mode": "0644", "content_for": _nodeconfig}],
            "directories": [source_dir], "before": _Layers(base_path, base, before_dropins, flags), "layers_for": layers_for,
            "warnings": warnings,
            "nodeadm": {"user_data": "assumed" if assumption else "given", "sources": [label or "numa.kubelet" for label, _c in sources]}}


def reads(variables, existing=None, files=None):
    """What to read on the host: {"platform": ..., "files": [...], "dirs": [...]}.

    existing: the detection paths that exist on the host (used when kubelet_numa_platform is unset);
    files: what was read so far (a kubeadm --config-dir flag names one more directory).
    """
    variables = dict(variables or {})
    platform = variables.get("kubelet_numa_platform") or None
    if platform is None:
        platform = detect_platform(set(existing or ()))
    elif platform not in PLATFORMS:
        raise PlanError(["kubelet_numa_platform: %r is not one of %s" % (platform, ", ".join(PLATFORMS))])
    return dict(paths_to_read(variables, platform, files), platform=platform)


def discover(variables, node, also_read=(), also_units=(), lablabs=None):
    """Everything plan_host needs from one node, read through `node` in as few round trips as the platform allows.

    node answers read(paths, dirs, topology) like numa.kubelet.node_files ({"files", "existing", "attributes"}, and
    "topology" when asked), topology() like numa.kubelet.numa_facts, rke2_version() (`rke2 --version`),
    unit_file_state(unit) (systemd's UnitFileState, None when unknown), instance_type() and user_data() (IMDSv2; the
    user data is "" when the instance has none). Nothing is read
    that a variable already gives: kubelet_numa_node_files replaces every file read, kubelet_numa_topology the
    topology, kubelet_numa_platform the detection, and so on. also_read paths are read with the files (what the caller
    writes besides the plan's files); also_units are systemd units whose state is read with them (facts["unit_states"]).
    Returns (facts, attributes): the facts for plan_host and the mode, owner and
    group of every path read. lablabs: what lablabs.rke2 knows of the host (rke2_type, rke2_version, its group
    membership, its kubelet variables; the plan_node option); its role and, when numa.kubelet hands over to it, its
    version spare the reads. Raises PlanError when the platform cannot be told.
    """
    lablabs = dict(lablabs or {})
    variables = dict(variables or {})
    given_files = variables.get("kubelet_numa_node_files") or {}
    wants_topology = not variables.get("kubelet_numa_topology")
    attributes, topology, read_existing, unit_states = {}, {}, [], {}
    if given_files:
        existing = list(given_files)
        todo = reads(variables, existing)
        files = dict(given_files)
        if wants_topology:
            topology = node.topology()
    else:
        existing = None if variables.get("kubelet_numa_platform") else node.read(detection_paths(), [], False)["existing"]
        todo = reads(variables, existing)
        found = node.read(todo["files"] + [path for path in also_read if path not in todo["files"]], todo["dirs"], wants_topology, also_units)
        files, attributes, topology = dict(found["files"]), dict(found["attributes"]), found.get("topology") or {}
        read_existing = list(found.get("existing") or [])
        unit_states = dict(found.get("units") or {})
        # A kubeadm --config-dir flag names its drop-in directory only in the files just read.
        more = [path for path in reads(variables, existing, files)["dirs"] if path not in todo["dirs"]]
        if more:
            found = node.read([], more, False)
            files.update(found["files"])
            attributes.update(found["attributes"])
            read_existing += found.get("existing") or []
    platform = todo["platform"]
    # node_files reports a directory as existing, without content: one we would write as a file is refused in planning.
    directories = sorted({path for path in read_existing if path not in files})
    facts = {"directories": directories, "numa_nodes": topology.get("numa_nodes") or [],
             "numa_memory_capacity_bytes": topology.get("numa_memory_capacity_bytes") or 0,
             "platform": platform, "files": files, "rke2_version": "", "rke2_role": "", "instance_type": "", "unit_states": unit_states, "lablabs": lablabs}
    if platform == "rke2":
        hand_over = variables.get("kubelet_numa_rke2_write_files") is False
        if not variables.get("kubelet_numa_rke2_version"):
            # lablabs.rke2 installs rke2_version before the kubelet runs with what it hands over (its tasks/rke2.yml).
            facts["rke2_version"] = lablabs.get("rke2_version") if hand_over and lablabs.get("rke2_version") else node.rke2_version()
        if not variables.get("kubelet_numa_rke2_role"):
            # The service the RKE2 installer enabled on this node; a server also runs an agent's kubelet.
            facts["rke2_role"] = lablabs_role(lablabs) or next(
                (role for role in RKE2_ROLES if node.unit_file_state("rke2-%s.service" % role) in ("enabled", "enabled-runtime")), "")
    elif platform == "nodeadm":
        if (not variables.get("kubelet_numa_instance_type") and not variables.get("kubelet_numa_max_pods")
                and files.get(variables.get("kubelet_numa_nodeadm_kubelet_config")) is None):
            # Only when nothing else gives kubeReserved: the base config.json that nodeadm wrote holds it (_nodeadm_base).
            facts["instance_type"] = node.instance_type()
        if (variables.get("kubelet_numa_nodeadm_user_data_from_imds") and not variables.get("kubelet_numa_nodeadm_user_data")
                and not variables.get("kubelet_numa_nodeadm_user_data_path")):
            # What nodeadm itself reads at boot (its user data provider asks IMDS): the plan is then exact.
            facts["nodeadm_user_data"] = node.user_data()
    return facts, attributes


def state_problems(state_text, expected):
    """How a memory_manager_state checkpoint differs from the plan's expected_state; [] when it matches.

    The arguments are checked here, for the filter and the rollout; the comparison is the restart module's own
    (module_utils/kubelet_checkpoint.py), which runs it on the node.
    """
    if not isinstance(expected, dict) or not isinstance(expected.get("systemReserved"), dict) or "policyName" not in expected:
        raise KubeletConfigError(["expected state: %r must be a plan's expected_state {policyName, systemReserved}" % (expected,)])
    if state_text is not None and not isinstance(state_text, str):
        raise KubeletConfigError(["memory_manager_state: %r (%s) must be the checkpoint file's text" % (state_text, type_name(state_text))])
    return checkpoint_problems(state_text, expected)
