# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""kubeReserved as nodeadm computes it (docs/kubelet-facts.md section 5), and the generated EKS instance table.

Fixtures (tests/unit/fixtures/) are lines copied unchanged from the upstream files:
- eks_instance_info_sample.jsonl: awslabs/amazon-eks-ami nodeadm/internal/kubelet/instance-info.jsonl at
  160ce8051573843da8d5b2b9158fcbd0981b52e0, the commit _eks_instance_data was generated from;
- eks_eni_max_pods_sample.txt: aws/amazon-vpc-cni-k8s misc/eni-max-pods.txt at
  2aea0fd2453975bea25d13016293dbb9209e13a0.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils import _eks_instance_data
from ansible_collections.numa.kubelet.plugins.plugin_utils._eks import (
    EksError,
    kube_reserved,
    kube_reserved_cpu_millicores,
    kube_reserved_memory_mebibytes,
    max_pods,
)

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, os.pardir, os.pardir))
FIXTURES = os.path.join(REPO, "tests", "unit", "fixtures")
INSTANCE_INFO_SAMPLE = os.path.join(FIXTURES, "eks_instance_info_sample.jsonl")
ENI_MAX_PODS_SAMPLE = os.path.join(FIXTURES, "eks_eni_max_pods_sample.txt")
GENERATED_COMMIT = "160ce8051573843da8d5b2b9158fcbd0981b52e0"
ENI_MAX_PODS_COMMIT = "2aea0fd2453975bea25d13016293dbb9209e13a0"
SOURCE_TEXT = "source awslabs/amazon-eks-ami nodeadm/internal/kubelet/instance-info.jsonl at %s, retrieved %s" % (
    GENERATED_COMMIT,
    _eks_instance_data.SOURCE["retrieved"],
)


def load_refresh_script():
    """scripts/refresh-eks-instance-data has no .py suffix: load it as a module by path."""
    path = os.path.join(REPO, "scripts", "refresh-eks-instance-data")
    loader = importlib.machinery.SourceFileLoader("refresh_eks_instance_data", path)
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


@pytest.fixture(name="refresh", scope="module")
def fixture_refresh():
    return load_refresh_script()


def read(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


# --- the three reference nodes of docs/kubelet-facts.md section 5 -------------------------------------------------------


@pytest.mark.parametrize(
    "instance_type, pods, mebibytes",
    [
        ("m5.large", 29, 574),
        ("p4d.24xlarge", 737, 8362),
        ("p5.48xlarge", 100, 1355),
    ],
)
def test_reference_nodes(instance_type, pods, mebibytes):
    assert max_pods(instance_type) == pods
    assert kube_reserved_memory_mebibytes(pods) == mebibytes
    assert kube_reserved(instance_type, vcpus=2)["memory"] == "%dMi" % mebibytes


def test_nodeadm_memory_test_case():
    # nodeadm/internal/kubelet/config_test.go TestKubeReservedMemoryWithUserMaxPods (commit 221f45dadcf56a9fb108f702cb6367a9c3bf65f8):
    # maxPods 100 gives kubeReserved["memory"] == "1355Mi".
    assert kube_reserved(max_pods=100, vcpus=1)["memory"] == "1355Mi"


def test_kube_reserved_strings_and_key_order():
    # m5.large has 2 vCPUs: 60m + 10m.
    result = kube_reserved("m5.large", vcpus=2)
    assert result == {"cpu": "70m", "ephemeral-storage": "1Gi", "memory": "574Mi"}
    assert list(result) == ["cpu", "ephemeral-storage", "memory"]


# --- the CPU ladder -----------------------------------------------------------------------------------------
# nodeadm has no test of getCPUMillicoresToReserve (config_test.go at 221f45dadcf56a9fb108f702cb6367a9c3bf65f8 and
# 28af74fd195b78a3ba8d946c72c46fa0152d6dcd, eni_max_pods_test.go, maxpods_test.go hold none), so the expected
# values are worked by hand from config.go's ranges {0, 1000, 2000, 4000, total} and parts {600, 100, 50, 25}/10000,
# each rung truncated on its own as Go's int division does.


@pytest.mark.parametrize(
    "vcpus, millicores",
    [
        (1, 60),  # 1000 * 600 / 10000
        (2, 70),  # 60 + 1000 * 100 / 10000
        (3, 75),  # 70 + 1000 * 50 / 10000
        (4, 80),  # 70 + 2000 * 50 / 10000
        (5, 82),  # 80 + 1000 * 25 / 10000 = 80 + 2 (2.5 truncated)
        (8, 90),  # 80 + 4000 * 25 / 10000
        (96, 310),  # 80 + 92000 * 25 / 10000
        (192, 550),  # 80 + 188000 * 25 / 10000
    ],
)
def test_cpu_ladder(vcpus, millicores):
    assert kube_reserved_cpu_millicores(vcpus) == millicores
    assert kube_reserved(max_pods=110, vcpus=vcpus)["cpu"] == "%dm" % millicores


def test_cpu_rungs_truncate_separately():
    # 7 vCPUs: the last rung is 3000 * 25 / 10000 = 7.5, truncated to 7; a float ladder would give 87.5.
    assert kube_reserved_cpu_millicores(7) == 87


# --- the max-pods table -------------------------------------------------------------------------------------


def test_generated_table_is_consistent():
    assert _eks_instance_data.SOURCE["repository"] == "awslabs/amazon-eks-ami"
    assert _eks_instance_data.SOURCE["path"] == "nodeadm/internal/kubelet/instance-info.jsonl"
    assert _eks_instance_data.SOURCE["commit"] == GENERATED_COMMIT
    assert len(_eks_instance_data.INSTANCE_TYPES) == 1317
    for name, (pods, enis, ips) in _eks_instance_data.INSTANCE_TYPES.items():
        assert pods == enis * (ips - 1) + 2, name


@pytest.mark.parametrize("enis, ips, pods", [(3, 6, 17), (6, 12, 68)])
def test_formula_matches_nodeadm_test(refresh, enis, ips, pods):
    # nodeadm/internal/kubelet/eni_max_pods_test.go TestCalcMaxPods, "standard happy path" 1 and 2.
    assert refresh.standard_max_pods(enis, ips) == pods


def test_generated_module_matches_refresh_output_for_fixture(refresh):
    types = refresh.instance_types(refresh.parse_instance_info(read(INSTANCE_INFO_SAMPLE)))
    assert sorted(types) == ["c6in.32xlarge", "g5.48xlarge", "m5.large", "p4d.24xlarge", "p5.48xlarge", "t3.medium"]
    for name, entry in types.items():
        assert _eks_instance_data.INSTANCE_TYPES[name] == entry


def test_refresh_script_writes_and_checks_a_module(refresh, tmp_path, capsys):
    output = tmp_path / "_eks_instance_data.py"
    argv = [
        "--commit",
        GENERATED_COMMIT,
        "--retrieved",
        "2026-11-22",
        "--eni-max-pods",
        ENI_MAX_PODS_SAMPLE,
        "--eni-max-pods-commit",
        ENI_MAX_PODS_COMMIT,
        "--output",
        str(output),
        INSTANCE_INFO_SAMPLE,
    ]
    assert refresh.main(argv) == 0
    namespace = {}
    exec(compile(output.read_text(encoding="utf-8"), str(output), "exec"), namespace)  # pylint: disable=exec-used
    assert namespace["INSTANCE_TYPES"] == {name: _eks_instance_data.INSTANCE_TYPES[name] for name in namespace["INSTANCE_TYPES"]}
    assert namespace["SOURCE"]["cross_check"] == (
        f"aws/amazon-vpc-cni-k8s misc/eni-max-pods.txt at {ENI_MAX_PODS_COMMIT}: maxPods equal for all 6 shared types"
    )
    assert "note: 2 types are only in misc/eni-max-pods.txt and are not added: a1.2xlarge, p3.2xlarge" in capsys.readouterr().err
    assert refresh.main(argv + ["--check"]) == 0
    output.write_text(output.read_text(encoding="utf-8").replace("large:3:10", "large:3:11"), encoding="utf-8")
    assert refresh.main(argv + ["--check"]) == 1


def test_refresh_script_rejects_a_mismatch(refresh, tmp_path, capsys):
    stated = tmp_path / "eni-max-pods.txt"
    stated.write_text(read(ENI_MAX_PODS_SAMPLE).replace("m5.large 29", "m5.large 30"), encoding="utf-8")
    argv = [
        "--commit",
        GENERATED_COMMIT,
        "--eni-max-pods",
        str(stated),
        "--eni-max-pods-commit",
        ENI_MAX_PODS_COMMIT,
        "--output",
        str(tmp_path / "out.py"),
        INSTANCE_INFO_SAMPLE,
    ]
    assert refresh.main(argv) == 1
    assert "m5.large: computed 29, stated 30" in capsys.readouterr().err
    assert not (tmp_path / "out.py").exists()


@pytest.mark.parametrize(
    "line, message",
    [
        (
            '{"instanceType":"x.large","defaultMaxENIs":0,"ipv4AddressesPerInterface":10}',
            "sample.jsonl line 1: 'defaultMaxENIs' must be a positive integer, got 0",
        ),
        (
            '{"instanceType":"x.large","defaultMaxENIs":true,"ipv4AddressesPerInterface":10}',
            "sample.jsonl line 1: 'defaultMaxENIs' must be a positive integer, got True",
        ),
        ('{"instanceType":"","defaultMaxENIs":3,"ipv4AddressesPerInterface":10}', "sample.jsonl line 1: 'instanceType' must be a non-empty string, got ''"),
        ('{"instanceType":"x.large","defaultMaxENIs":3}', "sample.jsonl line 1: 'ipv4AddressesPerInterface' must be a positive integer, got None"),
        ('["x.large", 3, 10]', "sample.jsonl line 1: not a JSON object"),
    ],
)
def test_refresh_script_rejects_bad_lines(refresh, line, message):
    with pytest.raises(refresh.RefreshError) as excinfo:
        refresh.parse_instance_info(line + "\n", "sample.jsonl")
    assert str(excinfo.value) == message


def test_refresh_script_rejects_duplicates(refresh):
    line = '{"instanceType":"m5.large","defaultMaxENIs":3,"ipv4AddressesPerInterface":10}\n'
    with pytest.raises(refresh.RefreshError) as excinfo:
        refresh.parse_instance_info(line * 2, "sample.jsonl")
    assert str(excinfo.value) == "sample.jsonl line 2: instance type 'm5.large' appears twice"


# --- errors, by exact text ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: max_pods("p9.huge"),
            f"unknown EC2 instance type 'p9.huge': not in the EKS max-pods table ({SOURCE_TEXT}); pass max_pods= and vcpus= explicitly",
        ),
        (
            lambda: kube_reserved("p9.huge", vcpus=4),
            f"unknown EC2 instance type 'p9.huge': not in the EKS max-pods table ({SOURCE_TEXT}); pass max_pods= and vcpus= explicitly",
        ),
        (lambda: max_pods(None), "instance_type must be a string such as 'm5.large', got None (NoneType)"),
        (lambda: kube_reserved_memory_mebibytes(True), "max_pods must be an integer (the node's maxPods), got True (bool)"),
        (lambda: kube_reserved_memory_mebibytes(0), "max_pods must be a positive integer (the node's maxPods), got 0"),
        (lambda: kube_reserved_memory_mebibytes(29.0), "max_pods must be an integer (the node's maxPods), got 29.0 (float)"),
        (
            lambda: kube_reserved_memory_mebibytes(195225763),
            "max_pods 195225763 is out of range: nodeadm computes 11*maxPods+255 in an int32, so maxPods must be at most 195225762",
        ),
        (lambda: kube_reserved_cpu_millicores(False), "vcpus must be an integer (the node's online CPUs), got False (bool)"),
        (lambda: kube_reserved_cpu_millicores(-2), "vcpus must be a positive integer (the node's online CPUs), got -2"),
        (lambda: kube_reserved_cpu_millicores("4"), "vcpus must be an integer (the node's online CPUs), got '4' (str)"),
        (
            lambda: kube_reserved("m5.large", max_pods=29, vcpus=2),
            (
                "conflicting arguments: pass instance_type= (maxPods from the EKS table) or max_pods= "
                "(for a type missing from the table, or a maxPodsExpression result), not both"
            ),
        ),
        (lambda: kube_reserved(vcpus=2), "kube_reserved needs instance_type= or max_pods=: kubeReserved.memory is 11*maxPods+255 MiB"),
        (
            lambda: kube_reserved("m5.large"),
            "vcpus= is required: nodeadm computes kubeReserved.cpu from the node's online CPUs, which the EKS instance table does not carry",
        ),
        (lambda: kube_reserved(max_pods=0, vcpus=2), "max_pods must be a positive integer (the node's maxPods), got 0"),
    ],
)
def test_errors(call, message):
    with pytest.raises(EksError) as excinfo:
        call()
    assert str(excinfo.value) == message
    assert isinstance(excinfo.value, ValueError)


def test_largest_max_pods_stays_in_int32():
    assert kube_reserved_memory_mebibytes(195225762) == 2147483637 <= 2**31 - 1
