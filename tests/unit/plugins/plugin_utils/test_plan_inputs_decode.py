# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""load_kubelet_config refuses what the kubelet refuses to decode at start - an empty file, a file without kind or
without apiVersion - in the kubelet's words. Each expected text is what the real kubelet v1.36.2 printed for the same
file (as --config, or as a drop-in of --config-dir); the error chains are built in cmd/kubelet/app/server.go
(loadConfigFile, mergeKubeletConfigurations)."""

from __future__ import annotations

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._plan_inputs import load_kubelet_config

MAIN = "/var/lib/kubelet/config.yaml"
DROPIN = "/etc/kubelet.d/10-site.conf"
HEAD = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
HEAD_FIELDS = {"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration"}


# The chains the kubelet puts before the reason, for a drop-in and for the main file.
DROPIN_LOAD = f"failed to load kubelet dropin file, path: {DROPIN}, "
MAIN_LOAD = f"failed to load kubelet config file, path: {MAIN}, error: failed to load Kubelet config file {MAIN}, error "
NO_API_VERSION = "apiVersion: kubelet.config.k8s.io/v1beta1\nmaxPods: 50\n"


@pytest.mark.parametrize(
    ("text", "dropin", "refusal"),
    [
        ("", True, DROPIN_LOAD + f'error: kubelet config file "{DROPIN}" was empty'),
        ("maxPods: 50\n", True, DROPIN_LOAD + "error: Object 'Kind' is missing in 'maxPods: 50\n'"),
        ("# only a comment\n", True, DROPIN_LOAD + "error: Object 'Kind' is missing in '# only a comment\n'"),
        ("{}\n", True, DROPIN_LOAD + "error: Object 'Kind' is missing in '{}\n'"),
        (NO_API_VERSION, True, DROPIN_LOAD + f"error: Object 'Kind' is missing in '{NO_API_VERSION}'"),
        ("kind: KubeletConfiguration\nmaxPods: 50\n", True, DROPIN_LOAD + "unknown apiVersion/kind: /, Kind=KubeletConfiguration"),
        ("", False, MAIN_LOAD + f'kubelet config file "{MAIN}" was empty'),
        ("# c\n", False, MAIN_LOAD + "failed to decode: Object 'Kind' is missing in '# c\n'"),
        ("kind: KubeletConfiguration\n", False, MAIN_LOAD + "failed to decode: Object 'apiVersion' is missing in 'kind: KubeletConfiguration\n'"),
    ],
)
def test_a_file_the_kubelet_cannot_decode_is_refused_in_its_words(text, dropin, refusal):
    path = DROPIN if dropin else MAIN
    _document, problems = load_kubelet_config(path, text, dropin=dropin)
    assert problems == [f"{path}: {refusal}"]


@pytest.mark.parametrize("dropin", [True, False])
def test_a_file_with_apiversion_and_kind_decodes(dropin):
    assert load_kubelet_config(DROPIN, HEAD + "maxPods: 50\n", dropin=dropin) == ({**HEAD_FIELDS, "maxPods": 50}, [])
