# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Bottlerocket's kubelet config template, re-stated line by line, and Karpenter's rewrite of Bottlerocket user data.

The template is bottlerocket-os/bottlerocket-core-kit packages/kubernetes-1.31/kubelet-config at
a10182f974abd19de803bb7a324b5a0bdeab4ced (the same text in kubernetes-1.30; handlebars). Each `{{#if}}` below is one
of the template's, in its order, for standalone-mode false (an EKS node), so the tests check the settings the way a
node renders them, independently of _eks_bottlerocket.rendered_kubelet_config. Helpers: kube_reserve_memory writes the
setting or (max-pods * 11 + 255)Mi; kube_reserve_cpu the setting or the EKS ladder over the node's CPUs (schnauzer
src/helpers/mod.rs at the same commit); any_enabled is true when one reserved-memory entry has enabled = true.

karpenter_rewrite is aws/karpenter-provider-aws pkg/providers/amifamily/bootstrap/bottlerocket.go (Script) at
1d927085dd81a9df9301e613f371dac5b4d16bfe for the fields that matter here: max-pods, cluster-dns-ip, and spec.kubelet's
system-reserved, kube-reserved and eviction-hard replacing the user data's whole.
"""

from __future__ import annotations

import tomllib

from ansible_collections.numa.kubelet.plugins.plugin_utils._eks import kube_reserved_cpu_millicores


def karpenter_rewrite(user_data: str, spec_kubelet: dict, max_pods: int, cluster_dns: str = "10.100.0.10") -> dict:
    """settings.kubernetes after Karpenter's Script(): the user data's, with its own and spec.kubelet's fields over it."""
    kubernetes = dict(tomllib.loads(user_data).get("settings", {}).get("kubernetes", {}))
    kubernetes.update({"cluster-name": "my-cluster", "api-server": "https://example.com", "max-pods": max_pods, "cluster-dns-ip": cluster_dns})
    for field, setting in (("systemReserved", "system-reserved"), ("kubeReserved", "kube-reserved"), ("evictionHard", "eviction-hard")):
        if field in spec_kubelet:
            kubernetes[setting] = dict(spec_kubelet[field])
    return kubernetes


def _map(lines: list[str], name: str, values: dict) -> None:
    lines.append(f"{name}:")
    lines.extend(f'  {key}: "{value}"' for key, value in values.items())


def template_kubelet_config(kubernetes: dict, vcpus: int) -> str:
    """The kubelet config text Bottlerocket's template renders from settings.kubernetes (standalone-mode false)."""
    k = kubernetes
    lines = ["---", "kind: KubeletConfiguration", "apiVersion: kubelet.config.k8s.io/v1beta1"]
    lines += ["address: 0.0.0.0", "authentication:", "  anonymous:", "    enabled: false", "  webhook:", "    cacheTTL: 2m0s", "    enabled: true"]
    lines += ["  x509:", '    clientCAFile: "/etc/kubernetes/pki/ca.crt"', "authorization:", "  mode: Webhook", "  webhook:"]
    lines += ["    cacheAuthorizedTTL: 5m0s", "    cacheUnauthorizedTTL: 30s"]
    lines.append(f"clusterDomain: {k.get('cluster-domain', 'cluster.local')}")
    if k.get("cluster-dns-ip"):
        lines += ["clusterDNS:", f"- {k['cluster-dns-ip']}"]
    if k.get("eviction-hard"):
        _map(lines, "evictionHard", k["eviction-hard"])
    reserved = k.get("kube-reserved") or {}
    lines += ["kubeReserved:", f'  cpu: "{reserved.get("cpu", f"{kube_reserved_cpu_millicores(vcpus)}m")}"']
    if reserved.get("memory"):
        lines.append(f'  memory: "{reserved["memory"]}"')
    elif k.get("max-pods"):
        lines.append(f'  memory: "{k["max-pods"] * 11 + 255}Mi"')
    lines.append(f'  ephemeral-storage: "{reserved.get("ephemeral-storage", "1Gi")}"')
    if not k.get("reserved-cpus"):
        lines.append('kubeReservedCgroup: "/runtime"')
    if k.get("system-reserved"):
        _map(lines, "systemReserved", k["system-reserved"])
        if not k.get("reserved-cpus"):
            lines.append('systemReservedCgroup: "/system"')
    lines += [f"cpuCFSQuota: {str(k.get('cpu-cfs-quota-enforced', True)).lower()}", f"cpuManagerPolicy: {k.get('cpu-manager-policy', 'none')}"]
    if k.get("topology-manager-scope"):
        lines.append(f"topologyManagerScope: {k['topology-manager-scope']}")
    if k.get("topology-manager-policy"):
        lines.append(f"topologyManagerPolicy: {k['topology-manager-policy']}")
    lines += [f"podPidsLimit: {k.get('pod-pids-limit', 1048576)}", 'resolvConf: "/run/netdog/resolv.conf"', "hairpinMode: hairpin-veth", "readOnlyPort: 0"]
    lines += ["cgroupDriver: systemd", 'cgroupRoot: "/"', "runtimeRequestTimeout: 15m", "protectKernelDefaults: true", "serializeImagePulls: false"]
    lines += [f"seccompDefault: {str(k.get('seccomp-default', False)).lower()}", f"serverTLSBootstrap: {str(k.get('server-tls-bootstrap', True)).lower()}"]
    lines += ["tlsCipherSuites:", "- TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", 'volumePluginDir: "/var/lib/kubelet/plugins/volume/exec"']
    lines += [f"maxPods: {k.get('max-pods', 110)}", 'staticPodPath: "/etc/kubernetes/static-pods/"']
    entries = k.get("memory-manager-reserved-memory") or {}
    if entries and any(entry.get("enabled") for entry in entries.values()):
        if k.get("memory-manager-policy"):
            lines.append(f"memoryManagerPolicy: {k['memory-manager-policy']}")
        lines.append("reservedMemory:")
        for numa, entry in entries.items():
            if entry.get("enabled"):
                lines += [f"  - numaNode: {numa}", "    limits:"]
                lines += [f"      {key}: {entry[key]}" for key in ("memory", "hugepages-1Gi", "hugepages-2Mi") if entry.get(key)]
    return "\n".join(lines) + "\n"
