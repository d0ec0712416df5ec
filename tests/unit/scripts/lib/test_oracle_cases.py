# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""scripts/lib/oracle_cases.py: the case files' schema, the seeded random configurations, and the matching rule
(the kubelet's words without its wrappers must be inside an engine error)."""

from __future__ import annotations

import importlib.util
import os
import sys

import pytest
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
BASELINE = oracle_cases.load_baseline()


def _cases_dir(tmp_path, files):
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "baseline.yml").write_text(yaml.safe_dump(BASELINE), encoding="utf-8")
    for name, items in files.items():
        (tmp_path / name).write_text(items if isinstance(items, str) else yaml.safe_dump(items), encoding="utf-8")
    return str(tmp_path)


def _case(**overrides):
    return dict({"id": "a-case", "rule": "validation.go: x", "set": {"maxPods": -1}, "expect": "refused"}, **overrides)


# ------------------------------------------------------------------------------------------ schema
def test_the_repositorys_case_files_load_and_the_issue_table_is_there():
    cases = oracle_cases.load_cases()
    issue = [case for case in cases if case.source == "issue_table.yml"]
    assert len(issue) >= 30, len(issue)
    assert {case.expect for case in issue} == {"refused", "accepted"}
    ten = next(case for case in issue if case.id == "issue-topology-more-numa-nodes-than-allowed")
    assert ten.numa == "10x2Gi" and ten.numa_nodes == list(range(10))


def test_a_case_is_the_baseline_with_its_merge_patch(tmp_path):
    patch = {"kubeReserved": {"cpu": "1"}, "systemReserved": None, "reservedMemory": [{"numaNode": 0, "limits": {"memory": "1Gi"}}]}
    (case,) = oracle_cases.load_cases(_cases_dir(tmp_path, {"x.yml": [_case(set=patch)]}))
    assert case.config["kubeReserved"] == {"cpu": "1", "memory": "1Gi"}  # maps merge key by key
    assert "systemReserved" not in case.config  # null removes
    assert case.config["reservedMemory"] == [{"numaNode": 0, "limits": {"memory": "1Gi"}}]  # lists replace
    assert yaml.safe_load(case.config_text()) == case.config
    assert (case.numa, case.kubelet_version, case.flags, case.undecidable) == ("2x16Gi", "1.36", (), None)


def test_the_engine_gets_the_numa_nodes_kubelet_check_fakes_from_the_machines_cpus(tmp_path):
    two, ten = oracle_cases.load_cases(_cases_dir(tmp_path, {"a.yml": [_case(), _case(id="ten", numa="10x2Gi")]}))
    assert two.numa_topology([0, 1]) == [{"id": 0, "memory_bytes": 16 << 30, "cpus": [0]}, {"id": 1, "memory_bytes": 16 << 30, "cpus": [1]}]
    assert [node["cpus"] for node in two.numa_topology([0, 1, 2])] == [[0, 1], [2]]  # ceil(3 / 2) CPUs a node, in order
    assert [node["cpus"] for node in ten.numa_topology([1, 0])] == [[0], [1]] + [[]] * 8
    assert {node["memory_bytes"] for node in ten.numa_topology([0])} == {2 << 30}


def test_every_schema_problem_is_reported_at_once(tmp_path):
    directory = _cases_dir(
        tmp_path,
        {
            "a.yml": [
                _case(),
                _case(id="Bad_Id", expect="maybe", colour="red"),
                {"id": "no-expect", "rule": "r", "set": {}},
                _case(id="bad-fields", numa="2x", kubelet_version=1.33, flags=["-v"], oracle="cannot"),
                "not a mapping",
            ],
            "b.yml": [_case()],
            "c.yml": "{not: a list}",
        },
    )
    with pytest.raises(oracle_cases.CaseError) as raised:
        oracle_cases.load_cases(directory)
    problems = "\n".join(raised.value.problems)
    for expected in (
        "a.yml[1] (Bad_Id): unknown key 'colour'",
        "a.yml[1] (Bad_Id): id 'Bad_Id' must be a kebab-case string",
        "a.yml[1] (Bad_Id): expect 'maybe' must be one of refused, accepted",
        "a.yml[2] (no-expect): missing 'expect'",
        "a.yml[3] (bad-fields): numa '2x' must be a kubelet-check NUMA spec",
        "a.yml[3] (bad-fields): kubelet_version 1.33 must be one of 1.31, 1.33, 1.36 (a string)",
        "a.yml[3] (bad-fields): flags ['-v'] must be a list of --flags",
        "a.yml[3] (bad-fields): oracle 'cannot' must be 'undecidable: ' and why",
        "a.yml[4]: a case must be a mapping, got str",
        "b.yml[0] (a-case): id 'a-case' is also in a.yml",
        "c.yml: must be a YAML list of cases",
    ):
        assert expected in problems, problems


def test_an_undecidable_case_keeps_its_reason(tmp_path):
    directory = _cases_dir(tmp_path, {"a.yml": [_case(oracle="undecidable: the harness forces failSwapOn; https://example.org/src")]})
    (case,) = oracle_cases.load_cases(directory)
    assert case.undecidable == "the harness forces failSwapOn; https://example.org/src"


def test_the_digest_follows_what_the_kubelet_reads(tmp_path):
    base = _case()
    variants = [base, _case(set={"maxPods": -2}), _case(numa="4x8Gi"), _case(kubelet_version="1.33"), _case(flags=["--v=2"])]
    digests = []
    for index, item in enumerate(variants):
        directory = _cases_dir(tmp_path / str(index), {"a.yml": [item]})
        digests.append(oracle_cases.load_cases(directory)[0].digest())
    assert len(set(digests)) == len(variants)
    renamed = oracle_cases.load_cases(_cases_dir(tmp_path / "renamed", {"a.yml": [_case(id="other-id", rule="another rule")]}))[0]
    assert renamed.digest() == digests[0]  # the id and the rule are not what the kubelet reads


def test_a_verdict_is_recorded_for_a_case_only_for_its_inputs_and_its_decidability(tmp_path):
    plain, undecidable = oracle_cases.load_cases(_cases_dir(tmp_path, {"a.yml": [_case(), _case(id="u", oracle="undecidable: forced; https://x")]}))
    ran = {"digest": plain.digest(), "verdict": "REJECTED", "text": "t"}
    assert oracle_cases.is_recorded(plain, ran)
    assert not oracle_cases.is_recorded(plain, None)
    assert not oracle_cases.is_recorded(plain, dict(ran, digest="other"))
    assert not oracle_cases.is_recorded(plain, dict(ran, verdict="UNDECIDABLE"))  # it became decidable: run it
    assert oracle_cases.is_recorded(undecidable, {"digest": undecidable.digest(), "verdict": "UNDECIDABLE", "text": "forced; https://x"})
    assert not oracle_cases.is_recorded(undecidable, {"digest": undecidable.digest(), "verdict": "UNDECIDABLE", "text": "old reason"})
    assert not oracle_cases.is_recorded(undecidable, {"digest": undecidable.digest(), "verdict": "ACCEPTED", "text": "ACCEPTED"})


# ------------------------------------------------------------------------------------------ random configurations
def test_random_configurations_are_the_same_for_a_seed_and_differ_for_another():
    first, again, other = (oracle_cases.random_cases(seed, 40, BASELINE) for seed in (7, 7, 8))
    assert [case.patch for case in first] == [case.patch for case in again]
    assert [case.digest() for case in first] == [case.digest() for case in again]
    assert [case.patch for case in first] != [case.patch for case in other]
    assert [case.id for case in first] == ["random-7-%03d" % index for index in range(40)]


def test_random_configurations_set_two_to_four_fields_from_their_pools_on_the_baseline():
    pools = oracle_cases.field_pools()
    cases = oracle_cases.random_cases(26, 200, BASELINE)
    for case in cases:
        assert 2 <= len(case.patch) <= 4
        for name, value in case.patch.items():
            assert value in pools[name][0] + pools[name][1], (name, value)
        assert case.config == oracle_cases.merge_patch(BASELINE, case.patch)
        assert case.expect is None and case.source == "random"
    drawn = {name for case in cases for name in case.patch}
    assert not drawn & oracle_cases.RANDOM_EXCLUDED
    invalid = sum(any(value in pools[name][1] and value not in pools[name][0] for name, value in case.patch.items()) for case in cases)
    assert 40 < invalid < 180, invalid  # both sides of the boundaries are drawn


def test_every_field_the_collection_knows_is_drawn_or_named_as_undecidable_by_the_oracle():
    field_types = oracle_cases._field_types()
    assert "imageGCLowThresholdPercent" in field_types
    left_out = sorted(set(field_types) - set(oracle_cases.field_pools()) - oracle_cases.RANDOM_EXCLUDED)
    assert not left_out, f"fields without a value pool in scripts/lib/oracle_cases.py: {left_out}"
    assert set(field_types) >= oracle_cases.RANDOM_EXCLUDED, sorted(oracle_cases.RANDOM_EXCLUDED - set(field_types))


# ------------------------------------------------------------------------------------------ the matching rule
@pytest.mark.parametrize(
    ("text", "messages"),
    [
        (
            (
                "failed to validate kubelet configuration, error: invalid configuration: imageGCLowThresholdPercent (--image-gc-low-threshold) 90 must be "
                "less than imageGCHighThresholdPercent (--image-gc-high-threshold) 85, path: &TypeMeta{Kind:,APIVersion:,}"
            ),
            ["imageGCLowThresholdPercent (--image-gc-low-threshold) 90 must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) 85"],
        ),
        (
            (
                "failed to validate kubelet configuration, error: [invalid configuration: nodeStatusMaxImages (--node-status-max-images) -2 must be -1 or "
                "greater, invalid taint: {a/b/c  NoSchedule <nil>}], path: &TypeMeta{Kind:,APIVersion:,}"
            ),
            ["nodeStatusMaxImages (--node-status-max-images) -2 must be -1 or greater", "invalid taint: {a/b/c  NoSchedule <nil>}"],
        ),
        (
            (
                'failed to validate kubelet configuration, error: [invalid configuration: option "bogus" specified for x. Valid options are "A", "B" or '
                '"C", tracing.samplingRatePerMillion: Invalid value: -1: sampling rate must be positive], path: &TypeMeta{Kind:,APIVersion:,}'
            ),
            [
                'option "bogus" specified for x. Valid options are "A", "B" or "C"',
                "tracing.samplingRatePerMillion: Invalid value: -1: sampling rate must be positive",
            ],
        ),
        (
            (
                "failed to validate kubelet configuration, error: invalid configuration: iptablesMasqueradeBit (--iptables-masquerade-bit) 32 must be "
                "between 0 and 31, inclusive, path: &TypeMeta{Kind:,APIVersion:,}"
            ),
            ["iptablesMasqueradeBit (--iptables-masquerade-bit) 32 must be between 0 and 31, inclusive"],
        ),
        (
            'failed to run Kubelet: new static policy error: bad value for option "full-pcpus-only": strconv.ParseBool: parsing "yes": invalid syntax',
            ['bad value for option "full-pcpus-only": strconv.ParseBool: parsing "yes": invalid syntax'],
        ),
        (
            "failed to run Kubelet: new none policy error: None policy: received unsupported options=map[a:true]",
            ["None policy: received unsupported options=map[a:true]"],
        ),
        (
            "failed to run Kubelet: failed to create kubelet: negative eviction minimum reclaim specified for memory.available",
            ["negative eviction minimum reclaim specified for memory.available"],
        ),
        ('initialize logging: logging.format: Invalid value: "xml": Unsupported log format', ['logging.format: Invalid value: "xml": Unsupported log format']),
        (
            (
                "panic: failed to merge global and in-flight KubeletConfiguration while setting defaults, error: "
                "cannot set feature gate X to false, feature is locked to true"
            ),
            ["cannot set feature gate X to false, feature is locked to true"],
        ),
        (
            (
                "failed to load kubelet config file, path: config.yaml, error: failed to load Kubelet config file config.yaml, error failed to decode: json: "
                "cannot unmarshal string into Go struct field KubeletConfiguration.runOnce of type bool"
            ),
            ["json: cannot unmarshal string into Go struct field KubeletConfiguration.runOnce of type bool"],
        ),
        (
            (
                'invalid Node Allocatable configuration. Resource "ephemeral-storage" has a reservation of {{-9223372036854775808 0} {<nil>}  BinarySI} '
                "but capacity of {{270553174016 0} {<nil>}  BinarySI}. Expected capacity >= reservation."
            ),
            [
                (
                    'invalid Node Allocatable configuration. Resource "ephemeral-storage" has a reservation of {{-9223372036854775808 0} {<nil>}  BinarySI} '
                    "but capacity of "
                ),
                ". Expected capacity >= reservation.",
            ],
        ),
        (
            (
                'validate service connection: validate CRI v1 runtime API for endpoint "unix:///KUBELET_CHECK_RUN/containerd.sock": rpc error: '
                "code = DeadlineExceeded desc = context deadline exceeded"
            ),
            ["validate service connection: validate CRI v1 runtime API for endpoint ", ": rpc error: code = DeadlineExceeded desc = context deadline exceeded"],
        ),
        (
            (
                "panic: failed to merge global and in-flight KubeletConfiguration while setting defaults, error: [GateA is enabled, but depends on "
                "features that are disabled: [GateC], GateB is enabled, but depends on features that are disabled: [C, D]]"
            ),
            ["GateA is enabled, but depends on features that are disabled: [GateC]", "GateB is enabled, but depends on features that are disabled: [C, D]"],
        ),
        (
            "failed to set feature gates from initial flags-based config: cannot set feature gate CPUManager to false, feature is locked to true",
            ["cannot set feature gate CPUManager to false, feature is locked to true"],
        ),
        (
            r'failed to validate kubelet configuration, error: invalid configuration: sysctl "a b" must match regex [\\./], path: &TypeMeta{}',
            [r'sysctl "a b" must match regex [\./]'],
        ),
        (
            "the reserved memory configuration references a NUMA node 1 that does not exist on this machine",
            ["the reserved memory configuration references a NUMA node 1 that does not exist on this machine"],
        ),
    ],
)
def test_the_kubelets_words_are_its_reasons_without_the_wrappers(text, messages):
    assert oracle_cases.kubelet_messages(text) == messages


def test_the_engine_agrees_only_when_it_refuses_with_every_reason_in_the_kubelets_words():
    refused = "failed to validate kubelet configuration, error: [invalid configuration: a must be 1, invalid configuration: b must be 2], path: &TypeMeta{}"
    assert oracle_cases.engine_agrees("ACCEPTED", "ACCEPTED policy=Static", []) is None
    assert oracle_cases.engine_agrees("ACCEPTED", "ACCEPTED policy=Static", ["x: y"]) == "the kubelet accepts it, the engine refuses it"
    assert oracle_cases.engine_agrees("REJECTED", refused, []) == "the kubelet refuses it, the engine accepts it"
    assert oracle_cases.engine_agrees("REJECTED", refused, ["a: a must be 1", "b: b must be 2; hint"]) is None
    assert oracle_cases.engine_agrees("REJECTED", refused, ["a: invalid configuration: a must be 1", "b: b must be 3"]) == (
        "the engine refuses it, but no engine error holds the kubelet's words: b must be 2"
    )
    assert "a must be 1" in oracle_cases.engine_agrees("REJECTED", refused, ["a: A must be 1", "b: b must be 2"])
