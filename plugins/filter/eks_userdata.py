# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
name: eks_userdata
short_description: EKS node classes to NodeConfig user data, Karpenter EC2NodeClasses and AL2 kubelet extra args
version_added: 0.1.0
description:
  - Plans each node class with the same engine as a node (platform nodeadm for AL2023) and renders what an EKS node
    reads at boot, so nodes that cannot be reached over ssh (Karpenter, launch templates) get the memory manager set up
    with a C(reservedMemory) that matches their reservation exactly.
  - "AL2023: a MIME multi-part user data with one C(application/node.eks.aws) NodeConfig part, and for a class with
    C(karpenter) a Karpenter C(EC2NodeClass) (C(karpenter.k8s.aws/v1), Karpenter v1.0 and later) carrying it in
    C(spec.userData). Karpenter appends its own NodeConfig after the user data, with C(spec.kubelet), so that wins; the
    reservation is computed on that merged config, and the node's kubeReserved, systemReserved and evictionHard memory
    are written into C(spec.kubelet) so that Karpenter schedules with the overhead the node reserves. An intent field
    that Karpenter would silently replace is refused."
  - "Refused, by class and field, before anything is returned: C(cluster) keys NodeConfig does not have, a
    C(certificateAuthority) that is not base64 of a PEM, a launch-template class (no C(karpenter)) without a complete
    cluster unless C(cluster_in_another_part), and an EC2NodeClass spec that Karpenter's CRD refuses (not exactly one
    of role and instanceProfile, missing or empty selector terms, no amiFamily without an alias)."
  - "AL2 (bootstrap.sh): the C(KUBELET_EXTRA_ARGS) value, with bootstrap.sh's kubeReserved (maxPods formula) and
    evictionHard in the file under it; map flags carry bootstrap.sh's keys too (a kubelet map flag replaces the file's
    map), and C(%) is written C(%%) because bootstrap.sh puts the value in a systemd C(Environment=) line."
  - "Bottlerocket: TOML settings user data (C(settings.kubernetes): memory-manager-policy, memory-manager-reserved-memory
    per NUMA node, topology-manager-policy and -scope, cpu-manager-policy, and the totals kube-reserved,
    system-reserved, eviction-hard), planned the way Bottlerocket's kubelet-config template renders them; settings its
    settings model refuses are refused first. With C(karpenter), C(karpenter.version) is required and a release that
    drops the reserved memory (up to v1.14.1) is refused. One instance type per class (one NUMA layout)."
  - Output is byte-stable (a fixed MIME boundary, keys in input order) so it can be kept in git and diffed.
  - Any problem in any class fails the whole call with every problem listed, so nothing is written.
author:
  - numa.kubelet developers
options:
  _input:
    description:
      - "The node classes. Each is a mapping: C(name) (a DNS label: names the EC2NodeClass and the files);
        C(ami_family) (C(AL2023), the default, C(AL2) or C(Bottlerocket)); C(instance_type) (maxPods from the EKS table) or C(max_pods);
        C(topology) (C({numa_nodes: [{id, memory_bytes, cpus}], numa_memory_capacity_bytes}), as
        M(numa.kubelet.numa_facts) reports it); C(intent) (KubeletConfiguration fields: memoryManagerPolicy,
        topologyManagerPolicy, kubeReserved to pin it instead of the formula, systemReserved, evictionHard, ...);
        C(split) (C(even), C(first), C(proportional) or C({numa_id: quantity})); C(karpenter) (AL2023 and Bottlerocket:
        C(kubelet), the EC2NodeClass C(spec.kubelet), and C(spec), the rest of the EC2NodeClass spec; Bottlerocket
        also C(version), the Karpenter release);
        C(cluster) (AL2023: NodeConfig C(spec.cluster), required and complete for launch templates without
        Karpenter; Bottlerocket launch templates: C(name), C(apiServerEndpoint), C(certificateAuthority));
        C(cluster_in_another_part) (AL2023 launch templates only: another user data part, a managed node group's,
        supplies the cluster);
        C(use_max_pods) (AL2 only, bootstrap.sh C(--use-max-pods), default true);
        C(instance_types) (AL2023 only, instead of C(instance_type) and C(topology): every instance type the class may
        launch, a NodePool's C(node.kubernetes.io/instance-type) values, mapped to its topology; each is planned, and
        types that need different C(reservedMemory) are refused, by name, unless C(boot_split));
        C(boot_split) (AL2023 only, default false: the user data carries no C(reservedMemory) but a
        C(text/x-shellscript) part installing C(numa-kubelet-boot-split), which writes the split of the node it runs
        on at every kubelet start, the engine's own split code, and fails closed);
        C(kubelet_version) (the AMI's kubelet version, quoted, such as C('1.33'): its rules judge the config, exact
        for 1.31, 1.33 and 1.36, another minor judged by the nearest older of these with a warning; default 1.36)."
    type: list
    elements: dict
    required: true
  header:
    description: Comment text opening each file (the MIME preamble for the user data), usually C(ansible_managed).
    type: str
"""

EXAMPLES = r"""
- name: Render the files of two node classes
  ansible.builtin.debug:
    msg: "{{ node_classes | numa.kubelet.eks_userdata(header='Ansible managed') }}"
  vars:
    node_classes:
      - name: p4d
        instance_type: p4d.24xlarge
        topology:
          numa_nodes:
            - {id: 0, memory_bytes: 549755813888, cpus: "{{ range(0, 48) | list }}"}
            - {id: 1, memory_bytes: 549755813888, cpus: "{{ range(48, 96) | list }}"}
          numa_memory_capacity_bytes: 1099511627776
        intent: {memoryManagerPolicy: Static, topologyManagerPolicy: single-numa-node, kubeReserved: {memory: 8500Mi}}
        karpenter:
          spec:
            role: KarpenterNodeRole
            amiSelectorTerms: [{alias: al2023@latest}]
            subnetSelectorTerms: [{tags: {karpenter.sh/discovery: my-cluster}}]
            securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: my-cluster}}]
      - name: m5-al2
        ami_family: AL2
        instance_type: m5.large
        topology:
          numa_nodes: [{id: 0, memory_bytes: 8589934592, cpus: [0, 1]}]
          numa_memory_capacity_bytes: 8589934592
        intent: {memoryManagerPolicy: Static, topologyManagerPolicy: single-numa-node}
"""

RETURN = r"""
_value:
  description: The files to write and what was planned for each class.
  type: dict
  contains:
    files:
      description:
        - "File name to content: C(<name>.user-data.mime) and C(<name>.ec2nodeclass.yaml) for AL2023,
          C(<name>.kubelet-extra-args.sh) (C(KUBELET_EXTRA_ARGS='...'), shell-quoted) for AL2, C(<name>.user-data.toml)
          and C(<name>.ec2nodeclass.yaml) for Bottlerocket."
      type: dict
    classes:
      description:
        - "Per class name: ami_family, max_pods, kubelet_config (the effective KubeletConfiguration the node runs with),
          reserved_memory, reservation (kubeReserved + systemReserved + evictionHard memory as the kubelet sums it),
          numa_nodes, warnings; AL2023 adds nodeconfig, kubelet_inputs (base config.json and the 40-nodeadm.conf
          nodeadm builds), launch (V(karpenter) or V(launch template)) and for Karpenter karpenter_kubelet (the
          C(spec.kubelet) written); AL2 adds flags, kubelet_extra_args, bootstrap_args and base_config; Bottlerocket adds
          settings (C(settings.kubernetes) written), launch and for Karpenter karpenter_kubelet. A class with
          C(instance_types) adds instance_types (the names), by_type (per type its own max_pods, numa_nodes,
          reservation, reserved_memory, kubelet_config, kubelet_inputs and warnings) and, with C(boot_split),
          reserved_memory_by_type; at its top it keeps of those only what every type shares, and every type's warnings."
      type: dict
  sample:
    files:
      p4d.user-data.mime: "MIME-Version: 1.0\n..."
      p4d.ec2nodeclass.yaml: "# Ansible managed\napiVersion: karpenter.k8s.aws/v1\n..."
    classes:
      p4d: {ami_family: AL2023, max_pods: 737, reservation: 8600Mi}
"""

from ansible.errors import AnsibleFilterError

from ansible_collections.numa.kubelet.plugins.plugin_utils._config import KubeletConfigError
from ansible_collections.numa.kubelet.plugins.plugin_utils._eks_userdata import render_node_classes


def eks_userdata(node_classes, header=None):
    """Files and plans for a list of EKS node classes."""
    try:
        return render_node_classes(node_classes, header)
    except KubeletConfigError as exc:
        raise AnsibleFilterError("eks_userdata: %s" % "; ".join(exc.problems)) from exc


class FilterModule:
    """EKS user data and Karpenter EC2NodeClasses."""

    def filters(self):
        return {"eks_userdata": eks_userdata}
