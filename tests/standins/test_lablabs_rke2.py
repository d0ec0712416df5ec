# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""RKE2 managed by lablabs.rke2: kubelet_numa_rke2_options copied into config.yaml give RKE2 the right kubelet-arg.

lablabs.rke2 (1.53.0, templates/config.yaml.j2) writes each rke2_server_options / rke2_agent_options string as one
line of /etc/rancher/rke2/config.yaml, and rke2_kubelet_arg as a `kubelet-arg:` list after them
(docs/kubelet-facts.md section 4). The config is built here the same way and handed to the RKE2 and kubelet stand-ins.
"""

from __future__ import annotations

import os

import pytest
import yaml

from ansible_collections.numa.kubelet.plugins.plugin_utils._plan import plan_host

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RKE2 = os.path.join(REPO, "tests", "standins", "image", "rke2-standin")
with open(os.path.join(REPO, "roles", "kubelet_numa", "defaults", "main.yml"), encoding="utf-8") as _handle:
    DEFAULTS = yaml.safe_load(_handle)


def lablabs_plan(version, nodes_kib, files=None, **facts):
    """numa.kubelet's plan in the lablabs.rke2 hand-over; facts may carry lablabs (what the planning play reads of it)."""
    variables = dict(
        DEFAULTS,
        kubelet_numa_platform="rke2",
        kubelet_numa_rke2_version=version,
        kubelet_numa_rke2_role="server",
        kubelet_numa_rke2_write_files=False,
        kubelet_numa_config={
            "memoryManagerPolicy": "Static",
            "topologyManagerPolicy": "single-numa-node",
            "kubeReserved": {"memory": "512Mi"},
            "systemReserved": {"memory": "1.5Gi"},
        },
        kubelet_numa_topology={
            "numa_nodes": [{"id": node, "memory_bytes": kib * 1024, "cpus": [node]} for node, kib in enumerate(nodes_kib)],
            "numa_memory_capacity_bytes": sum(nodes_kib) * 1024,
        },
    )
    return plan_host(variables, dict(facts, files=files or {}))


@pytest.mark.parametrize("version", ["v1.31.9+rke2r1", "v1.32.5+rke2r1"])
def test_options_lines_give_rke2_our_kubelet_args_and_the_kubelet_accepts(make_host, version):
    host = make_host([4194304, 4194304])
    plan = lablabs_plan(version, [4194304, 4194304])
    # The lines lablabs.rke2 writes: its own keys, then each option string verbatim.
    config = "token: secret\nnode-name: gpu-01\n" + "".join(line + "\n" for line in ["write-kubeconfig-mode: '0600'"] + plan["rke2"]["options"])
    host.write("/etc/rancher/rke2/config.yaml", config)
    host.write("/etc/default/rke2-server", f"RKE2_STANDIN_VERSION={version}\n")
    assert yaml.safe_load(config)["kubelet-arg"] == plan["rke2"]["kubelet_args"]
    result = host.run(RKE2, ["server"], {"RKE2_STANDIN_VERSION": version})
    assert result.start is not None and result.start["result"] == "started", result.stderr
    for item in plan["rke2"]["kubelet_args"]:
        assert "--" + item in result.start["argv"]
    # RKE2 passes no --config from 1.32 and an --eviction-hard flag before it: no memory eviction term either way.
    assert [item["limits"]["memory"] for item in plan["reserved_memory"]] == ["1Gi", "1Gi"]
    assert result.start["reserved_memory_bytes"] == {"0": {"memory": 1 << 30}, "1": {"memory": 1 << 30}}


LABLABS = os.path.realpath(os.environ.get("NUMA_KUBELET_LABLABS_RKE2") or os.path.join(REPO, "..", "shared", "clients", "lablabs.rke2"))


def render_lablabs_config(host_vars, server, template="config.yaml.j2"):
    """config.yaml as lablabs.rke2's own templates/config.yaml.j2 renders it for one host (its defaults, then host_vars)."""
    jinja2 = pytest.importorskip("jinja2")
    template_path = os.path.join(LABLABS, "templates", template)
    if not os.path.exists(template_path):
        pytest.skip(f"lablabs.rke2 is not at {LABLABS} (../shared/clients/lablabs.rke2)")
    with open(os.path.join(LABLABS, "defaults", "main.yml"), encoding="utf-8") as handle:
        defaults = yaml.safe_load(handle)
    from ansible.plugins.filter.core import FilterModule  # the filters the template uses (bool), as Ansible has them

    env = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True, trim_blocks=True)
    env.filters.update(FilterModule().filters())
    variables = {key: value for key, value in defaults.items() if not (isinstance(value, str) and "{{" in value)}
    variables.update(
        inventory_hostname="gpu-01",
        groups={"masters": ["gpu-01"] if server else ["cp-01"], "workers": [] if server else ["gpu-01"]},
        rke2_type="server" if server else "agent",
        rke2_api_ip="192.0.2.10",
        rke2_node_name="gpu-01",
        rke2_snapshotter="overlayfs",
    )
    variables.update(host_vars)
    with open(template_path, encoding="utf-8") as handle:
        # Its variables left undefined by the user are tested with `is defined`; StrictUndefined still fails any other.
        return env.from_string(handle.read()).render(**variables)


@pytest.mark.parametrize("version", ["v1.31.9+rke2r1", "v1.32.5+rke2r1"])
@pytest.mark.parametrize("form", ["options", "kubelet_arg"])
def test_lablabs_template_renders_what_the_plan_hands_over(make_host, version, form):
    lablabs = {"in_servers_group": True, "rke2_server_options": ["node-ip: 192.0.2.11"]}
    if form == "kubelet_arg":
        lablabs["rke2_kubelet_arg"] = ["--kube-reserved=cpu=100m", "max-pods=58"]
    plan = lablabs_plan(version, [4194304, 4194304], lablabs=lablabs)
    handed = plan["rke2"]["lablabs"]
    host_vars = {
        "rke2_server_options": handed["rke2_server_options"],
        "rke2_agent_options": handed["rke2_agent_options"],
        "rke2_kubelet_config": handed["rke2_kubelet_config"],
    }
    if "rke2_kubelet_arg" in handed:
        host_vars["rke2_kubelet_arg"] = handed["rke2_kubelet_arg"]
    config = render_lablabs_config(host_vars, server=True)
    data = yaml.safe_load(config)
    assert data["node-ip"] == "192.0.2.11" and config.count("kubelet-arg:") == 1
    host = make_host([4194304, 4194304])
    host.write("/etc/rancher/rke2/config.yaml", config)
    result = host.run(RKE2, ["server"], {"RKE2_STANDIN_VERSION": version})
    assert result.start is not None and result.start["result"] == "started", result.stderr
    for item in plan["rke2"]["kubelet_args"]:
        assert "--" + item in result.start["argv"]
    assert result.start["reserved_memory_bytes"] == {"0": {"memory": 1 << 30}, "1": {"memory": 1 << 30}}


def test_an_unseen_rke2_kubelet_arg_replaces_the_options_line_and_is_named(make_host):
    # rke2_kubelet_arg given where the planning play cannot see it: lablabs renders a later kubelet-arg key, RKE2 keeps it.
    plan = lablabs_plan("v1.32.5+rke2r1", [4194304, 4194304], lablabs={"in_servers_group": True})
    config = render_lablabs_config({"rke2_server_options": plan["rke2"]["lablabs"]["rke2_server_options"], "rke2_kubelet_arg": ["max-pods=58"]}, server=True)
    host = make_host([4194304, 4194304])
    host.write("/etc/rancher/rke2/config.yaml", config)
    args = host.run(RKE2, ["server", "--print-args"]).stdout
    assert "--memory-manager-policy=Static" not in args and "--max-pods=58" in args
    after = lablabs_plan("v1.32.5+rke2r1", [4194304, 4194304], files={"/etc/rancher/rke2/config.yaml": config}, lablabs={"in_servers_group": True})
    assert "memoryManagerPolicy None" in after["rke2"]["lablabs"]["not_carried"][0]


@pytest.mark.parametrize("version", ["v1.31.9+rke2r1", "v1.32.5+rke2r1"])
def test_lablabs_kubelet_config_and_its_config_item(make_host, version):
    # lablabs writes rke2_kubelet_config to /etc/rancher/rke2/kubelet-config.yaml (templates/kubelet-config.yaml.j2) and
    # the --config item in the kubelet-arg list; RKE2 >= 1.32 copies that file in as the drop-in 10-cli-config.conf.
    plan = lablabs_plan(version, [4194304, 4194304], lablabs={"in_agents_group": True, "rke2_kubelet_config": {"imageGCHighThresholdPercent": 85}})
    handed = plan["rke2"]["lablabs"]
    host_vars = {
        "rke2_agent_options": handed["rke2_agent_options"],
        "rke2_kubelet_arg": handed["rke2_kubelet_arg"],
        "rke2_kubelet_config": handed["rke2_kubelet_config"],
    }
    host = make_host([4194304, 4194304])
    host.write("/etc/rancher/rke2/config.yaml", render_lablabs_config(host_vars, server=False))
    host.write("/etc/rancher/rke2/kubelet-config.yaml", render_lablabs_config(host_vars, server=False, template="kubelet-config.yaml.j2"))
    result = host.run(RKE2, ["agent"], {"RKE2_STANDIN_VERSION": version})
    assert result.start is not None and result.start["result"] == "started", result.stderr
    copied = host.path("/var/lib/rancher/rke2/agent/etc/kubelet.conf.d/10-cli-config.conf")
    if version.startswith("v1.32"):
        assert "--config=/etc/rancher/rke2/kubelet-config.yaml" not in result.start["argv"] and copied.exists()
    else:
        assert "--config=/etc/rancher/rke2/kubelet-config.yaml" in result.start["argv"] and not copied.exists()
    # No memory eviction term either way: no main file from 1.32, RKE2's --eviction-hard flag before.
    assert [item["limits"]["memory"] for item in plan["reserved_memory"]] == ["1Gi", "1Gi"]
    assert result.start["reserved_memory_bytes"] == {"0": {"memory": 1 << 30}, "1": {"memory": 1 << 30}}
