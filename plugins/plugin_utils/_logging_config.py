# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The `logging` section as the kubelet checks it when it initializes logging, before any other validation.

cmd/kubelet/app/server.go NewKubeletCommand calls component-base logs/api/v1 ValidateAndApplyAsField with the
config's feature gates and returns `initialize logging: <field errors>` (several are joined as "[a, b]"). Read in
staging/src/k8s.io/component-base/logs/api/v1/options.go at 3ef6ef3cfbd27321db8aac529077c7ef016f82c2 and
kube_features.go at 26348b767d63c237e3469eee89edbfdf1f04cefe; v1.36.2 differs from both and its behaviour was taken
from the real kubelet (tests/oracle/cases/logging_config.yml): splitStream is no longer gated, text options have
an infoBufferSize gated like JSON's, and a negative flushFrequency is refused (1.31 and 1.33 panic on it instead).
"""

from __future__ import annotations

from ._config import KubeletConfigError, parse_quantity
from ._feature_gates import gate_enabled
from ._go_text import go_quote
from ._kubelet_defaults import go_duration_string, parse_go_duration

_INT32_MAX = 2**31 - 1
_UINT32_MAX = 2**32 - 1
# The formats the kubelet registers: text always, json (component-base logs/json/register) behind a gate.
_FORMAT_GATES = {"text": None, "json": "LoggingBetaOptions"}


class _FieldError(str):
    """A field error of logs/api/v1 Validate; logging_problems joins them as the kubelet reports them."""


def _verbosity_problem(path: str, value: object, go_field: str) -> str | None:
    """A VerbosityLevel (uint32) that klog cannot take: above MaxInt32 (Validate) or outside uint32 (decoding)."""
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    if not 0 <= value <= _UINT32_MAX:
        return f"{path}: json: cannot unmarshal number {value} into Go struct field {go_field} of type v1.VerbosityLevel"
    if value > _INT32_MAX:
        return _FieldError(f"{path}: Invalid value: {value}: Must be <= {_INT32_MAX}")
    return None


def _format_problems(config: dict, logging: dict, kubelet_version: str) -> list[str]:
    log_format = logging.get("format") or "text"
    if not isinstance(log_format, str):
        return []
    if log_format not in _FORMAT_GATES:
        return [_FieldError(f"logging.format: Invalid value: {go_quote(log_format)}: Unsupported log format")]
    gate = _FORMAT_GATES[log_format]
    if gate and not gate_enabled(config.get("featureGates"), gate, kubelet_version):
        return [_FieldError(f"logging.format: Forbidden: Log format {log_format} is disabled, see {gate} feature")]
    return []


def _flush_frequency_problems(logging: dict, kubelet_version: str) -> list[str]:
    """TimeOrMetaDuration: a duration string or nanoseconds; zero is defaulted to 5s, a negative one refused."""
    flush = logging.get("flushFrequency")
    if isinstance(flush, bool) or not isinstance(flush, (str, int)):
        return []
    if isinstance(flush, str):
        try:
            nanoseconds = parse_go_duration(flush, "logging.flushFrequency")
        except KubeletConfigError as exc:
            return exc.problems
        shown = go_quote(go_duration_string(nanoseconds))
    else:
        nanoseconds, shown = flush, str(flush)
    if nanoseconds >= 0:
        return []
    if kubelet_version in ("1.31", "1.33"):
        return ["logging.flushFrequency: the kubelet panics: non-positive interval for NewTicker (write a positive duration)"]
    return [_FieldError(f"logging.flushFrequency: Invalid value: {shown}: Must be greater than zero")]


def _vmodule_problems(logging: dict) -> list[str]:
    vmodule = logging.get("vmodule")
    if not isinstance(vmodule, list) or not vmodule:
        return []
    problems: list[str] = []
    if (logging.get("format") or "text") != "text":
        problems.append(_FieldError("logging.vmodule: Forbidden: Only supported for text log format"))
    for index, item in enumerate(vmodule):
        if not isinstance(item, dict):
            continue
        path = f"logging.vmodule[{index}]"
        pattern = item.get("filePattern") or ""
        if not isinstance(pattern, str):
            continue
        if pattern == "":
            problems.append(_FieldError(f"{path}: Required value: File pattern must not be empty"))
        if "=" in pattern or "," in pattern:
            problems.append(_FieldError(f"{path}: Invalid value: {go_quote(pattern)}: File pattern must not contain equal sign or comma"))
        problem = _verbosity_problem(path, item.get("verbosity"), "VModuleItem.logging.vmodule.verbosity")
        if problem:
            problems.append(problem)
    return problems


def _buffer_problems(config: dict, logging: dict, kubelet_version: str) -> list[str]:
    """options.<format>.infoBufferSize: a quantity; any non-zero size needs LoggingAlphaOptions."""
    options = logging.get("options")
    if not isinstance(options, dict):
        return []
    problems = []
    for log_format in ("json", "text"):
        routing = options.get(log_format)
        size = routing.get("infoBufferSize") if isinstance(routing, dict) else None
        if size is None:
            continue
        path = f"logging.options.{log_format}.infoBufferSize"
        try:
            quantity = parse_quantity(size, path)
        except KubeletConfigError as exc:
            problems.extend(exc.problems)
            continue
        if not quantity.is_zero() and not gate_enabled(config.get("featureGates"), "LoggingAlphaOptions", kubelet_version):
            problems.append(_FieldError(f"{path}: Forbidden: Feature LoggingAlphaOptions is disabled"))
    return problems


def logging_problems(config: dict, kubelet_version: str = "1.36") -> list[str]:
    """Every problem the kubelet stops on in `logging`: ValidateAndApplyAsField's field errors (as "logging:
    initialize logging: <field error>"), and the values its decoding refuses or it panics on.

    The verbosity is often overridden by the kubelet's --v flag, which wins over the config file.
    """
    logging = config.get("logging")
    if not isinstance(logging, dict):
        return []
    problems = _format_problems(config, logging, kubelet_version)
    verbosity = _verbosity_problem("logging.verbosity", logging.get("verbosity"), "LoggingConfiguration.logging.verbosity")
    if verbosity:
        problems.append(verbosity)
    problems += _vmodule_problems(logging)
    problems += _buffer_problems(config, logging, kubelet_version)
    problems += _flush_frequency_problems(logging, kubelet_version)
    # server.go: fmt.Errorf("initialize logging: %v", errs.ToAggregate()), which joins several as "[a, b]".
    field_errors = [str(problem) for problem in problems if isinstance(problem, _FieldError)]
    others = [problem for problem in problems if not isinstance(problem, _FieldError)]
    if len(field_errors) > 1:
        field_errors = ["[" + ", ".join(field_errors) + "]"]
    return [f"logging: initialize logging: {error}" for error in field_errors] + others
