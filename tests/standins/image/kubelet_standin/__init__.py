# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright: numa.kubelet contributors; GNU General Public License v3.0+ (see LICENSE or
# https://www.gnu.org/licenses/gpl-3.0.txt)
#
# kubelet_standin: a STAND-IN for the kubelet on numa.kubelet's test hosts. It is NOT the kubelet and runs no
# pods. It is an independent implementation (it never imports the numa.kubelet collection but for its YAML reader,
# go_yaml.py) of the parts of the
# kubelet the collection's roles depend on, so that a wrong config makes a test host fail like a real node.
"""Kubelet stand-in for numa.kubelet test hosts (not the real kubelet).

What it mimics (see tests/hosts/README.md and docs/kubelet-facts.md):
  * flags: --config, --config-dir, --root-dir and the config flags the collection uses; map flags
    (--kube-reserved, --system-reserved, --eviction-hard, --reserved-memory, ...) replace the file's value
    on their first use and accumulate when repeated;
  * the effective config: defaults -> main --config file -> --config-dir *.conf drop-ins in lexical order as
    JSON merge patches -> flags;
  * the Memory Manager's start-up checks with the kubelet's error texts: reservedMemory validation, the exact
    Quantity sum rule against kubeReserved + systemReserved + evictionHard memory.available (percentages with
    the kubelet's float32 arithmetic), NUMA node existence, int64 conversion, a zero total;
  * the CPU Manager's policy names and the static policy's reserved-CPU requirement;
  * the checkpoints <root-dir>/memory_manager_state and cpu_manager_state, in the kubelet's order: the config is
    checked (and a bad one refused) first, then /healthz is served, and only once it answers does the container
    manager start, restoring and writing both checkpoints: a start whose policy or reservations disagree with an
    existing checkpoint logs "Failed to start ContainerManager" and exits 1 after /healthz has answered. A marker
    file /etc/kubelet-standin/container-manager-delay holding a number of seconds N widens that window by N s (on
    a node, the time until the container runtime answers);
  * a marker file /etc/kubelet-standin/fail-next-start makes the next start fail once (for rollback tests); when it
    holds a number N, the next N starts fail (the marker counts down, then goes);
  * a marker file /etc/kubelet-standin/exit-after-start holding a number of seconds N makes the next good start
    serve /healthz and then exit 1 after N seconds, logging the kubelet's "Failed to start ContainerManager" line
    (a checkpoint refused after the kubelet answered; the marker is consumed);
  * the healthz endpoint: a good start that stays running serves GET /healthz -> 200 "ok" on the effective
    config's healthzBindAddress:healthzPort (defaults 127.0.0.1:10248; port 0 disables it), like the kubelet;
  * the kubelet API's GET /configz: a good start that stays running (and has enableServer, default true) serves
    HTTPS on the effective config's address:port (defaults 0.0.0.0:10250) and answers
    {"kubeletconfig": <its effective config>}, like the kubelet v1.36.2 (quantities as written; with
    reservedSystemCPUs, kubeReserved.cpu dropped and systemReserved.cpu set to their count, as the kubelet's
    server.go rewrites them before it runs). Without tlsCertFile it creates a self-signed certificate at start
    with the openssl CLI, <--cert-dir, default /var/lib/kubelet/pki>/kubelet.crt and kubelet.key (kept when both
    exist), as the kubelet does; tlsCertFile and tlsPrivateKeyFile name the files otherwise. It does NO
    authentication or authorization: the real kubelet does webhook authn/authz (a bearer token checked with a
    TokenReview, then a SubjectAccessReview for nodes/proxy), the stand-in answers anyone. Its certificate is one
    self-signed certificate, not the kubelet's pair of a serving certificate and its own CA;
  * the kubelet's last log line on a refused start, in klog's text format on stderr (so it ends up in the
    unit's journal): `E... run.go:72] "command failed" err="failed to run Kubelet: <message>"` (flag and
    config-file errors without the "failed to run Kubelet: " prefix, checkpoint errors as
    `"Failed to start ContainerManager" err="<message>"`, as the kubelet logs them).

Every start, good or refused, is appended (a good one once its checkpoints are written) as one JSON line to /var/log/kubelet-standin/starts.jsonl.
A good start stays running (until SIGTERM) so that `systemctl is-active kubelet` means something.

Environment (for the stand-ins' own tests):
  NUMA_KUBELET_STANDIN_ROOT     prefix for every absolute path read or written (default /)
  NUMA_KUBELET_STANDIN_ONESHOT  when "1", exit 0 right after a good start instead of staying running
"""
