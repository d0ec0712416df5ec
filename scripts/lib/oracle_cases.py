# SPDX-License-Identifier: GPL-3.0-or-later
"""The differential corpus: single-fault cases, seeded random configurations, and how the kubelet's text is matched.

A case file (tests/oracle/cases/<name>.yml) is a YAML list of single-fault cases, each a JSON merge patch onto the
accepted baseline (tests/oracle/cases/baseline.yml):

    - id: image-gc-low-not-below-high          # unique across all case files, kebab-case
      rule: "validation.go: ..."               # where the rule is (upstream file and what it checks)
      set: {imageGCLowThresholdPercent: 90}    # merge patch onto the baseline (null removes a key)
      expect: refused                          # refused | accepted: what the real kubelet does
      # optional: numa: 10x2Gi | kubelet_version: "1.33" | flags: ["--foo=bar"] |
      #           oracle: "undecidable: <why, upstream link>"

random_cases(seed, count) draws multi-field configurations over the fields the collection knows
(plugins/plugin_utils/_kubelet_field_table.py FIELD_TYPES) from valid and boundary/invalid pools, deterministic per seed.
Every case and random configuration has a digest of what the kubelet reads (main file, NUMA spec, flags, version):
scripts/record-kubelet-verdicts records the real kubelet's verdict per digest, and the differential test compares the
engine with it. kubelet_messages() and engine_agrees() are the one matching rule (see their docstrings).

The standard library, PyYAML and the collection's FIELD_TYPES only: the recorder and the tests both import this file.
"""

from __future__ import annotations

import copy
import glob
import hashlib
import json
import os
import random
import re
import sys
from dataclasses import dataclass, field

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CASES_DIR = os.path.join(REPO, "tests", "oracle", "cases")
BASELINE_FILE = "baseline.yml"
DEFAULT_NUMA = "2x16Gi"
DEFAULT_KUBELET_VERSION = "1.36"
KUBELET_VERSIONS = ("1.31", "1.33", "1.36")
CASE_KEYS = ("id", "rule", "set", "expect", "numa", "kubelet_version", "flags", "oracle")
REQUIRED_KEYS = ("id", "rule", "set", "expect")
EXPECTATIONS = ("refused", "accepted")
UNDECIDABLE = "undecidable: "
_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_NUMA_SPEC = re.compile(r"^([1-9][0-9]*)x([1-9][0-9]*)(Ki|Mi|Gi)$")
_UNITS = {"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30}


class CaseError(ValueError):
    """The case files break the schema; problems lists every one."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Case:
    """One configuration for the kubelet: the baseline with `patch` merged in, on `numa` fake NUMA nodes."""

    id: str
    rule: str
    patch: dict
    expect: str | None  # refused | accepted; None for a random configuration (nobody predicted it)
    source: str  # the case file's name, or "random"
    numa: str = DEFAULT_NUMA
    kubelet_version: str = DEFAULT_KUBELET_VERSION
    flags: tuple = ()
    undecidable: str | None = None  # why the oracle cannot decide it (the text after "undecidable: ")
    config: dict = field(default_factory=dict, compare=False)  # the main config file the kubelet reads

    @property
    def numa_nodes(self) -> list[int]:
        """The NUMA node ids kubelet-check fakes for this case's spec."""
        return list(range(int(_NUMA_SPEC.match(self.numa).group(1))))

    def numa_topology(self, cpus: list[int]) -> list[dict]:
        """The NUMA nodes kubelet-check fakes on a machine with these CPU ids, as numa.kubelet.numa_facts reports
        nodes: the spec's size each, the CPUs dealt out in order, ceil(CPUs / nodes) to a node (build_fake_node_tree)."""
        match = _NUMA_SPEC.match(self.numa)
        count, size = int(match.group(1)), int(match.group(2)) * _UNITS[match.group(3)]
        per = max(1, -(-len(cpus) // count))
        return [{"id": node, "memory_bytes": size, "cpus": sorted(cpus)[node * per : (node + 1) * per]} for node in range(count)]

    def config_text(self) -> str:
        """The main config file as written for the kubelet (YAML, keys in the baseline's order)."""
        return yaml.safe_dump(self.config, sort_keys=False, default_flow_style=False)

    def digest(self) -> str:
        """What the kubelet reads, hashed: a changed case, baseline or generator gives another digest."""
        inputs = {"config": self.config, "numa": self.numa, "flags": list(self.flags), "kubelet_version": self.kubelet_version}
        return hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()[:32]


def is_recorded(case: Case, entry: dict | None) -> bool:
    """Whether a recorded verdict (kubelet_verdicts.json) is for this case as it stands: the same inputs, and not run
    or run as the case's `oracle` says (a case that became decidable, or undecidable, is recorded again)."""
    if not entry or entry.get("digest") != case.digest():
        return False
    if case.undecidable:
        return entry.get("verdict") == "UNDECIDABLE" and entry.get("text") == case.undecidable
    return entry.get("verdict") != "UNDECIDABLE"


def merge_patch(target, patch):
    """RFC 7386 JSON merge patch (maps merge key by key, anything else replaces, null deletes), as the kubelet
    merges a --config-dir drop-in; kept here rather than imported so the corpus does not depend on the engine."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def load_baseline(cases_dir: str = CASES_DIR) -> dict:
    with open(os.path.join(cases_dir, BASELINE_FILE), encoding="utf-8") as handle:
        baseline = yaml.safe_load(handle)
    if not isinstance(baseline, dict) or baseline.get("kind") != "KubeletConfiguration":
        raise CaseError([f"{BASELINE_FILE}: must be a KubeletConfiguration mapping"])
    return baseline


def _case_problems(where: str, item) -> list[str]:
    if not isinstance(item, dict):
        return [f"{where}: a case must be a mapping, got {type(item).__name__}"]
    problems = [f"{where}: unknown key {key!r} (known: {', '.join(CASE_KEYS)})" for key in item if key not in CASE_KEYS]
    problems += [f"{where}: missing {key!r}" for key in REQUIRED_KEYS if key not in item]
    checks = [
        ("id", lambda value: isinstance(value, str) and _ID.match(value), "must be a kebab-case string"),
        ("rule", lambda value: isinstance(value, str) and value.strip(), "must be a non-empty string"),
        ("set", lambda value: isinstance(value, dict), "must be a mapping (a merge patch onto the baseline)"),
        ("expect", lambda value: value in EXPECTATIONS, f"must be one of {', '.join(EXPECTATIONS)}"),
        ("numa", lambda value: isinstance(value, str) and _NUMA_SPEC.match(value), "must be a kubelet-check NUMA spec such as 4x8Gi"),
        ("kubelet_version", lambda value: value in KUBELET_VERSIONS, f"must be one of {', '.join(KUBELET_VERSIONS)} (a string)"),
        (
            "flags",
            lambda value: isinstance(value, list) and all(isinstance(flag, str) and flag.startswith("--") for flag in value),
            "must be a list of --flags",
        ),
        (
            "oracle",
            lambda value: isinstance(value, str) and value.startswith(UNDECIDABLE) and value[len(UNDECIDABLE) :].strip(),
            f"must be {UNDECIDABLE!r} and why",
        ),
    ]
    for key, valid, what in checks:
        if key in item and not valid(item[key]):
            problems.append(f"{where}: {key} {item[key]!r} {what}")
    return problems


def load_cases(cases_dir: str = CASES_DIR) -> list[Case]:
    """Every case of every case file, checked against the schema (all problems at once, as CaseError)."""
    baseline = load_baseline(cases_dir)
    cases, problems, seen = [], [], {}
    for path in sorted(glob.glob(os.path.join(cases_dir, "*.yml"))):
        name = os.path.basename(path)
        if name == BASELINE_FILE:
            continue
        with open(path, encoding="utf-8") as handle:
            items = yaml.safe_load(handle)
        if not isinstance(items, list):
            problems.append(f"{name}: must be a YAML list of cases")
            continue
        for index, item in enumerate(items):
            where = f"{name}[{index}]" + (f" ({item['id']})" if isinstance(item, dict) and isinstance(item.get("id"), str) else "")
            item_problems = _case_problems(where, item)
            if isinstance(item, dict) and isinstance(item.get("id"), str):
                if item["id"] in seen:
                    item_problems.append(f"{where}: id {item['id']!r} is also in {seen[item['id']]}")
                seen.setdefault(item["id"], name)
            problems += item_problems
            if item_problems:
                continue
            oracle = item.get("oracle")
            cases.append(
                Case(
                    id=item["id"],
                    rule=item["rule"],
                    patch=item["set"],
                    expect=item["expect"],
                    source=name,
                    numa=item.get("numa", DEFAULT_NUMA),
                    kubelet_version=item.get("kubelet_version", DEFAULT_KUBELET_VERSION),
                    flags=tuple(item.get("flags", ())),
                    undecidable=oracle[len(UNDECIDABLE) :].strip() if oracle else None,
                    config=merge_patch(baseline, item["set"]),
                )
            )
    if problems:
        raise CaseError(problems)
    return cases


# ------------------------------------------------------------------------------------------ random configurations
def _field_types() -> dict[str, str]:
    # The checkout seen as ansible_collections/numa/kubelet through its committed link (as the tests see it).
    collections = os.path.join(REPO, ".collections")
    if collections not in sys.path:
        sys.path.insert(0, collections)
    from ansible_collections.numa.kubelet.plugins.plugin_utils._kubelet_field_table import FIELD_TYPES

    return FIELD_TYPES


# Fields kubelet-check forces in its last drop-in (the oracle host is not a node): a value set here never reaches
# the kubelet's checks there, so the oracle cannot decide it and random configurations leave these fields alone.
ORACLE_FORCED = frozenset(
    [
        "containerRuntimeEndpoint",
        "imageServiceEndpoint",
        "cgroupDriver",
        "cgroupRoot",
        "failSwapOn",
        "failCgroupV1",
        "protectKernelDefaults",
        "enableServer",
        "address",
        "readOnlyPort",
        "healthzPort",
        "authentication",
        "authorization",
        "tlsCertFile",
        "tlsPrivateKeyFile",
        "serverTLSBootstrap",
        "rotateCertificates",
        "staticPodPath",
        "staticPodURL",
        "podLogsDir",
        "volumePluginDir",
        "resolvConf",
        "kubeletCgroups",
        "systemCgroups",
        "kubeReservedCgroup",
        "systemReservedCgroup",
        "shutdownGracePeriod",
        "shutdownGracePeriodCriticalPods",
    ]
)
# Fields whose verdict depends on this machine or the harness rather than on the config: runOnce changes how the
# kubelet runs (it exits after one sync), the static pod sources and the shutdown manager need a node, and the port
# is checked only with the server on (the harness turns it off).
HARNESS_DEPENDENT = frozenset({"runOnce", "staticPodURLHeader", "shutdownGracePeriodByPodPriority", "port"})
RANDOM_EXCLUDED = ORACLE_FORCED | HARNESS_DEPENDENT

# Values by Go kind: (valid, boundary or invalid). Wrong JSON types are refused when the file is decoded.
_KIND_POOLS: dict[str, tuple[list, list]] = {
    "bool": ([True, False], ["true"]),
    "int32": ([0, 1, 10], [-1, 2**31, "10"]),
    "int64": ([0, 1, 4096], [-1, "10"]),
    "float64": ([0.5, 1], ["0.5"]),
    "duration": (["10s", "1m30s"], ["10", "0s", "-1s", 10]),
    "[]string": ([[]], ["x"]),
}
# Field-specific values where the kind's pool says nothing about the rules (strings, maps, objects) or misses a bound.
_FIELD_POOLS: dict[str, tuple[list, list]] = {
    "apiVersion": (["kubelet.config.k8s.io/v1beta1"], ["kubelet.config.k8s.io/v1"]),
    "kind": (["KubeletConfiguration"], ["KubeletConfig"]),
    "imageGCHighThresholdPercent": ([85, 100, 90], [101, -1, 0, 50]),
    "imageGCLowThresholdPercent": ([80, 0, 84], [85, 90, 101, -1]),
    "imageMinimumGCAge": (["2m", "0s"], ["-1s"]),
    "imageMaximumGCAge": (["0s", "1h"], ["1m", "-1s"]),
    "nodeStatusMaxImages": ([-1, 0, 50], [-2]),
    "nodeLeaseDurationSeconds": ([1, 40], [0, -1]),
    "oomScoreAdj": ([-999, 0, 1000], [1001, -1001]),
    "maxPods": ([110, 0, 250], [-1]),
    "podsPerCore": ([0, 10], [-1]),
    "podPidsLimit": ([-1, 1024], ["1024"]),
    "maxOpenFiles": ([1000000], [-1]),
    "eventRecordQPS": ([0, 50], [-1]),
    "eventBurst": ([0, 100], [-1]),
    "kubeAPIQPS": ([0, 50], [-1]),
    "kubeAPIBurst": ([0, 100], [-1]),
    "registryPullQPS": ([0, 5], [-1]),
    "registryBurst": ([0, 10], [-1]),
    "iptablesMasqueradeBit": ([14, 0, 31], [32, -1]),
    "iptablesDropBit": ([15, 0, 31], [32, -1]),
    "containerLogMaxFiles": ([2, 5], [1, 0]),
    "containerLogMaxWorkers": ([1, 4], [0, -1]),
    "containerLogMaxSize": (["10Mi", "1Gi"], ["10Xi", "-1Mi"]),
    "containerLogMonitorInterval": (["10s", "3s"], ["2s", "0s"]),
    "maxParallelImagePulls": ([1, 5], [0, -1]),
    "serializeImagePulls": ([True, False], ["false"]),
    # Not false: validation_linux.go refuses it on cgroup v1 only, and the oracle host is cgroup v1.
    "singleProcessOOMKill": ([True], ["true"]),
    "cgroupsPerQOS": ([True], [False]),
    "cpuManagerPolicy": (["static", "none"], ["Static", "bogus"]),
    "cpuManagerPolicyOptions": (
        [{"full-pcpus-only": "true"}, {"full-pcpus-only": "1"}, {"distribute-cpus-across-numa": "false"}, {"strict-cpu-reservation": "true"}],
        [{"full-pcpus-only": "yes"}, {"align-by-socket": "true"}, {"no-such-option": "true"}],
    ),
    "cpuManagerReconcilePeriod": (["10s", "1s"], ["0s", "10"]),
    # Not "None": the baseline's reservedMemory under policy None is refused by the collection on purpose (the kubelet
    # ignores it; plugins/plugin_utils/_validation.py lists the checks the kubelet lacks).
    "memoryManagerPolicy": (["Static"], ["static", "none"]),
    "topologyManagerPolicy": (["single-numa-node", "restricted", "best-effort", "none"], ["Restricted", "numa"]),
    "topologyManagerScope": (["container", "pod"], ["node"]),
    "topologyManagerPolicyOptions": (
        [{"prefer-closest-numa-nodes": "true"}, {"max-allowable-numa-nodes": "8"}, {"max-allowable-numa-nodes": "16"}],
        [{"max-allowable-numa-nodes": "4"}, {"prefer-closest-numa-nodes": "yes"}, {"max-allowable-numa-nodes": "x"}, {"no-such-option": "true"}],
    ),
    "qosReserved": ([{}], [{"memory": "50"}, {"memory": "150%"}, {"cpu": "50%"}, {"memory": "50%"}]),
    "hairpinMode": (["promiscuous-bridge", "hairpin-veth", "none"], ["bogus"]),
    "contentType": (["application/vnd.kubernetes.protobuf", "application/json"], []),
    "evictionHard": (
        [{"memory.available": "100Mi", "nodefs.available": "10%"}, {"memory.available": "100Mi", "imagefs.available": "15%"}],
        [{"memory.available": "-1Mi"}, {"memory.available": "100Mi", "nodefs.available": "110%"}, {"memory.available": "100Mi", "bogus.available": "1"}],
    ),
    "evictionSoft": (
        [{}],
        [{"nodefs.available": "15%"}, {"nodefs.available": "bogus"}],
    ),
    "evictionSoftGracePeriod": ([{}], [{"nodefs.available": "1m"}, {"nodefs.available": "x"}]),
    "evictionPressureTransitionPeriod": (["5m", "30s"], ["-1s"]),
    "evictionMaxPodGracePeriod": ([0, 30], [-1]),
    "evictionMinimumReclaim": (
        [{"memory.available": "1Mi"}, {"nodefs.available": "5%"}],
        [{"memory.available": "-1Mi"}, {"nodefs.available": "-5%"}, {"memory.available": "x"}],
    ),
    "mergeDefaultEvictionSettings": ([False], [True]),
    # Gates v1.36 knows only: the oracle (an OpenShift build) tolerates unknown ones, which upstream refuses.
    "featureGates": (
        [{"TopologyManagerPolicyOptions": True}, {"CPUManagerPolicyAlphaOptions": True}, {"CPUManagerPolicyBetaOptions": False}],
        [{"TopologyManagerPolicyOptions": False}, {"NodeSwap": False}, {"GitRepoVolumeDriver": True}],
    ),
    "memorySwap": ([{"swapBehavior": "NoSwap"}], [{"swapBehavior": "bogus"}]),
    "configMapAndSecretChangeDetectionStrategy": (["Watch", "Cache", "Get"], ["watch"]),
    "systemReserved": ([{"cpu": "250m"}, {"pid": "100"}], [{"cpu": "-1"}, {"bogus": "1"}, {"hugepages-2Mi": "2Mi"}, {"memory": "1Gi"}]),
    "kubeReserved": ([{"cpu": "250m"}, {"ephemeral-storage": "1Gi"}], [{"cpu": "x"}, {"memory": "2Gi"}, {"memory": "-1Gi"}]),
    "reservedSystemCPUs": (["0"], ["0-1-2", "a", "1-0"]),
    "showHiddenMetricsForVersion": ([""], ["1.0", "bogus"]),
    "enforceNodeAllocatable": ([["pods"], ["none"]], [["pods", "foo"], ["none", "pods"]]),
    "allowedUnsafeSysctls": ([["net.core.somaxconn"], ["kernel.msg*"]], [["bogus"], ["kernel.*"]]),
    "providerID": (["aws:///us-east-1a/i-0123"], []),
    "podCIDR": (["10.244.0.0/24"], []),
    "clusterDomain": (["cluster.local"], []),
    "clusterDNS": ([["10.96.0.10"]], []),
    "healthzBindAddress": (["127.0.0.1"], []),
    "imagePullCredentialsVerificationPolicy": (["NeverVerify", "AlwaysVerify"], ["bogus"]),
    "preloadedImagesVerificationAllowlist": ([[]], [["docker.io/*"], ["x/*/y"]]),
    # Not logging.verbosity: kubelet-check passes --v, which replaces it.
    "logging": ([{"format": "text"}, {"format": "json"}], [{"format": "xml"}, {"flushFrequency": "-1s"}]),
    "enableSystemLogQuery": ([False], [True]),
    "crashLoopBackOff": (
        [{"maxContainerRestartPeriod": "300s"}, {"maxContainerRestartPeriod": "1s"}],
        [{"maxContainerRestartPeriod": "500s"}, {"maxContainerRestartPeriod": "0s"}],
    ),
    "memoryThrottlingFactor": ([0.9, 1], [0, 1.1, -0.5]),
    "memoryReservationPolicy": (["None"], ["bogus"]),
    "registerWithTaints": (
        [[{"key": "numa", "value": "x", "effect": "NoSchedule"}]],
        [[{"key": "numa", "effect": "Bogus"}], [{"key": "", "effect": "NoSchedule"}], [{"key": "a/b/c", "effect": "NoSchedule"}]],
    ),
    "tracing": ([{"samplingRatePerMillion": 0}], [{"samplingRatePerMillion": -1}, {"endpoint": "not a url"}]),
    "userNamespaces": ([{"idsPerPod": 65536}], [{"idsPerPod": 1}]),
    "tlsCipherSuites": ([["TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"], []], [["TLS_FOO"], ["tls_aes_128_gcm_sha256"]]),
    "tlsMinVersion": (["VersionTLS12", "VersionTLS13"], ["VersionTLS14", "tls1.2"]),
    "tlsCurvePreferences": ([[23, 29]], [[0], [1], [23, 23]]),
    "reservedMemory": (
        [[{"numaNode": 0, "limits": {"memory": "1636Mi"}}], [{"numaNode": 0, "limits": {"memory": "818Mi"}}, {"numaNode": 1, "limits": {"memory": "818Mi"}}]],
        [[{"numaNode": 0, "limits": {"memory": "818Mi"}}], [{"numaNode": 5, "limits": {"memory": "1636Mi"}}], [{"numaNode": 0, "limits": {"cpu": "1"}}]],
    ),
}


def field_pools(field_types: dict[str, str] | None = None) -> dict[str, tuple[list, list]]:
    """For every field random configurations may set: (valid values, boundary or invalid values)."""
    field_types = _field_types() if field_types is None else field_types
    pools = {}
    for name, kind in sorted(field_types.items()):
        if name in RANDOM_EXCLUDED:
            continue
        pool = _FIELD_POOLS.get(name) or _KIND_POOLS.get(kind)
        if pool and (pool[0] or pool[1]):
            pools[name] = pool
    return pools


def random_cases(seed: int, count: int, baseline: dict, field_types: dict[str, str] | None = None) -> list[Case]:
    """`count` configurations of 2 to 4 fields each on the baseline, the same for the same seed (random.Random)."""
    pools = field_pools(field_types)
    names = sorted(pools)
    rng = random.Random(seed)
    cases = []
    for index in range(count):
        patch = {}
        for name in rng.sample(names, rng.randint(2, 4)):
            valid, invalid = pools[name]
            side = invalid if invalid and (not valid or rng.random() < 0.35) else valid
            patch[name] = copy.deepcopy(rng.choice(side))
        cases.append(
            Case(
                id=f"random-{seed}-{index:03d}",
                rule="random: " + ", ".join(sorted(patch)),
                patch=patch,
                expect=None,
                source="random",
                config=merge_patch(baseline, patch),
            )
        )
    return cases


# ------------------------------------------------------------------------------------------ the matching rule
# The kubelet wraps its reason in the names of the steps that failed: before it `failed to run Kubelet: `,
# `failed to create kubelet: `, `failed to construct kubelet dependencies: `, `failed to validate kubelet
# configuration, error: `, `failed to load kubelet config file, path: P, error: failed to load Kubelet config file P,
# error failed to decode: ` (a file it cannot decode), `initialize logging: `, `new static policy error: ` (the CPU
# manager's constructor), `panic: failed to merge global and in-flight KubeletConfiguration while setting defaults,
# error: ` or `failed to set feature gates from initial flags-based config: ` (a feature gate it cannot set), and
# after it `, path: &TypeMeta{...}`. validation.go and the feature gates join several reasons as `[a, b]`
# (utilerrors.NewAggregate), each reason starting `invalid <what>: ` (`invalid configuration: `, `invalid taint: `),
# `<field path>: Invalid value: ` (a field.Error) or `<Gate> is enabled, but depends on `. The reasons, without those wrappers and without the
# `invalid configuration: ` prefix (which the kubelet puts on every validation.go reason), are the kubelet's own
# words (but for the machine's facts, below).
_WRAPPERS = (
    re.compile(r"^failed to run Kubelet: "),
    re.compile(r"^failed to create kubelet: "),
    re.compile(r"^failed to construct kubelet dependencies: "),
    re.compile(r"^failed to validate kubelet configuration, error: "),
    re.compile(r"^failed to load kubelet config file, path: [^,]*, error: failed to load Kubelet config file [^,]*, error failed to decode: "),
    re.compile(r"^initialize logging: "),
    re.compile(r"^new [a-z]+ policy error: "),
    re.compile(r"^panic: "),
    re.compile(r"^failed to merge global and in-flight KubeletConfiguration while setting defaults, error: "),
    re.compile(r"^failed to set feature gates from initial flags-based config: "),
)
_TYPEMETA = re.compile(r", path: &TypeMeta\{[^}]*\}$")
# Some reasons hold facts of the machine, not of the config: validateNodeAllocatable's capacity (`but capacity of
# {{<amount> <scale>} {<nil>}  BinarySI}`, the disk's size or the CPUs here) and the runtime's endpoint (kubelet-check's
# own containerd socket). Each such span is cut out and the words on both sides of it count.
_MACHINE_SPANS = re.compile(r'(?<=but capacity of )\{\{-?\d+ -?\d+\} \{<nil>\}\s+\w+\}|(?<=for endpoint )"[^"]*"')
_FIELD_ERRORS = "Invalid value|Required value|Unsupported value|Forbidden|Too long|Too many|Duplicate value|Not found|Internal error"
_AGGREGATE_SEPARATOR = re.compile(rf", (?=invalid [A-Za-z]+: |[A-Za-z][\w.\[\]-]*: (?:{_FIELD_ERRORS})|[A-Z][A-Za-z0-9]+ is enabled, but depends on )")
_INVALID = "invalid configuration: "


def kubelet_messages(text: str) -> list[str]:
    """The kubelet's reasons in its own words, without the wrappers it puts around them (see _WRAPPERS above)."""
    text = text.strip()
    changed = True
    while changed:
        before = text
        for wrapper in _WRAPPERS:
            text = wrapper.sub("", text)
        text = _TYPEMETA.sub("", text).strip()
        changed = text != before
    # klog quotes the error it logs and kubelet-check unquotes \" \n \t but not a backslash.
    text = text.replace("\\\\", "\\")
    parts = _AGGREGATE_SEPARATOR.split(text[1:-1]) if text.startswith("[") and text.endswith("]") else [text]
    return [words for part in parts for words in _MACHINE_SPANS.split(part.removeprefix(_INVALID)) if words]


def engine_agrees(verdict: str, kubelet_text: str, engine_errors: list[str]) -> str | None:
    """None when the engine agrees with the kubelet, else why not.

    ACCEPTED: the engine reports no error. REJECTED: every reason of kubelet_messages(kubelet_text) is a substring of
    one of the engine's errors (so the engine refuses, and with the kubelet's own words)."""
    if verdict == "ACCEPTED":
        return None if not engine_errors else "the kubelet accepts it, the engine refuses it"
    if not engine_errors:
        return "the kubelet refuses it, the engine accepts it"
    missing = [message for message in kubelet_messages(kubelet_text) if not any(message in error for error in engine_errors)]
    return None if not missing else "the engine refuses it, but no engine error holds the kubelet's words: " + " | ".join(missing)
