#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright: numa.kubelet contributors; GNU General Public License v3.0+ (see LICENSE or
# https://www.gnu.org/licenses/gpl-3.0.txt)
#
# rke2.sh (STAND-IN): what lablabs.rke2 runs as the RKE2 install script in its airgap `copy` mode (tasks/rke2.yml:
# "Run RKE2 install script with airgap variables"). It is NOT https://get.rke2.io: like that script's tarball method
# with INSTALL_RKE2_ARTIFACT_PATH it checks the tarball against sha256sum-amd64.txt and unpacks it into /usr/local,
# and enables nothing. The tarball tests/lablabs builds lays out the RKE2 STAND-IN (bin/rke2, the rke2-server and
# rke2-agent units, share/rke2-standin/); the kubelet it runs is the test image's kubelet stand-in.
set -eu
: "${INSTALL_RKE2_ARTIFACT_PATH:?INSTALL_RKE2_ARTIFACT_PATH is required (airgap install)}"
tarball=rke2.linux-amd64.tar.gz
cd "$INSTALL_RKE2_ARTIFACT_PATH"
grep " $tarball\$" sha256sum-amd64.txt | sha256sum -c - >/dev/null
tar -xzf "$tarball" -C /usr/local
systemctl daemon-reload
echo "rke2.sh (STAND-IN, not RKE2's installer): installed $(cat /usr/local/share/rke2-standin/version) into /usr/local"
