# shellcheck shell=bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Shared by the project's scripts: one place that installs what they need on a fresh Debian 12 machine.

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CACHE=${NUMA_KUBELET_CACHE:-$REPO/.cache}
# The test hosts are machine-wide like the podman image they include, so they live outside the checkout and every
# clone on a machine reuses them; their stamps (recipe, packages, stand-in hash) decide when to rebuild.
TEST_HOSTS=${NUMA_KUBELET_TEST_HOSTS:-${NUMA_KUBELET_CACHE:+$NUMA_KUBELET_CACHE/test-hosts}}
TEST_HOSTS=${TEST_HOSTS:-/var/cache/numa-kubelet/test-hosts}
# The test tools' environment (requirements-dev.txt) is nox's: its session `dev` makes it in .nox/dev. Set
# NUMA_KUBELET_VENV to use a virtualenv made elsewhere instead (ensure_venv then makes it with pip where it is missing).
NOX_DEV_ENV=$REPO/.nox/dev
VENV=${NUMA_KUBELET_VENV:-$NOX_DEV_ENV}
# nox's own environment (requirements-tools.txt: nox, uv, antsibull-nox); nox cannot make the environment it runs in.
# Every other tool is in an environment nox makes for the session that runs it (.nox/NAME).
TOOLS_VENV=${NUMA_KUBELET_TOOLS_VENV:-$CACHE/tools-venv}
RENDER_VENV=${NUMA_KUBELET_RENDER_VENV:-$CACHE/render-venv}
# uv trusts the system's certificate store, as pip does (Debian's pip and its /etc/pip.conf): where the way to PyPI
# passes a certificate authority of the machine's own (a proxy's), uv's built-in roots would refuse it.
export UV_SYSTEM_CERTS=${UV_SYSTEM_CERTS:-true}
PYTHON=${NUMA_KUBELET_PYTHON:-python3}
# ansible-test keeps its sanity tests' virtualenvs (keyed by their pinned requirements) and its get-pip bootstrap in
# ~/.ansible/test: a machine-wide HOME for it lets every clone and run reuse them (minutes per core on an empty HOME).
ANSIBLE_TEST_HOME=${NUMA_KUBELET_ANSIBLE_TEST_HOME:-${NUMA_KUBELET_CACHE:+$NUMA_KUBELET_CACHE/ansible-test-home}}
ANSIBLE_TEST_HOME=${ANSIBLE_TEST_HOME:-/var/cache/numa-kubelet/ansible-test-home}

say() { printf '[%s %s] %s\n' "${0##*/}" "$(date +%H:%M:%S)" "$*"; }
die() { printf '%s: ERROR: %s\n' "${0##*/}" "$*" >&2; exit 1; }

# Debian packages, installed only when missing; one clear message naming what is still missing when apt fails.
missing_debian_packages() {
    local package
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q '^install ok installed$' || printf '%s\n' "$package"
    done
}

ensure_debian_packages() {
    local -a need=()
    local aptlog=$CACHE/apt.log
    mapfile -t need < <(missing_debian_packages "$@")
    [ ${#need[@]} -eq 0 ] && return 0
    [ "$(id -u)" -eq 0 ] || die "missing Debian packages: ${need[*]}; run as root or install them first"
    say "installing missing Debian packages: ${need[*]}"
    mkdir -p "$CACHE"
    # One apt-get at a time (scripts/test runs stages side by side; apt-get fails at once on a held dpkg lock).
    if ! (flock 9 && apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}") \
        9>/var/lock/numa-kubelet-apt.lock >"$aptlog" 2>&1; then
        mapfile -t need < <(missing_debian_packages "$@")
        die "missing Debian packages: ${need[*]} (apt-get failed; last lines of $aptlog: $(tail -n 3 "$aptlog" | tr '\n' ' '))"
    fi
    mapfile -t need < <(missing_debian_packages "$@")
    [ ${#need[@]} -eq 0 ] || die "missing Debian packages after apt-get install: ${need[*]}"
}

# A Python that can make virtualenvs (python3-venv on Debian).
ensure_python_venv() {
    "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' || die "$PYTHON is older than Python 3.11"
    "$PYTHON" -c 'import venv, ensurepip' 2>/dev/null || ensure_debian_packages python3-venv
}

# A virtualenv VENV holding `pip install ARGS...`, remade only when WANTED (a digest or a pin naming what it holds)
# differs from what VENV was made with; pip's output goes to VENV.log and its last lines into the error.
ensure_venv_with() {
    local venv=$1 wanted=$2 what=$3 stamp=$1/.numa-kubelet-venv
    shift 3
    if [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$wanted" ]; then
        return 0
    fi
    ensure_python_venv
    say "creating the virtualenv $venv ($what; a few minutes the first time)"
    rm -rf "$venv"
    "$PYTHON" -m venv "$venv"
    { "$venv/bin/python" -m pip install -q --upgrade pip && "$venv/bin/python" -m pip install -q "$@"; } >"$venv.log" 2>&1 \
        || die "pip install $* into $venv failed; last lines of $venv.log: $(tail -n 3 "$venv.log" | tr '\n' ' ')"
    echo "$wanted" >"$stamp"
}

# A virtualenv VENV with the pinned packages of REQUIREMENTS (a file of the checkout); rebuilt when that file changes.
ensure_venv_of() {
    local venv=$1 requirements=$2
    ensure_venv_with "$venv" "$(sha256sum "$REPO/$requirements" | cut -d' ' -f1)" "$requirements" -r "$REPO/$requirements"
}

# The test tools' environment: nox's session `dev` (noxfile.py) makes it with uv, or brings it up to
# requirements-dev.txt's pins; an environment named by NUMA_KUBELET_VENV is made the old way where it is missing.
ensure_venv() {
    ensure_tools_venv
    if [ "$VENV" != "$NOX_DEV_ENV" ]; then
        ensure_venv_of "$VENV" requirements-dev.txt
        return 0
    fi
    local log=$CACHE/nox-dev.log
    mkdir -p "$CACHE"
    "$TOOLS_VENV/bin/nox" --noxfile "$REPO/noxfile.py" --no-color -s dev >"$log" 2>&1 \
        || die "nox -s dev (the test tools' environment $VENV) failed; last lines of $log: $(tail -n 3 "$log" | tr '\n' ' ')"
}

# nox, uv and antsibull-nox (requirements-tools.txt), made with pip's help only for uv: uv installs the rest (seconds,
# where pip takes a minute on an empty cache). One maker at a time: checkouts may share it (NUMA_KUBELET_TOOLS_VENV).
# An environment that holds every pin is kept, whatever else it holds: checkouts at different commits that share it
# would otherwise remake it in turn, under each other's running nox.
ensure_tools_venv() {
    local venv=$TOOLS_VENV
    tools_venv_holds_the_pins && return 0
    mkdir -p "$(dirname "$venv")"
    (flock 9 && make_tools_venv) 9>"$venv.lock" || exit 1
}

tools_venv_holds_the_pins() {
    [ -x "$TOOLS_VENV/bin/python" ] || return 1
    "$TOOLS_VENV/bin/python" - "$REPO/requirements-tools.txt" <<'EOF'
import re
import sys
from importlib.metadata import PackageNotFoundError, version


def installed(name):
    try:
        return version(name)
    except PackageNotFoundError:
        return None


with open(sys.argv[1], encoding="utf-8") as handle:
    pins = re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)$", handle.read(), re.MULTILINE)
sys.exit(not pins or any(installed(name) != pinned for name, pinned in pins))
EOF
}

make_tools_venv() {
    local venv=$TOOLS_VENV uv
    # Another run may have made it while this one waited for the lock.
    tools_venv_holds_the_pins && return 0
    uv=$(grep -E '^uv==' "$REPO/requirements-tools.txt") || die "requirements-tools.txt pins no uv"
    ensure_python_venv
    say "creating the virtualenv $venv (requirements-tools.txt)"
    rm -rf "$venv"
    "$PYTHON" -m venv "$venv"
    { "$venv/bin/python" -m pip install -q "$uv" && "$venv/bin/uv" pip install -q --python "$venv/bin/python" -r "$REPO/requirements-tools.txt"; } \
        >"$venv.log" 2>&1 || die "installing requirements-tools.txt into $venv failed; last lines of $venv.log: $(tail -n 3 "$venv.log" | tr '\n' ' ')"
}

# The render's own virtualenv: ansible-core alone (with what pip installs for it), at requirements-dev.txt's pin so
# that it renders exactly what the tests check; a user who only renders needs none of the test tools.
render_core_requirement() {
    grep -E '^ansible-core==' "$REPO/requirements-dev.txt" || die "requirements-dev.txt pins no ansible-core"
}

ensure_render_venv() {
    local wanted
    wanted=$(render_core_requirement)
    ensure_venv_with "$RENDER_VENV" "$wanted" "$wanted only" "$wanted"
}

# Run a command with HOME=ANSIBLE_TEST_HOME, one such command at a time on the machine: ansible-test makes a missing
# virtualenv there without a lock of its own.
with_ansible_test_home() {
    mkdir -p "$ANSIBLE_TEST_HOME"
    HOME=$ANSIBLE_TEST_HOME flock "$ANSIBLE_TEST_HOME/.lock" "$@"
}

# A fresh copy of the checkout's files as ROOT/ansible_collections/numa/kubelet (scripts/lib/collection_copy.py);
# prints that path.
collection_copy() {
    "$PYTHON" "$REPO/scripts/lib/collection_copy.py" "$1" || die "copying the collection to $1/ansible_collections/numa/kubelet failed"
}

# The directory that makes this checkout the collection numa.kubelet for Ansible: the committed link
# .collections/ansible_collections/numa/kubelet (also ansible.cfg's collections_path and the tests' import path).
collections_path() {
    local root=$REPO/.collections
    [ "$(realpath -m "$root/ansible_collections/numa/kubelet")" = "$(realpath "$REPO")" ] \
        || die "$root/ansible_collections/numa/kubelet must be the committed link to the checkout (../../..): git checkout -- .collections"
    echo "$root"
}
