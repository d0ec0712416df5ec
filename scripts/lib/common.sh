# shellcheck shell=bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Shared by the project's scripts: one place that installs what they need on a fresh Debian 12 machine.

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CACHE=${NUMA_KUBELET_CACHE:-$REPO/.cache}
VENV=${NUMA_KUBELET_VENV:-$REPO/.venv}
PYTHON=${NUMA_KUBELET_PYTHON:-python3}

say() { printf '[%s %s] %s\n' "${0##*/}" "$(date +%H:%M:%S)" "$*"; }
die() { printf '%s: ERROR: %s\n' "${0##*/}" "$*" >&2; exit 1; }

# Debian packages, installed only when missing; apt-get update runs at most once per script run.
ensure_debian_packages() {
    local missing=() package
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q '^install ok installed$' || missing+=("$package")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    [ "$(id -u)" -eq 0 ] || die "Debian packages missing: ${missing[*]}; run as root or install them first"
    if [ -z "${_APT_UPDATED:-}" ]; then
        say "apt-get update"
        DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null || die "apt-get update failed: the Debian mirror is not reachable"
        _APT_UPDATED=1
    fi
    say "installing Debian packages: ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
        || die "apt-get install failed for: ${missing[*]}"
}

# The project's virtualenv with the pinned tools of requirements-dev.txt; rebuilt when that file changes.
ensure_venv() {
    local stamp=$VENV/.requirements.sha256 wanted
    wanted=$(sha256sum "$REPO/requirements-dev.txt" | cut -d' ' -f1)
    if [ -x "$VENV/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$wanted" ]; then
        return 0
    fi
    "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || die "$PYTHON is older than Python 3.11"
    "$PYTHON" -c 'import venv, ensurepip' 2>/dev/null || ensure_debian_packages python3-venv
    say "creating the virtualenv $VENV from requirements-dev.txt (a few minutes the first time)"
    rm -rf "$VENV"
    "$PYTHON" -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q --upgrade pip >/dev/null
    "$VENV/bin/python" -m pip install -q -r "$REPO/requirements-dev.txt" || die "pip install -r requirements-dev.txt failed"
    echo "$wanted" >"$stamp"
}

# A copy (not a link: ansible-test refuses links) of the collection as ansible_collections/numa/kubelet, outside
# any hidden directory (ansible-test skips every file below one).
collection_copy() {
    local root=${TMPDIR:-/tmp}/numa-kubelet-collection-copy dest
    dest=$root/ansible_collections/numa/kubelet
    rm -rf "$root"
    mkdir -p "$dest"
    (
        cd "$REPO"
        git ls-files -z --cached --others --exclude-standard \
            | while IFS= read -r -d '' path; do [ -e "$path" ] && printf '%s\0' "$path"; done \
            | xargs -0 cp --parents -t "$dest"
    ) || die "copying the collection to $dest failed"
    echo "$dest"
}

# A link tree that makes this checkout the collection numa.kubelet for Ansible (enough for ansible-playbook).
link_collection() {
    local root=$CACHE/collections link
    link=$root/ansible_collections/numa/kubelet
    if [ ! -L "$link" ]; then
        mkdir -p "$(dirname "$link")"
        ln -sfn "$REPO" "$link"
    fi
    echo "$root"
}
