# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""numa.kubelet.rollout and numa.kubelet.verify on three test hosts registered with a real kube-apiserver.

The tests share one fleet (conftest.py: rollout-n1 and rollout-n2 kubeadm, rollout-n3 an RKE2 1.32 agent) and run in
file order; each starts from fleet.reset() unless it says it builds on the previous one. Expected values are
literals, on NUMA node 0 (the test hosts see one node): on kubeadm 512Mi + 512Mi + the kubelet's 100Mi eviction
default (kubeadm's config has no evictionHard) = 1124Mi = 1178599424 bytes; on RKE2 1.32, which runs the kubelet
with --config-dir and no --config, so no default evictionHard and a memory term of 0 (docs/concepts.md),
512Mi + 512Mi = 1Gi (as the engine writes it) = 1073741824 bytes.
"""

from __future__ import annotations

import json
import os
import time

import yaml
from conftest import FAIL_MARKER, HOSTS, LAYOUT, PLATFORM, dropin

RESERVED_BYTES = {"kubeadm": {"0": 1178599424}, "rke2-agent": {"0": 1073741824}}
RESERVED = {"kubeadm": "1124Mi", "rke2-agent": "1Gi"}
# With systemReserved 768Mi (CHANGED below).
RESERVED_CHANGED = {"kubeadm": "1380Mi", "rke2-agent": "1280Mi"}
CONFIGZ_MATCHES = ": files, memory_manager_state and /configz match the plan"
# The rollout's steps are tasks of the numa.kubelet.kubelet_numa_rollout role: the output names them with its prefix.
ROLL_TASK = "TASK [numa.kubelet.kubelet_numa_rollout : "
# On a kubeadm host (rollout-n2).
EXTRA_FLAG_DROPIN = "/etc/systemd/system/kubelet.service.d/95-test-extra-flag.conf"


def cluster_vars(fleet, *extra):
    return [
        "-e",
        "kubelet_numa_rollout_kubeconfig=" + fleet.kubeconfig,
        "-e",
        "kubelet_numa_rollout_drain_force=true",
        "-e",
        "kubelet_numa_rollout_drain_timeout=20",
    ] + list(extra)


def flat(output):
    """The output with every run of whitespace made one space (the YAML callback folds long messages)."""
    return " ".join(output.split())


def verify_vars(fleet):
    return ["-e", "kubelet_numa_rollout_kubeconfig=" + fleet.kubeconfig]


def summary_rows(output):
    """The summary table's rows after its header line, as {host: row text}."""
    lines = output.splitlines()
    start = max(i for i, line in enumerate(lines) if "HOST" in line and "NUMA SPLIT" in line and "RESULT" in line)
    rows = {}
    for line in lines[start + 1 :]:
        if line.startswith("PLAY RECAP"):
            break
        text = line.strip().strip('",-').strip()
        name = text.split(" ")[0] if text else ""
        if name in HOSTS:
            rows[name] = text
    return rows


def wait_for_start(fleet, host, count, timeout=60):
    """The kubelet stand-in's start record `count`: it is written once the checkpoints are, after /healthz answers (the
    kubelet starts its container manager after it serves healthz), so a Ready node may not have recorded it yet."""
    deadline = time.time() + timeout
    while len(fleet.starts(host)) < count:
        assert time.time() < deadline, f"{host}: no kubelet start {count} recorded within {timeout} s"
        time.sleep(0.5)
    return fleet.starts(host)[count - 1]


def failure_messages(output):
    """The msg of every "FAILED! =>" result in the output (the YAML callback result format), as parsed YAML."""
    messages, lines = [], output.splitlines()
    for i, line in enumerate(lines):
        if "FAILED! =>" in line:
            block = []
            for following in lines[i + 1 :]:
                if not following.startswith("    "):
                    break
                block.append(following[4:])
            messages.append(yaml.safe_load("\n".join(block)).get("msg"))
    return messages


def checkpoint(fleet, host):
    return json.loads(fleet.sh(host, "cat /var/lib/kubelet/memory_manager_state").stdout)


def row(host, reserved, *result):
    return [host, PLATFORM[LAYOUT[host]], "0=" + reserved[LAYOUT[host]]] + list(result)


def reserved_in_checkpoint(state):
    return {node: machine["memoryMap"]["memory"]["systemReserved"] for node, machine in state["machineState"].items()}


def add_pod(fleet, host, name, running=False):
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "rollout-test", "labels": {"app": name}},
        "spec": {"nodeName": host, "containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10"}]},
    }
    fleet.kubectl("create", "namespace", "rollout-test", check=False)
    fleet.kubectl("create", "--filename=-", stdin=json.dumps(pod))
    if running:
        fleet.kubectl(
            "patch",
            "pod",
            name,
            "--namespace=rollout-test",
            "--subresource=status",
            "--type=merge",
            "--patch=" + json.dumps({"status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}}),
        )


def pods_on(fleet, host):
    out = fleet.kubectl("get", "pods", "--all-namespaces", "--field-selector=spec.nodeName=" + host, "--output=name").stdout
    return out.split()


def test_rollout_rolls_the_fleet_one_host_at_a_time_and_verify_passes(fleet):
    fleet.reset()
    add_pod(fleet, "rollout-n2", "web")
    before = {host: fleet.snapshot(host)["starts"] for host in HOSTS}
    result = fleet.playbook("numa.kubelet.rollout", *cluster_vars(fleet))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "cluster mode" in result.stdout
    rows = summary_rows(result.stdout)
    for host in HOSTS:
        assert rows[host].split() == row(host, RESERVED, "applied,", "uncordoned"), rows
        assert not fleet.cordoned(host) and fleet.ready(host)
        written = yaml.safe_load(fleet.sh(host, "cat " + dropin(host)).stdout)
        assert written["reservedMemory"] == [{"numaNode": 0, "limits": {"memory": RESERVED[LAYOUT[host]]}}]
        assert reserved_in_checkpoint(checkpoint(fleet, host)) == RESERVED_BYTES[LAYOUT[host]]
        starts = fleet.starts(host)
        assert len(starts) == before[host] + 1 and starts[-1]["result"] == "started"
    # The drain evicted the pod; the node agent stand-in completed its deletion.
    assert pods_on(fleet, "rollout-n2") == []
    # serial 1: each host was drained, restarted and uncordoned before the next was drained.
    steps = [line.split("]")[0] for line in result.stdout.splitlines() if line.startswith((ROLL_TASK + "Cordon and drain", ROLL_TASK + "Uncordon"))]
    assert steps == [ROLL_TASK + "Cordon and drain the node", ROLL_TASK + "Uncordon the node"] * 3

    # The rollout's verify step had the kubeconfig: it compared each kubelet's /configz too.
    assert flat(result.stdout).count(CONFIGZ_MATCHES) == 3, result.stdout
    verify = fleet.playbook("numa.kubelet.verify")
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert flat(verify.stdout).count("files and memory_manager_state match the plan (/configz not read)") == 3, verify.stdout
    assert flat(verify.stdout).count("/configz NOT read (no kubelet_numa_rollout_kubeconfig)") == 1, verify.stdout
    verify = fleet.playbook("numa.kubelet.verify", *verify_vars(fleet))
    assert verify.returncode == 0, verify.stdout + verify.stderr
    for host in HOSTS:
        assert host + CONFIGZ_MATCHES in flat(verify.stdout), verify.stdout
    assert "/configz NOT read" not in verify.stdout


def test_render_of_the_rolled_fleet_is_byte_for_byte_what_the_role_wrote(fleet, tmp_path):
    # Builds on the rolled fleet of the previous test, read-only. numa.kubelet.render discovers each host (it has no
    # kubelet_numa_topology) and renders, on the controller, what the role would write: after the roll, exactly what
    # the role did write, on kubeadm and RKE2 alike, with nothing left to restart.
    before = {host: fleet.snapshot(host) for host in HOSTS}
    out = tmp_path / "render"
    result = fleet.playbook("numa.kubelet.render", "-e", f"kubelet_numa_render_dir={out}")
    assert result.returncode == 0, result.stdout + result.stderr
    for host in HOSTS:
        rendered = {
            "/" + str(path.relative_to(out / host)): path.read_text()
            for path in (out / host).rglob("*")
            if path.is_file() and path.name not in ("plan.json", ".numa-kubelet-render.json")
        }
        assert dropin(host) in rendered, sorted(rendered)
        for path, text in rendered.items():
            assert fleet.sh(host, "cat " + path).stdout == text, (host, path)
        assert json.loads((out / host / "plan.json").read_text())["restart"] == "none", host
        assert fleet.snapshot(host) == before[host], host


def test_a_second_rollout_drains_no_converged_node(fleet):
    # Builds on the rolled fleet and leaves it as it was: every node already has what the role would write, so none
    # is cordoned, drained (a running pod stays) or restarted.
    before = {host: fleet.snapshot(host) for host in HOSTS}
    add_pod(fleet, "rollout-n1", "stays", running=True)
    try:
        result = fleet.playbook("numa.kubelet.rollout", *cluster_vars(fleet))
        assert result.returncode == 0, result.stdout + result.stderr
        rows = summary_rows(result.stdout)
        for host in HOSTS:
            assert rows[host].split() == row(host, RESERVED, "applied,", "already", "converged,", "not", "drained"), rows
            assert fleet.snapshot(host) == before[host], host
            assert not fleet.cordoned(host)
        for task in ("Cordon and drain the node", "Wait until the Node is Ready", "Uncordon the node"):
            section = result.stdout.split(ROLL_TASK + task + "]")[1].split("TASK [")[0]
            assert [line for line in section.splitlines() if line.startswith(("ok:", "changed:", "fatal:"))] == [], section
        assert pods_on(fleet, "rollout-n1") == ["pod/stays"]
    finally:
        fleet.kubectl("delete", "pod", "stays", "--namespace=rollout-test", "--force", "--grace-period=0", check=False)


def test_verify_with_the_kubeconfig_names_the_configz_field_the_running_kubelet_differs_in(fleet):
    # Builds on the rolled fleet of the previous test and leaves it as it was. rollout-n2's kubelet is restarted with
    # an extra flag from a systemd drop-in, which no file numa.kubelet plans from carries: its files and its
    # checkpoint still match the plan, only the config the kubelet runs with differs.
    before = len(fleet.starts("rollout-n2"))
    fleet.sh(
        "rollout-n2",
        "mkdir -p %s && printf '[Service]\\nEnvironment=KUBELET_KUBECONFIG_ARGS=--topology-manager-scope=pod\\n' > %s "
        "&& systemctl daemon-reload && systemctl restart kubelet" % (os.path.dirname(EXTRA_FLAG_DROPIN), EXTRA_FLAG_DROPIN),
    )
    try:
        # Ready alone came after the start record when the stand-in wrote it before /healthz; now wait for the record.
        assert wait_for_start(fleet, "rollout-n2", before + 1)["effective_config"]["topologyManagerScope"] == "pod"
        fleet.wait_ready()
        node_local = fleet.playbook("numa.kubelet.verify")
        assert node_local.returncode == 0, node_local.stdout  # the files and the checkpoint cannot show it
        result = fleet.playbook("numa.kubelet.verify", *verify_vars(fleet))
        assert result.returncode != 0
        drifted = [msg for msg in failure_messages(result.stdout) if isinstance(msg, list)]
        assert drifted == [
            ["numa.kubelet.verify: rollout-n2 drifted from the plan:", "/configz: topologyManagerScope is pod in the running kubelet, the plan container"]
        ], result.stdout
        for host in ("rollout-n1", "rollout-n3"):
            assert host + CONFIGZ_MATCHES in flat(result.stdout), result.stdout
    finally:
        before = len(fleet.starts("rollout-n2"))
        fleet.sh("rollout-n2", f"rm -f {EXTRA_FLAG_DROPIN} && systemctl daemon-reload && systemctl restart kubelet")
        wait_for_start(fleet, "rollout-n2", before + 1)
        fleet.wait_ready()


def test_verify_names_the_host_and_field_that_drifted(fleet):
    # Builds on the rolled fleet of the previous test.
    fleet.sh("rollout-n1", "sed -i 's/memory: 512Mi/memory: 600Mi/' " + dropin("rollout-n1"))
    state = checkpoint(fleet, "rollout-n3")
    state["machineState"]["0"]["memoryMap"]["memory"]["systemReserved"] = 1
    fleet.sh("rollout-n3", f"cat > /var/lib/kubelet/memory_manager_state <<'EOF'\n{json.dumps(state)}\nEOF")
    result = fleet.playbook("numa.kubelet.verify")
    assert result.returncode != 0
    out = result.stdout
    assert "numa.kubelet.verify: rollout-n1 drifted from the plan:" in out
    assert dropin("rollout-n1") + ": kubeReserved is {'memory': '600Mi'} on the node, the plan {'memory': '512Mi'}" in out
    assert "numa.kubelet.verify: rollout-n3 drifted from the plan:" in out
    assert "memory_manager_state reserves {'0': 1} bytes per NUMA node, the plan {'0': 1073741824}" in out
    assert "rollout-n2: files and memory_manager_state match the plan (/configz not read)" in flat(out)


CHANGED = {
    "memoryManagerPolicy": "Static",
    "topologyManagerPolicy": "single-numa-node",
    "kubeReserved": {"memory": "512Mi"},
    "systemReserved": {"memory": "768Mi"},
}


def changed_intent():
    return ["-e", json.dumps({"kubelet_numa_config": CHANGED})]


def test_rollout_halts_at_a_failed_host_rolls_it_back_and_leaves_the_rest_untouched(fleet):
    # Builds on the rolled (and drifted) fleet: a changed intent restarts every host; the second one's kubelet start fails once.
    fleet.sh("rollout-n2", "touch " + FAIL_MARKER)
    n2_dropin = fleet.sh("rollout-n2", "cat " + dropin("rollout-n2")).stdout
    n3_before = fleet.snapshot("rollout-n3")
    result = fleet.playbook("numa.kubelet.rollout", *cluster_vars(fleet), *changed_intent())
    assert result.returncode != 0
    rows = summary_rows(result.stdout)
    assert rows["rollout-n1"].split() == row("rollout-n1", RESERVED_CHANGED, "applied,", "uncordoned"), rows
    assert rows["rollout-n2"].split()[:4] == row("rollout-n2", RESERVED_CHANGED, "FAILED"), rows
    assert "rollout-n2 kubeadm 0=1380Mi FAILED at apply, rolled back by the role, left cordoned" in " ".join(result.stdout.split())
    # Not reached: the summary says why (a long row, folded by the YAML callback).
    assert (
        "rollout-n3 rke2 0=1280Mi untouched, halted before its batch: 1 host(s) failed (rollout-n2), "
        "more than kubelet_numa_rollout_max_failures (0): no later batch starts" in flat(result.stdout)
    ), rows
    assert "numa.kubelet.rollout halted at rollout-n2 (apply)" in result.stdout
    assert "forced failure" in result.stdout  # the kubelet's own last error, quoted
    # Host 2: the previous file is back, its kubelet runs the previous split, and it stays cordoned.
    assert fleet.sh("rollout-n2", "cat " + dropin("rollout-n2")).stdout == n2_dropin
    assert reserved_in_checkpoint(checkpoint(fleet, "rollout-n2")) == RESERVED_BYTES["kubeadm"]
    assert fleet.cordoned("rollout-n2")
    # Host 3: not drained, no file changed, no kubelet start.
    assert fleet.snapshot("rollout-n3") == n3_before
    assert not fleet.cordoned("rollout-n3")
    assert "rollout-n3" not in [line.split("[")[-1].rstrip("]") for line in result.stdout.splitlines() if "changed: [" in line]


def test_a_pod_disruption_budget_that_blocks_the_drain_halts_before_anything_is_applied(fleet):
    fleet.reset()
    add_pod(fleet, "rollout-n1", "db", running=True)
    pdb = {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "db", "namespace": "rollout-test"},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "db"}}},
    }
    fleet.kubectl("create", "--filename=-", stdin=json.dumps(pdb))
    # No disruption controller runs: write the status it would write (apiserver README).
    fleet.kubectl(
        "patch",
        "pdb",
        "db",
        "--namespace=rollout-test",
        "--subresource=status",
        "--type=merge",
        "--patch=" + json.dumps({"status": {"observedGeneration": 1, "disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1}}),
    )
    before = {host: fleet.snapshot(host) for host in HOSTS}
    result = fleet.playbook("numa.kubelet.rollout", *cluster_vars(fleet, "-e", "kubelet_numa_rollout_drain_timeout=5"))
    assert result.returncode != 0
    assert "numa.kubelet.rollout halted at rollout-n1 (drain)" in result.stdout
    assert "Cannot evict pod as it would violate the pod's disruption budget" in result.stdout
    rows = summary_rows(result.stdout)
    assert "FAILED at drain, nothing applied, left cordoned" in " ".join(result.stdout.split()), rows
    for host in HOSTS:
        assert fleet.snapshot(host) == before[host], host
    assert fleet.cordoned("rollout-n1") and not fleet.cordoned("rollout-n2")
    assert pods_on(fleet, "rollout-n1") == ["pod/db"]


def test_bad_input_is_refused_before_the_first_drain_one_line_per_problem(fleet, tmp_path):
    fleet.reset()
    inventory = yaml.safe_load(open(fleet.inventory))
    hosts = inventory["all"]["children"]["gpu_nodes"]["hosts"]
    # rollout-n2 is also in a second group that sets another split: Ansible would pick one by name order.
    inventory["all"]["children"]["big_memory"] = {"hosts": {"rollout-n2": {}}, "vars": {"kubelet_numa_reserved_memory_split": "first"}}
    # rollout-n3 has no platform files (its RKE2 ones removed) and none is set; rollout-n1 asks for a policy in the wrong case.
    fleet.sh("rollout-n3", "rm -rf /etc/rancher/rke2 /usr/local/bin/rke2")
    hosts["rollout-n1"]["kubelet_numa_config"] = dict(CHANGED, memoryManagerPolicy="static")
    path = tmp_path / "inventory.yml"
    path.write_text(yaml.safe_dump(inventory))
    before = {host: fleet.snapshot(host) for host in HOSTS}
    result = fleet.playbook(
        "numa.kubelet.rollout", "-e", "kubelet_numa_rollout_kubeconfig=/nonexistent/kubeconfig", "-e", "kubelet_numa_rollout_serial=half", inventory=str(path)
    )
    assert result.returncode != 0
    out = result.stdout + result.stderr
    refusals = [msg for msg in failure_messages(out) if isinstance(msg, list) and msg[:1] == ["numa.kubelet.rollout refused; nothing was drained or changed:"]]
    assert len(refusals) == 1, out
    problems = refusals[0][1:]
    expected = [
        "kubelet_numa_rollout_serial: 'half' (str) is neither a count (1, 2, ...) nor a percentage (1% to 100%)",
        "rollout-n2: kubelet_numa_reserved_memory_split is set differently by groups big_memory and gpu_nodes,",
        "kubelet_numa_rollout_kubeconfig: /nonexistent/kubeconfig does not exist on the control host localhost",
        'rollout-n1: plan_node: memoryManagerPolicy: unknown policy: "static"',
        "rollout-n3: plan_node: kubelet_numa_platform: cannot detect the platform: none of",
    ]
    # One message per problem, nothing else.
    assert len(problems) == len(expected), problems
    for start, problem in zip(expected, problems, strict=True):
        assert problem.startswith(start), (start, problems)
    assert ROLL_TASK + "Cordon and drain" not in out
    for host in HOSTS:
        assert fleet.snapshot(host) == before[host], host


def test_without_a_kubeconfig_it_refuses_unless_node_local_is_asked_for(fleet):
    fleet.reset()
    before = {host: fleet.snapshot(host) for host in HOSTS}
    refused = fleet.playbook("numa.kubelet.rollout")
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "numa.kubelet.rollout refused; nothing was drained or changed: kubelet_numa_rollout_kubeconfig is not set" in flat(refused.stdout), refused.stdout
    assert "Discover and plan the node]" not in refused.stdout
    for host in HOSTS:
        assert fleet.snapshot(host) == before[host], host


def test_without_a_kubeconfig_it_runs_node_local_and_says_so(fleet):
    fleet.reset()
    result = fleet.playbook("numa.kubelet.rollout", "--limit", "rollout-n1", "-e", "kubelet_numa_rollout_node_local=true")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "*** NODE-LOCAL MODE: no kubelet_numa_rollout_kubeconfig is set. ***" in result.stdout
    # The cluster mode's cordon and drain (roll_drain.yml) are not even included.
    drain = result.stdout.split(ROLL_TASK + "Take the node out of service]")[1].split("TASK [")[0]
    assert "skipping: [rollout-n1]" in drain and not fleet.cordoned("rollout-n1")
    assert ROLL_TASK + "Cordon and drain the node]" not in result.stdout
    rows = summary_rows(result.stdout)
    assert rows["rollout-n1"].split() == row("rollout-n1", RESERVED, "applied,", "node-local"), rows
    assert reserved_in_checkpoint(checkpoint(fleet, "rollout-n1")) == RESERVED_BYTES["kubeadm"]
