# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""_plan_inputs: the drop-ins of a --config-dir as the kubelet finds them (filepath.Walk in
cmd/kubelet/app/server.go mergeKubeletConfigurations)."""

from __future__ import annotations

from ansible_collections.numa.kubelet.plugins.plugin_utils._plan_inputs import dropin_paths, dropins_in

DIRECTORY = "/etc/kubernetes/kubelet.conf.d"
KIND = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"


def test_drop_ins_are_every_conf_file_at_any_depth_in_walk_order():
    files = {
        f"{DIRECTORY}/a.conf": KIND,
        f"{DIRECTORY}/a/x.conf": KIND,  # Walk enters a/ before it reaches a.conf ("a" < "a.conf")
        f"{DIRECTORY}/a/b/y.conf": KIND,
        f"{DIRECTORY}/b.yaml": KIND,  # not .conf: not read
        f"{DIRECTORY}/c.conf": None,  # missing
        "/etc/kubernetes/kubelet.conf.d-other/z.conf": KIND,  # beside the directory, not in it
    }
    assert dropin_paths(files, DIRECTORY + "/") == [f"{DIRECTORY}/a/b/y.conf", f"{DIRECTORY}/a/x.conf", f"{DIRECTORY}/a.conf"]


def test_our_drop_in_takes_its_place_in_walk_order():
    files = {f"{DIRECTORY}/50-numa-kubelet/late.conf": KIND + "maxPods: 12\n", f"{DIRECTORY}/50-numa-kubelet.conf": KIND}
    dropins, problems = dropins_in(files, DIRECTORY, replace=(f"{DIRECTORY}/50-numa-kubelet.conf", {"maxPods": 20}))
    assert problems == []
    assert dropins == [
        (f"{DIRECTORY}/50-numa-kubelet/late.conf", {"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration", "maxPods": 12}),
        (f"{DIRECTORY}/50-numa-kubelet.conf", {"maxPods": 20}),
    ]
