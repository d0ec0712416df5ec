# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""scripts/lib/kubelet_verdicts.py (scripts/record-kubelet-verdicts): how kubelet-check is found and run, how its
output becomes a verdict (a panic read from the log), and that only changed cases are run again, two at a time.
kubelet-check itself is replaced by a fake runner here; tests/oracle runs the real one."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import threading
import time

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))


def _load(name):
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, os.path.join(REPO, "scripts", "lib", name + ".py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # its dataclasses look their module up there
        spec.loader.exec_module(module)
    return sys.modules[name]


oracle_cases = _load("oracle_cases")
kubelet_verdicts = _load("kubelet_verdicts")
INFO = "INFO: oracle Kubernetes v1.36.2+openshift-microshift (/root/.cache/kubelet-oracle/kubelet-x)\n"
ACCEPTED = "ACCEPTED policy=Static numa=2 systemReserved=0:memory=857735168,1:memory=857735168"


class FakeKubeletCheck:
    """Stands in for kubelet-check: refuses a config with maxPods < 0, panics on a false feature gate, else accepts;
    counts its runs and how many ran at once."""

    def __init__(self, delay=0.0):
        self.delay = delay
        self.runs = []
        self.running = 0
        self.most_at_once = 0
        self.lock = threading.Lock()

    def __call__(self, argv, **_kwargs):
        with self.lock:
            self.running += 1
            self.most_at_once = max(self.most_at_once, self.running)
            self.runs.append(argv)
        time.sleep(self.delay)
        config_path = argv[argv.index("--timeout") + 4 + (2 if "--kubelet-version" in argv else 0)]
        with open(config_path, encoding="utf-8") as handle:
            config = yaml.safe_load(handle)
        log_path = argv[argv.index("--log") + 1]
        if config.get("maxPods", 0) < 0:
            last = (
                "REJECTED: failed to validate kubelet configuration, error: invalid configuration: maxPods (--max-pods) %d must not be a negative number"
                % config["maxPods"]
            )
        elif False in (config.get("featureGates") or {}).values():
            with open(log_path, "w", encoding="utf-8") as handle:
                handle.write("I1127 starting\npanic: cannot set feature gate X to false, feature is locked to true\n\ngoroutine 1 [running]:\n")
            last = "REJECTED: kubelet exited without a recognisable error line; log tail: goroutine 1 [running]:"
        else:
            last = ACCEPTED
        with self.lock:
            self.running -= 1
        return subprocess.CompletedProcess(argv, 0 if last == ACCEPTED else 1, INFO + "NOTE: x\n" + last + "\n", "")


def _corpus(tmp_path, items):
    cases_dir = tmp_path / "cases"
    cases_dir.mkdir(parents=True)
    (cases_dir / "baseline.yml").write_text(yaml.safe_dump(oracle_cases.load_baseline()), encoding="utf-8")
    (cases_dir / "mine.yml").write_text(yaml.safe_dump(items), encoding="utf-8")
    return str(cases_dir)


def _item(case_id, patch, expect, **extra):
    return dict({"id": case_id, "rule": "validation.go", "set": patch, "expect": expect}, **extra)


def test_kubelet_check_is_found_as_the_oracle_stage_finds_it(tmp_path):
    script = tmp_path / "kubelet-check"
    script.write_text("#!/bin/sh\n")
    assert kubelet_verdicts.oracle_script({"NUMA_KUBELET_ORACLE": str(tmp_path)}) == str(script)
    assert kubelet_verdicts.oracle_script({"NUMA_KUBELET_ORACLE": str(script)}) == str(script)
    repo = tmp_path / "checkout"
    (tmp_path / "shared" / "oracle").mkdir(parents=True)
    assert kubelet_verdicts.oracle_script({}, str(repo)) == str(tmp_path / "shared" / "oracle" / "kubelet-check")


def test_the_machines_cpus_and_memory_are_read_as_kubelet_check_reads_them(tmp_path):
    for name in ("cpu0", "cpu1", "cpu10", "cpufreq", "cpuidle", "online"):
        (tmp_path / "sys" / "devices" / "system" / "cpu" / name).mkdir(parents=True)
    (tmp_path / "proc").mkdir()
    (tmp_path / "proc" / "meminfo").write_text("MemTotal:       24684096 kB\nMemFree:        1000 kB\n", encoding="utf-8")
    assert kubelet_verdicts.machine_facts(str(tmp_path)) == {"cpus": [0, 1, 10], "memory_capacity": 24684096 * 1024}


def test_verdicts_made_on_another_machine_are_all_made_again(tmp_path):
    cases_dir = _corpus(tmp_path, [_item("p", {}, "accepted")])
    path = str(tmp_path / "verdicts.json")
    environ = {"NUMA_KUBELET_ORACLE": "/bin/true"}
    assert kubelet_verdicts.main(["--random", "0"], cases_dir, path, FakeKubeletCheck(), environ) == 0
    data = json.loads(open(path, encoding="utf-8").read())
    assert data["machine"] == kubelet_verdicts.machine_facts()
    data["machine"]["cpus"] = [0, 1, 2, 3, 4, 5, 6, 7, 8]
    kubelet_verdicts.write_verdicts(data, path)
    fake = FakeKubeletCheck()
    assert kubelet_verdicts.main([], cases_dir, path, fake, environ) == 0
    assert len(fake.runs) == 1 and json.loads(open(path, encoding="utf-8").read())["machine"] == kubelet_verdicts.machine_facts()


def test_the_command_line_names_the_version_only_when_it_is_not_the_default_and_passes_flags_after_a_double_dash(tmp_path):
    (default, older) = oracle_cases.load_cases(
        _corpus(tmp_path, [_item("a", {}, "accepted"), _item("b", {}, "accepted", kubelet_version="1.31", numa="4x8Gi", flags=["--max-pods=10"])])
    )
    assert kubelet_verdicts.oracle_argv("kc", default, "c.yaml", "l.log") == ["kc", "--timeout", "60", "--log", "l.log", "c.yaml", "2x16Gi"]
    assert kubelet_verdicts.oracle_argv("kc", older, "c.yaml", "l.log") == [
        "kc", "--timeout", "60", "--log", "l.log", "--kubelet-version", "1.31", "c.yaml", "4x8Gi", "--", "--max-pods=10",
    ]  # fmt: skip


def test_kubelet_checks_last_line_is_the_verdict_and_a_panic_is_read_from_the_log():
    assert kubelet_verdicts.parse_output(INFO + ACCEPTED + "\n") == kubelet_verdicts.Verdict("ACCEPTED", ACCEPTED, "v1.36.2+openshift-microshift")
    assert kubelet_verdicts.parse_output("REJECTED: failed to run Kubelet: x\n").verdict == "REJECTED"
    assert kubelet_verdicts.parse_output("REJECTED: failed to run Kubelet: x\n").text == "failed to run Kubelet: x"
    panicked = "REJECTED: kubelet exited without a recognisable error line; log tail: goroutine 1"
    log = "I1127 x\npanic: cannot set feature gate X to false, feature is locked to true\n\ngoroutine 1 [running]:\n"
    assert kubelet_verdicts.parse_output(panicked, log).text == "panic: cannot set feature gate X to false, feature is locked to true"
    assert kubelet_verdicts.parse_output(panicked, "no panic here").text.startswith("kubelet exited without a recognisable error line")
    assert kubelet_verdicts.parse_output("HARNESS-ERROR: containerd not found\n") == kubelet_verdicts.Verdict("HARNESS-ERROR", "containerd not found")
    assert kubelet_verdicts.parse_output("Traceback\n").verdict == "HARNESS-ERROR"


def test_an_undecidable_case_is_not_run_and_a_failure_to_run_decides_nothing(tmp_path):
    (undecidable, plain) = oracle_cases.load_cases(
        _corpus(tmp_path, [_item("u", {"failSwapOn": True}, "refused", oracle="undecidable: the harness forces it; https://x"), _item("p", {}, "accepted")])
    )
    fake = FakeKubeletCheck()
    assert kubelet_verdicts.run_case("kc", undecidable, fake) == kubelet_verdicts.Verdict("UNDECIDABLE", "the harness forces it; https://x")
    assert fake.runs == []

    def missing(argv, **_kwargs):
        raise FileNotFoundError(argv[0])

    assert kubelet_verdicts.run_case("kc", plain, missing).verdict == "HARNESS-ERROR"


def test_the_config_files_temporary_path_does_not_reach_the_recorded_text(tmp_path):
    (case,) = oracle_cases.load_cases(_corpus(tmp_path, [_item("p", {}, "accepted")]))

    def decode_error(argv, **_kwargs):
        path = argv[-2]
        return subprocess.CompletedProcess(
            argv, 1, f"REJECTED: failed to load kubelet config file, path: {path}, error: failed to load Kubelet config file {path}, error x\n", ""
        )

    text = kubelet_verdicts.run_case("kc", case, decode_error).text
    assert text == "failed to load kubelet config file, path: config.yaml, error: failed to load Kubelet config file config.yaml, error x"

    def runtime_timeout(argv, **_kwargs):
        socket = "unix:///tmp/kubelet-oracle-run/kc-i7gbultq/containerd.sock"
        return subprocess.CompletedProcess(argv, 1, f'REJECTED: validate CRI v1 runtime API for endpoint "{socket}": rpc error\n', "")

    text = kubelet_verdicts.run_case("kc", case, runtime_timeout).text
    assert text == 'validate CRI v1 runtime API for endpoint "unix://KUBELET_CHECK_RUN/containerd.sock": rpc error'


def test_only_changed_cases_are_run_again_at_most_two_at_a_time_and_gone_cases_are_dropped(tmp_path, capsys):
    items = [_item("refused-%d" % index, {"maxPods": -1 - index}, "refused") for index in range(4)] + [
        _item("panics", {"featureGates": {"X": False}}, "refused")
    ]
    cases_dir = _corpus(tmp_path, items)
    path = str(tmp_path / "data" / "verdicts.json")
    fake = FakeKubeletCheck(delay=0.05)
    environ = {"NUMA_KUBELET_ORACLE": "/bin/true"}
    assert kubelet_verdicts.main(["--random", "3", "--seed", "5", "--jobs", "8"], cases_dir, path, fake, environ) == 0
    assert len(fake.runs) == 8 and fake.most_at_once == 2
    data = json.loads(open(path, encoding="utf-8").read())
    assert data["random"] == {"seed": 5, "count": 3}
    assert set(data["verdicts"]) == {"refused-0", "refused-1", "refused-2", "refused-3", "panics", "random-5-000", "random-5-001", "random-5-002"}
    assert data["verdicts"]["refused-2"]["verdict"] == "REJECTED" and "maxPods (--max-pods) -3" in data["verdicts"]["refused-2"]["text"]
    assert data["verdicts"]["panics"]["text"] == "panic: cannot set feature gate X to false, feature is locked to true"
    assert data["verdicts"]["refused-0"]["kubelet"] == "v1.36.2+openshift-microshift"

    # A changed case, a new one, a removed one: only the first two run; the seed and count are kept.
    items[0]["set"] = {"maxPods": -10}
    cases_dir = _corpus(tmp_path / "again", items[:4] + [_item("new-one", {}, "accepted")])
    fake = FakeKubeletCheck()
    assert kubelet_verdicts.main([], cases_dir, path, fake, environ) == 0
    data = json.loads(open(path, encoding="utf-8").read())
    assert len(fake.runs) == 2
    assert "panics" not in data["verdicts"] and data["verdicts"]["new-one"]["verdict"] == "ACCEPTED"
    assert "-10 must not be a negative number" in data["verdicts"]["refused-0"]["text"]


def test_a_harness_error_records_nothing_and_fails_the_command(tmp_path, capsys):
    cases_dir = _corpus(tmp_path, [_item("p", {}, "accepted")])
    path = str(tmp_path / "verdicts.json")

    def broken(argv, **_kwargs):
        return subprocess.CompletedProcess(argv, 2, "HARNESS-ERROR: containerd not found\n", "")

    assert kubelet_verdicts.main(["--random", "0"], cases_dir, path, broken, {"NUMA_KUBELET_ORACLE": "/bin/true"}) == 1
    assert json.loads(open(path, encoding="utf-8").read())["verdicts"] == {}
    assert "p: HARNESS-ERROR: containerd not found" in capsys.readouterr().err
    assert kubelet_verdicts.main(["no-such-id"], cases_dir, path, broken, {"NUMA_KUBELET_ORACLE": "/bin/true"}) == 2
