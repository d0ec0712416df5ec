# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fields the kubelet parses in cmd/kubelet/app/server.go at start-up, outside its config validation.

kubernetes cmd/kubelet/app/server.go (read at 001332b0422071acf4860769f18e34b5e9b7c1bc): `run` parses qosReserved
with pkg/kubelet/cm ParseQOSReserved (helpers.go); `InitializeTLS` parses tlsCipherSuites and tlsMinVersion with
component-base cli/flag; pkg/kubelet/kubelet.go NewMainKubelet parses containerLogMaxSize (pkg/kubelet/logs) and
allowedUnsafeSysctls (pkg/kubelet/sysctl NewAllowlist). The eviction maps are _eviction_thresholds', logging is
_logging_config's. Each problem is
"<field path>: <the kubelet's text>", as the real kubelet v1.36.2 prints it (tests/oracle/cases/startup_parsing.yml).
"""

from __future__ import annotations

import re

from ._config import KubeletConfigError
from ._go_text import go_quote
from ._kubelet_defaults import parse_go_duration
from ._quantity import Quantity, QuantityError

# pkg/kubelet/cm helpers.go ParseQOSReserved: only memory can be reserved for the QoS tiers.
_QOS_RESERVABLE = ("memory",)
# strconv.ParseInt(s, 10, 0): an optional sign and decimal digits, within int64.
_DECIMAL_INT = re.compile(r"^[+-]?[0-9]+$")
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def _qos_percentage_problem(value: str) -> str | None:
    """helpers.go parsePercentage: a whole percentage from 0 to 100 (every trailing '%' trimmed)."""
    if not value.endswith("%"):
        return f"percentage expected, got '{value}'"
    digits = value.rstrip("%")
    if not _DECIMAL_INT.match(digits) or not _INT64_MIN <= int(digits) <= _INT64_MAX:
        return f"invalid number in percentage '{value}'"
    if not 0 <= int(digits) <= 100:
        return "percentage must be between 0 and 100"
    return None


def qos_reserved_problems(config: dict) -> list[str]:
    """server.go run: `--qos-reserved value failed to parse: ...` for each entry the kubelet refuses.

    The QOSReserved feature gate decides only whether the reservation is applied, not whether it is parsed.
    """
    reserved = config.get("qosReserved")
    if not isinstance(reserved, dict):
        return []  # a non-map is field_type_problems' to report
    problems = []
    for resource, value in reserved.items():
        path = f"qosReserved.{resource}"
        if resource not in _QOS_RESERVABLE:
            problems.append(f'{path}: --qos-reserved value failed to parse: cannot reserve "{resource}" resource')
            continue
        if not isinstance(value, str):
            continue
        problem = _qos_percentage_problem(value)
        if problem:
            problems.append(f'{path}: --qos-reserved value failed to parse: failed to parse percentage {go_quote(value)} for "{resource}" resource: {problem}')
    return problems


# component-base cli/flag ciphersuites_flag.go allCiphers: Go crypto/tls CipherSuites() and InsecureCipherSuites()
# by name, plus two legacy names; matched exactly (case-sensitive). The same set in kubelets 1.31, 1.33 and 1.36.
TLS_CIPHER_SUITES = frozenset(
    (
        "TLS_AES_128_GCM_SHA256",
        "TLS_AES_256_GCM_SHA384",
        "TLS_CHACHA20_POLY1305_SHA256",
        "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA",
        "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
        "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
        "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
        "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
        "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
        "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
        "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
        "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
        "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256",
        "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305",
        "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305",
        "TLS_RSA_WITH_RC4_128_SHA",
        "TLS_RSA_WITH_3DES_EDE_CBC_SHA",
        "TLS_RSA_WITH_AES_128_CBC_SHA",
        "TLS_RSA_WITH_AES_256_CBC_SHA",
        "TLS_RSA_WITH_AES_128_CBC_SHA256",
        "TLS_RSA_WITH_AES_128_GCM_SHA256",
        "TLS_RSA_WITH_AES_256_GCM_SHA384",
        "TLS_ECDHE_ECDSA_WITH_RC4_128_SHA",
        "TLS_ECDHE_RSA_WITH_RC4_128_SHA",
        "TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA",
        "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256",
        "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256",
    )
)
# ciphersuites_flag.go versions; "" means the default.
TLS_VERSIONS = ("VersionTLS10", "VersionTLS11", "VersionTLS12", "VersionTLS13")
# Go crypto/tls CurveID values whose String() is a name in the v1.36.2 kubelet's Go: P-256, P-384, P-521, X25519
# and the three ML-KEM hybrids. component-base cli/flag TLSCurvePreferences refuses the others.
TLS_CURVE_IDS = frozenset((23, 24, 25, 29, 4587, 4588, 4589))
_UINT16_MAX = 65535


def _curve_problems(curves: list) -> list[str]:
    """cli/flag TLSCurvePreferences (component-base v0.36, kubernetes#137115): 1-65535, no repeats, known to Go."""
    problems = []
    seen = set()
    for index, curve in enumerate(curves):
        if isinstance(curve, bool) or not isinstance(curve, int):
            continue  # field_type_problems reports it
        path = f"tlsCurvePreferences[{index}]"
        if not 0 < curve <= _UINT16_MAX:
            problems.append(f"{path}: curve preference {curve} is out of range (must be 1-{_UINT16_MAX})")
        elif curve in seen:
            problems.append(f"{path}: duplicate curve preference {curve}")
        elif curve not in TLS_CURVE_IDS:
            problems.append(f"{path}: curve preference {curve} is not supported by the current Go version")
        seen.add(curve)
    return problems


def tls_problems(config: dict, kubelet_version: str = "1.36") -> list[str]:
    """server.go InitializeTLS, run for every kubelet (also with enableServer false): the cipher suites, the minimum
    TLS version and, from 1.36 (an unknown field before, which the kubelet ignores), the curve preferences.

    TLS 1.3 with cipher suites is accepted: the kubelet only logs that it ignores the suites.
    """
    problems = []
    suites = config.get("tlsCipherSuites")
    if isinstance(suites, list):
        for index, suite in enumerate(suites):
            if isinstance(suite, str) and suite not in TLS_CIPHER_SUITES:
                problems.append(f"tlsCipherSuites[{index}]: Cipher suite {suite} not supported or doesn't exist")
    version = config.get("tlsMinVersion")
    if isinstance(version, str) and version and version not in TLS_VERSIONS:
        problems.append(f'tlsMinVersion: unknown tls version "{version}" (one of {", ".join(TLS_VERSIONS)})')
    curves = config.get("tlsCurvePreferences")
    if isinstance(curves, list) and kubelet_version == "1.36":
        problems.extend(_curve_problems(curves))
    return problems


def container_log_max_size_problems(config: dict) -> list[str]:
    """pkg/kubelet/logs NewContainerLogManager, from NewMainKubelet: a quantity of whole bytes (negative disables
    rotation); `failed to initialize container log manager: failed to parse container log max size ...`."""
    size = config.get("containerLogMaxSize")
    if not isinstance(size, str) or not size:
        return []  # "" is defaulted to 10Mi; another type is field_type_problems' to report
    prefix = f"containerLogMaxSize: failed to initialize container log manager: failed to parse container log max size {go_quote(size)}: "
    try:
        quantity = Quantity.parse(size)
    except QuantityError as exc:
        return [prefix + exc.kubernetes_error]
    if quantity.as_int64() is None:
        return [prefix + "invalid max log size; write a whole number of bytes, e.g. 10Mi"]
    return []


# k8s.io/kubernetes pkg/apis/policy/validation SysctlContainSlashPatternFmt, as the kubelet prints it, and
# SysctlMaxLength; component-helpers/node/util/sysctl namespaceOf's names and prefixes.
SYSCTL_PATTERN_TEXT = r"([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*([a-z0-9][-_a-z0-9]*)?[a-z0-9*]"
_SYSCTL_PATTERN = re.compile("^" + SYSCTL_PATTERN_TEXT + "$")
_SYSCTL_MAX_LENGTH = 253
_NAMESPACED_SYSCTLS = frozenset(
    ("kernel.sem", "kernel.shmall", "kernel.shmmax", "kernel.shmmni", "kernel.shm_rmid_forced", "kernel.shm")
    + ("kernel.msgmax", "kernel.msgmnb", "kernel.msgmni", "kernel.msg")
)
_NAMESPACED_PREFIXES = ("net.", "fs.mqueue.")


def _normalized_sysctl(name: str) -> str:
    """sysctl NormalizeName: a name whose first separator is '/' has its '/' and '.' swapped."""
    separators = [index for index in (name.find("."), name.find("/")) if index != -1]
    if not separators or name[min(separators)] == ".":
        return name
    return name.translate(str.maketrans("./", "/."))


def allowed_unsafe_sysctls_problems(config: dict) -> list[str]:
    """pkg/kubelet/sysctl NewAllowlist, from NewMainKubelet: each pattern's syntax, then whether the kernel
    namespaces it (an IPC or network sysctl); the text follows `failed to create kubelet:`."""
    patterns = config.get("allowedUnsafeSysctls")
    if not isinstance(patterns, list):
        return []
    problems = []
    for index, pattern in enumerate(patterns):
        if not isinstance(pattern, str):
            continue
        path = f"allowedUnsafeSysctls[{index}]"
        if len(pattern) > _SYSCTL_MAX_LENGTH or not _SYSCTL_PATTERN.match(pattern):
            problems.append(f"{path}: sysctl {go_quote(pattern)} must have at most {_SYSCTL_MAX_LENGTH} characters and match regex {SYSCTL_PATTERN_TEXT}")
            continue
        name = _normalized_sysctl(pattern).split("*", 1)[0]
        if name not in _NAMESPACED_SYSCTLS and not name.startswith(_NAMESPACED_PREFIXES):
            problems.append(
                f"{path}: the sysctls {go_quote(name)} are not known to be namespaced; "
                "only IPC (kernel.sem, kernel.shm*, kernel.msg*, fs.mqueue.*) and net.* sysctls can be allowed"
            )
    return problems


def runtime_request_timeout_problems(config: dict) -> list[str]:
    """A negative runtimeRequestTimeout is the deadline of every call to the container runtime, so the first one, when
    the kubelet checks the runtime's API at start (cmd/kubelet/app/server.go run, "validate service connection"),
    fails at once (checked on the real kubelet v1.36.2 with -1ns and -1s; 0s is accepted)."""
    text = config.get("runtimeRequestTimeout")
    if not isinstance(text, str):
        return []  # another type is field_type_problems' to report
    try:
        timeout = parse_go_duration(text, "runtimeRequestTimeout")
    except KubeletConfigError:
        return []  # field_type_problems reports a string that is no duration
    if timeout >= 0:
        return []
    endpoint = config.get("containerRuntimeEndpoint") or "unix:///run/containerd/containerd.sock"
    return [
        (
            f"runtimeRequestTimeout: validate service connection: validate CRI v1 runtime API for endpoint {go_quote(str(endpoint))}: "
            f"rpc error: code = DeadlineExceeded desc = context deadline exceeded; {text} is the deadline of every call to the runtime"
        )
    ]
