# SPDX-License-Identifier: GPL-3.0-or-later
"""Records the real kubelet's verdict on every case of tests/oracle/cases and on N seeded random configurations.

Each case (oracle_cases.py) is written as the kubelet's main config file and started with kubelet-check (the real
kubelet, ../shared/oracle, or what NUMA_KUBELET_ORACLE names, as the oracle stage finds it) on the case's fake NUMA
topology, at most two at a time. The verdicts go to tests/oracle/data/kubelet_verdicts.json, keyed by case id with a
digest of what the kubelet read: only cases whose digest changed are run again, so adding cases is cheap. A case
marked `oracle: undecidable: ...` is not run and keeps its reason. When the kubelet panics (a locked feature gate),
the panic text is read from its log. A run that could not be decided (HARNESS-ERROR) records nothing for that case
and makes the command fail. What the kubelet takes from this machine (its CPUs, its memory) is recorded beside the
verdicts, so the engine can be given the same topology; on another machine everything is recorded again.
Usage: python3 kubelet_verdicts.py [--random N] [--seed S] [--jobs 1|2] [--force] [ID...]   (scripts/record-kubelet-verdicts)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle_cases import CASES_DIR, DEFAULT_KUBELET_VERSION, REPO, Case, is_recorded, load_baseline, load_cases, random_cases

VERDICTS_FILE = os.path.join(REPO, "tests", "oracle", "data", "kubelet_verdicts.json")
ORACLE_ENV = "NUMA_KUBELET_ORACLE"
DEFAULT_SEED = 26
DEFAULT_RANDOM = 60
MAX_JOBS = 2  # kubelet-check starts a containerd and a kubelet per run; this machine runs two at most
CONFIG_NAME = "config.yaml"  # the main config file's path in recorded texts
RUN_DIR_NAME = "KUBELET_CHECK_RUN"  # kubelet-check's run directory in recorded texts
_RUN_DIR = re.compile(re.escape(tempfile.gettempdir()) + r"/kubelet-oracle(?:-run)?/kc-[A-Za-z0-9_]+")  # kubelet-check's BASE_RUN, BASE_TMP
NO_ERROR_LINE = "kubelet exited without a recognisable error line"
_PANIC = re.compile(r"^panic: (.*)$", re.MULTILINE)
_VERSION = re.compile(r"^INFO: oracle Kubernetes (\S+)", re.MULTILINE)


@dataclass
class Verdict:
    """ACCEPTED, REJECTED, UNDECIDABLE (not run: the case says why) or HARNESS-ERROR (nothing decided)."""

    verdict: str
    text: str
    kubelet: str = ""  # the kubelet's version as kubelet-check printed it

    def record(self, case: Case) -> dict:
        return {"source": case.source, "digest": case.digest(), "kubelet": self.kubelet, "verdict": self.verdict, "text": self.text}


def oracle_script(environ=None, repo: str = REPO) -> str:
    """kubelet-check as noxfile.py's _kit finds it: $NUMA_KUBELET_ORACLE (the script or its directory), else
    ../shared/oracle beside the checkout."""
    environ = os.environ if environ is None else environ
    path = os.path.realpath(environ.get(ORACLE_ENV) or os.path.join(repo, "..", "shared", "oracle"))
    return path if os.path.isfile(path) else os.path.join(path, "kubelet-check")


def oracle_argv(script: str, case: Case, config_path: str, log_path: str) -> list[str]:
    argv = [script, "--timeout", "60", "--log", log_path]
    if case.kubelet_version != DEFAULT_KUBELET_VERSION:
        argv += ["--kubelet-version", case.kubelet_version]
    argv += [config_path, case.numa]
    return argv + (["--", *case.flags] if case.flags else [])


def parse_output(output: str, log_text: str = "") -> Verdict:
    """kubelet-check's last line; a kubelet that ended without an error line (a panic) is judged by its log."""
    lines = [line for line in output.splitlines() if line.strip()]
    last = lines[-1] if lines else ""
    version = _VERSION.search(output)
    kubelet = version.group(1) if version else ""
    if last.startswith("ACCEPTED"):
        return Verdict("ACCEPTED", last, kubelet)
    if last.startswith("REJECTED:"):
        text = last[len("REJECTED:") :].strip()
        panic = _PANIC.search(log_text)
        if text.startswith(NO_ERROR_LINE) and panic:
            text = "panic: " + panic.group(1).strip()
        return Verdict("REJECTED", text, kubelet)
    reason = last[len("HARNESS-ERROR:") :].strip() if last.startswith("HARNESS-ERROR:") else f"no verdict line in kubelet-check's output: {last!r}"
    return Verdict("HARNESS-ERROR", reason, kubelet)


def run_case(script: str, case: Case, runner=subprocess.run) -> Verdict:
    """The real kubelet's verdict on one case (never raises: a failure to run is a HARNESS-ERROR)."""
    if case.undecidable:
        return Verdict("UNDECIDABLE", case.undecidable)
    with tempfile.TemporaryDirectory(prefix="kubelet-verdict-") as work:
        config_path, log_path = os.path.join(work, "config.yaml"), os.path.join(work, "kubelet.log")
        with open(config_path, "w", encoding="utf-8") as handle:
            handle.write(case.config_text())
        try:
            proc = runner(oracle_argv(script, case, config_path, log_path), capture_output=True, text=True, timeout=180, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return Verdict("HARNESS-ERROR", f"running {script} failed: {exc}")
        log_text = ""
        if os.path.exists(log_path):
            with open(log_path, encoding="utf-8", errors="replace") as handle:
                log_text = handle.read()
        # The file's path is in the kubelet's text when it cannot decode the file, and kubelet-check's run directory
        # (its containerd socket) when the runtime does not answer: fixed names keep texts comparable between runs.
        output = _RUN_DIR.sub(RUN_DIR_NAME, (proc.stdout + proc.stderr).replace(config_path, CONFIG_NAME))
        return parse_output(output, log_text)


def machine_facts(sys_root: str = "/") -> dict:
    """What kubelet-check takes from this machine rather than from the case: its CPU ids (dealt out to the fake NUMA
    nodes) and its memory capacity in bytes (MemTotal, which eviction percentages and Node Allocatable read)."""
    cpu_dir = os.path.join(sys_root, "sys", "devices", "system", "cpu")
    cpus = sorted(int(name[3:]) for name in os.listdir(cpu_dir) if re.match(r"^cpu[0-9]+$", name))
    with open(os.path.join(sys_root, "proc", "meminfo"), encoding="utf-8") as handle:
        total_kib = next(int(line.split()[1]) for line in handle if line.startswith("MemTotal:"))
    return {"cpus": cpus, "memory_capacity": total_kib * 1024}


def read_verdicts(path: str = VERDICTS_FILE) -> dict:
    if not os.path.exists(path):
        return {"random": {"seed": DEFAULT_SEED, "count": DEFAULT_RANDOM}, "verdicts": {}}
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def write_verdicts(data: dict, path: str = VERDICTS_FILE) -> None:
    """Sorted and one entry per line block, so a re-recording shows as a small diff; written whole, then renamed."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    partial = path + ".partial"
    with open(partial, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=1, sort_keys=True, ensure_ascii=False)
        handle.write("\n")
    os.replace(partial, path)


def all_cases(seed: int, count: int, cases_dir: str = CASES_DIR) -> list[Case]:
    return load_cases(cases_dir) + random_cases(seed, count, load_baseline(cases_dir))


def stale(cases: list[Case], verdicts: dict, force: bool = False) -> list[Case]:
    """The cases to run: never recorded, recorded for other inputs, or all of them with force."""
    return [case for case in cases if force or not is_recorded(case, verdicts.get(case.id))]


def record(data: dict, cases: list[Case], script: str, jobs: int = MAX_JOBS, runner=subprocess.run, path: str = VERDICTS_FILE, say=print) -> list[str]:
    """Runs `cases` and keeps their verdicts in data (written after each one, so an interrupted run keeps what it
    decided); drops the verdicts of ids no longer in the corpus. Returns the problems (HARNESS-ERRORs)."""
    lock = threading.Lock()
    problems = []

    def one(case: Case) -> None:
        verdict = run_case(script, case, runner)
        with lock:
            if verdict.verdict == "HARNESS-ERROR":
                problems.append(f"{case.id}: HARNESS-ERROR: {verdict.text}")
            else:
                data["verdicts"][case.id] = verdict.record(case)
                write_verdicts(data, path)
            say(f"{case.id}: {verdict.text if verdict.text.startswith(verdict.verdict) else verdict.verdict + ': ' + verdict.text}")

    with ThreadPoolExecutor(max_workers=max(1, min(jobs, MAX_JOBS))) as pool:
        list(pool.map(one, cases))
    return problems


def main(argv: list[str] | None = None, cases_dir: str = CASES_DIR, path: str = VERDICTS_FILE, runner=subprocess.run, environ=None, sys_root="/") -> int:
    environ = os.environ if environ is None else environ
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--random", type=int, help="how many random configurations (default: as recorded, else %d)" % DEFAULT_RANDOM)
    parser.add_argument("--seed", type=int, help="their seed (default: as recorded, else %d)" % DEFAULT_SEED)
    parser.add_argument("--jobs", type=int, default=MAX_JOBS, help="kubelets at once (at most %d)" % MAX_JOBS)
    parser.add_argument("--force", action="store_true", help="run again even where the digest is unchanged")
    parser.add_argument("ids", nargs="*", help="only these case ids")
    args = parser.parse_args(argv)
    data = read_verdicts(path)
    data["random"] = {
        "seed": data["random"]["seed"] if args.seed is None else args.seed,
        "count": data["random"]["count"] if args.random is None else args.random,
    }
    cases = all_cases(data["random"]["seed"], data["random"]["count"], cases_dir)
    ids = {case.id for case in cases}
    unknown = sorted(set(args.ids) - ids)
    if unknown:
        print("no such case: %s" % ", ".join(unknown), file=sys.stderr)
        return 2
    data["verdicts"] = {case_id: entry for case_id, entry in data["verdicts"].items() if case_id in ids}
    machine = machine_facts(sys_root)
    if data.get("machine") != machine:
        # The verdicts were made on another machine (other CPUs or memory): they all have to be made here again.
        print(f"this machine ({machine}) is not the recorded one ({data.get('machine')}): recording everything", flush=True)
        data["machine"], data["verdicts"] = machine, {}
    todo = [case for case in stale(cases, data["verdicts"], args.force) if not args.ids or case.id in args.ids]
    script = oracle_script(environ)
    if any(not case.undecidable for case in todo) and not os.access(script, os.X_OK):
        print(f"no kubelet-check at {script} (set {ORACLE_ENV})", file=sys.stderr)
        return 2
    print(f"{len(todo)} of {len(cases)} configurations to record with {script}", flush=True)
    problems = record(data, todo, script, args.jobs, runner, path, say=lambda line: print(line, flush=True))
    write_verdicts(data, path)
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"{len(data['verdicts'])} verdicts in {path}; {len(problems)} undecided")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
