# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""check_kubelet_config against the real kubelet's recorded verdicts: the differential proof of issue 26.

Every case of tests/oracle/cases and every seeded random configuration has the real kubelet's verdict in
tests/oracle/data/kubelet_verdicts.json (scripts/record-kubelet-verdicts makes it). The engine, given the same main
config file (check_main_config_file, or effective_kubelet_config with the case's flags), kubelet version and machine
(the fake NUMA nodes kubelet-check made of the recording machine's CPUs, and that machine's memory capacity), must
agree: what the kubelet refuses gets an engine error holding the kubelet's own words (oracle_cases.kubelet_messages
and engine_agrees are the rule), what it accepts gets none. Where the oracle cannot decide (a field its harness
forces), the case's `expect`, checked in the upstream source it cites, stands in for the verdict. tests/oracle re-runs
a sample on the kubelet.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._config import KubeletConfigError
from ansible_collections.numa.kubelet.plugins.plugin_utils._effective import effective_kubelet_config
from ansible_collections.numa.kubelet.plugins.plugin_utils._validation import check_kubelet_config, check_main_config_file

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
VERDICTS_FILE = os.path.join(REPO, "tests", "oracle", "data", "kubelet_verdicts.json")
RERECORD = "re-record with scripts/record-kubelet-verdicts"


def _oracle_cases():
    spec = importlib.util.spec_from_file_location("oracle_cases", os.path.join(REPO, "scripts", "lib", "oracle_cases.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


oracle_cases = _oracle_cases()
with open(VERDICTS_FILE, encoding="utf-8") as _handle:
    RECORDED = json.load(_handle)
try:
    CASES, SCHEMA_PROBLEMS = oracle_cases.load_cases(), []
except oracle_cases.CaseError as _exc:
    CASES, SCHEMA_PROBLEMS = [], _exc.problems
RANDOM = oracle_cases.random_cases(RECORDED["random"]["seed"], RECORDED["random"]["count"], oracle_cases.load_baseline())
VERDICTS = RECORDED["verdicts"]


def engine_errors(case):
    """The engine's errors for the main config file the kubelet read (check_main_config_file: the file as the kubelet
    of the case's version holds it, its defaults applied), or for the config the flags make of it with that version's
    defaults (a KubeletConfigError counts as errors)."""
    machine = RECORDED["machine"]
    arguments = {"numa_nodes": case.numa_topology(machine["cpus"]), "memory_capacity": machine["memory_capacity"], "kubelet_version": case.kubelet_version}
    if not case.flags:
        return check_main_config_file(case.config, **arguments).errors
    try:
        effective = effective_kubelet_config(main=case.config, flags=list(case.flags), kubelet_version=case.kubelet_version)
        return check_kubelet_config(effective, **arguments, defaulted_by=case.kubelet_version).errors
    except KubeletConfigError as exc:
        return exc.problems


def recorded(case):
    entry = VERDICTS.get(case.id)
    assert entry is not None, f"{case.id} ({case.source}) has no recorded verdict: {RERECORD}"
    assert oracle_cases.is_recorded(case, entry), f"{case.id} ({case.source}) changed since its verdict was recorded: {RERECORD}"
    return entry


def test_the_case_files_keep_to_the_schema():
    assert not SCHEMA_PROBLEMS, "\n".join(SCHEMA_PROBLEMS)
    assert any(case.source == "issue_table.yml" for case in CASES)


def test_every_recorded_verdict_belongs_to_a_case_of_the_corpus():
    ids = {case.id for case in CASES + RANDOM}
    orphans = sorted(set(VERDICTS) - ids)
    assert not orphans, f"verdicts of cases that no longer exist: {orphans}: {RERECORD}"


@pytest.mark.parametrize("case", list(CASES), ids=lambda case: case.id)
def test_the_cases_expectation_is_what_the_kubelet_did(case):
    entry = recorded(case)
    if entry["verdict"] == "UNDECIDABLE":
        return
    did = {"ACCEPTED": "accepted", "REJECTED": "refused"}[entry["verdict"]]
    assert case.expect == did, f"{case.id} ({case.source}) expects {case.expect}, the real kubelet {entry['kubelet']} {did} it: {entry['text']}"


@pytest.mark.parametrize("case", CASES + RANDOM, ids=lambda case: case.id)
def test_the_engine_agrees_with_the_real_kubelet(case):
    entry = recorded(case)
    errors = engine_errors(case)
    if entry["verdict"] == "UNDECIDABLE":
        # The oracle's harness forces the field: the case's source-checked expectation is the verdict.
        refused = bool(errors)
        assert refused == (case.expect == "refused"), f"{case.id}: the kubelet (per {entry['text']}) {case.expect} it; engine errors: {errors}"
        return
    disagreement = oracle_cases.engine_agrees(entry["verdict"], entry["text"], errors)
    assert disagreement is None, (
        f"{case.id} ({case.source}, {case.rule}): {disagreement}\n"
        f"set: {json.dumps(case.patch)} numa: {case.numa} kubelet {case.kubelet_version}\n"
        f"the kubelet {entry['kubelet']}: {entry['verdict']}: {entry['text']}\n"
        f"the engine: {errors}"
    )
