# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How nodeadm reads its NodeConfig sources at boot, so a plan sees what nodeadm will make of them.

nodeadm (awslabs/amazon-eks-ami, nodeadm/internal/configprovider) builds its NodeConfig from a chain of sources:
the instance's user data, then the files of /etc/eks/nodeadm.d (nodeadm-run.service). It merges them in that order
(internal/api/merge.go: later wins, maps key by key, lists replaced) and writes spec.kubelet.config, whole, as the
kubelet drop-in config.json.d/40-nodeadm.conf (internal/kubelet/config.go). The previous 40-nodeadm.conf is never
an input.

- userdata.go: the user data is base64-decoded when it decodes, then gunzipped when it starts with gzip's magic.
- mime.go ParseMaybeMultipart: a MIME multi-part document contributes its application/node.eks.aws parts, each
  base64-decoded / gunzipped the same way, merged in order (none at all is an error); anything else is decoded as
  one NodeConfig.
- api/bridge DecodeNodeConfig (sigs.k8s.io/yaml): only the FIRST YAML document of a part or file is read, and it
  must be apiVersion node.eks.aws/v1alpha1, kind NodeConfig.
- file.go: a directory contributes its *.yaml, *.yml and *.json files (suffix matched case-insensitively) in
  lexical order; a file that does not decode fails the whole chain (chain.go), and nodeadm does not configure the
  kubelet at all.
"""

from __future__ import annotations

import base64
import binascii
import email
import email.policy
import gzip
import posixpath
import re
from collections.abc import Iterable
from email.message import Message
from typing import Any

import yaml

from ._config import KubeletConfigError
from ._effective import merge_patch
from ._yaml_text import load_yaml_documents, yaml_error_text

NODECONFIG_API_VERSION = "node.eks.aws/v1alpha1"
NODECONFIG_KIND = "NodeConfig"
NODECONFIG_CONTENT_TYPE = "application/node.eks.aws"
CONFIG_SUFFIXES = (".yaml", ".yml", ".json")
# The NodeConfig spec.cluster fields (nodeadm api/v1alpha1 ClusterDetails).
CLUSTER_FIELDS = ("name", "apiServerEndpoint", "certificateAuthority", "cidr", "enableOutpost", "id")
# What nodeadm's ValidateNodeConfig (internal/api/validation.go) requires of the merged config.
CLUSTER_REQUIRED = ("name", "apiServerEndpoint", "certificateAuthority", "cidr")
_BASE64 = re.compile(rb"^[A-Za-z0-9+/]*={0,2}$")
_PEM_CERTIFICATE = re.compile(rb"-----BEGIN CERTIFICATE-----\r?\n([A-Za-z0-9+/=\r\n]+)-----END CERTIFICATE-----")


class NodeadmSourceError(KubeletConfigError):
    """A NodeConfig source nodeadm cannot decode (it would fail, or at boot skip the source)."""


def _bytes(data: str | bytes | bytearray) -> bytes:
    return data.encode("utf-8") if isinstance(data, str) else bytes(data)


def _decode_if_base64(data: bytes) -> bytes:
    """encoding.go decodeIfBase64: Go's StdEncoding skips CR and LF; anything else that is not base64 stays as is."""
    compact = data.replace(b"\r", b"").replace(b"\n", b"")
    if not _BASE64.match(compact) or len(compact) % 4:
        return data
    try:
        return base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError):
        return data


def _decompress_if_gzip(data: bytes, origin: str) -> bytes:
    if data[:2] != b"\x1f\x8b":
        return data
    try:
        return gzip.decompress(data)
    except (OSError, EOFError) as exc:
        raise NodeadmSourceError(["%s: starts as gzip but does not decompress: %s" % (origin, exc)]) from exc


def _first_nodeconfig(data: bytes, origin: str) -> dict:
    """The first YAML document of data as a NodeConfig mapping (what DecodeNodeConfig reads)."""
    try:
        text = data.decode("utf-8")
        document = next(iter(load_yaml_documents(text)), None)
    except UnicodeDecodeError as exc:
        raise NodeadmSourceError(["%s: nodeadm cannot decode it as a NodeConfig: %s" % (origin, exc)]) from exc
    except yaml.YAMLError as exc:
        raise NodeadmSourceError([f"{origin}: nodeadm cannot decode it as a NodeConfig: {yaml_error_text(exc)}"]) from exc
    if not isinstance(document, dict) or document.get("kind") != NODECONFIG_KIND or document.get("apiVersion") != NODECONFIG_API_VERSION:
        found = (document.get("apiVersion"), document.get("kind")) if isinstance(document, dict) else (None, type(document).__name__)
        raise NodeadmSourceError(
            [
                "%s: the first YAML document must be apiVersion %s, kind %s (nodeadm reads only that one), got %r"
                % (origin, NODECONFIG_API_VERSION, NODECONFIG_KIND, found)
            ]
        )
    _check_shape(document, origin)
    return document


def _check_shape(document: dict, origin: str) -> None:
    spec = document.get("spec")
    if spec is None:
        return
    problems = []
    kubelet = spec.get("kubelet") if isinstance(spec, dict) else None
    config = kubelet.get("config") if isinstance(kubelet, dict) else None
    if not isinstance(spec, dict) or not isinstance(kubelet, (dict, type(None))) or not isinstance(config, (dict, type(None))):
        problems.append(f"{origin}: spec.kubelet.config of a NodeConfig must be a mapping (spec and spec.kubelet too)")
    else:
        authority = (spec.get("cluster") or {}).get("certificateAuthority") if isinstance(spec.get("cluster"), dict) else None
        if authority is not None and _base64_problem(authority):
            # certificateAuthority is []byte: encoding/json wants base64, or the whole document does not decode.
            problems.append(f"{origin}: spec.cluster.certificateAuthority {_base64_problem(authority)}")
    if problems:
        raise NodeadmSourceError(problems)


def _is_multipart(data: bytes) -> Message | None:
    try:
        message = email.message_from_bytes(data, policy=email.policy.compat32)
    except (TypeError, ValueError):
        return None
    if message.get("Content-Type") is None or not message.is_multipart() or message.get_content_maintype() != "multipart":
        return None
    return message


def _parse_maybe_multipart(data: bytes, origin: str) -> list[dict]:
    """mime.go ParseMaybeMultipart: the NodeConfig parts of a MIME multi-part document, or the data as one NodeConfig."""
    message = _is_multipart(data)
    if message is None:
        return [_first_nodeconfig(data, origin)]
    documents = []
    for index, part in enumerate(message.get_payload()):
        if part.get_content_type() != NODECONFIG_CONTENT_TYPE:
            continue
        where = "%s, part %d" % (origin, index + 1)
        payload = part.get_payload(decode=part.get("Content-Transfer-Encoding", "").lower() in ("quoted-printable", "base64"))
        payload = _decompress_if_gzip(_decode_if_base64(_bytes(payload)), where)
        documents.append(_first_nodeconfig(payload, f"{where} ({NODECONFIG_CONTENT_TYPE})"))
    if not documents:
        raise NodeadmSourceError([f"{origin}: a MIME multi-part document without an {NODECONFIG_CONTENT_TYPE} part: nodeadm finds no NodeConfig in it"])
    return documents


def user_data_nodeconfigs(data: str | bytes, origin: str = "the user data") -> list[dict]:
    """The NodeConfig documents nodeadm reads from one user data, in merge order (userdata.go, then mime.go)."""
    return _parse_maybe_multipart(_decompress_if_gzip(_decode_if_base64(_bytes(data)), origin), origin)


def file_nodeconfigs(path: str, text: str | bytes) -> list[dict]:
    """The NodeConfig documents nodeadm reads from one /etc/eks/nodeadm.d file (file.go: ParseMaybeMultipart, no base64)."""
    return _parse_maybe_multipart(_bytes(text), path)


def config_files(files: dict[str, str | None], directory: str) -> list[str]:
    """The files of `directory` nodeadm reads, in its order: {path: text} -> sorted paths."""
    prefix = directory.rstrip("/") + "/"
    return sorted(
        (
            path
            for path, text in files.items()
            if text is not None and path.startswith(prefix) and "/" not in path[len(prefix) :] and posixpath.basename(path).lower().endswith(CONFIG_SUFFIXES)
        ),
        key=lambda path: _bytes(posixpath.basename(path)),
    )


def kubelet_config(document: dict) -> dict:
    """spec.kubelet.config of one NodeConfig document ({} when unset)."""
    return ((document.get("spec") or {}).get("kubelet") or {}).get("config") or {}


def merge_kubelet_configs(configs: Iterable[dict]) -> dict:
    """spec.kubelet.config after nodeadm's merge of the sources in order: maps key by key, the rest replaced."""
    merged: dict[str, Any] = {}
    for config in configs:
        merged = merge_patch(merged, config)
    return merged


def _base64_problem(value: object) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return "must be a non-empty string"
    if "-----BEGIN" in value:
        return (
            "is a PEM; nodeadm wants it base64-encoded (base64 -w0 ca.crt): a PEM here makes the whole user data undecodable, "
            "and nodeadm skips it, Karpenter's part included"
        )
    try:
        base64.b64decode(value.strip().encode("ascii", "replace"), validate=True)
    except (binascii.Error, ValueError):
        return "is not base64 (nodeadm decodes it as []byte, base64)"
    return None


def certificate_authority_problem(value: object) -> str | None:
    """Why value is not what nodeadm wants in certificateAuthority (base64 of a PEM certificate), or None."""
    problem = _base64_problem(value)
    if problem is not None or not isinstance(value, str):
        return problem
    decoded = base64.b64decode(value.strip().encode("ascii"), validate=True)
    certificates = _PEM_CERTIFICATE.findall(decoded)
    if not certificates:
        return "is base64, but not of a PEM certificate (-----BEGIN CERTIFICATE----- ... -----END CERTIFICATE-----)"
    for body in certificates:
        try:
            base64.b64decode(body.replace(b"\r", b"").replace(b"\n", b""), validate=True)
        except (binascii.Error, ValueError):
            return "is base64 of a PEM whose certificate body is not base64"
    return None


def cluster_problems(cluster: object, path: str, complete: bool = False) -> list[str]:
    """Problems of a NodeConfig spec.cluster mapping: unknown keys (nodeadm drops them silently), the CA's form, and
    with complete=True the fields nodeadm's validation requires."""
    if not isinstance(cluster, dict):
        return ["%s: %r must be a mapping (NodeConfig spec.cluster)" % (path, cluster)]
    problems = []
    for key in sorted(set(cluster) - set(CLUSTER_FIELDS), key=str):
        problems.append("%s.%s: NodeConfig spec.cluster has no such field (it has %s); nodeadm would drop it silently" % (path, key, ", ".join(CLUSTER_FIELDS)))
    if "certificateAuthority" in cluster:
        problem = certificate_authority_problem(cluster["certificateAuthority"])
        if problem:
            problems.append("%s.certificateAuthority %s" % (path, problem))
    for key in ("name", "apiServerEndpoint", "cidr", "id"):
        if key in cluster and (not isinstance(cluster[key], str) or not cluster[key]):
            problems.append("%s.%s: %r must be a non-empty string" % (path, key, cluster[key]))
    if complete:
        missing = [key for key in CLUSTER_REQUIRED if not cluster.get(key)]
        if missing:
            problems.append("%s: %s missing; nodeadm refuses a NodeConfig without them (internal/api/validation.go)" % (path, ", ".join(missing)))
    return problems
