# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What numa.kubelet.render writes, started by the REAL kubelet v1.36.2 (kubelet-check), and by the stand-in.

1. playbooks/render.yml runs once over a generated fleet: kubeadm (plain main config; main config with a disk-only
   evictionHard, so the memory term is 0), RKE2 1.31 (kubelet-arg flags), RKE2 1.32 (drop-ins, no --config),
   nodeadm (base config.json + 40-nodeadm.conf), each on 1, 2 and 4 fake NUMA nodes, with the even, first,
   proportional and explicit splits, fractional and odd-byte reservations, EKS with and without a pinned
   kubeReserved. Each host's plan.json kubelet_inputs (with the files render wrote in place of our drop-in) go to
   kubelet-check, which must say ACCEPTED and reserve, per NUMA node, exactly the plan's reserved_memory bytes.
2. Configs the engine refuses (check_kubelet_config) must be refused by the kubelet too, with the kubelet's text
   inside ours.
3. The kubelet stand-in (tests/standins/image/kubelet-standin, only read here) must agree with the real kubelet on
   the same inputs: started or refused, and the same bytes per NUMA node.

No percentage memory.available threshold is used: kubelet-check computes one from this machine's MemTotal.
Each verdict is computed once per pytest run (cached by input in a directory shared by the xdist workers), so the
stand-in tests compare with the very run the oracle tests assert on. conftest.py decides whether anything runs.
"""

from __future__ import annotations

import contextlib
import copy
import fcntl
import hashlib
import json
import os
import re
import subprocess
import sys
import tomllib
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from pathlib import Path

import pytest
import yaml

from ansible_collections.numa.kubelet.plugins.plugin_utils._effective import effective_kubelet_config, merge_patch
from ansible_collections.numa.kubelet.plugins.plugin_utils._eks_al2023 import nodeconfig_parts
from ansible_collections.numa.kubelet.plugins.plugin_utils._eks_userdata import render_node_classes
from ansible_collections.numa.kubelet.plugins.plugin_utils._plan_inputs import load_mapping
from ansible_collections.numa.kubelet.plugins.plugin_utils._validation import check_kubelet_config
from ansible_collections.numa.kubelet.tests.unit.plugins.plugin_utils.bottlerocket_kubelet_config import karpenter_rewrite, template_kubelet_config
from ansible_collections.numa.kubelet.tests.unit.plugins.plugin_utils.test_yaml_text import TABS_THE_KUBELET_REFUSES, TABS_THE_KUBELET_TAKES

REPO = Path(__file__).resolve().parents[2]
ANSIBLE_PLAYBOOK = Path(sys.executable).parent / "ansible-playbook"
API = {"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration"}

# ------------------------------------------------------------------------------------------------ running kubelets
STANDIN = Path(__file__).resolve().parents[1] / "standins" / "image" / "kubelet-standin"
EMPTY_CONFIG = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
_SPEC = re.compile(r"^(\d+)x(\d+)(Ki|Mi|Gi)$")
_UNITS = {"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30}


def spec_nodes(spec):
    """'2x16Gi' -> (2, 17179869184): the fake NUMA nodes kubelet-check builds (no hugepage parts here)."""
    match = _SPEC.match(spec)
    if not match:
        raise ValueError(f"unsupported NUMA spec {spec!r} (use e.g. 2x16Gi)")
    return int(match.group(1)), int(match.group(2)) * _UNITS[match.group(3)]


@contextlib.contextmanager
def locked(path):
    """An exclusive lock shared by the xdist workers (fcntl, released when the block ends)."""
    with open(path, "a", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


# The kubelet's device manager listens on this fixed path, not under --root-dir (pluginapi.KubeletSocket), and
# clears the directory first: two kubelet-check runs at once (the xdist workers) race there and one fails with
# "listen unix /var/lib/kubelet/device-plugins/kubelet.sock: bind: address already in use". Each run gets its own
# tmpfs on that directory in a private mount namespace, so the workers stay parallel and nothing of it reaches the
# host. The directory itself is created as the kubelet would create it.
DEVICE_PLUGIN_DIR = "/var/lib/kubelet/device-plugins"


def with_private_device_plugin_dir(argv):
    """argv run in its own mount namespace with a private tmpfs on DEVICE_PLUGIN_DIR."""
    script = 'mkdir -p "$0" && mount -t tmpfs -o mode=0750,size=4m kubelet-check-device-plugins "$0" && exec "$@"'
    return ["unshare", "--mount", "--propagation", "private", "--", "/bin/sh", "-c", script, DEVICE_PLUGIN_DIR] + argv


@dataclass
class KubeletInputs:
    """What one kubelet reads: --config (text, or None when the kubelet gets no --config), drop-ins, flags."""

    spec: str
    main: str | None
    dropins: list = field(default_factory=list)  # [(file name, text)] in the order the kubelet reads them
    flags: list = field(default_factory=list)
    # kubelet-check reads the files with PyYAML when it can, which refuses tabs the kubelet takes: a text about tabs
    # goes to the kubelet unparsed (kubelet-check run by a Python without site-packages).
    unparsed: bool = False

    def key(self):
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()[:24]

    def describe(self):
        parts = [f"NUMA {self.spec}", "--config: %s" % ("(none)" if self.main is None else "\n" + self.main.rstrip())]
        parts += [f"drop-in {name}:\n{text.rstrip()}" for name, text in self.dropins]
        parts.append("flags: %s" % (" ".join(self.flags) or "(none)"))
        return "\n".join(parts)


@dataclass
class Verdict:
    """started (ACCEPTED) or not, per-NUMA-node memory reservation in bytes, and the kubelet's text."""

    kind: str  # ACCEPTED, REJECTED, HARNESS-ERROR (oracle) / started, refused (stand-in)
    text: str
    reserved: dict = field(default_factory=dict)  # {numa id: bytes of type memory}
    numa: int | None = None
    policy: str | None = None
    output: str = ""

    @property
    def started(self):
        return self.kind in ("ACCEPTED", "started")


def parse_oracle_output(output):
    """The last line of kubelet-check: ACCEPTED policy=P numa=N systemReserved=0:memory=B,... | REJECTED: | HARNESS-ERROR:."""
    lines = [line for line in output.splitlines() if line.strip()]
    last = lines[-1] if lines else ""
    if last.startswith("ACCEPTED "):
        fields = dict(item.split("=", 1) for item in last[len("ACCEPTED ") :].split())
        reserved = {}
        for part in fields.get("systemReserved", "-").split(","):
            match = re.match(r"^(\d+):([^=]+)=(\d+)$", part)
            if match and match.group(2) == "memory":
                reserved[int(match.group(1))] = int(match.group(3))
        return Verdict("ACCEPTED", last, reserved, int(fields.get("numa", 0)), fields.get("policy"), output)
    for kind in ("REJECTED", "HARNESS-ERROR"):
        if last.startswith(kind + ":"):
            return Verdict(kind, last[len(kind) + 1 :].strip(), output=output)
    return Verdict("HARNESS-ERROR", f"no verdict line in kubelet-check's output: {last!r}", output=output)


class Oracle:
    """Runs kubelet-check once per distinct input, sharing verdicts between the xdist workers."""

    def __init__(self, script, cache):
        self.script = script
        self.cache = cache

    def argv(self, inputs, work):
        """kubelet-check's command line; the files are written under work."""
        work.mkdir(parents=True, exist_ok=True)
        main = work / "main.yaml"
        main.write_text(EMPTY_CONFIG if inputs.main is None else inputs.main, encoding="utf-8")
        argv = ([sys.executable, "-S"] if inputs.unparsed else []) + [str(self.script), "--timeout", "90"]
        for index, (name, text) in enumerate(inputs.dropins):
            # One directory per drop-in: kubelet-check copies each under its base name, in the order given.
            path = work / ("d%02d" % index) / name
            path.parent.mkdir()
            path.write_text(text, encoding="utf-8")
            argv += ["--dropin", str(path)]
        argv += [str(main), inputs.spec]
        # kubelet-check always passes --config; a later empty --config= gives the kubelet none, as RKE2 runs it
        # (the kubelet then applies no default evictionHard to a main file that does not exist).
        flags = (["--config="] if inputs.main is None else []) + list(inputs.flags)
        return argv + (["--"] + flags if flags else [])

    def check(self, inputs):
        key = inputs.key()
        result = self.cache / (key + ".json")
        with locked(self.cache / (key + ".lock")):
            if result.exists():
                verdict = Verdict(**json.loads(result.read_text(encoding="utf-8")))
                verdict.reserved = {int(node): value for node, value in verdict.reserved.items()}  # JSON keys are strings
                return verdict
            argv = self.argv(inputs, self.cache / key)
            try:
                proc = subprocess.run(with_private_device_plugin_dir(argv), capture_output=True, text=True, timeout=180, check=False)
                output = proc.stdout + proc.stderr
            except (OSError, subprocess.TimeoutExpired) as exc:
                output = "HARNESS-ERROR: running %s failed: %s" % (argv[0], exc)
            verdict = parse_oracle_output(output)
            verdict.output = "$ %s\n%s" % (" ".join(argv), output)
            result.write_text(json.dumps(asdict(verdict)), encoding="utf-8")
            return verdict


def require_verdict(verdict, inputs):
    """A HARNESS-ERROR decides nothing: fail (never skip or pass) with what the harness said."""
    if verdict.kind == "HARNESS-ERROR":
        pytest.fail("kubelet-check could not decide (HARNESS-ERROR: %s)\n%s\n--- output\n%s" % (verdict.text, inputs.describe(), verdict.output), pytrace=False)
    return verdict


class Standin:
    """Runs tests/standins/image/kubelet-standin once on a fake machine tree (it is only read, never changed here)."""

    MAIN = "/etc/kubernetes/kubelet/config.yaml"
    CONFIG_DIR = "/etc/kubernetes/kubelet/conf.d"
    ROOT_DIR = "/var/lib/kubelet"

    def __init__(self, root):
        self.root = root

    def _write(self, logical, text):
        path = self.root / logical.lstrip("/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    def machine(self, spec):
        """Fake /proc/meminfo and /sys/devices/system/{node,cpu} for kubelet-check's NUMA spec (one CPU per node)."""
        count, size = spec_nodes(spec)
        kib = size // 1024
        self._write("/proc/meminfo", "MemTotal:       %d kB\nMemFree:        1000 kB\n" % (kib * count))
        online = "0-%d\n" % (count - 1) if count > 1 else "0\n"
        self._write("/sys/devices/system/cpu/online", online)
        self._write("/sys/devices/system/node/online", online)
        for node in range(count):
            base = "/sys/devices/system/node/node%d" % node
            self._write(base + "/meminfo", "Node %d MemTotal:       %d kB\nNode %d MemFree: 10 kB\n" % (node, kib, node))
            self._write(base + "/cpulist", "%d\n" % node)

    def run(self, inputs):
        self.machine(inputs.spec)
        argv = []
        if inputs.main is not None:
            self._write(self.MAIN, inputs.main)
            argv += ["--config", self.MAIN]
        if inputs.dropins:
            for index, (name, text) in enumerate(inputs.dropins):
                # Keep the given order whatever the names: the kubelet reads *.conf in lexical order.
                self._write("%s/%02d-%s" % (self.CONFIG_DIR, 10 + index, name), text)
            argv += ["--config-dir", self.CONFIG_DIR]
        argv += ["--root-dir", self.ROOT_DIR] + list(inputs.flags)
        env = dict(os.environ, NUMA_KUBELET_STANDIN_ROOT=str(self.root), NUMA_KUBELET_STANDIN_ONESHOT="1")
        proc = subprocess.run([sys.executable, str(STANDIN)] + argv, env=env, capture_output=True, text=True, timeout=60, check=False)
        log = self.root / "var/log/kubelet-standin/starts.jsonl"
        records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()] if log.exists() else []
        output = "$ kubelet-standin %s\nrc=%d\n%s%s" % (" ".join(argv), proc.returncode, proc.stdout, proc.stderr)
        if not records:
            return Verdict("no-record", "the stand-in wrote no start record", output=output)
        record = records[-1]
        reserved = {int(node): int((limits or {}).get("memory", 0)) for node, limits in (record.get("reserved_memory_bytes") or {}).items()}
        kind = "started" if proc.returncode == 0 and record.get("result") == "started" else "refused"
        return Verdict(
            kind,
            record.get("error") or "",
            reserved,
            len(record.get("numa_nodes") or {}),
            (record.get("effective_config") or {}).get("memoryManagerPolicy"),
            output,
        )


@pytest.fixture(scope="session")
def oracle(oracle_script_path, oracle_shared_dir):
    cache = oracle_shared_dir / "verdicts"
    cache.mkdir(exist_ok=True)
    return Oracle(oracle_script_path, cache)


@pytest.fixture
def standin(tmp_path):
    return Standin(tmp_path / "standin-root")


# ------------------------------------------------------------------------------------------------ the fleet
KUBEADM_MAIN = dict(
    API,
    **{
        "authentication": {"anonymous": {"enabled": False}, "webhook": {"enabled": True}, "x509": {"clientCAFile": "/etc/kubernetes/pki/ca.crt"}},
        "authorization": {"mode": "Webhook"},
        "cgroupDriver": "systemd",
        "clusterDNS": ["10.96.0.10"],
        "clusterDomain": "cluster.local",
        "rotateCertificates": True,
        "staticPodPath": "/etc/kubernetes/manifests",
    },
)
KUBEADM_MAIN_EVICTION = dict(KUBEADM_MAIN, evictionHard={"nodefs.available": "5%"})

STATIC = {"memoryManagerPolicy": "Static", "topologyManagerPolicy": "single-numa-node"}
INTENTS = {
    # 1Gi + 1.5Gi (fractional) + eviction
    "fractional": dict(STATIC, kubeReserved={"memory": "1Gi"}, systemReserved={"memory": "1.5Gi"}),
    # with the static CPU manager, which needs reserved CPU
    "cpu-static": dict(STATIC, cpuManagerPolicy="static", kubeReserved={"cpu": "500m", "memory": "1.5Gi"}, systemReserved={"cpu": "500m", "memory": "1Gi"}),
    "awkward": dict(STATIC, kubeReserved={"memory": "1.5Gi"}, systemReserved={"memory": "333Mi"}),
    "924Mi": dict(STATIC, kubeReserved={"memory": "512Mi"}, systemReserved={"memory": "412Mi"}),
    # a total in odd bytes: shares one byte apart
    "odd-bytes": dict(STATIC, kubeReserved={"memory": "1.5Gi"}, systemReserved={"memory": "1000000001"}),
    # EKS: kubeReserved from nodeadm's maxPods formula
    "eks": dict(STATIC),
    "eks-pinned": dict(STATIC, kubeReserved={"memory": "8500Mi"}),
    "eks-pinned-system": dict(STATIC, kubeReserved={"memory": "8500Mi"}, systemReserved={"memory": "1.5Gi"}),
    # bytes written as YAML integers, as many users do: the kubelet refuses numbers here, so render writes them as strings
    "int-bytes": dict(STATIC, kubeReserved={"memory": 1073741824}, evictionHard={"memory.available": 104857600}),
}


def _host(platform, spec, intent, split="even", cpus_per_node=2, **extra):
    return dict(platform=platform, spec=spec, intent=intent, split=split, cpus_per_node=cpus_per_node, **extra)


def _kubeadm(spec, intent, split="even", main=None):
    return _host("kubeadm", spec, intent, split, files={"/var/lib/kubelet/config.yaml": yaml.safe_dump(main or KUBEADM_MAIN, sort_keys=False)})


def _rke2(version, role, spec, intent, split="even"):
    return _host("rke2", spec, intent, split, rke2_version=version, rke2_role=role)


def _k3s(version, role, spec, intent, split="even"):
    return _host("k3s", spec, intent, split, k3s_version=version, k3s_role=role)


def _eks(instance_type, spec, intent, split="even", cpus_per_node=2):
    return _host("nodeadm", spec, intent, split, cpus_per_node=cpus_per_node, instance_type=instance_type)


HOSTS = {
    "kubeadm-plain-1n": _kubeadm("1x16Gi", "fractional"),
    "kubeadm-plain-2n": _kubeadm("2x16Gi", "cpu-static"),
    "kubeadm-plain-4n": _kubeadm("4x8Gi", "awkward", "proportional"),
    "kubeadm-map-2n": _kubeadm("2x16Gi", "fractional", {0: "1Gi", 1: "1636Mi"}),
    "kubeadm-evict-1n": _kubeadm("1x16Gi", "924Mi", "first", KUBEADM_MAIN_EVICTION),
    "kubeadm-evict-2n": _kubeadm("2x16Gi", "odd-bytes", "even", KUBEADM_MAIN_EVICTION),
    "kubeadm-evict-4n": _kubeadm("4x8Gi", "odd-bytes", "proportional", KUBEADM_MAIN_EVICTION),
    "kubeadm-int-bytes-2n": _kubeadm("2x16Gi", "int-bytes"),
    "eks-m5-int-bytes-2n": _eks("m5.large", "2x4Gi", "int-bytes", cpus_per_node=1),
    "rke2-131-1n": _rke2("v1.31.9+rke2r1", "agent", "1x16Gi", "cpu-static"),
    "rke2-131-2n": _rke2("v1.31.9+rke2r1", "server", "2x16Gi", "fractional", "proportional"),
    "rke2-131-4n": _rke2("v1.31.9+rke2r1", "agent", "4x8Gi", "odd-bytes", "first"),
    "rke2-132-1n": _rke2("v1.32.5+rke2r1", "server", "1x16Gi", "awkward", "first"),
    "rke2-132-2n": _rke2("v1.32.5+rke2r1", "agent", "2x16Gi", "fractional", {0: "1Gi", 1: "1536Mi"}),
    "rke2-132-4n": _rke2("v1.32.5+rke2r1", "server", "4x8Gi", "cpu-static"),
    # k3s runs RKE2's agent code under its own names: kubelet-arg+ items before 1.32, a drop-in after 00-k3s-defaults.conf from 1.32.
    "k3s-131-2n": _k3s("v1.31.9+k3s1", "agent", "2x16Gi", "awkward", "proportional"),
    "k3s-132-1n": _k3s("v1.32.5+k3s1", "server", "1x16Gi", "odd-bytes"),
    "k3s-133-4n": _k3s("v1.33.1+k3s1", "agent", "4x8Gi", "fractional", "first"),
    "eks-m5-1n": _eks("m5.large", "1x8Gi", "eks", cpus_per_node=2),
    "eks-m5-2n": _eks("m5.large", "2x4Gi", "eks", "proportional", cpus_per_node=1),
    "eks-p4d-1n": _eks("p4d.24xlarge", "1x16Gi", "eks-pinned-system", "first", cpus_per_node=96),
    "eks-p4d-2n": _eks("p4d.24xlarge", "2x16Gi", "eks", cpus_per_node=48),
    "eks-p4d-4n": _eks("p4d.24xlarge", "4x16Gi", "eks-pinned", cpus_per_node=24),
}

# Where the kubelet stand-in disagrees with the real kubelet, the case is an xfail with the reason: {case id: reason}.
# None: the stand-in gives a kubelet without --config (RKE2 and k3s 1.32 and later) no default evictionHard, as the
# real kubelet does.
STANDIN_KNOWN_DISAGREEMENTS = {}


def inventory_for(hosts):
    """An inventory where every host is planned offline from kubelet_numa_topology (no connection)."""
    entries = {}
    for name, host in hosts.items():
        count, size = spec_nodes(host["spec"])
        per = host["cpus_per_node"]
        variables = {
            "kubelet_numa_platform": host["platform"],
            "kubelet_numa_config": INTENTS[host["intent"]],
            "kubelet_numa_reserved_memory_split": host["split"],
            "kubelet_numa_topology": {
                "numa_nodes": [{"id": node, "memory_bytes": size, "cpus": list(range(node * per, (node + 1) * per))} for node in range(count)],
                "numa_memory_capacity_bytes": count * size,
            },
        }
        if host.get("files"):
            variables["kubelet_numa_node_files"] = host["files"]
        for key in ("rke2_version", "rke2_role", "k3s_version", "k3s_role", "instance_type"):
            if key in host:
                variables["kubelet_numa_" + key] = host[key]
        entries[name] = variables
    return {"all": {"hosts": entries}}


class Rendered:
    def __init__(self, directory, log):
        self.directory = directory
        self.log = log

    def plan(self, name):
        path = self.directory / name / "plan.json"
        if not path.exists():
            pytest.fail(f"render.yml rendered nothing for {name} (its plan failed?)\n{self.log}", pytrace=False)
        return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def rendered(oracle_shared_dir, collections_root):
    """playbooks/render.yml, run ONCE for every host (the first xdist worker renders, the others wait and read)."""
    output = oracle_shared_dir / "render"
    log_path = oracle_shared_dir / "render.log"
    with locked(oracle_shared_dir / "render.lock"):
        if not log_path.exists():
            inventory = oracle_shared_dir / "inventory.yml"
            inventory.write_text(yaml.safe_dump(inventory_for(HOSTS), sort_keys=False), encoding="utf-8")
            env = {
                "ANSIBLE_COLLECTIONS_PATH": str(collections_root),
                "ANSIBLE_HOME": str(oracle_shared_dir / "ansible-home"),
                "ANSIBLE_LOCAL_TEMP": str(oracle_shared_dir / "ansible-tmp"),
                "ANSIBLE_NOCOLOR": "1",
                "ANSIBLE_LOCALHOST_WARNING": "false",
                "ANSIBLE_INVENTORY_UNPARSED_WARNING": "false",
            }
            command = [str(ANSIBLE_PLAYBOOK), "-i", str(inventory), "-e", f"kubelet_numa_render_dir={output}", str(REPO / "playbooks" / "render.yml")]
            proc = subprocess.run(command, env=dict(os.environ, **env), cwd=str(oracle_shared_dir), capture_output=True, text=True, timeout=600, check=False)
            log_path.write_text("$ %s\nrc=%d\n%s\n%s" % (" ".join(command), proc.returncode, proc.stdout, proc.stderr), encoding="utf-8")
    return Rendered(output, log_path.read_text(encoding="utf-8"))


# ------------------------------------------------------------------------------------------------ plan -> kubelet inputs
def _yaml(document):
    return yaml.safe_dump(document, sort_keys=False)


def inputs_from_plan(name, plan, rendered):
    """kubelet-check's inputs from plan.json's kubelet_inputs; files render wrote are used as written (and must match)."""
    host = HOSTS[name]
    host_dir = rendered.directory / name
    given = plan["kubelet_inputs"]
    main = None
    if given["config"] is not None:
        node_text = (host.get("files") or {}).get(given["config"]["path"])
        if node_text is not None:
            assert yaml.safe_load(node_text) == given["config"]["content"], "%s: kubelet_inputs.config is not the node's %s" % (name, given["config"]["path"])
        main = node_text if node_text is not None else _yaml(given["config"]["content"])
    dropins = []
    for dropin in given["dropins"]:
        written = host_dir / dropin["path"].lstrip("/")
        if written.exists():
            text = written.read_text(encoding="utf-8")
            assert yaml.safe_load(text) == dropin["content"], "%s: render wrote %s, which differs from plan.json's kubelet_inputs" % (name, dropin["path"])
        else:
            text = _yaml(dropin["content"])
        dropins.append((Path(dropin["path"]).name, text))
    _check_platform_files(name, plan, given, host_dir)
    return KubeletInputs(host["spec"], main, dropins, list(given["flags"]))


def _check_platform_files(name, plan, given, host_dir):
    """What render wrote for the platform is what kubelet_inputs says the kubelet reads."""
    host = HOSTS[name]
    ours = [path for path in plan["files"] if path.endswith("/50-numa-kubelet.yaml")]
    if host["platform"] in ("rke2", "k3s") and given["config"] is None and not given["dropins"]:
        document = yaml.safe_load((host_dir / ours[0].lstrip("/")).read_text(encoding="utf-8"))
        missing = ["--" + item for item in document["kubelet-arg+"] if "--" + item not in given["flags"]]
        assert not missing, "%s: kubelet-arg+ items %s of %s are not among the kubelet's flags %s" % (name, missing, ours[0], given["flags"])
    if host["platform"] == "nodeadm":
        document = yaml.safe_load((host_dir / ours[0].lstrip("/")).read_text(encoding="utf-8"))
        settings = document["spec"]["kubelet"]["config"]
        dropin = given["dropins"][-1]["content"]
        assert {key: dropin.get(key) for key in settings} == settings, "%s: 40-nodeadm.conf does not carry the NodeConfig %s" % (name, ours[0])


_QUANTITY = re.compile(r"^([0-9]+)(?:\.([0-9]*))?(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?$")
_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL = {None: 0, "n": -9, "u": -6, "m": -3, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}


def quantity_bytes(text):
    """A plan's limit in bytes (an independent parser: integer mantissa or decimal fraction, SI or binary suffix)."""
    match = _QUANTITY.match(str(text))
    assert match, f"unexpected quantity {text!r} in the plan"
    value = Fraction(match.group(1) + ("." + match.group(2) if match.group(2) else ""))
    suffix = match.group(3)
    value *= 2 ** _BINARY[suffix] if suffix in _BINARY else Fraction(10) ** _DECIMAL[suffix]
    assert value.denominator == 1, f"{text!r} is not a whole number of bytes"
    return int(value)


def kubelet_int64_ok(text):
    """Whether Quantity.AsInt64 succeeds on resource.ParseQuantity(text): only the int64 fast path keeps an int64.

    kubelet-check's own last drop-in makes the kubelet re-marshal the config, which canonicalizes every quantity (a
    written 5.09765625Gi becomes 5220Mi and is accepted there, refused on a node where it sits in the last layer), so
    the oracle cannot see this rule for config files; it is checked here from ParseQuantity's code instead.
    """
    match = _QUANTITY.match(str(text))
    if not match:
        return False
    num, denom, suffix = match.group(1).lstrip("0") or "0", match.group(2) or "", match.group(3)
    if suffix in _BINARY:
        exponent = _BINARY[suffix]
        if denom or 15 - len(num) - int(exponent * 3 / 10) - 1 < 0:
            return False
        return int(num) << exponent < 2**63
    if 18 - (len(num) + len(denom)) < 0 or _DECIMAL[suffix] - len(denom) < 0:
        return False
    return int(num + denom) * 10 ** (_DECIMAL[suffix] - len(denom)) < 2**63


def plan_bytes(plan):
    shares = {node: 0 for node in plan["numa_nodes"]}
    for item in plan["reserved_memory"]:
        assert set(item["limits"]) == {"memory"}, f"the plan reserves more than memory: {item!r}"
        shares[item["numaNode"]] += quantity_bytes(item["limits"]["memory"])
    return shares


def filled(reserved, count):
    return {node: reserved.get(node, 0) for node in range(count)}


def _explain(name, plan, inputs, verdict):
    return "host %s (%s): plan reserved_memory %s\n--- kubelet inputs\n%s\n--- kubelet-check\n%s" % (
        name,
        plan["platform"],
        json.dumps(plan["reserved_memory"]),
        inputs.describe(),
        verdict.output,
    )


# ------------------------------------------------------------------------------------------------ 1. accepted
@pytest.mark.parametrize("name", sorted(HOSTS))
def test_real_kubelet_accepts_what_render_writes(name, rendered, oracle):
    plan = rendered.plan(name)
    count, _size = spec_nodes(HOSTS[name]["spec"])
    assert plan["numa_nodes"] == list(range(count))
    inputs = inputs_from_plan(name, plan, rendered)
    verdict = require_verdict(oracle.check(inputs), inputs)
    assert verdict.kind == "ACCEPTED", f"BUG: the real kubelet REFUSES what numa.kubelet writes: {verdict.text}\n{_explain(name, plan, inputs, verdict)}"
    assert (verdict.policy, verdict.numa) == ("Static", count), _explain(name, plan, inputs, verdict)
    assert filled(verdict.reserved, count) == plan_bytes(plan), "per-NUMA reservation differs from the plan\n" + _explain(name, plan, inputs, verdict)
    not_int64 = [item["limits"]["memory"] for item in plan["reserved_memory"] if not kubelet_int64_ok(item["limits"]["memory"])]
    assert not not_int64, f"limits the kubelet cannot convert to int64 on a node: {not_int64}\n{_explain(name, plan, inputs, verdict)}"


def test_rke2_dropin_layout_depends_on_having_no_config_file(rendered, oracle):
    """RKE2 >= 1.32 gives the kubelet no --config: its memory term is 0. The same drop-ins over an empty main file get
    the default evictionHard (100Mi); engine and kubelet agree on both, so the --config= above is not a shortcut."""
    name = "rke2-132-2n"
    plan = rendered.plan(name)
    inputs = inputs_from_plan(name, plan, rendered)
    with_file = KubeletInputs(inputs.spec, EMPTY_CONFIG, inputs.dropins, inputs.flags)
    verdict = require_verdict(oracle.check(with_file), with_file)
    needed = 'is not equal to the value "2660Mi" determined by Node Allocatable feature'
    assert verdict.kind == "REJECTED" and needed in verdict.text, verdict.output
    engine = effective_kubelet_config(dict(API), [yaml.safe_load(text) for _name, text in inputs.dropins], inputs.flags)
    assert any(needed in error for error in check_kubelet_config(engine, plan["numa_nodes"]).errors)


# ------------------------------------------------------------------------------------------------ 1b. EKS user data
def _eks_topology(spec, cpus_per_node):
    count, size = spec_nodes(spec)
    return {
        "numa_nodes": [{"id": node, "memory_bytes": size, "cpus": list(range(node * cpus_per_node, (node + 1) * cpus_per_node))} for node in range(count)],
        "numa_memory_capacity_bytes": count * size,
    }


# A few node classes of numa.kubelet.eks_userdata: {id: (NUMA spec, node class without name/topology)}.
KARPENTER_SPEC = {
    "role": "KarpenterNodeRole",
    "amiSelectorTerms": [{"alias": "al2023@latest"}],
    "subnetSelectorTerms": [{"id": "subnet-1"}],
    "securityGroupSelectorTerms": [{"id": "sg-1"}],
}
EKS_CLASSES = {
    # A managed node group's launch template: its own part brings the cluster.
    "al2023-m5-formula": ("2x16Gi", {"instance_type": "m5.large", "intent": STATIC, "cluster_in_another_part": True}),
    # Karpenter's spec.kubelet wins over the user data: reserve for 1Gi + 512Mi + 300Mi, not for
    # nodeadm's formula (m5.4xlarge: maxPods 234, 2829Mi + 100Mi).
    "al2023-karpenter-wins": (
        "2x16Gi",
        {
            "instance_type": "m5.4xlarge",
            "intent": STATIC,
            "karpenter": {
                "spec": KARPENTER_SPEC,
                "kubelet": {
                    "kubeReserved": {"cpu": "200m", "memory": "1Gi"},
                    "systemReserved": {"memory": "512Mi"},
                    "evictionHard": {"memory.available": "300Mi"},
                },
            },
        },
    ),
    "al2-pinned": (
        "2x16Gi",
        {
            "ami_family": "AL2",
            "instance_type": "p4d.24xlarge",
            "intent": dict(STATIC, kubeReserved={"memory": "8500Mi"}, evictionHard={"memory.available": "200Mi"}),
        },
    ),
}


def eks_inputs(case):
    """kubelet-check's inputs as the node would have them, rebuilt from the rendered files, not from the plan.

    AL2023: nodeadm's base config.json, then the drop-in it writes: the user data's NodeConfig part merged with
    the EC2NodeClass's spec.kubelet (Karpenter's part) last. AL2: bootstrap.sh's kubelet-config.json, then
    KUBELET_EXTRA_ARGS as systemd hands it over ('%%' resolved to '%', split on whitespace).
    """
    spec, node_class = EKS_CLASSES[case]
    rendered = render_node_classes([dict(copy.deepcopy(node_class), name=case, topology=_eks_topology(spec, 2))])
    details = rendered["classes"][case]
    if details["ami_family"] == "AL2":
        words = details["kubelet_extra_args"].replace("%%", "%").split()
        return KubeletInputs(spec, _yaml(details["base_config"]), [], words), details
    part = nodeconfig_parts(rendered["files"][f"{case}.user-data.mime"])[0]["spec"]["kubelet"]["config"]
    ec2nodeclass = rendered["files"].get(f"{case}.ec2nodeclass.yaml")
    dropin = merge_patch(part, yaml.safe_load(ec2nodeclass)["spec"]["kubelet"] if ec2nodeclass else {})
    return KubeletInputs(spec, _yaml(details["kubelet_inputs"]["config"]["content"]), [("40-nodeadm.conf", _yaml(dict(API, **dropin)))]), details


# Bottlerocket classes: {id: (NUMA spec, node class without name/topology)}; Karpenter classes carry version 1.15.0.
BOTTLEROCKET_SPEC = dict(KARPENTER_SPEC, amiSelectorTerms=[{"alias": "bottlerocket@latest"}])
BOTTLEROCKET_CLASSES = {
    "bottlerocket-formula": ("2x16Gi", {"instance_type": "m5.large", "intent": STATIC, "karpenter": {"spec": BOTTLEROCKET_SPEC, "version": "1.15.0"}}),
    # spec.kubelet's maps replace the settings whole; the static CPU manager and the pod scope ride along
    "bottlerocket-karpenter-maps": (
        "2x16Gi",
        {
            "instance_type": "m5.4xlarge",
            "intent": dict(STATIC, topologyManagerScope="pod", cpuManagerPolicy="static"),
            "karpenter": {
                "spec": BOTTLEROCKET_SPEC,
                "version": "1.15.0",
                "kubelet": {
                    "kubeReserved": {"cpu": "200m", "memory": "1Gi"},
                    "systemReserved": {"memory": "512Mi"},
                    "evictionHard": {"memory.available": "300Mi", "nodefs.available": "10%"},
                },
            },
        },
    ),
    # a launch template (the cluster in the settings), four NUMA nodes, the proportional split
    "bottlerocket-launch-template-4n": (
        "4x8Gi",
        {
            "instance_type": "p4d.24xlarge",
            "intent": dict(STATIC, systemReserved={"memory": "1.5Gi"}),
            "split": "proportional",
            "cluster": {"name": "my-cluster", "apiServerEndpoint": "https://example.com", "certificateAuthority": "Q0E="},
        },
    ),
}


def bottlerocket_inputs(case):
    """kubelet-check's inputs as a Bottlerocket node renders them from the files: the user data (rewritten by Karpenter
    with spec.kubelet and max-pods for a Karpenter class), through the re-stated kubelet-config template."""
    spec, node_class = BOTTLEROCKET_CLASSES[case]
    node_class = dict(copy.deepcopy(node_class), name=case, ami_family="Bottlerocket", topology=_eks_topology(spec, 2))
    rendered = render_node_classes([node_class])
    details = rendered["classes"][case]
    user_data = rendered["files"][f"{case}.user-data.toml"]
    ec2nodeclass = rendered["files"].get(f"{case}.ec2nodeclass.yaml")
    if ec2nodeclass:
        kubernetes = karpenter_rewrite(yaml.safe_load(ec2nodeclass)["spec"]["userData"], yaml.safe_load(ec2nodeclass)["spec"]["kubelet"], details["max_pods"])
    else:  # pluto sets max-pods at boot; the totals do not depend on it (kube-reserved memory is written)
        kubernetes = dict(tomllib.loads(user_data)["settings"]["kubernetes"], **{"max-pods": details["max_pods"]})
    count, _size = spec_nodes(spec)
    return KubeletInputs(spec, template_kubelet_config(kubernetes, vcpus=2 * count)), details


@pytest.mark.parametrize("case", sorted(BOTTLEROCKET_CLASSES))
def test_real_kubelet_accepts_bottlerocket_settings(case, oracle):
    inputs, details = bottlerocket_inputs(case)
    verdict = require_verdict(oracle.check(inputs), inputs)
    count, _size = spec_nodes(inputs.spec)
    explain = "%s: reserved_memory %s\n%s\n%s" % (case, json.dumps(details["reserved_memory"]), inputs.describe(), verdict.output)
    assert verdict.kind == "ACCEPTED", "BUG: the real kubelet REFUSES the Bottlerocket settings: %s\n%s" % (verdict.text, explain)
    assert (verdict.policy, verdict.numa) == ("Static", count), explain
    assert filled(verdict.reserved, count) == plan_bytes(dict(details, numa_nodes=list(range(count)))), explain


@pytest.mark.parametrize("case", sorted(EKS_CLASSES))
def test_real_kubelet_accepts_eks_userdata(case, oracle):
    inputs, details = eks_inputs(case)
    verdict = require_verdict(oracle.check(inputs), inputs)
    count, _size = spec_nodes(inputs.spec)
    explain = "%s: reserved_memory %s\n%s\n%s" % (case, json.dumps(details["reserved_memory"]), inputs.describe(), verdict.output)
    assert verdict.kind == "ACCEPTED", "BUG: the real kubelet REFUSES the EKS user data: %s\n%s" % (verdict.text, explain)
    assert (verdict.policy, verdict.numa) == ("Static", count), explain
    planned = {node: 0 for node in range(count)}
    for item in details["reserved_memory"]:
        planned[item["numaNode"]] += quantity_bytes(item["limits"]["memory"])
    assert filled(verdict.reserved, count) == planned, explain
    assert sum(planned.values()) == quantity_bytes(details["reservation"]), explain


# ------------------------------------------------------------------------------------------------ 2. refused
BASE = dict(API, memoryManagerPolicy="Static", kubeReserved={"memory": "512Mi"}, systemReserved={"memory": "412Mi"}, evictionHard={"memory.available": "100Mi"})


def _reserved(*items):
    return [{"numaNode": node, "limits": limits} for node, limits in items]


REFUSALS = {
    "sum-one-byte-off": (
        dict(BASE, reservedMemory=_reserved((0, {"memory": "512Mi"}), (1, {"memory": "536870911"}))),
        'the total amount "1073741823" of type "memory" is not equal to the value "1Gi" determined by Node Allocatable feature',
    ),
    "policy-lowercase-static": (
        dict(BASE, memoryManagerPolicy="static", reservedMemory=_reserved((0, {"memory": "512Mi"}), (1, {"memory": "512Mi"}))),
        'unknown policy: "static"',
    ),
    "zero-limit": (
        dict(BASE, reservedMemory=_reserved((0, {"memory": "1Gi"}), (1, {"memory": "0"}))),
        'reserved memory may not be zero for NUMA node 1 and resource "memory"',
    ),
    "duplicate-numa-entry": (
        dict(BASE, reservedMemory=_reserved((0, {"memory": "512Mi"}), (0, {"memory": "512Mi"}))),
        'the reserved memory has a duplicate value for NUMA node 0 and resource "memory"',
    ),
    # 5Gi + 100Mi == 5.09765625Gi exactly, but the limit is no int64. Given to the kubelet as flags: in a config file
    # kubelet-check's own drop-in would canonicalize it (see kubelet_int64_ok).
    "non-int64-limit": (
        dict(
            API,
            memoryManagerPolicy="Static",
            kubeReserved={"memory": "5Gi"},
            evictionHard={"memory.available": "100Mi"},
            reservedMemory=_reserved((0, {"memory": "5.09765625Gi"})),
        ),
        "could not covert a variable of type Quantity to int64",
    ),
    "numa-id-missing": (
        dict(BASE, reservedMemory=_reserved((0, {"memory": "512Mi"}), (2, {"memory": "512Mi"}))),
        "the reserved memory configuration references a NUMA node 2 that does not exist on this machine",
    ),
    "hugepages-2Mi": (
        dict(BASE, reservedMemory=_reserved((0, {"memory": "512Mi", "hugepages-2Mi": "2Mi"}), (1, {"memory": "512Mi"}))),
        'the total amount "2Mi" of type "hugepages-2Mi" is not equal to the value "0" determined by Node Allocatable feature',
    ),
    # kubeReserved 512Mi + systemReserved 412Mi with evictionHard lacking memory.available: 924Mi, not 1Gi
    "partial-evictionhard": (
        dict(BASE, evictionHard={"nodefs.available": "10%"}, reservedMemory=_reserved((0, {"memory": "1Gi"}))),
        'is not equal to the value "924Mi" determined by Node Allocatable feature',
    ),
    "nothing-reserved": (
        dict(API, memoryManagerPolicy="Static", evictionHard={"nodefs.available": "10%"}),
        "[memorymanager] you should specify the system reserved memory",
    ),
}
REFUSAL_SPEC = "2x16Gi"
AS_FLAGS = {
    "non-int64-limit": [
        "--memory-manager-policy=Static",
        "--kube-reserved=memory=5Gi",
        "--eviction-hard=memory.available<100Mi",
        "--reserved-memory=0:memory=5.09765625Gi",
    ]
}
_KUBELET_PREFIXES = ("failed to run Kubelet: ", "failed to validate kubelet configuration, error: ")


def refusal_inputs(case):
    config, _phrase = REFUSALS[case]
    if case in AS_FLAGS:
        return KubeletInputs(REFUSAL_SPEC, EMPTY_CONFIG, [], AS_FLAGS[case])
    return KubeletInputs(REFUSAL_SPEC, _yaml(config))


def kubelet_message(text):
    """The kubelet's own error without the wrapping it adds around it."""
    for prefix in _KUBELET_PREFIXES:
        if text.startswith(prefix):
            text = text[len(prefix) :]
    return re.sub(r", path: &TypeMeta\{.*\}$", "", text)


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_engine_refuses_only_what_the_real_kubelet_refuses(case, oracle):
    config, phrase = REFUSALS[case]
    count, _size = spec_nodes(REFUSAL_SPEC)
    errors = check_kubelet_config(config, list(range(count))).errors
    assert errors, f"the engine accepts {case}"
    inputs = refusal_inputs(case)
    verdict = require_verdict(oracle.check(inputs), inputs)
    assert verdict.kind == "REJECTED", f"the engine refuses {case} ({errors}) but the real kubelet starts with it\n{verdict.output}"
    assert phrase in verdict.text, verdict.output
    ours = "\n".join(errors)
    assert phrase in ours, f"the kubelet's phrase {phrase!r} is not in the engine's errors {errors}"
    assert kubelet_message(verdict.text) in ours, f"the kubelet's message {kubelet_message(verdict.text)!r} is not in the engine's errors {errors}"


# Fields of the wrong type or range: the kubelet cannot decode (or validate) them; the engine names the field and
# quotes the kubelet's own error, for a config file and for kubelet_numa_config alike.
VALID = dict(BASE, reservedMemory=_reserved((0, {"memory": "512Mi"}), (1, {"memory": "512Mi"})))
TYPE_REFUSALS = {
    "healthzPort-string": {"healthzPort": "10248"},
    "featureGates-yes": {"featureGates": {"MemoryQoS": "yes"}},
    "clusterDNS-string": {"clusterDNS": "10.0.0.10"},
    "reservedSystemCPUs-list": {"reservedSystemCPUs": [0, 1]},
    "kubeReserved-number": {"kubeReserved": {"memory": 536870912}},
    "evictionHard-number": {"evictionHard": {"memory.available": 104857600}},
    "maxPods-negative": {"maxPods": -1},
    "maxPods-beyond-int32": {"maxPods": 2**40},
    "maxPods-fraction": {"maxPods": 1.5},
    "syncFrequency-not-a-duration": {"syncFrequency": "1 minute"},
}
_DECODE_PREFIX = re.compile(r"^.*error failed to decode: |^failed to merge kubelet configs: .*?: ")


@pytest.mark.parametrize("case", sorted(TYPE_REFUSALS))
def test_engine_refuses_field_types_with_the_real_kubelets_words(case, oracle):
    config = dict(VALID, **TYPE_REFUSALS[case])
    errors = check_kubelet_config(config, [0, 1]).errors
    assert errors, "the engine accepts %s" % case
    inputs = KubeletInputs(REFUSAL_SPEC, _yaml(config))
    verdict = require_verdict(oracle.check(inputs), inputs)
    assert verdict.kind == "REJECTED", "the engine refuses %s (%s) but the real kubelet starts with it\n%s" % (case, errors, verdict.output)
    words = _DECODE_PREFIX.sub("", kubelet_message(verdict.text))
    assert words in "\n".join(errors), "the kubelet's words %r are not in the engine's errors %s" % (words, errors)


# ------------------------------------------------------------------------------------------------ 3. the stand-in
def _compare_standin(case_id, inputs, real, standin):
    count, _size = spec_nodes(inputs.spec)
    mine = standin.run(inputs)
    detail = "--- real kubelet: %s %s\n--- stand-in: %s %s\n%s\n%s" % (
        real.kind,
        real.text if not real.started else filled(real.reserved, count),
        mine.kind,
        mine.text if not mine.started else filled(mine.reserved, count),
        inputs.describe(),
        mine.output,
    )
    agree = mine.started == real.started and (not real.started or filled(mine.reserved, count) == filled(real.reserved, count))
    if not agree and case_id in STANDIN_KNOWN_DISAGREEMENTS:
        pytest.xfail("%s: %s (stand-in: %s)" % (case_id, STANDIN_KNOWN_DISAGREEMENTS[case_id], mine.text or mine.reserved))
    assert mine.kind in ("started", "refused"), detail
    assert agree, "the kubelet stand-in disagrees with the real kubelet on %s\n%s" % (case_id, detail)


@pytest.mark.parametrize("name", sorted(HOSTS))
def test_standin_agrees_with_real_kubelet_on_rendered_config(name, rendered, oracle, standin):
    plan = rendered.plan(name)
    inputs = inputs_from_plan(name, plan, rendered)
    _compare_standin(name, inputs, require_verdict(oracle.check(inputs), inputs), standin)


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_standin_agrees_with_real_kubelet_on_refusal(case, oracle, standin):
    inputs = refusal_inputs(case)
    _compare_standin(case, inputs, require_verdict(oracle.check(inputs), inputs), standin)


# Tabs in the config file (go-yaml's rules, plugins/plugin_utils/_yaml_text.py): the real kubelet, the engine's reader
# and the stand-in (which reads with the same module) agree on a tab it takes and on each of go-yaml's three refusals.
# tests/unit/plugins/plugin_utils/test_yaml_text.py holds the whole battery with its recorded verdicts; these few are
# asked again at every run.
TAB_CASES = {
    "takes: a plain scalar's next line, a space then a tab": (TABS_THE_KUBELET_TAKES["a plain scalar's next line: a space, then a tab"][0], None),
    "refuses: a plain scalar's next line, a tab at its start": TABS_THE_KUBELET_REFUSES["a plain scalar's next line: a tab at the line's start"],
    "refuses: a plain scalar in a flow mapping, a tab at the next line's start": TABS_THE_KUBELET_REFUSES[
        "a plain scalar in a flow mapping, next line: a tab at the line's start"
    ],
    "refuses: a tab after '- '": TABS_THE_KUBELET_REFUSES["a tab after '- '"],
    "refuses: a literal block, a tab as its indentation": TABS_THE_KUBELET_REFUSES["a literal block's first line: a tab as its indentation"],
}


@pytest.mark.parametrize("case", sorted(TAB_CASES))
def test_a_tab_is_taken_or_refused_as_the_real_kubelet_does(case, oracle, standin):
    text, kubelet_error = TAB_CASES[case]
    inputs = KubeletInputs("2x16Gi", text, unparsed=True)
    real = require_verdict(oracle.check(inputs), inputs)
    _data, problems = load_mapping("/var/lib/kubelet/config.yaml", text)
    if kubelet_error is None:
        assert real.started and problems == [], f"{real.kind} {real.text}; engine: {problems}\n{inputs.describe()}"
    else:
        assert not real.started and real.text.endswith(f"failed to decode: {kubelet_error}"), f"{real.kind} {real.text}\n{inputs.describe()}"
        assert len(problems) == 1 and f"not valid YAML/JSON: {kubelet_error} (" in problems[0], problems
    _compare_standin(case, inputs, real, standin)


# lablabs.rke2 hand-over (kubelet_numa_rke2_write_files false): what the kubelet gets from each way lablabs configures
# it. rke2_kubelet_config: before RKE2 1.32 a main --config file, whose default evictionHard map (with 100Mi) RKE2's own
# --eviction-hard flag replaces; from 1.32 copied by RKE2 into its drop-in directory as 10-cli-config.conf.
# rke2_kubelet_arg: the user's items stay and count (their eviction-hard memory.available 300Mi is in the sum).
LABLABS_INTENT = {
    "memoryManagerPolicy": "Static",
    "topologyManagerPolicy": "single-numa-node",
    "kubeReserved": {"memory": "512Mi"},
    "systemReserved": {"memory": "412Mi"},
}
LABLABS_FORMS = {
    "kubelet_config": ({"in_agents_group": True, "rke2_kubelet_config": {"imageGCHighThresholdPercent": 85}}, 462 << 20),
    "kubelet_arg": ({"in_agents_group": True, "rke2_kubelet_arg": ["kube-reserved=cpu=100m", "eviction-hard=memory.available<300Mi"]}, 612 << 20),
}


@pytest.mark.parametrize("version", ["v1.31.9+rke2r1", "v1.32.5+rke2r1"])
@pytest.mark.parametrize("form", sorted(LABLABS_FORMS))
def test_lablabs_hand_over_is_what_the_real_kubelet_accepts(oracle, version, form):
    from ansible_collections.numa.kubelet.plugins.plugin_utils._plan import plan_host

    with open(REPO / "roles" / "kubelet_numa" / "defaults" / "main.yml", encoding="utf-8") as handle:
        defaults = yaml.safe_load(handle)
    lablabs, per_node = LABLABS_FORMS[form]
    topology = {"numa_nodes": [{"id": node, "memory_bytes": 16 << 30, "cpus": [node]} for node in (0, 1)], "numa_memory_capacity_bytes": 32 << 30}
    plan = plan_host(
        dict(
            defaults,
            kubelet_numa_platform="rke2",
            kubelet_numa_config=LABLABS_INTENT,
            kubelet_numa_topology=topology,
            kubelet_numa_rke2_write_files=False,
            kubelet_numa_rke2_version=version,
            kubelet_numa_rke2_role="agent",
        ),
        {"files": {}, "lablabs": lablabs},
    )
    given = plan["kubelet_inputs"]
    inputs = KubeletInputs(
        "2x16Gi",
        None if given["config"] is None else _yaml(dict(given["config"]["content"])),
        [(Path(dropin["path"]).name, _yaml(dropin["content"])) for dropin in given["dropins"]],
        list(given["flags"]),
    )
    if form == "kubelet_config":
        # The file lablabs writes (templates/kubelet-config.yaml.j2) from the handed-over rke2_kubelet_config.
        written = dict({"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration"}, **plan["rke2"]["lablabs"]["rke2_kubelet_config"])
        assert [yaml.safe_load(text) for name, text in inputs.dropins if name == "10-cli-config.conf"] == ([written] if "v1.32" in version else [])
        assert (inputs.main is not None) == ("v1.31" in version) and (inputs.main is None or yaml.safe_load(inputs.main) == written)
    else:
        assert plan["rke2"]["lablabs"]["rke2_kubelet_arg"][:2] == lablabs["rke2_kubelet_arg"]
    verdict = require_verdict(oracle.check(inputs), inputs)
    assert verdict.started, f"{verdict.text}\n{inputs.describe()}"
    assert (
        verdict.reserved
        == {0: per_node, 1: per_node}
        == {int(node): quantity_bytes(item["limits"]["memory"]) for node, item in enumerate(plan["reserved_memory"])}
    )
