# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How the kubelet reads a KubeletConfiguration field's value: from the config file, where its JSON decoding refuses a
value of the wrong type (field_type_problems, with the kubelet's own error), and from the command line (FLAG_FORMS: how
the fields the engine renders are written as kubelet flags, for platforms that pass settings as flags: RKE2
kubelet-arg, nodeadm spec.kubelet.flags). The fields and their Go types: _kubelet_field_table.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._go_duration import go_duration_error
from ._kubelet_field_table import FIELD_TYPES, fields_unknown_to

_INT_BOUNDS = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}


_HOW = {
    "string": "a string",
    "bool": "true or false",
    "int32": "an int32 integer (-2147483648 to 2147483647)",
    "int64": "an int64 integer",
    "float64": "a number",
    "duration": 'a duration string such as "10s" or "1m30s"',
    "quantities": 'a mapping of names to quantity strings such as {memory: "1Gi"}',
    "[]string": "a list of strings",
    "[]int32": "a list of integers",
    "map[string]string": "a mapping of strings to strings",
    "map[string]bool": "a mapping of names to true or false",
    "map[string][]string": "a mapping of strings to lists of strings",
    "object": "a mapping",
    "[]object": "a list of mappings",
}


def as_kubelet_decodes(config: Mapping[str, Any]) -> dict[str, Any]:
    """config with integer bytes in the quantity maps (kubeReserved: {memory: 1073741824}) written as strings, the only
    form the kubelet decodes, and whole floats in integer fields (maxPods: 110.0) as integers; everything else as it is."""
    result = dict(config)
    for name, value in config.items():
        kind = FIELD_TYPES.get(name)
        if kind == "quantities" and isinstance(value, dict):
            result[name] = {key: str(item) if isinstance(item, int) and not isinstance(item, bool) else item for key, item in value.items()}
        elif kind in _INT_BOUNDS and isinstance(value, float) and value.is_integer():
            result[name] = int(value)
    return result


def type_name(value: object) -> str:
    """The YAML-level name of a value's type (never an internal subclass name such as Ansible's tagged strings)."""
    for kind, name in (
        (bool, "boolean"),
        (int, "integer"),
        (float, "float"),
        (str, "string"),
        (dict, "mapping"),
        ((list, tuple), "list"),
        (type(None), "null"),
    ):
        if isinstance(value, kind):
            return name
    return "value of another type"


def _scalar_problem(kind: str, value: object) -> bool:
    if kind in ("string", "duration") and not isinstance(value, str):
        return True
    if kind == "duration" and isinstance(value, str) and go_duration_error(value):
        return True
    if kind == "bool" and not isinstance(value, bool):
        return True
    if kind in _INT_BOUNDS:
        low, high = _INT_BOUNDS[kind]
        # YAML 110.0 reaches the kubelet as the JSON number 110, which an integer field takes; 1.5 it refuses.
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return True
        whole = isinstance(value, int) or value.is_integer()
        return not whole or not low <= value <= high
    if kind == "float64":
        return isinstance(value, bool) or not isinstance(value, (int, float))
    return False


def value_problem(kind: str, value: object) -> bool:
    """True when value is not something the kubelet decodes into a field of this kind (null aside)."""
    if value is None:
        return False
    if kind in ("string", "duration", "bool", "int32", "int64", "float64"):
        return _scalar_problem(kind, value)
    if kind in ("[]string", "[]int32", "[]object"):
        inner = {"[]string": "string", "[]int32": "int32", "[]object": "object"}[kind]
        return not isinstance(value, list) or any(value_problem(inner, item) for item in value if item is not None)
    if kind == "object":
        return not isinstance(value, dict)
    inner = {"quantities": "string", "map[string]string": "string", "map[string]bool": "bool", "map[string][]string": "[]string"}[kind]
    return not isinstance(value, dict) or any(not isinstance(key, str) or value_problem(inner, item) for key, item in value.items())


_GO_TYPES = {"quantities": "map[string]string", "duration": "metav1.Duration, a string", "object": "a struct", "[]object": "a list of structs"}
_MAP_VALUES = {"quantities": "string", "map[string]string": "string", "map[string]bool": "bool", "map[string][]string": "[]string"}


def _json_type(value: object) -> str:
    for kind, name in ((bool, "bool"), ((int, float), "number"), (str, "string"), ((list, tuple), "array"), (dict, "object")):
        if isinstance(value, kind):
            return name
    return "value"


def kubelet_decode_error(field_name: str, value: object, kind: str) -> str | None:
    """The error the kubelet's JSON decoding gives for value in a field (or map value, or list item) of Go type kind."""
    json_type = _json_type(value)
    if kind == "duration":
        if isinstance(value, str):
            return go_duration_error(value)
        return f"json: cannot unmarshal {json_type} into Go struct field KubeletConfiguration.{field_name} of type string"
    if kind in ("object", "[]object"):
        return None  # the Go type name of a struct is no help here
    shown = json_type
    if json_type == "number" and kind in _INT_BOUNDS:
        shown = f"number {value}"  # Go names the number it cannot fit in an integer type
    return f"json: cannot unmarshal {shown} into Go struct field KubeletConfiguration.{field_name} of type {kind}"


def _problem(where: str, path: str, value: object, kind: str, field_name: str) -> str:
    hint = ""
    if kind == "string" and FIELD_TYPES[field_name] == "quantities" and isinstance(value, (int, float)) and not isinstance(value, bool):
        hint = ': quote it, e.g. "1073741824" or "1Gi"'
    elif kind in _INT_BOUNDS and isinstance(value, str) and value.strip().lstrip("-").isdigit():
        hint = ": write it without quotes, as a YAML integer"
    elif kind == "bool" and isinstance(value, str):
        hint = ": write true or false without quotes"
    elif kind == "[]string" and isinstance(value, str):
        hint = ": write it as a list, e.g. [%s]" % value
    elif kind == "string" and isinstance(value, list):
        hint = ': write it as one string (a cpuset such as "0-1,32-33" for reservedSystemCPUs)'
    decode = kubelet_decode_error(field_name, value, kind)
    return "%s%s: %r (%s) is not %s (KubeletConfiguration v1beta1 %s is %s)%s%s" % (
        where,
        path,
        value,
        type_name(value),
        _HOW[kind],
        field_name,
        _GO_TYPES.get(FIELD_TYPES[field_name], FIELD_TYPES[field_name]),
        "; the kubelet refuses it: %s" % decode if decode else "",
        hint,
    )


def field_type_problems(config: Mapping[Any, Any], where: str = "", kubelet_version: str | None = None) -> list[str]:
    """Every field of config whose value the kubelet cannot decode into its KubeletConfiguration v1beta1 type; where
    prefixes each message (a file path or a variable name). A field kubelet_version does not know is never decoded, so
    never refused (fields_unknown_to). Ranges are the kubelet's validation (_kubelet_validation)."""
    unknown = fields_unknown_to(kubelet_version)
    problems = []
    for name, value in config.items():
        if not isinstance(name, str):
            problems.append(f"{where}{name!r}: a field name must be a string, got {type_name(name)}")
            continue
        kind = FIELD_TYPES.get(name)
        if kind is None or value is None or name in unknown:
            continue
        if kind in _MAP_VALUES and isinstance(value, dict):
            for key, item in value.items():
                if not isinstance(key, str):
                    problems.append(f"{where}{name}: the key {key!r} ({type_name(key)}) must be a string")
                elif value_problem(_MAP_VALUES[kind], item):
                    problems.append(_problem(where, f"{name}.{key}", item, _MAP_VALUES[kind], name))
            continue
        if value_problem(kind, value):
            problems.append(_problem(where, name, value, kind, name))
            continue
    return problems


# Kubelet flags for KubeletConfiguration fields: field -> (flag name without dashes, value kind).
# Flags verified in kubernetes/kubernetes cmd/kubelet/app/options/options.go AddKubeletConfigFlags at commit
# 6785e9ed401a526cfb4ae33d498b088e27237ad1 ("options.go" below) and in the generated flag reference
# kubernetes/website content/en/docs/reference/command-line-tools-reference/kubelet.md at commit
# 00cce4136eb6507551a29d29715ff10b463cc5ad (a v1.34-era build, "reference" below). Every one of these flags is
# marked deprecated in favour of the config file, but all still work.
#
# Value kinds, from the flag value types' Set/String (a later flag overrides the config file's value):
# - "scalar": one value (string, int32 or duration).
# - "map_comma_equals": "k=v,k=v" (cliflag.MapStringString, component-base/cli/flag/map_string_string.go at
#   e42a342439c18c70a7ed58f32edec834de9a1365). The first flag replaces the whole map (file value or default);
#   repeated flags add keys. Pairs split on ",", then on the first "="; spaces around keys and values are trimmed.
#   String() sorts the "k=v" pairs.
# - "map_comma_lt": "k<v,k<v" (cliflag.LangleSeparatedMapStringString; behaviour as in its test,
#   component-base/cli/flag/langle_separated_map_string_string_test.go at f77451e4e879907a21acdc62346dc4af0b875561):
#   same replace-then-accumulate rule, split on "," then on the first "<"; String() sorts the pairs.
# - "map_repeat_equals": one "k=v" per flag occurrence (cliflag.NewMapStringStringNoSplit: the value is not split
#   on commas, so "a=1,b=2" sets key "a" to "1,b=2"); repeat the flag for several options. The reference's
#   "<comma-separated 'key=value' pairs>" label is misleading for these flags.
# - "reserved_memory": "N:type=q[,type=q...][;N:type=q...]" (utilflag.ReservedMemoryVar, kubernetes
#   pkg/util/flag/flags.go at ddd467a0e8b7a211671e5ecef9fc892391e478c6): Set splits on ";" between NUMA nodes,
#   on ":" after the node id, on "," between limits and on "=" inside a limit; types are memory or
#   hugepages-<size>. The first flag replaces the list, repeated flags append. String() sorts limits and nodes
#   but joins nodes with ",", so it cannot be parsed back for more than one node. An older flags.go
#   (08694c0e844b9afad34a06b7ddc40c25ffc40181) took one node per flag and no ";".
# - "feature_gates": "Name=true,Name=false" (cliflag.MapStringBool, component-base/cli/flag/map_string_bool.go at
#   3971407c854bd4ccdd16b97d1913f711521c20ae): like map_comma_equals, values parsed by strconv.ParseBool.
# - "list_comma": "a,b" (pflag StringSlice, spf13/pflag string_slice.go at 04093e593fccaff6de4391cff719996a363213fd):
#   parsed as one CSV record; the first flag replaces the default, repeated flags append.
#
# Config-file only, hence absent here:
# - mergeDefaultEvictionSettings: no flag in options.go nor in the reference (whose flag list is alphabetical: nothing
#   between --memory-manager-policy and --minimum-container-ttl-duration). It came with kubernetes/kubernetes
#   PR #127577 (merged 2025-02), whose reviewed diff touches types.go and cmd/kubelet/app/server.go loadConfigFile
#   and adds no flag.
FLAG_FORMS: dict[str, tuple[str, str]] = {
    # options.go: fs.Var(cliflag.NewMapStringString(&c.KubeReserved), "kube-reserved", ...); reference: --kube-reserved
    "kubeReserved": ("kube-reserved", "map_comma_equals"),
    # options.go: fs.Var(cliflag.NewMapStringString(&c.SystemReserved), "system-reserved", ...); reference: --system-reserved
    "systemReserved": ("system-reserved", "map_comma_equals"),
    # options.go: fs.Var(cliflag.NewLangleSeparatedMapStringString(&c.EvictionHard), "eviction-hard", ...); reference: --eviction-hard
    "evictionHard": ("eviction-hard", "map_comma_lt"),
    # options.go: fs.Var(cliflag.NewLangleSeparatedMapStringString(&c.EvictionSoft), "eviction-soft", ...); reference: --eviction-soft
    "evictionSoft": ("eviction-soft", "map_comma_lt"),
    # options.go: fs.Var(cliflag.NewMapStringString(&c.EvictionSoftGracePeriod), "eviction-soft-grace-period", ...), e.g. memory.available=1m30s
    "evictionSoftGracePeriod": ("eviction-soft-grace-period", "map_comma_equals"),
    # options.go: fs.Var(cliflag.NewMapStringString(&c.EvictionMinimumReclaim), "eviction-minimum-reclaim", ...), e.g. imagefs.available=2Gi
    "evictionMinimumReclaim": ("eviction-minimum-reclaim", "map_comma_equals"),
    # options.go: fs.Var(&utilflag.ReservedMemoryVar{Value: &c.ReservedMemory}, "reserved-memory", ...); reference: --reserved-memory
    "reservedMemory": ("reserved-memory", "reserved_memory"),
    # options.go: fs.StringVar(&c.MemoryManagerPolicy, "memory-manager-policy", ...) ('None', 'Static')
    "memoryManagerPolicy": ("memory-manager-policy", "scalar"),
    # options.go: fs.StringVar(&c.CPUManagerPolicy, "cpu-manager-policy", ...) ('none', 'static')
    "cpuManagerPolicy": ("cpu-manager-policy", "scalar"),
    # options.go: fs.Var(cliflag.NewMapStringStringNoSplit(&c.CPUManagerPolicyOptions), "cpu-manager-policy-options", ...)
    "cpuManagerPolicyOptions": ("cpu-manager-policy-options", "map_repeat_equals"),
    # options.go: fs.DurationVar(&c.CPUManagerReconcilePeriod.Duration, "cpu-manager-reconcile-period", ...) (a Go duration, e.g. 10s)
    "cpuManagerReconcilePeriod": ("cpu-manager-reconcile-period", "scalar"),
    # options.go: fs.StringVar(&c.TopologyManagerPolicy, "topology-manager-policy", ...)
    "topologyManagerPolicy": ("topology-manager-policy", "scalar"),
    # options.go: fs.StringVar(&c.TopologyManagerScope, "topology-manager-scope", ...) ('container', 'pod')
    "topologyManagerScope": ("topology-manager-scope", "scalar"),
    # options.go: fs.Var(cliflag.NewMapStringStringNoSplit(&c.TopologyManagerPolicyOptions), "topology-manager-policy-options", ...)
    "topologyManagerPolicyOptions": ("topology-manager-policy-options", "map_repeat_equals"),
    # options.go: fs.StringVar(&c.ReservedSystemCPUs, "reserved-cpus", ...): the flag name differs from the field's; a cpuset list
    # such as "0-1,32-33" passed as one string
    "reservedSystemCPUs": ("reserved-cpus", "scalar"),
    # options.go: fs.Int32Var(&c.MaxPods, "max-pods", ...)
    "maxPods": ("max-pods", "scalar"),
    # options.go: fs.Var(cliflag.NewMapStringBool(&c.FeatureGates), "feature-gates", ...)
    "featureGates": ("feature-gates", "feature_gates"),
    # options.go: fs.StringSliceVar(&c.EnforceNodeAllocatable, "enforce-node-allocatable", ...)
    "enforceNodeAllocatable": ("enforce-node-allocatable", "list_comma"),
    # options.go: fs.StringVar(&c.KubeReservedCgroup, "kube-reserved-cgroup", ...)
    "kubeReservedCgroup": ("kube-reserved-cgroup", "scalar"),
    # options.go: fs.StringVar(&c.SystemReservedCgroup, "system-reserved-cgroup", ...)
    "systemReservedCgroup": ("system-reserved-cgroup", "scalar"),
}
