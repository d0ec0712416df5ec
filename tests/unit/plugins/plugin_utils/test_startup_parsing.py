# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""qosReserved and the TLS fields as cmd/kubelet/app/server.go parses them at start-up (_startup_parsing).

The texts are the real kubelet v1.36.2's (tests/oracle/cases/startup_parsing.yml); the field path before them is ours.
"""

from __future__ import annotations

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._startup_parsing import (
    TLS_CIPHER_SUITES,
    allowed_unsafe_sysctls_problems,
    container_log_max_size_problems,
    go_quote,
    qos_reserved_problems,
    runtime_request_timeout_problems,
    tls_problems,
)
from ansible_collections.numa.kubelet.plugins.plugin_utils._validation import check_kubelet_config


@pytest.mark.parametrize(
    "value, reason",
    [
        ("50", "percentage expected, got '50'"),
        ("", "percentage expected, got ''"),
        ("5.5%", "invalid number in percentage '5.5%'"),
        ("99999999999999999999%", "invalid number in percentage '99999999999999999999%'"),
        ("1_0%", "invalid number in percentage '1_0%'"),
        ("101%", "percentage must be between 0 and 100"),
        ("-1%", "percentage must be between 0 and 100"),
    ],
)
def test_a_qos_reservation_the_kubelet_refuses(value, reason):
    assert qos_reserved_problems({"qosReserved": {"memory": value}}) == [
        f'qosReserved.memory: --qos-reserved value failed to parse: failed to parse percentage "{value}" for "memory" resource: {reason}'
    ]


@pytest.mark.parametrize("value", ["0%", "50%", "100%", "50%%", "+50%", "050%"])
def test_a_qos_reservation_the_kubelet_accepts(value):
    assert qos_reserved_problems({"qosReserved": {"memory": value}}) == []


def test_only_memory_can_be_reserved_for_the_qos_tiers():
    assert qos_reserved_problems({"qosReserved": {"cpu": "50%"}}) == ['qosReserved.cpu: --qos-reserved value failed to parse: cannot reserve "cpu" resource']


def test_the_quoted_value_is_escaped_as_go_quotes_it():
    assert go_quote('5"%') == '"5\\"%"'
    assert qos_reserved_problems({"qosReserved": {"memory": "a\\b"}})[0].endswith(
        'failed to parse percentage "a\\\\b" for "memory" resource: percentage expected, got \'a\\b\''
    )


def test_every_cipher_suite_the_kubelet_knows_is_accepted_and_names_are_case_sensitive():
    assert tls_problems({"tlsCipherSuites": sorted(TLS_CIPHER_SUITES)}) == []
    assert tls_problems({"tlsCipherSuites": ["TLS_AES_128_GCM_SHA256", "tls_aes_128_gcm_sha256", "TLS_FALLBACK_SCSV"]}) == [
        "tlsCipherSuites[1]: Cipher suite tls_aes_128_gcm_sha256 not supported or doesn't exist",
        "tlsCipherSuites[2]: Cipher suite TLS_FALLBACK_SCSV not supported or doesn't exist",
    ]


@pytest.mark.parametrize("version", ["", "VersionTLS10", "VersionTLS11", "VersionTLS12", "VersionTLS13"])
def test_a_tls_version_the_kubelet_accepts(version):
    assert tls_problems({"tlsMinVersion": version, "tlsCipherSuites": ["TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"]}) == []


@pytest.mark.parametrize("version", ["VersionTLS14", "tls1.2", "versiontls12"])
def test_a_tls_version_the_kubelet_refuses(version):
    assert tls_problems({"tlsMinVersion": version}) == [
        f'tlsMinVersion: unknown tls version "{version}" (one of VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13)'
    ]


@pytest.mark.parametrize(
    "curves, expected",
    [
        ([0], ["tlsCurvePreferences[0]: curve preference 0 is out of range (must be 1-65535)"]),
        ([-1], ["tlsCurvePreferences[0]: curve preference -1 is out of range (must be 1-65535)"]),
        ([65536], ["tlsCurvePreferences[0]: curve preference 65536 is out of range (must be 1-65535)"]),
        ([65535], ["tlsCurvePreferences[0]: curve preference 65535 is not supported by the current Go version"]),
        ([1], ["tlsCurvePreferences[0]: curve preference 1 is not supported by the current Go version"]),
        ([23, 23], ["tlsCurvePreferences[1]: duplicate curve preference 23"]),
        ([23, 24, 25, 29, 4587, 4588, 4589], []),
    ],
)
def test_curve_preferences_on_kubelet_1_36(curves, expected):
    assert tls_problems({"tlsCurvePreferences": curves}) == expected


@pytest.mark.parametrize("version", ["1.31", "1.33"])
def test_curve_preferences_are_an_unknown_field_before_1_36(version):
    assert tls_problems({"tlsCurvePreferences": [0]}, version) == []


def test_check_kubelet_config_reports_them_for_the_chosen_version():
    config = {"qosReserved": {"memory": "50"}, "tlsMinVersion": "VersionTLS14", "tlsCurvePreferences": [0]}
    errors = check_kubelet_config(config).errors
    assert 'tlsMinVersion: unknown tls version "VersionTLS14" (one of VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13)' in errors
    assert "tlsCurvePreferences[0]: curve preference 0 is out of range (must be 1-65535)" in errors
    assert any(error.startswith("qosReserved.memory: --qos-reserved value failed to parse") for error in errors)
    older = check_kubelet_config(config, kubelet_version="1.33").errors
    assert not any(error.startswith("tlsCurvePreferences[0]: curve preference") for error in older)


@pytest.mark.parametrize(
    "size, reason",
    [
        ("10MB", "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
        ("1.5Mi", "invalid max log size"),
        ("1500m", "invalid max log size"),
    ],
)
def test_a_container_log_max_size_the_kubelet_refuses(size, reason):
    problems = container_log_max_size_problems({"containerLogMaxSize": size})
    assert len(problems) == 1
    assert problems[0].startswith(f'containerLogMaxSize: failed to initialize container log manager: failed to parse container log max size "{size}": {reason}')


@pytest.mark.parametrize("size", ["10Mi", "1.5M", "0", "-1", ""])
def test_a_container_log_max_size_the_kubelet_accepts(size):
    assert container_log_max_size_problems({"containerLogMaxSize": size}) == []


@pytest.mark.parametrize("pattern", ["Bad Name", "kernel.*.foo", "net.", "a" * 254])
def test_a_sysctl_pattern_the_kubelet_cannot_read(pattern):
    assert allowed_unsafe_sysctls_problems({"allowedUnsafeSysctls": [pattern]}) == [
        (
            f'allowedUnsafeSysctls[0]: sysctl "{pattern}" must have at most 253 characters and match regex '
            r"([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*([a-z0-9][-_a-z0-9]*)?[a-z0-9*]"
        )
    ]


@pytest.mark.parametrize("pattern, name", [("kernel.panic", "kernel.panic"), ("net*", "net"), ("kernel/panic", "kernel.panic"), ("fs.*", "fs.")])
def test_a_sysctl_the_kernel_does_not_namespace(pattern, name):
    problems = allowed_unsafe_sysctls_problems({"allowedUnsafeSysctls": [pattern]})
    assert len(problems) == 1
    assert problems[0].startswith(f'allowedUnsafeSysctls[0]: the sysctls "{name}" are not known to be namespaced; ')


@pytest.mark.parametrize(
    "pattern",
    ["net.core.somaxconn", "net.*", "net/ipv4/ip_forward", "kernel.msg*", "kernel.shm*", "kernel.sem", "fs.mqueue.msg_max", "net.ipv4.conf.eno2/100.rp_filter"],
)
def test_a_sysctl_the_kubelet_allows(pattern):
    assert allowed_unsafe_sysctls_problems({"allowedUnsafeSysctls": [pattern]}) == []


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        (
            {"runtimeRequestTimeout": "-1s"},
            [
                (
                    'runtimeRequestTimeout: validate service connection: validate CRI v1 runtime API for endpoint "unix:///run/containerd/containerd.sock": '
                    "rpc error: code = DeadlineExceeded desc = context deadline exceeded; -1s is the deadline of every call to the runtime"
                )
            ],
        ),
        (
            {"runtimeRequestTimeout": "-1ns", "containerRuntimeEndpoint": "unix:///run/crio/crio.sock"},
            [
                (
                    'runtimeRequestTimeout: validate service connection: validate CRI v1 runtime API for endpoint "unix:///run/crio/crio.sock": '
                    "rpc error: code = DeadlineExceeded desc = context deadline exceeded; -1ns is the deadline of every call to the runtime"
                )
            ],
        ),
        ({"runtimeRequestTimeout": "0s"}, []),
        ({"runtimeRequestTimeout": "2m"}, []),
        ({"runtimeRequestTimeout": "-1"}, []),  # no duration: field_type_problems' to report
        ({}, []),
    ],
)
def test_runtime_request_timeout(config, expected):
    assert runtime_request_timeout_problems(config) == expected
