# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The topology manager rules, with the kubelet's texts as the real kubelets 1.31, 1.33 and 1.36 print them."""

from __future__ import annotations

import pytest

from ansible_collections.numa.kubelet.tests.unit.plugins.plugin_utils.oracle_baseline import errors, gates, nodes


@pytest.mark.parametrize(
    ("version", "fields", "expected"),
    [
        ("1.36", {"topologyManagerPolicyOptions": {"prefer-closest-numa-nodes": "true"}, **gates(TopologyManagerPolicyBetaOptions=False)}, []),
        (
            "1.36",
            {"topologyManagerPolicyOptions": {"prefer-closest-numa-nodes": "1.0"}},
            [
                (
                    'topologyManagerPolicyOptions.prefer-closest-numa-nodes: bad value for option "prefer-closest-numa-nodes": '
                    'strconv.ParseBool: parsing "1.0": invalid syntax'
                )
            ],
        ),
        (
            "1.36",
            {"topologyManagerPolicyOptions": {"max-allowable-numa-nodes": "7"}},
            ['topologyManagerPolicyOptions.max-allowable-numa-nodes: the minimum value of "max-allowable-numa-nodes" should not be less than 8'],
        ),
        ("1.36", {"topologyManagerPolicyOptions": {"max-allowable-numa-nodes": "8"}}, []),
        ("1.36", {"topologyManagerPolicyOptions": {"max-allowable-numa-nodes": "+9"}}, []),
        (
            "1.36",
            {"topologyManagerPolicyOptions": {"max-allowable-numa-nodes": "abc"}},
            [
                (
                    "topologyManagerPolicyOptions.max-allowable-numa-nodes: unable to convert policy option to integer "
                    '"max-allowable-numa-nodes": strconv.Atoi: parsing "abc": invalid syntax'
                )
            ],
        ),
        (
            "1.36",
            {"topologyManagerPolicyOptions": {"max-allowable-numa-nodes": "99999999999999999999"}},
            [
                (
                    "topologyManagerPolicyOptions.max-allowable-numa-nodes: unable to convert policy option to integer "
                    '"max-allowable-numa-nodes": strconv.Atoi: parsing "99999999999999999999": value out of range'
                )
            ],
        ),
        ("1.36", {"topologyManagerPolicyOptions": {"foo": "true"}}, ['topologyManagerPolicyOptions.foo: unknown Topology Manager Policy option: "foo"']),
        ("1.36", {"topologyManagerPolicy": "none", "topologyManagerPolicyOptions": {"foo": "true", "max-allowable-numa-nodes": "7"}}, []),
        ("1.33", {"topologyManagerPolicyOptions": {"prefer-closest-numa-nodes": "true"}, **gates(TopologyManagerPolicyBetaOptions=False)}, []),
        (
            "1.33",
            {"topologyManagerPolicyOptions": {"max-allowable-numa-nodes": "8"}, **gates(TopologyManagerPolicyBetaOptions=False)},
            [
                (
                    "topologyManagerPolicyOptions.max-allowable-numa-nodes: topology manager policy beta-level options not enabled, "
                    'but option "max-allowable-numa-nodes" provided'
                )
            ],
        ),
        (
            "1.31",
            {"topologyManagerPolicyOptions": {"prefer-closest-numa-nodes": "true"}, **gates(TopologyManagerPolicyBetaOptions=False)},
            [
                (
                    "topologyManagerPolicyOptions.prefer-closest-numa-nodes: Topology Manager Policy Beta-level Options not enabled, "
                    'but option "prefer-closest-numa-nodes" provided'
                )
            ],
        ),
    ],
)
def test_topology_manager_policy_options(version, fields, expected):
    assert errors(version, **fields) == expected


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"topologyManagerScope": "pod"}, []),
        ({"topologyManagerScope": ""}, []),
        (
            {"topologyManagerScope": "node"},
            ['topologyManagerScope: invalid configuration: topologyManagerScope (--topology-manager-scope) "node" must be one of: "container", or "pod"'],
        ),
        (
            {"topologyManagerPolicy": "Restricted", "topologyManagerPolicyOptions": {"foo": "true"}},
            [
                (
                    'topologyManagerPolicy: invalid configuration: topologyManagerPolicy (--topology-manager-policy) "Restricted" '
                    'must be one of: ["none" "best-effort" "restricted" "single-numa-node"]'
                )
            ],
        ),
    ],
)
def test_topology_manager_fields(fields, expected):
    assert errors(**fields) == expected


@pytest.mark.parametrize(
    ("count", "fields", "expected"),
    [
        (8, {}, []),
        (
            9,
            {"topologyManagerPolicy": "best-effort"},
            [
                (
                    "topologyManagerPolicy: unsupported on machines with more than 8 NUMA Nodes "
                    '(this node has 9; set topologyManagerPolicyOptions {max-allowable-numa-nodes: "9"})'
                )
            ],
        ),
        (
            10,
            {"topologyManagerPolicyOptions": {"max-allowable-numa-nodes": "9"}},
            [
                (
                    "topologyManagerPolicyOptions.max-allowable-numa-nodes: unsupported on machines with more than 9 NUMA Nodes "
                    '(this node has 10; set topologyManagerPolicyOptions {max-allowable-numa-nodes: "10"})'
                )
            ],
        ),
        (10, {"topologyManagerPolicyOptions": {"max-allowable-numa-nodes": "10"}}, []),
        (10, {"topologyManagerPolicy": "none"}, []),
    ],
)
def test_numa_node_count_against_the_topology_manager_limit(count, fields, expected):
    assert errors(numa=nodes(count), **fields) == expected
