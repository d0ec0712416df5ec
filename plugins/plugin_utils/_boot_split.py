# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The boot-time split: at every kubelet start on an AL2023 node, reservedMemory for this machine's NUMA nodes.

Runs on the node as the kubelet unit's ExecStartPre, with the kubelet's own arguments. It layers the kubelet's files
as the kubelet does (the main --config with loadConfigFile's evictionHard default, the --config-dir *.conf drop-ins as
JSON merge patches, then the reservation flags), reads each NUMA node's MemTotal as numa.kubelet.numa_facts does, and
spreads the reservation with the engine's own split_reservation (_split) and Quantity. It writes only reservedMemory,
atomically, into a drop-in of its own that sorts after nodeadm's, and exits non-zero on any problem, so that the
kubelet does not start on a wrong split. _boot_split_bundle ships it with the engine code it reaches, unchanged.

Everything here is kept small on purpose: the program travels in user data, which EC2 limits to 16 KB.
"""

from __future__ import annotations

import json
import os
import re
import sys

from ._allocatable import Reservation, Term
from ._config import KubeletConfigError, bool_field
from ._effective import merge_patch, walk_order
from ._quantity import Quantity, QuantityError
from ._split import NumaNode, split_reservation

PROGRAM = "numa-kubelet-boot-split"
DROPIN_NAME = "90-numa-kubelet-reserved-memory.conf"
CHECKPOINT = "memory_manager_state"
# /run is emptied at every boot: the marker's presence means the kubelet was already started in this boot.
STARTED_MARKER = "/run/numa-kubelet/boot-split-started"
ROOT_ENV = "NUMA_KUBELET_BOOT_SPLIT_ROOT"
MEMORY_AVAILABLE = "memory.available"
# pkg/kubelet/eviction/defaults_linux.go DefaultEvictionHard, its memory signal (the others do not reserve memory).
DEFAULT_MEMORY_AVAILABLE = "100Mi"
# Flags that carry the reservation (cliflag.MapStringString: the first use replaces the file's map, repeats add to it).
_MAP_FLAGS = {"kube-reserved": ("kubeReserved", "="), "system-reserved": ("systemReserved", "="), "eviction-hard": ("evictionHard", "<")}
_PATH_FLAGS = ("config", "config-dir", "root-dir", "reserved-memory")


class BootSplitError(Exception):
    """Why the kubelet must not start; each problem becomes one journal line."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def kubelet_arguments(words: list[str]) -> tuple[dict, list]:
    """({flag: value} of --config, --config-dir, --root-dir, --reserved-memory; [(field, map)] of the map flags)."""
    paths, maps = {}, []
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        name, has_value, value = word[2:].partition("=")
        if not word.startswith("--") or (name not in _PATH_FLAGS and name not in _MAP_FLAGS):
            continue
        if not has_value:
            if index >= len(words):
                raise BootSplitError([f"kubelet flag {word} has no value"])
            value = words[index]
            index += 1
        if name in _PATH_FLAGS:
            paths[name] = value
            continue
        field_name, separator = _MAP_FLAGS[name]
        pairs = [pair.partition(separator) for pair in value.split(",") if pair.strip()]
        if not all(found for _key, found, _item in pairs):
            raise BootSplitError([f'--{name}={value}: expected "key{separator}value" pairs'])
        maps.append((field_name, {key.strip(): item.strip() for key, _found, item in pairs}))
    return paths, maps


def _json(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except (OSError, ValueError) as exc:
        raise BootSplitError([f"{path}: not a JSON KubeletConfiguration ({exc})"]) from exc
    if not isinstance(document, dict):
        raise BootSplitError([f"{path}: not a JSON object"])
    return document


def kubelet_config(paths: dict, maps: list) -> dict:
    """The fields the reservation depends on, layered as _effective.effective_kubelet_config layers them."""
    config = _json(paths["config"]) if "config" in paths else {}
    hard = config.get("evictionHard")
    if "config" in paths and hard is None:
        config["evictionHard"] = {MEMORY_AVAILABLE: DEFAULT_MEMORY_AVAILABLE}
    elif isinstance(hard, dict) and bool_field(config, "mergeDefaultEvictionSettings"):
        hard.setdefault(MEMORY_AVAILABLE, DEFAULT_MEMORY_AVAILABLE)
    directory = paths["config-dir"]
    try:
        os.listdir(directory)  # os.walk passes over a missing or unreadable directory in silence
    except OSError as exc:
        raise BootSplitError([f"--config-dir: {exc}"]) from exc
    # Every *.conf at any depth but ours, in the kubelet's walk order.
    names = sorted(
        {os.path.relpath(os.path.join(folder, name), directory) for folder, _f, files in os.walk(directory) for name in files if name.endswith(".conf")}
        - {DROPIN_NAME},
        key=walk_order,
    )
    if names:
        # mergeKubeletConfigurations marshals the config first: omitempty drops empty maps and lists.
        config = {key: value for key, value in config.items() if value not in ({}, [])}
    for name in names:
        config = merge_patch(config, _json(os.path.join(directory, name)))
    if names and config.get("evictionHard") is None:
        config["evictionHard"] = {}  # as _effective: the marshal dropped it and nothing defaults it again
    seen = set()
    for field_name, mapping in maps:
        config[field_name] = dict(config[field_name], **mapping) if field_name in seen else mapping
        seen.add(field_name)
    return config


def _term(source: str, value: object) -> Term | None:
    eviction = source.startswith("evictionHard")
    if eviction and value in ("0%", "100%"):
        return None  # helpers.go parseThresholdStatement ignores them
    if isinstance(value, str) and value.endswith("%"):
        raise BootSplitError([f"{source}: {value}: give a quantity, not a share of memory"])
    try:
        quantity = Quantity.parse(value)
    except (QuantityError, TypeError) as exc:
        raise BootSplitError([f"{source}: {value!r} is not a quantity ({exc})"]) from exc
    if quantity.sign() < 0 or (eviction and quantity.is_zero()):
        # The engine's words (_eviction_thresholds.parse_threshold); a negative reservation fails the kubelet's parse.
        raise BootSplitError(
            [
                f"evictionHard.{MEMORY_AVAILABLE}: eviction threshold {MEMORY_AVAILABLE} must be positive: {quantity}"
                if eviction
                else f"{source}: {value} is negative"
            ]
        )
    return None if quantity.is_zero() else Term(source, quantity)


def reservation(config: dict) -> Reservation:
    """_allocatable.memory_reservation, its terms in its order, without its eviction-threshold parser (too large for
    user data): a percentage memory.available is refused. test_boot_split_differential holds the two to one answer."""
    values = [(f"{name}.memory", (config.get(name) or {}).get("memory")) for name in ("systemReserved", "kubeReserved")]
    hard = config.get("evictionHard")
    if hard is None:
        values.append((f"evictionHard {MEMORY_AVAILABLE} (kubelet default)", DEFAULT_MEMORY_AVAILABLE))
    elif MEMORY_AVAILABLE in hard:
        values.append((f"evictionHard {MEMORY_AVAILABLE}", hard[MEMORY_AVAILABLE]))
    elif bool_field(config, "mergeDefaultEvictionSettings"):
        values.append((f"evictionHard {MEMORY_AVAILABLE} (kubelet default, mergeDefaultEvictionSettings)", DEFAULT_MEMORY_AVAILABLE))
    terms = tuple(filter(None, (_term(source, value) for source, value in values if value is not None)))
    total = Quantity.from_int(0, "DecimalSI")
    for term in terms:
        total = total + term.quantity
    return Reservation(terms, total)


def _mem_total(path: str, prefix: str) -> int:
    """MemTotal of a meminfo file in bytes, as numa_facts reads it (module_utils/_numa_topology.py)."""
    try:
        with open(path, encoding="ascii") as handle:
            match = re.search(rf"^{prefix}MemTotal:\s+(\d+) kB$", handle.read(), re.MULTILINE)
    except (OSError, UnicodeDecodeError) as exc:
        raise BootSplitError([str(exc)]) from exc
    if not match:
        raise BootSplitError([f"{path} has no '{prefix}MemTotal: <n> kB' line"])
    return int(match.group(1)) * 1024


def numa_nodes(root: str = "/") -> list[NumaNode]:
    """This machine's NUMA nodes and their MemTotal (0 for a memoryless node), sorted by id."""
    base = os.path.join(root, "sys/devices/system/node")
    try:
        ids = sorted(int(name[4:]) for name in os.listdir(base) if re.fullmatch(r"node\d+", name))
    except OSError as exc:
        raise BootSplitError([f"no NUMA topology: {exc}"]) from exc
    if not ids:
        raise BootSplitError([f"{base} has no node<N> directories"])
    return [NumaNode(node, _mem_total(f"{base}/node{node}/meminfo", f"Node {node} ")) for node in ids]


def planned_split(paths: dict, maps: list, split: object, root: str = "/") -> list[dict]:
    """reservedMemory for this machine: the engine's split_reservation of the kubelet's own reservation."""
    if "config-dir" not in paths:
        raise BootSplitError(["the kubelet has no --config-dir (nodeadm passes one when spec.kubelet.config is set)"])
    if "reserved-memory" in paths:
        raise BootSplitError(["the kubelet's --reserved-memory flag overrides every drop-in"])
    nodes = numa_nodes(root)
    try:
        return split_reservation(reservation(kubelet_config(paths, maps)), nodes, split)
    except KubeletConfigError as exc:
        raise BootSplitError(exc.problems) from exc


def apply_split(paths: dict, split: list[dict], marker: str = STARTED_MARKER) -> list[str]:
    """Write our drop-in if the split changed, under the checkpoint rule; return what was done, for the journal."""
    dropin = os.path.join(paths["config-dir"], DROPIN_NAME)
    checkpoint = os.path.join(paths.get("root-dir", "/var/lib/kubelet"), CHECKPOINT)
    text = json.dumps({"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration", "reservedMemory": split}, indent=2) + "\n"
    shares = ", ".join(f"NUMA node {entry['numaNode']}: {entry['limits']['memory']}" for entry in split)
    try:
        with open(dropin, encoding="utf-8") as handle:
            unchanged = handle.read() == text
    except FileNotFoundError:
        unchanged = False
    done = [f"reservedMemory {shares} {'unchanged in' if unchanged else 'written to'} {dropin}"]
    if not unchanged:
        if os.path.exists(checkpoint):
            if os.path.exists(marker):
                raise BootSplitError([f"the split changed to {shares} after the kubelet started in this boot: drain the node, delete {checkpoint}"])
            os.remove(checkpoint)
            done.append(f"removed {checkpoint}: the split changed before the first kubelet start of this boot")
        with open(f"{dropin}.tmp", "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(f"{dropin}.tmp", dropin)
    os.makedirs(os.path.dirname(marker), exist_ok=True)
    open(marker, "a", encoding="utf-8").close()
    return done


def main(argv: list[str]) -> int:
    """numa-kubelet-boot-split OPTIONS_FILE -- KUBELET_ARGS...: 0 with our drop-in in place, 1 when the kubelet must not start.

    ROOT_ENV names another root for /sys, /proc and /run (a test's fake tree); the kubelet's own paths stay as given.
    """
    root = os.environ.get(ROOT_ENV, "/")
    marker = os.path.join(root, STARTED_MARKER.lstrip("/"))
    try:
        if argv[1:2] != ["--"]:
            raise BootSplitError([f"usage: {PROGRAM} OPTIONS_FILE -- KUBELET_ARGS..."])
        paths, maps = kubelet_arguments(argv[2:])
        split = planned_split(paths, maps, _json(argv[0]).get("split"), root)
        done = apply_split(paths, split, marker)
    except BootSplitError as exc:
        for problem in exc.problems + ["the kubelet is not started"]:
            print(f"{PROGRAM}: refused: {problem}", file=sys.stderr)
        return 1
    for line in done:
        print(f"{PROGRAM}: {line}")
    return 0
