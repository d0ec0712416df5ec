# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""`logging` as the kubelet checks it when it initializes logging (_logging_config).

The texts are the real kubelet v1.36.2's after "initialize logging: " (tests/oracle/cases/logging_config.yml).
"""

from __future__ import annotations

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._logging_config import logging_problems
from ansible_collections.numa.kubelet.plugins.plugin_utils._validation import check_kubelet_config

INIT = "logging: initialize logging: "


@pytest.mark.parametrize(
    "config, expected",
    [
        ({"logging": {"format": "xml"}}, 'logging.format: Invalid value: "xml": Unsupported log format'),
        ({"logging": {"format": "JSON"}}, 'logging.format: Invalid value: "JSON": Unsupported log format'),
        (
            {"logging": {"format": "json"}, "featureGates": {"LoggingBetaOptions": False}},
            "logging.format: Forbidden: Log format json is disabled, see LoggingBetaOptions feature",
        ),
        (
            {"logging": {"format": "json"}, "featureGates": {"AllBeta": False}},
            "logging.format: Forbidden: Log format json is disabled, see LoggingBetaOptions feature",
        ),
        ({"logging": {"verbosity": 2147483648}}, "logging.verbosity: Invalid value: 2147483648: Must be <= 2147483647"),
        (
            {"logging": {"format": "json", "vmodule": [{"filePattern": "kubelet*", "verbosity": 4}]}},
            "logging.vmodule: Forbidden: Only supported for text log format",
        ),
        ({"logging": {"vmodule": [{"filePattern": "", "verbosity": 4}]}}, "logging.vmodule[0]: Required value: File pattern must not be empty"),
        (
            {"logging": {"vmodule": [{"filePattern": "a=b", "verbosity": 4}]}},
            'logging.vmodule[0]: Invalid value: "a=b": File pattern must not contain equal sign or comma',
        ),
        (
            {"logging": {"vmodule": [{"filePattern": "k*", "verbosity": 2147483648}]}},
            "logging.vmodule[0]: Invalid value: 2147483648: Must be <= 2147483647",
        ),
        (
            {"logging": {"options": {"json": {"infoBufferSize": "1Ki"}}}},
            "logging.options.json.infoBufferSize: Forbidden: Feature LoggingAlphaOptions is disabled",
        ),
        (
            {"logging": {"options": {"text": {"infoBufferSize": "1Ki"}}}},
            "logging.options.text.infoBufferSize: Forbidden: Feature LoggingAlphaOptions is disabled",
        ),
        ({"logging": {"flushFrequency": "-1500ms"}}, 'logging.flushFrequency: Invalid value: "-1.5s": Must be greater than zero'),
        ({"logging": {"flushFrequency": -5}}, "logging.flushFrequency: Invalid value: -5: Must be greater than zero"),
    ],
)
def test_a_logging_setting_the_kubelet_refuses(config, expected):
    assert logging_problems(config) == [INIT + expected]


@pytest.mark.parametrize(
    "config",
    [
        {"logging": {"format": "text", "verbosity": 2147483647, "flushFrequency": "1ns"}},
        {"logging": {"format": "json", "options": {"json": {"splitStream": True, "infoBufferSize": "0"}}}},
        {"logging": {"options": {"text": {"splitStream": True}}}, "featureGates": {"LoggingBetaOptions": False}},
        {"logging": {"options": {"json": {"infoBufferSize": "1Ki"}}}, "featureGates": {"LoggingAlphaOptions": True}},
        {"logging": {"options": {"json": {"infoBufferSize": "1Ki"}}}, "featureGates": {"AllAlpha": True}},
        {"logging": {"vmodule": [{"filePattern": "kubelet*", "verbosity": 4}]}},
        {"logging": {"flushFrequency": 0}},
    ],
)
def test_a_logging_setting_the_kubelet_accepts(config):
    assert logging_problems(config) == []


def test_several_field_errors_are_joined_as_the_kubelet_joins_them():
    config = {"logging": {"vmodule": [{"filePattern": "", "verbosity": 1}, {"filePattern": "a,b", "verbosity": 1}]}}
    assert logging_problems(config) == [
        INIT + "[logging.vmodule[0]: Required value: File pattern must not be empty, "
        'logging.vmodule[1]: Invalid value: "a,b": File pattern must not contain equal sign or comma]'
    ]


def test_values_the_decoding_refuses_are_not_logging_initialization_errors():
    assert logging_problems({"logging": {"verbosity": 4294967296}}) == [
        "logging.verbosity: json: cannot unmarshal number 4294967296 into Go struct field LoggingConfiguration.logging.verbosity of type v1.VerbosityLevel"
    ]
    assert logging_problems({"logging": {"options": {"json": {"infoBufferSize": "abc"}}}})[0].startswith(
        "logging.options.json.infoBufferSize: invalid quantity 'abc': quantities must match the regular expression"
    )
    assert logging_problems({"logging": {"flushFrequency": "90"}}) == ['logging.flushFrequency: time: missing unit in duration "90"']


@pytest.mark.parametrize("version", ["1.31", "1.33"])
def test_a_negative_flush_frequency_makes_older_kubelets_panic(version):
    assert logging_problems({"logging": {"flushFrequency": "-1s"}}, version) == [
        "logging.flushFrequency: the kubelet panics: non-positive interval for NewTicker (write a positive duration)"
    ]


def test_check_kubelet_config_reports_logging_problems():
    errors = check_kubelet_config({"logging": {"format": "xml"}}).errors
    assert INIT + 'logging.format: Invalid value: "xml": Unsupported log format' in errors
