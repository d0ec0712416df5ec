# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The kubelet's rules on hairpinMode and on image pull credentials (validation.go), with pkg/kubelet/images/pullmanager
ValidateAllowlistImagesPatterns and the part of distribution/reference's grammar it needs. Sources: _kubelet_validation.
"""

from __future__ import annotations

import re

from ._go_text import go_quote
from ._kubelet_view import View

HAIRPIN_MODES = ("none", "hairpin-veth", "promiscuous-bridge")
IMAGE_PULL_CREDENTIALS_VERIFICATION_POLICIES = ("NeverVerify", "NeverVerifyPreloadedImages", "NeverVerifyAllowlistedImages", "AlwaysVerify")


def hairpin_and_image_credential_rules(view: View) -> list[str]:
    problems = []
    hairpin = view.str("hairpinMode")
    if hairpin is not None and hairpin not in HAIRPIN_MODES:
        problems.append(
            "hairpinMode: invalid configuration: option %s specified for hairpinMode (--hairpin-mode). Valid options are %s, %s or %s"
            % (go_quote(hairpin), *(go_quote(mode) for mode in HAIRPIN_MODES))
        )
    policy = view.str("imagePullCredentialsVerificationPolicy")
    allowlist = view.strings("preloadedImagesVerificationAllowlist")
    ensure_secret_pulled = view.enabled("KubeletEnsureSecretPulledImages")
    if policy is None or allowlist is None or ensure_secret_pulled is None:
        return problems
    if ensure_secret_pulled:
        if policy not in IMAGE_PULL_CREDENTIALS_VERIFICATION_POLICIES:
            problems.append(
                "imagePullCredentialsVerificationPolicy: invalid configuration: option %s specified for imagePullCredentialsVerificationPolicy. "
                "Valid options are %s, %s, %s or %s" % (go_quote(policy), *(go_quote(name) for name in IMAGE_PULL_CREDENTIALS_VERIFICATION_POLICIES))
            )
        if allowlist and policy != "NeverVerifyAllowlistedImages":
            problems.append(
                "preloadedImagesVerificationAllowlist: invalid configuration: can't set `preloadedImagesVerificationAllowlist` if "
                '`imagePullCredentialsVertificationPolicy` is not "NeverVerifyAllowlistedImages"'
            )
        else:
            pattern_problem = next((problem for problem in map(_allowlist_pattern_problem, allowlist) if problem), None)
            if pattern_problem:
                problems.append(
                    "preloadedImagesVerificationAllowlist: invalid configuration: invalid image pattern in `preloadedImagesVerificationAllowlist`: %s"
                    % pattern_problem
                )
    else:
        if policy:
            problems.append(
                "imagePullCredentialsVerificationPolicy: invalid configuration: `imagePullCredentialsVerificationPolicy` must not be set if "
                "KubeletEnsureSecretPulledImages feature gate is not enabled"
            )
        if allowlist:
            problems.append(
                "preloadedImagesVerificationAllowlist: invalid configuration: `preloadedImagesVerificationAllowlist` must not be set if "
                "KubeletEnsureSecretPulledImages feature gate is not enabled"
            )
    return problems


# distribution/reference's grammar, enough to tell a bare repository name from one with a tag or digest.
_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN = rf"(?:{_DOMAIN_COMPONENT}(?:\.{_DOMAIN_COMPONENT})*|\[[a-fA-F0-9:]+\])(?::[0-9]+)?"
_PATH_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*"
_REPOSITORY = re.compile(rf"^(?:{_DOMAIN}/)?{_PATH_COMPONENT}(?:/{_PATH_COMPONENT})*$")


def _allowlist_pattern_problem(pattern: str) -> str | None:
    """pkg/kubelet/images/pullmanager getAllowlistImagePattern's error for one pattern, or None."""
    if pattern != pattern.strip():
        return f"leading/trailing spaces are not allowed: {pattern}"
    wildcard = pattern.endswith("/*")
    trimmed = pattern[:-1] if wildcard else pattern
    if not trimmed:
        return f"the supplied pattern is too short: {pattern}"
    if "*" in trimmed:
        return f"not a valid wildcard pattern, only patterns ending with '/*' are allowed: {pattern}"
    if wildcard:
        return "at least registry hostname is required" if len(trimmed) == 1 else None
    name = trimmed.split("@", 1)[0]
    last = name.rsplit("/", 1)[-1]
    repository = name[: len(name) - len(last)] + last.split(":", 1)[0] if ":" in last else name
    if not _REPOSITORY.match(repository):
        return "failed to parse as an image name: invalid reference format"
    if _normalized_name(repository) != trimmed:
        return f"neither tag nor digest is accepted in an image reference: {pattern}"
    return None


def _normalized_name(repository: str) -> str:
    """distribution/reference ParseNormalizedNamed(...).Name(): "busybox" is "docker.io/library/busybox"."""
    first, _slash, rest = repository.partition("/")
    if not rest or ("." not in first and ":" not in first and first != "localhost" and first.lower() == first):
        first, rest = "docker.io", repository
    if first == "index.docker.io":
        first = "docker.io"
    if first == "docker.io" and "/" not in rest:
        rest = "library/" + rest
    return f"{first}/{rest}"
