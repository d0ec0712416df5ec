# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The recorded verdicts of the differential corpus still hold on the real kubelet: a fixed, seeded sample of the
single-fault cases and of the random configurations (tests/oracle/data/kubelet_verdicts.json, made by
scripts/record-kubelet-verdicts) is run again with kubelet-check and must get the same verdict and the same text.
The pytest stage compares the engine with the whole recording (tests/unit/plugins/plugin_utils/
test_validation_differential.py); this proves the recording is the kubelet's. conftest.py decides whether it runs.
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLE_SEED = 2026
SAMPLE_CASES = 12
SAMPLE_RANDOM = 6


def _load(name):
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, os.path.join(REPO, "scripts", "lib", name + ".py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # its dataclasses look their module up there
        spec.loader.exec_module(module)
    return sys.modules[name]


oracle_cases = _load("oracle_cases")
kubelet_verdicts = _load("kubelet_verdicts")
with open(kubelet_verdicts.VERDICTS_FILE, encoding="utf-8") as _handle:
    RECORDED = json.load(_handle)


def _sample():
    """The same sample at every run: seeded, from the decidable cases and the recorded random configurations."""
    rng = random.Random(SAMPLE_SEED)
    decidable = [case for case in oracle_cases.load_cases() if not case.undecidable]
    randoms = oracle_cases.random_cases(RECORDED["random"]["seed"], RECORDED["random"]["count"], oracle_cases.load_baseline())
    return rng.sample(decidable, min(SAMPLE_CASES, len(decidable))) + rng.sample(randoms, min(SAMPLE_RANDOM, len(randoms)))


@pytest.mark.parametrize("case", _sample(), ids=lambda case: case.id)
def test_the_real_kubelet_gives_the_recorded_verdict(case, oracle_script_path):
    entry = RECORDED["verdicts"].get(case.id)
    assert oracle_cases.is_recorded(case, entry), f"{case.id}: no verdict recorded for these inputs: re-record with scripts/record-kubelet-verdicts"
    verdict = kubelet_verdicts.run_case(str(oracle_script_path), case)
    if verdict.verdict == "HARNESS-ERROR":
        pytest.fail(f"kubelet-check could not decide {case.id} (HARNESS-ERROR: {verdict.text})", pytrace=False)
    assert (verdict.verdict, verdict.text) == (entry["verdict"], entry["text"]), f"{case.id}: set {json.dumps(case.patch)} on {case.numa}"
