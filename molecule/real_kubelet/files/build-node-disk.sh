#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The VM disk of molecule/real_kubelet, machine-wide beside the VM image and reused while its inputs stay the same:
# the VM's base disk (its rootfs as scripts/build-test-hosts left it in <test-hosts>/rootfs-vm) with Debian's
# containerd and runc installed by dpkg in a chroot, containerd's config for the kubelet, the real kubelet in
# /usr/bin and the busybox image to import. Done here at native speed, once, instead of in the TCG-emulated VM at
# every run (dpkg, the 16 MB copy over ssh and the kubelet's decompression took about 100 s there).
#
# usage: build-node-disk.sh TEST_HOSTS KUBELET_XZ DEBS_DIR IMAGE_TAR CONTAINERD_TOML
# Writes TEST_HOSTS/real-kubelet/disk.img and its stamp disk.stamp; prints "reused" or "built in N s".
set -euo pipefail

[ $# -eq 5 ] || { sed -n '9p' "$0" >&2; exit 2; }
hosts=$1 kubelet_xz=$2 debs=$3 image=$4 containerd_toml=$5
out=$hosts/real-kubelet
rootfs=$out/rootfs.tmp
started=$SECONDS

die() { printf 'build-node-disk: ERROR: %s\n' "$*" >&2; exit 1; }

if [ ! -f "$hosts/vm.stamp" ] || [ ! -d "$hosts/rootfs-vm" ]; then
    die "no VM image in $hosts: run scripts/build-test-hosts --only vm"
fi
mapfile -t packages < <(find "$debs" -maxdepth 1 \( -name 'containerd_*.deb' -o -name 'runc_*.deb' \) | sort)
[ ${#packages[@]} -eq 2 ] || die "expected one containerd and one runc .deb in $debs, found: ${packages[*]:-none}"

# The base disk's recipe, and every input's content (this script's too).
want_stamp=$(cat "$hosts/vm.stamp"; sha256sum "$0" "$kubelet_xz" "${packages[@]}" "$image" "$containerd_toml" | cut -d' ' -f1)
if [ -f "$out/disk.img" ] && [ "$(cat "$out/disk.stamp" 2>/dev/null)" = "$want_stamp" ]; then
    echo reused
    exit 0
fi
rm -f "$out/disk.stamp"

cleanup() {
    if mountpoint -q "$rootfs/proc" 2>/dev/null; then umount "$rootfs/proc"; fi
    rm -rf "$rootfs" "$out/disk.img.tmp"
}
trap cleanup EXIT
cleanup

# scripts/build-test-hosts rebuilds rootfs-vm under this lock: copy it while no build runs.
exec {lock}>"$hosts/.build.lock"
flock "$lock"
cp -a "$hosts/rootfs-vm" "$rootfs"
flock -u "$lock"

# dpkg as on the VM, but no service may start in the chroot (policy-rc.d: invoke-rc.d's "action forbidden").
printf '#!/bin/sh\nexit 101\n' >"$rootfs/usr/sbin/policy-rc.d"
chmod 0755 "$rootfs/usr/sbin/policy-rc.d"
mkdir -p "$rootfs/root/real-kubelet"
cp "${packages[@]}" "$rootfs/root/real-kubelet/"
mount -t proc proc "$rootfs/proc"
if ! DEBIAN_FRONTEND=noninteractive chroot "$rootfs" sh -c 'dpkg -i --force-confold /root/real-kubelet/*.deb' \
    >"$out/dpkg.log" 2>&1; then
    die "dpkg -i containerd runc failed in the chroot; last lines of $out/dpkg.log: $(tail -n 3 "$out/dpkg.log" | tr '\n' ' ')"
fi
umount "$rootfs/proc"
rm -f "$rootfs/usr/sbin/policy-rc.d" "$rootfs"/root/real-kubelet/*.deb

install -D -m 0644 "$containerd_toml" "$rootfs/etc/containerd/config.toml"
python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"), 1 << 20)' \
    "$kubelet_xz" "$rootfs/usr/bin/kubelet"
chmod 0755 "$rootfs/usr/bin/kubelet"
install -m 0644 "$image" "$rootfs/root/real-kubelet/image.tar"

truncate -s "$(stat -c %s "$hosts/vm/disk.img")" "$out/disk.img.tmp"
mkfs.ext4 -q -F -L root -d "$rootfs" "$out/disk.img.tmp" || die "mkfs.ext4 -d $rootfs failed"
mv "$out/disk.img.tmp" "$out/disk.img"
printf '%s\n' "$want_stamp" >"$out/disk.stamp"
echo "built in $((SECONDS - started)) s"
