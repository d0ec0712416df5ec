# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The CPU and topology manager rules, with the kubelet's texts as the real kubelets 1.31, 1.33 and 1.36 print them."""

from __future__ import annotations

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._manager_options import CPU_POLICY_OPTIONS, cpu_manager_problems, manager_option_warnings
from ansible_collections.numa.kubelet.plugins.plugin_utils._split import numa_nodes_from
from ansible_collections.numa.kubelet.plugins.plugin_utils._topology_manager_options import TOPOLOGY_POLICY_OPTIONS, topology_manager_problems
from ansible_collections.numa.kubelet.plugins.plugin_utils._validation import check_kubelet_config
from ansible_collections.numa.kubelet.tests.unit.plugins.plugin_utils.oracle_baseline import BASE, errors, gates, nodes

STATIC = "new static policy error: "


@pytest.mark.parametrize(
    ("version", "fields", "expected"),
    [
        ("1.36", {"cpuManagerPolicyOptions": {"full-pcpus-only": "true"}}, []),
        ("1.36", {"cpuManagerPolicyOptions": {"full-pcpus-only": "T"}}, []),
        (
            "1.36",
            {"cpuManagerPolicyOptions": {"full-pcpus-only": "yes"}},
            [f'cpuManagerPolicyOptions.full-pcpus-only: {STATIC}bad value for option "full-pcpus-only": strconv.ParseBool: parsing "yes": invalid syntax'],
        ),
        (
            "1.36",
            {"cpuManagerPolicyOptions": {"align-by-socket": "true"}},
            [f'cpuManagerPolicyOptions.align-by-socket: {STATIC}CPU Manager Policy Alpha-level Options not enabled, but option "align-by-socket" provided'],
        ),
        (
            "1.36",
            {"cpuManagerPolicyOptions": {"align-by-socket": "true"}, **gates(CPUManagerPolicyAlphaOptions=True)},
            [
                (
                    f"cpuManagerPolicyOptions.align-by-socket: {STATIC}Topolgy manager single-numa-node policy is incompatible with "
                    "CPUManager align-by-socket policy option (the kubelet's text, sic)"
                )
            ],
        ),
        (
            "1.36",
            {"cpuManagerPolicyOptions": {"align-by-socket": "true"}, "topologyManagerPolicy": "restricted", **gates(CPUManagerPolicyAlphaOptions=True)},
            [],
        ),
        ("1.36", {"cpuManagerPolicyOptions": {"distribute-cpus-across-numa": "true"}}, []),
        (
            "1.36",
            {"cpuManagerPolicyOptions": {"distribute-cpus-across-numa": "true"}, **gates(CPUManagerPolicyBetaOptions=False)},
            [
                (
                    f"cpuManagerPolicyOptions.distribute-cpus-across-numa: {STATIC}CPU Manager Policy Beta-level Options not enabled, "
                    'but option "distribute-cpus-across-numa" provided'
                )
            ],
        ),
        ("1.36", {"cpuManagerPolicyOptions": {"strict-cpu-reservation": "true"}, **gates(CPUManagerPolicyBetaOptions=False)}, []),
        ("1.36", {"cpuManagerPolicyOptions": {"prefer-align-cpus-by-uncorecache": "true"}, **gates(CPUManagerPolicyBetaOptions=False)}, []),
        ("1.36", {"cpuManagerPolicyOptions": {"foo": "true"}}, [f'cpuManagerPolicyOptions.foo: {STATIC}unknown CPU Manager Policy option: "foo"']),
        (
            "1.36",
            {"cpuManagerPolicyOptions": {"distribute-cpus-across-cores": "true", "full-pcpus-only": "true"}, **gates(CPUManagerPolicyAlphaOptions=True)},
            [f"cpuManagerPolicyOptions: {STATIC}static policy options full-pcpus-only and distribute-cpus-across-cores can not be used at the same time"],
        ),
        (
            "1.36",
            {"cpuManagerPolicyOptions": {"distribute-cpus-across-cores": "true", "full-pcpus-only": "false"}, **gates(CPUManagerPolicyAlphaOptions=True)},
            [],
        ),
        (
            "1.36",
            {"cpuManagerPolicyOptions": {"prefer-align-cpus-by-uncorecache": "1", "distribute-cpus-across-numa": "t"}},
            [
                (
                    f"cpuManagerPolicyOptions: {STATIC}static policy options prefer-align-cpus-by-uncorecache and distribute-cpus-across-numa "
                    "can not be used at the same time"
                )
            ],
        ),
        (
            "1.36",
            {"cpuManagerPolicy": "none", "cpuManagerPolicyOptions": {"full-pcpus-only": "true", "align-by-socket": "x"}},
            ["cpuManagerPolicyOptions: new none policy error: None policy: received unsupported options=map[align-by-socket:x full-pcpus-only:true]"],
        ),
        ("1.36", {"cpuManagerPolicy": "none", "cpuManagerPolicyOptions": {}}, []),
        ("1.33", {"cpuManagerPolicyOptions": {"full-pcpus-only": "true"}, **gates(CPUManagerPolicyBetaOptions=False)}, []),
        (
            "1.33",
            {"cpuManagerPolicyOptions": {"strict-cpu-reservation": "true"}, **gates(CPUManagerPolicyBetaOptions=False)},
            [
                (
                    f"cpuManagerPolicyOptions.strict-cpu-reservation: {STATIC}CPU Manager Policy Beta-level Options not enabled, "
                    'but option "strict-cpu-reservation" provided'
                )
            ],
        ),
        (
            "1.33",
            {"cpuManagerPolicyOptions": {"prefer-align-cpus-by-uncorecache": "true"}},
            [
                (
                    f"cpuManagerPolicyOptions.prefer-align-cpus-by-uncorecache: {STATIC}CPU Manager Policy Alpha-level Options not enabled, "
                    'but option "prefer-align-cpus-by-uncorecache" provided'
                )
            ],
        ),
        (
            "1.31",
            {"cpuManagerPolicyOptions": {"strict-cpu-reservation": "true"}},
            [f'cpuManagerPolicyOptions.strict-cpu-reservation: {STATIC}unknown CPU Manager Policy option: "strict-cpu-reservation"'],
        ),
        (
            "1.31",
            {"cpuManagerPolicyOptions": {"distribute-cpus-across-numa": "true"}},
            [
                (
                    f"cpuManagerPolicyOptions.distribute-cpus-across-numa: {STATIC}CPU Manager Policy Alpha-level Options not enabled, "
                    'but option "distribute-cpus-across-numa" provided'
                )
            ],
        ),
        ("1.31", {"cpuManagerPolicyOptions": {"distribute-cpus-across-numa": "true"}, **gates(CPUManagerPolicyAlphaOptions=True)}, []),
        (
            "1.31",
            {"cpuManagerPolicyOptions": {"full-pcpus-only": "true"}, **gates(CPUManagerPolicyBetaOptions=False)},
            [f'cpuManagerPolicyOptions.full-pcpus-only: {STATIC}CPU Manager Policy Beta-level Options not enabled, but option "full-pcpus-only" provided'],
        ),
    ],
)
def test_cpu_manager_policy_options(version, fields, expected):
    assert errors(version, **fields) == expected


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"reservedSystemCPUs": "0"}, []),
        ({"reservedSystemCPUs": "0-1", "kubeReserved": {"cpu": "3", "memory": "1Gi"}}, []),
        (
            {"reservedSystemCPUs": "0-1-2"},
            [
                (
                    "reservedSystemCPUs: invalid configuration: unable to parse reservedSystemCPUs (--reserved-cpus) 0-1-2, "
                    'error: strconv.Atoi: parsing "1-2": invalid syntax'
                )
            ],
        ),
        (
            {"reservedSystemCPUs": "2-1"},
            ['reservedSystemCPUs: invalid configuration: unable to parse reservedSystemCPUs (--reserved-cpus) 2-1, error: invalid range "2-1" (2 > 1)'],
        ),
        (
            {"reservedSystemCPUs": "-1"},
            [
                (
                    "reservedSystemCPUs: invalid configuration: unable to parse reservedSystemCPUs (--reserved-cpus) -1, "
                    'error: strconv.Atoi: parsing "": invalid syntax'
                )
            ],
        ),
        ({"reservedSystemCPUs": "0-7"}, ["reservedSystemCPUs: reserved-cpus: 0-7 is not a subset of online-cpus: 0-1"]),
        ({"cpuManagerPolicy": "none", "reservedSystemCPUs": "5"}, ["reservedSystemCPUs: reserved-cpus: 5 is not a subset of online-cpus: 0-1"]),
        ({"reservedSystemCPUs": "0-99999999999"}, ["reservedSystemCPUs: reserved-cpus: 0-99999999999 is not a subset of online-cpus: 0-1"]),
        ({"kubeReserved": {"cpu": "2", "memory": "1Gi"}}, []),
        ({"kubeReserved": {"cpu": "1500m", "memory": "1Gi"}}, []),
        (
            {"kubeReserved": {"cpu": "1", "memory": "1Gi"}, "systemReserved": {"cpu": "1001m", "memory": "512Mi"}},
            [
                (
                    'kubeReserved.cpu + systemReserved.cpu: invalid Node Allocatable configuration. Resource "cpu" has a reservation of '
                    "{{2001 -3} {<nil>}  DecimalSI} but capacity of {{2000 -3} {<nil>}  DecimalSI}. Expected capacity >= reservation. "
                    "(2001m reserved; this node has 2 CPUs)"
                ),
                (
                    f"cpuManagerPolicy: {STATIC}[cpumanager] unable to reserve the required amount of CPUs (size of  did not equal 3) "
                    "(kubeReserved.cpu + systemReserved.cpu = 2001m needs 3 whole CPUs; this node has 2)"
                ),
            ],
        ),
        (
            {"cpuManagerPolicy": "none", "kubeReserved": {"cpu": "1500m", "memory": "1Gi"}, "systemReserved": {"cpu": "1", "memory": "512Mi"}},
            [
                (
                    'kubeReserved.cpu + systemReserved.cpu: invalid Node Allocatable configuration. Resource "cpu" has a reservation of '
                    "{{2500 -3} {<nil>}  DecimalSI} but capacity of {{2000 -3} {<nil>}  DecimalSI}. Expected capacity >= reservation. "
                    "(2500m reserved; this node has 2 CPUs)"
                )
            ],
        ),
        (
            {"kubeReserved": {"memory": "1Gi"}, "reservedSystemCPUs": ""},
            [
                (
                    "cpuManagerPolicy: [cpumanager] unable to determine reserved CPU resources for static policy "
                    "(set kubeReserved.cpu or systemReserved.cpu above zero, or reservedSystemCPUs)"
                )
            ],
        ),
    ],
)
def test_cpu_checks_against_the_node(fields, expected):
    assert errors(numa=nodes(2), **fields) == expected


def test_cpu_checks_need_every_node_to_list_its_cpus():
    unknown = [{"id": 0, "memory_bytes": 16 << 30, "cpus": [0, 1]}, {"id": 1, "memory_bytes": 16 << 30}]
    for fields in ({"reservedSystemCPUs": "0-7"}, {"cpuManagerPolicy": "none", "kubeReserved": {"cpu": "3", "memory": "1Gi"}}):
        assert errors(numa=unknown, **fields) == []
        assert len(errors(numa=nodes(2), **fields)) == 1


def test_the_functions_take_a_version_and_parsed_nodes():
    config = {**BASE, "cpuManagerPolicyOptions": {"strict-cpu-reservation": "true"}, "topologyManagerPolicyOptions": {"max-allowable-numa-nodes": "8"}}
    parsed = numa_nodes_from(nodes(9))
    assert cpu_manager_problems(config, parsed, "1.33") == []
    assert cpu_manager_problems(config, parsed, "1.31") == [
        f'cpuManagerPolicyOptions.strict-cpu-reservation: {STATIC}unknown CPU Manager Policy option: "strict-cpu-reservation"'
    ]
    assert topology_manager_problems(config, parsed, "1.36") == [
        (
            "topologyManagerPolicyOptions.max-allowable-numa-nodes: unsupported on machines with more than 8 NUMA Nodes "
            '(this node has 9; set topologyManagerPolicyOptions {max-allowable-numa-nodes: "9"})'
        )
    ]


def test_what_the_collection_cannot_decide_is_a_warning():
    config = {**BASE, "cpuManagerPolicyOptions": {"prefer-align-cpus-by-uncorecache": "true"}, **gates(CPUManagerPolicyAlphaOptions=True)}
    assert manager_option_warnings(config, "1.33") == []
    assert manager_option_warnings(config, "1.31") == [
        (
            "cpuManagerPolicyOptions.prefer-align-cpus-by-uncorecache: upstream kubelet 1.31 does not know this option "
            '(unknown CPU Manager Policy option: "prefer-align-cpus-by-uncorecache"; it came as alpha in 1.32), while some 1.31 builds '
            "(OpenShift 4.18) carry it as alpha: the collection cannot tell which kubelet this node runs"
        )
    ]
    socket = {**BASE, "topologyManagerPolicy": "restricted", "cpuManagerPolicyOptions": {"align-by-socket": "true"}, **gates(CPUManagerPolicyAlphaOptions=True)}
    report = check_kubelet_config(socket, nodes(2))
    assert report.errors == []
    assert report.warnings == [
        (
            "cpuManagerPolicyOptions.align-by-socket: the kubelet also refuses it on hardware with more sockets than NUMA nodes "
            "(Align by socket is not compatible with hardware where number of sockets are more than number of NUMA); "
            "the collection does not know the node's sockets and did not check that"
        )
    ]


def test_each_version_has_both_tables():
    assert set(CPU_POLICY_OPTIONS) == set(TOPOLOGY_POLICY_OPTIONS) == {"1.31", "1.33", "1.36"}


def test_gates_resolve_as_set_from_map_does():
    # AllAlpha turns the alpha gates on unless a gate is set itself; AllBeta=false turns the beta gates off.
    options = {"cpuManagerPolicyOptions": {"align-by-socket": "true"}, "topologyManagerPolicy": "restricted"}
    assert errors(featureGates={"AllAlpha": True}, **options) == []
    assert errors(featureGates={"AllAlpha": True, "CPUManagerPolicyAlphaOptions": False}, **options) == [
        f'cpuManagerPolicyOptions.align-by-socket: {STATIC}CPU Manager Policy Alpha-level Options not enabled, but option "align-by-socket" provided'
    ]
    assert errors(featureGates={"AllBeta": False}, cpuManagerPolicyOptions={"distribute-cpus-across-numa": "true"}) == [
        (
            f"cpuManagerPolicyOptions.distribute-cpus-across-numa: {STATIC}CPU Manager Policy Beta-level Options not enabled, "
            'but option "distribute-cpus-across-numa" provided'
        )
    ]
