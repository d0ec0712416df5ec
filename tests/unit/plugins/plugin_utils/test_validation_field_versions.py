# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A field the kubelet's version does not know is ignored by that kubelet: a warning, never a refusal; the same field is
judged by a kubelet that knows it; each version's own defaults are judged, not v1.36's."""

from __future__ import annotations

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._effective import effective_kubelet_config
from ansible_collections.numa.kubelet.plugins.plugin_utils._kubelet_field_table import FIELD_TYPES, FIELDS_UNKNOWN_TO, fields_unknown_to, unknown_field_warning
from ansible_collections.numa.kubelet.plugins.plugin_utils._kubelet_fields import field_type_problems
from ansible_collections.numa.kubelet.plugins.plugin_utils._validation import check_kubelet_config, check_main_config_file

ACCEPTED = {
    "memoryManagerPolicy": "Static",
    "topologyManagerPolicy": "single-numa-node",
    "kubeReserved": {"memory": "512Mi"},
    "systemReserved": {"memory": "412Mi"},
    "reservedMemory": [{"numaNode": 0, "limits": {"memory": "1Gi"}}],
}
IMAGE_POLICY_REFUSED = (
    "imagePullCredentialsVerificationPolicy: invalid configuration: `imagePullCredentialsVerificationPolicy` must not be set if "
    "KubeletEnsureSecretPulledImages feature gate is not enabled"
)


def test_every_version_s_unknown_fields_are_fields_of_the_newest_types():
    assert all(unknown <= set(FIELD_TYPES) for unknown in FIELDS_UNKNOWN_TO.values())
    assert FIELDS_UNKNOWN_TO["1.36"] < FIELDS_UNKNOWN_TO["1.33"] < FIELDS_UNKNOWN_TO["1.31"]
    assert fields_unknown_to("v1.32.5+rke2r1") == FIELDS_UNKNOWN_TO["1.31"] and fields_unknown_to(None) == FIELDS_UNKNOWN_TO["1.36"]


@pytest.mark.parametrize(
    ("field", "value", "version"),
    [
        ("memoryReservationPolicy", "bogus", "1.31"),
        ("memoryReservationPolicy", "bogus", "1.33"),
        ("tlsCurvePreferences", "X25519", "1.33"),
        ("draManagerReconcilePeriod", 10, "1.36"),
        ("userNamespaces", {"idsPerPod": 1}, "1.31"),
        ("imagePullCredentialsVerificationPolicy", "Sometimes", "1.31"),
    ],
)
def test_a_field_the_version_does_not_know_is_a_warning_naming_it_and_the_version(field, value, version):
    report = check_main_config_file(dict(ACCEPTED, **{field: value}), [0], kubelet_version=version)
    assert report.errors == []
    assert report.warnings == [unknown_field_warning(field, version)]
    assert f"kubelet {version} does not know this field" in report.warnings[0] and f'unknown field "{field}")' in report.warnings[0]


@pytest.mark.parametrize(
    ("field", "value", "version", "words"),
    [
        ("memoryReservationPolicy", "bogus", "1.36", 'option "bogus" specified for memoryReservationPolicy'),
        ("tlsCurvePreferences", "X25519", "1.36", "KubeletConfiguration.tlsCurvePreferences of type []int32"),
        ("singleProcessOOMKill", "yes", "1.33", "KubeletConfiguration.singleProcessOOMKill of type bool"),
    ],
)
def test_the_same_field_is_judged_by_a_kubelet_that_knows_it(field, value, version, words):
    errors = check_main_config_file(dict(ACCEPTED, **{field: value}), [0], kubelet_version=version).errors
    assert any(words in error for error in errors), errors


def test_v1_33_refuses_the_image_policy_v1_36_would_default_and_v1_36_takes_it():
    config = dict(ACCEPTED, imagePullCredentialsVerificationPolicy="NeverVerifyPreloadedImages")
    assert check_main_config_file(config, [0], kubelet_version="1.33").errors == [IMAGE_POLICY_REFUSED]
    assert check_main_config_file(config, [0], kubelet_version="1.36").errors == []
    effective = effective_kubelet_config(config, kubelet_version="1.33")
    assert check_kubelet_config(effective, [0], kubelet_version="1.33", defaulted_by="1.33").errors == [IMAGE_POLICY_REFUSED]


@pytest.mark.parametrize("version", ["1.31", "1.33", "v1.32.5+rke2r1"])
def test_a_v1_36_effective_config_checked_for_an_older_kubelet_carries_no_v1_36_default_into_the_verdict(version):
    # What callers that layer without a version hand over: v1.36's defaults, read as the older kubelet's own.
    report = check_kubelet_config(effective_kubelet_config(ACCEPTED), [0], kubelet_version=version)
    assert report.errors == []
    assert not [warning for warning in report.warnings if "does not know this field" in warning]


@pytest.mark.parametrize("version", ["1.31", "1.33", "1.36"])
def test_the_type_and_misspelling_checks_know_exactly_the_version_s_fields(version):
    # A list is the wrong JSON type for every field but the list fields, a string for those.
    wrong = {name: "x" if kind.startswith("[]") else ["x"] for name, kind in FIELD_TYPES.items() if name not in ("apiVersion", "kind")}
    refused = {problem.split(":")[0].split(".")[0] for problem in field_type_problems(wrong, kubelet_version=version)}
    assert refused == set(wrong) - FIELDS_UNKNOWN_TO[version]
    report = check_kubelet_config(wrong, kubelet_version=version)
    assert {warning.split(":")[0] for warning in report.warnings if "does not know this field" in warning} == FIELDS_UNKNOWN_TO[version]
    assert not [error for error in report.errors if "unknown KubeletConfiguration" in error or error.split(":")[0] in FIELDS_UNKNOWN_TO[version]]
