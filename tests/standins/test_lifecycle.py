# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the collection's restart chain relies on: the kubelet stand-in's /healthz and its journal line on a refused
start, the `rke2 --version` stand-in, and numa-standin-provision laying a neutral host out as one platform."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import yaml

STANDINS = Path(__file__).resolve().parent / "image"
KUBELET = STANDINS / "kubelet-standin"
RKE2 = STANDINS / "rke2-standin"
NODEADM = STANDINS / "nodeadm-standin"
RKE2_CLI = STANDINS / "rke2-cli-standin"
PROVISION = STANDINS / "numa-standin-provision"
KLOG_RE = re.compile(r'^E\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ [a-z_]+\.go:\d+\] "(?P<msg>[^"]+)" err=(?P<err>".*")$')
MARKERS = (
    "/var/lib/kubelet/config.yaml",
    "/var/lib/kubelet/kubeadm-flags.env",
    "/etc/rancher/rke2",
    "/usr/local/bin/rke2",
    "/usr/local/lib/systemd/system/rke2-server.service",
    "/etc/eks/nodeadm.d",
    "/etc/kubernetes/kubelet/config.json",
    "/etc/rancher/k3s",
    "/usr/local/bin/k3s",
)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def get(url):
    """GET url; return (status, body), or (None, error) when nothing answers."""
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()
    except OSError as err:
        return None, str(err)


def wait_for(url, proc, timeout=30):
    """Poll url until it answers; fail when the process exits first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status, body = get(url)
        if status is not None:
            return status, body
        assert proc.poll() is None, proc.communicate()[1]
        time.sleep(0.1)
    raise AssertionError("nothing answered %s within %d s" % (url, timeout))


def wait_for_start(host, count, proc, timeout=30):
    """The start log once it holds `count` starts. A good start is recorded only when its container manager has written
    the checkpoints, which is after /healthz answers (as the kubelet does): /healthz answering does not mean the start
    is recorded yet."""
    deadline = time.monotonic() + timeout
    while len(host.starts()) < count:
        assert time.monotonic() < deadline, "no start %d recorded within %d s" % (count, timeout)
        assert proc.poll() is None or len(host.starts()) >= count, proc.communicate()[1]
        time.sleep(0.05)
    return host.starts()


@pytest.fixture
def running(host):
    """Start the kubelet stand-in as a long-running process (not oneshot); SIGTERM it at the end."""
    procs = []

    def start(*args):
        env = dict(os.environ, NUMA_KUBELET_STANDIN_ROOT=str(host.root), NUMA_KUBELET_STANDIN_ONESHOT="0")
        if not any(arg.startswith("--port") for arg in args):
            # The kubelet API's default 0.0.0.0:10250 would be shared by every test running at the same time.
            args += ("--address=127.0.0.1", "--port=%d" % free_port())
        proc = subprocess.Popen([sys.executable, str(KUBELET)] + list(args), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        procs.append(proc)
        return proc

    yield start
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()


def go_unquote(quoted):
    """Undo strconv.Quote for the ASCII texts the stand-in logs (JSON string rules are the same there)."""
    return json.loads(quoted)


def last_klog(stderr):
    """The last stderr line, parsed as a klog error line."""
    line = stderr.rstrip("\n").splitlines()[-1]
    match = KLOG_RE.match(line)
    assert match, f"not a klog error line: {line!r}"
    return match.group("msg"), go_unquote(match.group("err"))


# ------------------------------------------------------------------------------------------------ healthz
def test_healthz_answers_ok_on_the_configured_port_and_sigterm_stops_it(host, running):
    port = free_port()
    host.kubelet_config(healthzPort=port)
    proc = running("--config=/var/lib/kubelet/config.yaml")
    assert wait_for("http://127.0.0.1:%d/healthz" % port, proc) == (200, "ok")
    assert get("http://127.0.0.1:%d/healthz/syncloop" % port) == (200, "ok")
    assert get("http://127.0.0.1:%d/configz" % port)[0] == 404
    # Read the start log only once the start is recorded: it used to be written before /healthz answered.
    assert wait_for_start(host, 1, proc)[-1]["effective_config"]["healthzPort"] == port
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=10) == 0
    assert get("http://127.0.0.1:%d/healthz" % port)[0] is None


def test_healthz_flags_override_the_config(host, running):
    port = free_port()
    host.kubelet_config(healthzPort=free_port(), healthzBindAddress="127.0.0.2")
    proc = running("--config=/var/lib/kubelet/config.yaml", "--healthz-port=%d" % port, "--healthz-bind-address=127.0.0.1")
    assert wait_for("http://127.0.0.1:%d/healthz" % port, proc) == (200, "ok")
    # Read the start log only once the start is recorded: it used to be written before /healthz answered.
    config = wait_for_start(host, 1, proc)[-1]["effective_config"]
    assert (config["healthzBindAddress"], config["healthzPort"]) == ("127.0.0.1", port)


def test_healthz_defaults_to_127_0_0_1_10248_and_port_0_disables_it(host, running):
    host.kubelet_config()
    result = host.kubelet("--config=/var/lib/kubelet/config.yaml")
    assert result.start["effective_config"]["healthzBindAddress"] == "127.0.0.1"
    assert result.start["effective_config"]["healthzPort"] == 10248
    host.kubelet_config(healthzPort=0)
    proc = running("--config=/var/lib/kubelet/config.yaml")
    deadline = time.monotonic() + 20
    while len(host.starts()) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert host.starts()[-1]["result"] == "started"
    assert host.starts()[-1]["effective_config"]["healthzPort"] == 0
    time.sleep(0.5)
    assert proc.poll() is None  # stays running without a healthz server
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=10) == 0


def test_a_bad_healthz_port_is_refused(host):
    host.kubelet_config(healthzPort=70000)
    result = host.kubelet("--config=/var/lib/kubelet/config.yaml")
    assert result.rc == 1
    assert result.start["error"] == (
        "failed to validate kubelet configuration, error: invalid configuration: healthzPort (--healthz-port) 70000 must be between 1 and 65535, inclusive"
    )


def test_the_checkpoints_are_written_after_healthz_answers(host, running):
    # The kubelet serves /healthz (cmd/kubelet/app/server.go run(), after RunKubelet) before its container manager
    # starts (pkg/kubelet/kubelet.go initializeRuntimeDependentModules, once the runtime is up) and writes them.
    port = free_port()
    host.kubelet_config(
        healthzPort=port, memoryManagerPolicy="Static", kubeReserved={"memory": "412Mi"}, reservedMemory=[{"numaNode": 0, "limits": {"memory": "512Mi"}}]
    )
    host.write("/etc/kubelet-standin/container-manager-delay", "3\n")
    proc = running("--config=/var/lib/kubelet/config.yaml")
    assert wait_for("http://127.0.0.1:%d/healthz" % port, proc) == (200, "ok")
    assert not host.path("/var/lib/kubelet/memory_manager_state").exists()
    assert not host.path("/var/lib/kubelet/cpu_manager_state").exists()
    assert host.starts() == []
    assert wait_for_start(host, 1, proc)[-1]["result"] == "started"
    assert host.state()["policyName"] == "Static"
    assert host.state("cpu_manager_state")["policyName"] == "none"
    assert proc.poll() is None


def test_a_refused_checkpoint_exits_after_healthz_answered(host, running):
    # The container manager's refusal comes after /healthz has answered: the kubelet logs it and exits 1.
    port = free_port()
    host.kubelet_config(
        healthzPort=port, memoryManagerPolicy="Static", kubeReserved={"memory": "412Mi"}, reservedMemory=[{"numaNode": 0, "limits": {"memory": "512Mi"}}]
    )
    host.write("/var/lib/kubelet/memory_manager_state", json.dumps({"policyName": "None", "machineState": {}}))
    host.write("/etc/kubelet-standin/container-manager-delay", "1\n")
    proc = running("--config=/var/lib/kubelet/config.yaml")
    assert wait_for("http://127.0.0.1:%d/healthz" % port, proc) == (200, "ok")
    assert proc.wait(timeout=30) == 1
    start = host.starts()[-1]
    assert start["result"] == "refused"
    assert 'configured policy "Static" differs from state checkpoint policy "None"' in start["error"]
    assert last_klog(proc.communicate()[1]) == ("Failed to start ContainerManager", start["error"])
    assert host.state()["policyName"] == "None"


def test_a_refused_start_serves_no_healthz(host):
    port = free_port()
    host.kubelet_config(
        healthzPort=port, memoryManagerPolicy="Static", kubeReserved={"memory": "512Mi"}, reservedMemory=[{"numaNode": 0, "limits": {"memory": "512Mi"}}]
    )
    result = host.kubelet("--config=/var/lib/kubelet/config.yaml", extra_env={"NUMA_KUBELET_STANDIN_ONESHOT": "0"})
    assert result.rc == 1 and result.start["result"] == "refused"
    assert get("http://127.0.0.1:%d/healthz" % port)[0] is None


# ------------------------------------------------------------------------------------------------ /configz
def get_configz(port, cafile):
    """GET https://127.0.0.1:PORT/configz trusting only cafile (the stand-in's self-signed certificate)."""
    context = ssl.create_default_context(cafile=str(cafile))
    context.check_hostname = False  # issued for the machine's hostname, not 127.0.0.1, like the kubelet's
    with urllib.request.urlopen("https://127.0.0.1:%d/configz" % port, timeout=2, context=context) as response:
        return response.status, response.headers["Content-Type"], json.loads(response.read())


def wait_for_tls(port, proc, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            assert proc.poll() is None, proc.communicate()[1]
            time.sleep(0.1)
    raise AssertionError("nothing listened on %d within %d s" % (port, timeout))


def test_configz_serves_the_effective_config_over_https_with_a_self_signed_certificate(host, running):
    port = free_port()
    host.kubelet_config(
        address="127.0.0.1",
        port=port,
        memoryManagerPolicy="Static",
        kubeReserved={"memory": "512Mi"},
        systemReserved={"memory": "536870912"},
        reservedMemory=[{"numaNode": 0, "limits": {"memory": "1178599424"}}],
    )
    proc = running("--config=/var/lib/kubelet/config.yaml", "--port=%d" % port)
    wait_for_tls(port, proc)
    cert = host.path("/var/lib/kubelet/pki/kubelet.crt")
    assert (cert.parent / "kubelet.key").stat().st_mode & 0o777 == 0o600
    subject = subprocess.run(
        ["openssl", "x509", "-in", str(cert), "-noout", "-subject", "-ext", "subjectAltName"], capture_output=True, text=True, check=True
    ).stdout
    assert re.search(rf"CN ?= ?{re.escape(socket.gethostname())}@\d+", subject), subject
    assert f"DNS:{socket.gethostname()}" in subject
    status, content_type, answer = get_configz(port, cert)
    assert (status, content_type, list(answer)) == (200, "application/json", ["kubeletconfig"])
    config = answer["kubeletconfig"]
    # Shaped like the real kubelet v1.36.2's answer (tests/unit/fixtures/configz/): quantities as written,
    # defaults filled in, the generated certificate named.
    assert config["apiVersion"] == "kubelet.config.k8s.io/v1beta1" and config["kind"] == "KubeletConfiguration"
    assert config["reservedMemory"] == [{"numaNode": 0, "limits": {"memory": "1178599424"}}]
    assert config["systemReserved"] == {"memory": "536870912"} and config["kubeReserved"] == {"memory": "512Mi"}
    assert config["evictionHard"] == {
        "memory.available": "100Mi",
        "nodefs.available": "10%",
        "nodefs.inodesFree": "5%",
        "imagefs.available": "15%",
        "imagefs.inodesFree": "5%",
    }
    assert (config["memoryManagerPolicy"], config["cpuManagerPolicy"], config["topologyManagerPolicy"], config["topologyManagerScope"]) == (
        "Static",
        "none",
        "none",
        "container",
    )
    assert (config["address"], config["port"]) == ("127.0.0.1", port)
    assert config["tlsCertFile"] == "/var/lib/kubelet/pki/kubelet.crt"
    assert config["tlsPrivateKeyFile"] == "/var/lib/kubelet/pki/kubelet.key"
    # The certificate is kept by the next start, as the kubelet keeps a readable pair.
    made = cert.read_bytes()
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=10) == 0
    again = running("--config=/var/lib/kubelet/config.yaml", "--port=%d" % port)
    wait_for_tls(port, again)
    assert get_configz(port, cert)[0] == 200 and cert.read_bytes() == made


def test_configz_shows_the_kubelets_rewrite_of_cpu_reservations_for_reserved_cpus(numa2, running):
    port = free_port()
    numa2.kubelet_config(cpuManagerPolicy="static", reservedSystemCPUs="0-1", kubeReserved={"cpu": "100m", "memory": "1Gi"}, systemReserved={"memory": "1Gi"})
    proc = running("--config=/var/lib/kubelet/config.yaml", "--address=127.0.0.1", "--port=%d" % port, "--cert-dir=/etc/kubelet-pki")
    wait_for_tls(port, proc)
    config = get_configz(port, numa2.path("/etc/kubelet-pki/kubelet.crt"))[2]["kubeletconfig"]
    assert config["kubeReserved"] == {"memory": "1Gi"}
    assert config["systemReserved"] == {"memory": "1Gi", "cpu": "2"}
    assert config["tlsCertFile"] == "/etc/kubelet-pki/kubelet.crt"
    # The start log keeps the effective config as configured (recorded after the checkpoints, so after TLS answers).
    assert wait_for_start(numa2, 1, proc)[-1]["effective_config"]["kubeReserved"] == {"cpu": "100m", "memory": "1Gi"}


def test_a_kubelet_port_in_use_fails_the_start_and_enable_server_false_serves_nothing(host, running):
    host.kubelet_config()
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = host.kubelet(
            "--config=/var/lib/kubelet/config.yaml", "--address=127.0.0.1", "--port=%d" % port, extra_env={"NUMA_KUBELET_STANDIN_ONESHOT": "0"}
        )
    assert result.rc == 1 and result.start["result"] == "refused"
    assert result.start["error"].startswith("failed to listen and serve on 127.0.0.1:%d: " % port)
    assert last_klog(result.stderr)[1] == "failed to run Kubelet: " + result.start["error"]
    port = free_port()
    proc = running("--config=/var/lib/kubelet/config.yaml", "--address=127.0.0.1", "--port=%d" % port, "--enable-server=false")
    deadline = time.monotonic() + 20
    while len(host.starts()) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert host.starts()[-1]["result"] == "started"
    time.sleep(0.5)
    assert proc.poll() is None
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()


def test_a_missing_tls_cert_file_fails_the_start(host):
    host.kubelet_config(tlsCertFile="/etc/kubelet/missing.crt", tlsPrivateKeyFile="/etc/kubelet/missing.key")
    result = host.kubelet(
        "--config=/var/lib/kubelet/config.yaml", "--address=127.0.0.1", "--port=%d" % free_port(), extra_env={"NUMA_KUBELET_STANDIN_ONESHOT": "0"}
    )
    assert result.rc == 1 and result.start["error"].startswith(
        "unable to load the serving certificate /etc/kubelet/missing.crt and key /etc/kubelet/missing.key: "
    )


# ------------------------------------------------------------------------------------------------ journal line
def test_a_refused_start_ends_with_the_kubelets_command_failed_line(host):
    host.kubelet_config(
        memoryManagerPolicy="Static",
        kubeReserved={"memory": "512Mi"},
        systemReserved={"memory": "412Mi"},
        reservedMemory=[{"numaNode": 0, "limits": {"memory": "512Mi"}}],
    )
    result = host.kubelet("--config=/var/lib/kubelet/config.yaml")
    message = 'the total amount "512Mi" of type "memory" is not equal to the value "1Gi" determined by Node Allocatable feature'
    assert result.rc == 1 and result.start["error"] == message
    assert last_klog(result.stderr) == ("command failed", "failed to run Kubelet: " + message)
    assert '\\"512Mi\\"' in result.stderr.splitlines()[-1]  # Go-quoted like klog


def test_flag_errors_are_logged_without_the_run_prefix(host):
    host.kubelet_config()
    result = host.kubelet("--config=/var/lib/kubelet/config.yaml", "--reserved-memroy=0:memory=1Gi")
    assert result.rc == 1
    assert last_klog(result.stderr) == ("command failed", "failed to parse kubelet flag: unknown flag: --reserved-memroy")


def test_checkpoint_errors_are_logged_as_container_manager_start_failures(host):
    host.kubelet_config()
    assert host.kubelet("--config=/var/lib/kubelet/config.yaml").rc == 0
    host.kubelet_config(memoryManagerPolicy="Static", kubeReserved={"memory": "512Mi"}, reservedMemory=[{"numaNode": 0, "limits": {"memory": "612Mi"}}])
    result = host.kubelet("--config=/var/lib/kubelet/config.yaml")
    assert result.rc == 1
    message, err = last_klog(result.stderr)
    assert message == "Failed to start ContainerManager"
    assert err == result.start["error"]
    assert err.startswith(
        "start memory manager error: could not restore state from checkpoint: [memorymanager] "
        'configured policy "Static" differs from state checkpoint policy "None"'
    )


def test_the_forced_failure_is_logged_like_a_kubelet_error(host):
    host.kubelet_config()
    host.write("/etc/kubelet-standin/fail-next-start", "")
    result = host.kubelet("--config=/var/lib/kubelet/config.yaml")
    message, err = last_klog(result.stderr)
    assert message == "command failed" and err.startswith("failed to run Kubelet: kubelet stand-in: forced failure")


def test_the_flags_kubeadm_passes_are_accepted_and_ignored(host):
    host.kubelet_config()
    result = host.kubelet(
        "--config=/var/lib/kubelet/config.yaml",
        "--container-runtime-endpoint=unix:///var/run/containerd/containerd.sock",
        "--pod-infra-container-image=registry.k8s.io/pause:3.10",
        "--kubeconfig=/etc/kubernetes/kubelet.conf",
        "--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf",
        "--node-ip",
        "10.0.0.5",
        "--hostname-override=node-1",
        "--cloud-provider=external",
        "--node-labels=node.kubernetes.io/role=worker,numa=true",
    )
    assert result.rc == 0, result.stderr
    assert result.start["result"] == "started"
    assert "nodeIP" not in result.start["effective_config"]


# ------------------------------------------------------------------------------------------------ rke2 --version
def test_rke2_version_prints_what_rke2_prints_with_the_units_default(host):
    result = host.run(RKE2_CLI, ["--version"])
    assert result.rc == 0, result.stderr
    first, second = result.stdout.splitlines()
    assert re.match(r"^rke2 version v1\.32\.5\+rke2r1 \([0-9a-f]{40}\)$", first)
    assert re.match(r"^go version go1\.\d+(\.\d+)? X:boringcrypto$", second)
    assert host.run(RKE2_CLI, ["-v"]).stdout == result.stdout


def test_rke2_version_follows_the_units_environment_file(host):
    host.write("/etc/default/rke2-agent", "RKE2_STANDIN_VERSION=v1.31.4+rke2r1\n")
    assert host.run(RKE2_CLI, ["--version"]).stdout.startswith("rke2 version v1.31.4+rke2r1 (")
    host.write("/etc/default/rke2-server", '# comment\nRKE2_STANDIN_VERSION="v1.33.1+rke2r1"\n')
    assert host.run(RKE2_CLI, ["--version"]).stdout.startswith("rke2 version v1.33.1+rke2r1 (")


@pytest.mark.parametrize("args", [["server"], ["agent", "--debug"], ["etcd-snapshot", "ls"], []])
def test_rke2_refuses_everything_but_version_as_a_stand_in(host, args):
    result = host.run(RKE2_CLI, args)
    assert result.rc == 1 and result.stdout == ""
    assert "STAND-IN" in result.stderr and "--version" in result.stderr


def test_as_k3s_it_prints_what_k3s_prints_from_the_k3s_units_environment(host, tmp_path):
    # Installed as /usr/local/bin/k3s it is the `k3s` CLI: k3s is not built with BoringCrypto.
    cli = tmp_path / "bin" / "k3s"
    cli.parent.mkdir()
    shutil.copy(RKE2_CLI, cli)
    first, second = host.run(cli, ["--version"]).stdout.splitlines()
    assert re.match(r"^k3s version v1\.32\.5\+k3s1 \([0-9a-f]{40}\)$", first) and re.match(r"^go version go1\.\d+(\.\d+)?$", second)
    host.write("/etc/default/rke2-server", "RKE2_STANDIN_VERSION=v1.31.4+rke2r1\n")
    host.write("/etc/default/k3s-agent", "K3S_STANDIN_VERSION=v1.31.9+k3s1\n")
    assert host.run(cli, ["--version"]).stdout.startswith("k3s version v1.31.9+k3s1 (")
    refused = host.run(cli, ["agent"])
    assert refused.rc == 1 and "not k3s" in refused.stderr and "`k3s --version`" in refused.stderr


# ------------------------------------------------------------------------------------------------ provisioning
def provision(host, *args):
    """Run numa-standin-provision into the fake root (no systemctl)."""
    return host.run(PROVISION, args, {"NUMA_KUBELET_STANDIN_NO_SYSTEMCTL": "1", "NUMA_KUBELET_STANDIN_SOURCE": str(STANDINS)})


def env_file(host, logical):
    """A systemd EnvironmentFile as a dict (values unquoted like systemd does)."""
    values = {}
    for line in host.path(logical).read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            key, value = line.split("=", 1)
            values[key] = shlex.split(value)[0] if value else ""
    return values


def present_markers(host):
    """Every platform marker that exists on the fake host."""
    return [marker for marker in MARKERS if os.path.lexists(host.path(marker))]


def test_provision_kubeadm_lays_out_what_kubeadm_join_leaves_and_the_kubelet_starts(host):
    assert present_markers(host) == []
    result = provision(host, "kubeadm")
    assert result.rc == 0, result.stderr
    config = yaml.safe_load(host.path("/var/lib/kubelet/config.yaml").read_text(encoding="utf-8"))
    assert config["apiVersion"] == "kubelet.config.k8s.io/v1beta1" and config["kind"] == "KubeletConfiguration"
    assert config["authentication"]["webhook"]["enabled"] is True and config["authorization"]["mode"] == "Webhook"
    assert config["cgroupDriver"] == "systemd" and config["clusterDNS"] == ["10.96.0.10"]
    assert config["clusterDomain"] == "cluster.local" and config["staticPodPath"] == "/etc/kubernetes/manifests"
    assert config["rotateCertificates"] is True
    assert not {"evictionHard", "kubeReserved", "systemReserved", "reservedMemory"} & set(config)
    flags = env_file(host, "/var/lib/kubelet/kubeadm-flags.env")["KUBELET_KUBEADM_ARGS"]
    assert flags == ("--container-runtime-endpoint=unix:///var/run/containerd/containerd.sock --pod-infra-container-image=registry.k8s.io/pause:3.10")
    assert not host.path("/etc/default/kubelet").exists()
    assert present_markers(host) == ["/var/lib/kubelet/config.yaml", "/var/lib/kubelet/kubeadm-flags.env"]
    # kubelet.service's ExecStart with these files: the kubelet's defaults apply (100Mi eviction, healthz 10248).
    started = host.kubelet("--config=/var/lib/kubelet/config.yaml", *flags.split())
    assert started.rc == 0, started.stderr
    assert started.start["effective_config"]["evictionHard"]["memory.available"] == "100Mi"
    assert started.start["effective_config"]["healthzPort"] == 10248


def test_provision_kubeadm_main_config_is_copied_verbatim_and_a_rerun_resets_checkpoints(host, tmp_path):
    main = tmp_path / "main.yaml"
    main.write_text("apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nmaxPods: 42\n", encoding="utf-8")
    assert provision(host, "kubeadm", "--main-config", str(main)).rc == 0
    assert host.path("/var/lib/kubelet/config.yaml").read_text(encoding="utf-8") == main.read_text(encoding="utf-8")
    assert host.kubelet("--config=/var/lib/kubelet/config.yaml").rc == 0
    assert host.path("/var/lib/kubelet/memory_manager_state").exists()
    again = provision(host, "kubeadm")
    assert again.rc == 0, again.stderr
    assert not host.path("/var/lib/kubelet/memory_manager_state").exists()
    assert not host.path("/var/lib/kubelet/cpu_manager_state").exists()
    assert "maxPods" not in host.path("/var/lib/kubelet/config.yaml").read_text(encoding="utf-8")


@pytest.mark.parametrize("role", ["server", "agent"])
def test_provision_rke2_installs_the_cli_and_units_and_writes_the_config(host, role):
    result = provision(host, "rke2-" + role, "--version", "v1.31.4+rke2r1")
    assert result.rc == 0, result.stderr
    config = yaml.safe_load(host.path("/etc/rancher/rke2/config.yaml").read_text(encoding="utf-8"))
    assert config["token"]
    assert ("server" in config) == (role == "agent")
    assert host.path("/etc/rancher/rke2/config.yaml.d").is_dir()
    assert list(host.path("/etc/rancher/rke2/config.yaml.d").iterdir()) == []
    assert env_file(host, "/etc/default/rke2-" + role) == {"RKE2_STANDIN_VERSION": "v1.31.4+rke2r1"}
    for unit in ("rke2-server.service", "rke2-agent.service"):
        assert host.path("/usr/local/lib/systemd/system/" + unit).read_text(encoding="utf-8") == (STANDINS / unit).read_text(encoding="utf-8")
    cli = host.path("/usr/local/bin/rke2")
    assert os.access(cli, os.X_OK)
    assert host.run(cli, ["--version"]).stdout.startswith("rke2 version v1.31.4+rke2r1 (")
    args = json.loads(host.run(RKE2, [role, "--print-args"], env_file(host, "/etc/default/rke2-" + role)).stdout)
    assert "--eviction-hard=imagefs.available<5%,nodefs.available<5%" in args
    assert not host.path("/var/lib/kubelet/config.yaml").exists()


def test_provision_rke2_defaults_to_v1_32_5(host):
    assert provision(host, "rke2-server").rc == 0
    assert env_file(host, "/etc/default/rke2-server") == {"RKE2_STANDIN_VERSION": "v1.32.5+rke2r1"}
    assert host.run(host.path("/usr/local/bin/rke2"), ["--version"]).stdout.startswith("rke2 version v1.32.5+rke2r1")


@pytest.mark.parametrize(("role", "unit"), [("server", "k3s.service"), ("agent", "k3s-agent.service")])
def test_provision_k3s_installs_the_cli_and_units_where_install_sh_puts_them(host, role, unit):
    result = provision(host, "k3s-" + role, "--version", "v1.31.9+k3s1")
    assert result.rc == 0, result.stderr
    config = yaml.safe_load(host.path("/etc/rancher/k3s/config.yaml").read_text(encoding="utf-8"))
    assert config["token"] and ("server" in config) == (role == "agent")
    assert list(host.path("/etc/rancher/k3s/config.yaml.d").iterdir()) == []
    env = env_file(host, "/etc/default/" + unit[: -len(".service")])
    assert env == {"K3S_STANDIN_VERSION": "v1.31.9+k3s1"}
    for name in ("k3s.service", "k3s-agent.service"):
        assert host.path("/etc/systemd/system/" + name).read_text(encoding="utf-8") == (STANDINS / name).read_text(encoding="utf-8")
    assert host.run(host.path("/usr/local/bin/k3s"), ["--version"]).stdout.startswith("k3s version v1.31.9+k3s1 (")
    assert present_markers(host) == ["/etc/rancher/k3s", "/usr/local/bin/k3s"]
    assert provision(host, "k3s-" + ("agent" if role == "server" else "server")).rc == 2
    assert provision(host, "rke2-server").rc == 2


def test_provision_nodeadm_writes_a_nodeconfig_and_max_pods(host):
    result = provision(host, "nodeadm", "--max-pods", "110")
    assert result.rc == 0, result.stderr
    docs = [d for d in yaml.safe_load_all(host.path("/etc/eks/nodeadm.d/00-cluster.yaml").read_text("utf-8")) if d]
    assert len(docs) == 1 and docs[0]["apiVersion"] == "node.eks.aws/v1alpha1" and docs[0]["kind"] == "NodeConfig"
    assert set(docs[0]["spec"]["cluster"]) == {"name", "apiServerEndpoint", "certificateAuthority", "cidr"}
    env = env_file(host, "/etc/default/nodeadm-standin")
    assert env == {"NODEADM_STANDIN_MAX_PODS": "110"}
    assert host.run(NODEADM, [], env).rc == 0
    base = json.loads(host.path("/etc/kubernetes/kubelet/config.json").read_text(encoding="utf-8"))
    assert base["kubeReserved"]["memory"] == "%dMi" % (11 * 110 + 255)
    assert not host.path("/var/lib/kubelet/config.yaml").exists()


@pytest.mark.parametrize("first, second", [("kubeadm", "rke2-server"), ("rke2-server", "nodeadm"), ("nodeadm", "kubeadm"), ("rke2-server", "rke2-agent")])
def test_provision_refuses_a_host_laid_out_as_another_platform(host, first, second):
    assert provision(host, first).rc == 0
    result = provision(host, second)
    assert result.rc == 2
    assert "already laid out as" in result.stderr


def test_provision_rejects_bad_options(host):
    assert provision(host, "rke2-server", "--version", "1.32").rc == 1
    assert provision(host, "k3s-agent", "--version", "v1.32.5+rke2r1").rc == 1
    assert provision(host, "nodeadm", "--max-pods", "0").rc == 1
    assert provision(host, "kubeadm", "--main-config", "/nonexistent/numa.yaml").rc == 1
    assert provision(host, "openshift").rc == 2
    assert present_markers(host) == []
