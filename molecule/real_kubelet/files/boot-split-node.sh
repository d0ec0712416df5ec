#!/usr/bin/env bash
# Step 6 on the VM (boot_split.yml): the node as an AL2023 node boots from numa.kubelet.eks_userdata's user data,
# with the real kubelet started by systemd through the unit drop-in the user data installs. One call per phase (every
# round trip costs seconds under TCG); lines "<what>: <text>" for the play to check.
#   boot-split-node.sh install CONFIG_JSON NODEADM_DROPIN_JSON KUBELET_ARGS POD_MANIFEST USER_DATA_B64
#   boot-split-node.sh restart-with NAME USER_DATA_B64 [NAME USER_DATA_B64 ...]
#   boot-split-node.sh this-boot
set -euo pipefail
WORK=/root/boot-split
CONFIG_DIR=/etc/kubernetes/kubelet/config.json.d
PROGRAM_DROPIN=$CONFIG_DIR/90-numa-kubelet-reserved-memory.conf

# The last journal entry's cursor: what a unit logs after it, whatever the clock says.
cursor() { journalctl --quiet --lines=1 --show-cursor --output=cat --no-pager | sed -n 's/^-- cursor: //p'; }
program_lines() { journalctl --unit=kubelet.service "$@" --output=cat --no-pager | grep '^numa-kubelet-boot-split: ' || true; }

# The user data's text/x-shellscript part, run as cloud-init's scripts-user runs a part (its own file, executed).
run_shell_part() {
    printf '%s' "$2" | base64 -d >"$WORK/$1.user-data"
    python3 - "$WORK/$1.user-data" "$WORK/$1.part" <<'END_OF_PYTHON'
import email, sys
with open(sys.argv[1], "rb") as handle:
    parts = [part for part in email.message_from_binary_file(handle).walk() if part.get_content_type() == "text/x-shellscript"]
if len(parts) != 1:
    sys.exit(f"{sys.argv[1]}: {len(parts)} text/x-shellscript parts, expected 1")
with open(sys.argv[2], "wb") as handle:
    handle.write(parts[0].get_payload(decode=True))
END_OF_PYTHON
    chmod 700 "$WORK/$1.part"
    "$WORK/$1.part"
}

install() {
    mkdir -p "$WORK"
    # A fresh AL2023 node has no kubeadm layout, no pods and no checkpoints. Step 5's pods go at once (the kubelet that
    # would stop them gracefully is the one replaced here).
    systemctl disable --now --quiet kubelet.service
    [ ! -e /sys/fs/cgroup/kubepods.slice/cgroup.kill ] || echo 1 >/sys/fs/cgroup/kubepods.slice/cgroup.kill
    rm -rf /usr/lib/systemd/system/kubelet.service /usr/lib/systemd/system/kubelet.service.d /etc/systemd/system/kubelet.service.d
    rm -f /etc/kubernetes/manifests/*.yaml /var/lib/kubelet/memory_manager_state /var/lib/kubelet/cpu_manager_state "$PROGRAM_DROPIN"
    # What nodeadm writes before it starts the kubelet (awslabs/amazon-eks-ami nodeadm/internal/kubelet): the base
    # config.json, spec.kubelet.config as the drop-in 40-nodeadm.conf, and the kubelet's arguments in its environment file.
    mkdir -p "$CONFIG_DIR" /etc/eks/kubelet /etc/kubernetes/manifests
    printf '%s\n' "$1" >/etc/kubernetes/kubelet/config.json
    printf '%s\n' "$2" >"$CONFIG_DIR/40-nodeadm.conf"
    printf 'NODEADM_KUBELET_ARGS=%s\n' "$3" >/etc/eks/kubelet/environment
    # The AL2023 AMI's kubelet.service (awslabs/amazon-eks-ami templates/al2023/runtime/rootfs/etc/systemd/system/
    # kubelet.service at 08fbb5160a43e56eb6de51e1e282f57b91979519) without its iptables ExecStartPre (no iptables here).
    cat >/etc/systemd/system/kubelet.service <<'END_OF_UNIT'
[Unit]
Description=Kubernetes Kubelet
Documentation=https://github.com/kubernetes/kubernetes
After=containerd.service
Wants=containerd.service

[Service]
Slice=runtime.slice
EnvironmentFile=/etc/eks/kubelet/environment
ExecStart=/usr/bin/kubelet $NODEADM_KUBELET_ARGS

Restart=on-failure
RestartForceExitStatus=SIGPIPE
RestartSec=5
KillMode=process
CPUAccounting=true
MemoryAccounting=true

[Install]
WantedBy=multi-user.target
END_OF_UNIT
    printf '%s' "$4" >/etc/kubernetes/numa-boot-split.yaml
    mv /etc/kubernetes/numa-boot-split.yaml /etc/kubernetes/manifests/numa-boot-split.yaml
    # cloud-final runs the part (it reloads systemd), then nodeadm-run.service starts the enabled kubelet.
    run_shell_part boot "$5"
    systemctl enable --quiet kubelet.service
    local since
    since=$(cursor)
    systemctl start kubelet.service || echo "start: failed"
    echo "unit: $(systemctl show kubelet.service --property=DropInPaths --value)"
    echo "ExecStartPre: $(systemctl cat kubelet.service | grep '^ExecStartPre=')"
    program_lines --after-cursor="$since" | sed 's/^/journal: /'
    echo "dropin: $(tr -d ' \n' <"$PROGRAM_DROPIN")"
}

# For each class: its shell part installed over the previous one, then `systemctl restart kubelet` as an
# administrator (or a package upgrade) restarts it; is-active a moment later and the program's lines of that start.
restart_with() {
    while [ $# -gt 0 ]; do
        local name=$1 since
        run_shell_part "$name" "$2"
        shift 2
        since=$(cursor)
        systemctl restart kubelet.service 2>/dev/null && echo "$name restart: ok" || echo "$name restart: failed"
        echo "$name active: $(systemctl is-active kubelet.service || true)"
        program_lines --after-cursor="$since" | sed "s/^/$name journal: /"
        echo "$name dropin: $(tr -d ' \n' <"$PROGRAM_DROPIN")"
        # Ends the unit's Restart=on-failure retries (each one runs the program again, seconds of CPU under TCG).
        systemctl stop kubelet.service
    done
}

this_boot() {
    program_lines --boot | sed 's/^/journal: /'
    echo "dropin: $(tr -d ' \n' <"$PROGRAM_DROPIN")"
}

command=$1
shift
case "$command" in
    install) install "$@" ;;
    restart-with) restart_with "$@" ;;
    this-boot) this_boot ;;
    *) echo "unknown command $command" >&2; exit 2 ;;
esac
