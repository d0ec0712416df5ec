# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright: numa.kubelet contributors; GNU General Public License v3.0+ (see LICENSE or
# https://www.gnu.org/licenses/gpl-3.0.txt)
"""Kubelet STAND-IN: config loading (flags, the main --config file, --config-dir drop-ins, defaults)."""

import json
import os
import re

from .common import DEFAULT_CERT_DIR, DEFAULT_EVICTION_HARD, DEFAULT_ROOT_DIR, KUBELET_API_VERSION, SCALAR_DEFAULTS, StartError, go_quote, host_path
from .quantity import Quantity

try:
    # The collection's own reader of the kubelet's YAML (go_yaml.py links to plugins/plugin_utils/_yaml_text.py; the
    # archive carries a copy): go-yaml's tab rules live in one place, checked against the real kubelet there.
    from .go_yaml import go_yaml_error, load_yaml
except ImportError:  # pragma: no cover - the images ship python3-yaml, which it needs
    go_yaml_error = load_yaml = None


# ----------------------------------------------------------------------------------------------- flags
MAP_FLAGS = {  # flag -> (config key, separator between key and value)
    "kube-reserved": ("kubeReserved", "="),
    "system-reserved": ("systemReserved", "="),
    "eviction-hard": ("evictionHard", "<"),
    "eviction-soft": ("evictionSoft", "<"),
    "eviction-minimum-reclaim": ("evictionMinimumReclaim", "="),
    "cpu-manager-policy-options": ("cpuManagerPolicyOptions", "="),
    "topology-manager-policy-options": ("topologyManagerPolicyOptions", "="),
    "feature-gates": ("featureGates", "="),
}
STRING_FLAGS = {
    "memory-manager-policy": "memoryManagerPolicy",
    "cpu-manager-policy": "cpuManagerPolicy",
    "topology-manager-policy": "topologyManagerPolicy",
    "topology-manager-scope": "topologyManagerScope",
    "reserved-cpus": "reservedSystemCPUs",
    "cgroup-driver": "cgroupDriver",
    "kube-reserved-cgroup": "kubeReservedCgroup",
    "system-reserved-cgroup": "systemReservedCgroup",
    "healthz-bind-address": "healthzBindAddress",
    "address": "address",
    "tls-cert-file": "tlsCertFile",
    "tls-private-key-file": "tlsPrivateKeyFile",
}
INT_FLAGS = {"max-pods": "maxPods", "healthz-port": "healthzPort", "port": "port"}
LIST_FLAGS = {"enforce-node-allocatable": "enforceNodeAllocatable"}
BOOL_FLAGS = {"fail-swap-on": "failSwapOn", "enable-server": "enableServer"}
# Real kubelet flags that do not matter to the collection: accepted and ignored.
IGNORED_VALUE_FLAGS = {
    "kubeconfig",
    "bootstrap-kubeconfig",
    "hostname-override",
    "node-ip",
    "node-labels",
    "container-runtime-endpoint",
    "image-service-endpoint",
    "cloud-provider",
    "provider-id",
    "pod-infra-container-image",
    "v",
    "register-with-taints",
    "runtime-cgroups",
    "authorization-mode",
    "client-ca-file",
    "cluster-dns",
    "cluster-domain",
    "read-only-port",
    "resolv-conf",
    "stderrthreshold",
    "log-file",
    "volume-plugin-dir",
    "pod-manifest-path",
    "file-check-frequency",
    "event-qps",
    "streaming-connection-idle-timeout",
    "image-credential-provider-config",
    "image-credential-provider-bin-dir",
    "node-status-update-frequency",
    "eviction-pressure-transition-period",
    "kubelet-cgroups",
    "runtime-request-timeout",
    "tls-cipher-suites",
    "tls-min-version",
    "rotate-server-certificates",
    "containerd",
    "cpu-cfs-quota",
    "seccomp-default",
}
IGNORED_BOOL_FLAGS = {
    "anonymous-auth",
    "authentication-token-webhook",
    "logtostderr",
    "alsologtostderr",
    "make-iptables-util-chains",
    "protect-kernel-defaults",
    "serialize-image-pulls",
    "register-node",
    "rotate-certificates",
}
BOOL_VALUES = {"true": True, "1": True, "t": True, "false": False, "0": False, "f": False}


def parse_map(flag, value, separator):
    """Parse key<sep>value pairs separated by commas (mapStringString / langle-separated maps)."""
    result = {}
    for item in value.split(","):
        item = item.strip()
        if not item:
            continue
        if separator not in item:
            raise StartError(
                f'failed to parse kubelet flag: invalid argument {go_quote(value)} for "--{flag}" flag: malformed pair, expect string{separator}string'
            )
        key, val = item.split(separator, 1)
        if flag == "feature-gates":
            if val.strip().lower() not in BOOL_VALUES:
                raise StartError(
                    f'failed to parse kubelet flag: invalid argument {go_quote(value)} for "--feature-gates" flag: '
                    f"invalid value of {key.strip()}: {val.strip()}"
                )
            result[key.strip()] = BOOL_VALUES[val.strip().lower()]
        else:
            result[key.strip()] = val.strip()
    return result


def parse_reserved_memory(value):
    """Parse --reserved-memory like the kubelet's ReservedMemoryVar: one entry per NUMA node and type."""
    entries = []

    def bad(message):
        return StartError(f'failed to parse kubelet flag: invalid argument {go_quote(value)} for "--reserved-memory" flag: {message}')

    for reservation in value.split(";"):
        if not reservation:
            continue
        parts = reservation.split(":")
        if len(parts) != 2:
            raise bad(f"the reserved memory has incorrect format, expected numaNodeID:type=quantity[,type=quantity...], got {reservation}")
        for type_limit in parts[1].split(","):
            limit = type_limit.split("=")
            if len(limit) != 2:
                raise bad(f"the reserved limit has incorrect value, expected type=quantatity, got {type_limit}")
            if limit[0] != "memory" and not limit[0].startswith("hugepages-"):
                raise bad(f"memory type conversion error, unknown type: {go_quote(limit[0])}")
            try:
                Quantity.parse(limit[1])
            except ValueError:
                raise bad(f"failed to parse the quantatity, expected quantatity, got {limit[1]}") from None
            if not re.match(r"^-?[0-9]+$", parts[0]):
                raise bad(f"failed to convert the NUMA node ID, exptected integer, got {parts[0]}")
            entries.append({"numaNode": int(parts[0]), "limits": {limit[0]: limit[1]}})
    return entries


def parse_flags(argv):  # noqa: C901 - one pass over argv, a branch per kind of kubelet flag
    """Split argv into the kubelet's own flags; return (config_path, config_dir, root_dir, cert_dir, overrides).

    overrides is a list of (config key, value, how) in command-line order; how is "map" (first use replaces
    the file's value, later uses accumulate), "list" (same, for lists) or "set".
    """
    config_path = config_dir = None
    root_dir = DEFAULT_ROOT_DIR
    cert_dir = DEFAULT_CERT_DIR
    overrides = []
    index = 0
    while index < len(argv):
        arg = argv[index]
        index += 1
        if not arg.startswith("-") or arg in ("-", "--"):
            raise StartError(f"failed to parse kubelet flag: unexpected argument {go_quote(arg)} (the kubelet takes no positional arguments)")
        name, has_value, value = arg.lstrip("-").partition("=")
        is_bool = name in BOOL_FLAGS or name in IGNORED_BOOL_FLAGS
        known = (
            name in ("config", "config-dir", "root-dir", "cert-dir")
            or name in MAP_FLAGS
            or name in STRING_FLAGS
            or name in INT_FLAGS
            or name in LIST_FLAGS
            or name == "reserved-memory"
            or name in IGNORED_VALUE_FLAGS
            or is_bool
        )
        if not known:
            raise StartError("failed to parse kubelet flag: unknown flag: %s" % arg.split("=", 1)[0])
        if not has_value:
            if is_bool:
                value = "true"
            elif index < len(argv):
                value = argv[index]
                index += 1
            else:
                raise StartError("failed to parse kubelet flag: flag needs an argument: %s" % arg)
        if name == "config":
            config_path = value
        elif name == "config-dir":
            config_dir = value
        elif name == "root-dir":
            root_dir = value
        elif name == "cert-dir":
            cert_dir = value
        elif name in MAP_FLAGS:
            key, separator = MAP_FLAGS[name]
            overrides.append((key, parse_map(name, value, separator), "map"))
        elif name == "reserved-memory":
            overrides.append(("reservedMemory", parse_reserved_memory(value), "list"))
        elif name in STRING_FLAGS:
            overrides.append((STRING_FLAGS[name], value, "set"))
        elif name in INT_FLAGS:
            if not re.match(r"^-?[0-9]+$", value):
                raise StartError(
                    f'failed to parse kubelet flag: invalid argument {go_quote(value)} for "--{name}" flag: '
                    f"strconv.ParseInt: parsing {go_quote(value)}: invalid syntax"
                )
            overrides.append((INT_FLAGS[name], int(value), "set"))
        elif name in LIST_FLAGS:
            overrides.append((LIST_FLAGS[name], [v for v in value.split(",") if v], "set"))
        elif name in BOOL_FLAGS:
            if value.lower() not in BOOL_VALUES:
                raise StartError(
                    f'failed to parse kubelet flag: invalid argument {go_quote(value)} for "--{name}" flag: '
                    f"strconv.ParseBool: parsing {go_quote(value)}: invalid syntax"
                )
            overrides.append((BOOL_FLAGS[name], BOOL_VALUES[value.lower()], "set"))
    return config_path, config_dir, root_dir, cert_dir, overrides


# ----------------------------------------------------------------------------------------------- config
def load_document(path, what):
    """Load a YAML (or JSON) KubeletConfiguration document from a logical path."""
    try:
        with open(host_path(path), encoding="utf-8") as handle:
            text = handle.read()
    except OSError as err:
        raise StartError("failed to load %s %s, error: %s" % (what, path, err.strerror)) from None
    try:
        data = load_yaml(text) if load_yaml is not None else json.loads(text)
    except Exception as err:  # any parse error refuses the start, a misplaced tab in go-yaml's words
        words = (go_yaml_error(err) if go_yaml_error is not None else None) or str(err).replace("\n", " ")
        raise StartError("failed to load %s %s, error: failed to decode: %s" % (what, path, words)) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise StartError("failed to load %s %s, error: failed to decode: not a mapping" % (what, path))
    if data.get("kind") != "KubeletConfiguration" or data.get("apiVersion") != KUBELET_API_VERSION:
        raise StartError(
            "failed to load %s %s, error: kind must be KubeletConfiguration and apiVersion %s, "
            "got kind %s apiVersion %s" % (what, path, KUBELET_API_VERSION, go_quote(data.get("kind", "")), go_quote(data.get("apiVersion", "")))
        )
    return data


def apply_defaults(config, main_file=False):
    """The kubelet's v1beta1 defaulting for the fields the stand-in looks at.

    The default evictionHard map (and mergeDefaultEvictionSettings) belongs to loading the main --config file only
    (server.go loadConfigFile): a kubelet with --config-dir and no --config (RKE2 >= 1.32) never gets it, and a
    drop-in's mergeDefaultEvictionSettings merges nothing (seen on the real kubelet v1.36.2).
    """
    if main_file and config.get("evictionHard") is None:
        config["evictionHard"] = dict(DEFAULT_EVICTION_HARD)
    elif main_file and config.get("mergeDefaultEvictionSettings") is True:
        for key, value in DEFAULT_EVICTION_HARD.items():
            config["evictionHard"].setdefault(key, value)
    for key, value in SCALAR_DEFAULTS.items():
        if config.get(key) is None:
            config[key] = value
    return config


def merge_patch(target, patch):
    """RFC 7386 JSON merge patch: maps merge key by key, null deletes, anything else replaces."""
    if not isinstance(patch, dict):
        return patch
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def walk(logical):
    """The files under `logical` in filepath.WalkDir's order (names sorted in each directory, a subdirectory entered
    where its name sorts; a symlink to a directory not entered); a root that is not a directory is its only entry."""
    real = host_path(logical)
    if os.path.islink(real) or not os.path.isdir(real):
        return [logical]
    found = []
    for name in sorted(os.listdir(real)):
        found.extend(walk(os.path.join(logical, name)))
    return found


def effective_config(config_path, config_dir, overrides):
    """Build the effective config: defaults -> main file -> drop-ins -> flags."""
    if config_path:
        config = apply_defaults(load_document(config_path, "Kubelet config file"), main_file=True)
    else:
        config = apply_defaults({"apiVersion": KUBELET_API_VERSION, "kind": "KubeletConfiguration"})
    if config_dir:
        directory = host_path(config_dir)
        if not os.path.lexists(directory):
            # cmd/kubelet/app/server.go mergeKubeletConfigurations: filepath.Walk's lstat of the root fails first.
            raise StartError(
                f"failed to merge kubelet configs: failed to walk through kubelet dropin directory {go_quote(config_dir)}: "
                f"lstat {config_dir}: no such file or directory"
            )
        for path in walk(config_dir):
            if not path.endswith(".conf") or not os.path.isfile(host_path(path)):
                continue
            dropin = load_document(path, "kubelet config drop-in file")
            config = apply_defaults(merge_patch(config, dropin))
    seen = set()
    for key, value, how in overrides:
        if how == "map":
            if key not in seen:
                config[key] = {}
            config[key] = dict(config[key], **value)
        elif how == "list":
            if key not in seen:
                config[key] = []
            config[key] = list(config[key]) + value
        else:
            config[key] = value
        seen.add(key)
    return config
