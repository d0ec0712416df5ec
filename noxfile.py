# SPDX-License-Identifier: GPL-3.0-or-later
"""The stages of ./scripts/test, one nox session each, in the order of its summary.

./scripts/test makes the virtualenvs (scripts/lib/common.sh) and runs this file, which runs nox over these sessions
and prints one line per stage and `stages: N passed, N failed, N skipped` last; `./scripts/test --fast` runs the
sessions tagged `fast` (nothing there needs a test host). The stages tagged `waits` (they mostly wait, and name their
own containers and ports) run one after the other in a lane beside the other stages, each line of the two lanes'
output with its stage's name in front; the one tagged `alone` runs after both (`./scripts/test --serial`: every stage
one after the other, as listed). One stage alone, once the virtualenvs exist:
`.cache/tools-venv/bin/nox -s lint` (`nox -l` lists them).

nox owns the sessions' environments, each made with uv in .nox/NAME, reused, and brought up to its pins at each run:
the session `dev` makes the test tools' environment .nox/dev from requirements-dev.txt, which every stage of this file
requires and runs its tools from by path; the stages lint (ruff, mypy, pre-commit: requirements-lint.txt) and ee
(ansible-runner: requirements-ee.txt) have one of their own besides. nox's own environment, .cache/tools-venv from
requirements-tools.txt, holds only what runs nox (nox, uv, antsibull-nox). The stages docs-check, extra-checks and
yamllint are antsibull-nox's (antsibull-nox.toml), each in an environment of its own in .nox; docs/contributing.md says
which of antsibull-nox's sessions do not work here and why. A stage whose kit beside the checkout (../shared/NAME, or
the environment variable naming it) is absent is skipped, and says so with the path it looked at.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading

import antsibull_nox
import nox
from antsibull_nox.sessions.lint import add_yamllint

REPO = os.path.dirname(os.path.abspath(__file__))
COMMON = os.path.join(REPO, "scripts", "lib", "common.sh")
sys.path.insert(0, os.path.join(REPO, "scripts", "lib"))

from collection_copy import collection_copy  # noqa: E402 (scripts/lib is not a package)
from stages import Prefixer, phases, shell_scripts, summary  # noqa: E402


def _common_paths():
    """CACHE, VENV, TOOLS_VENV and NOX_DEV_ENV as scripts/lib/common.sh decides them (the environment variables it reads,
    or the checkout's .nox/dev and .cache): one place decides where the virtualenvs are. Also how uv trusts
    certificates (UV_SYSTEM_CERTS), for nox's uv backend when nox runs without scripts/test."""
    script = 'source "$1" && printf "%s\\0" "$CACHE" "$VENV" "$TOOLS_VENV" "$NOX_DEV_ENV" "$UV_SYSTEM_CERTS"'
    output = subprocess.run(["bash", "-c", script, "common.sh", COMMON], capture_output=True, text=True, check=True).stdout
    values = output.split("\0")[:5]
    os.environ["UV_SYSTEM_CERTS"] = values[4]
    return values[:4]


CACHE, VENV, TOOLS_VENV, NOX_DEV_ENV = _common_paths()
# nox's own envdir is where common.sh says the test tools' environment is (.nox/dev is .nox's session `dev`).
nox.options.envdir = os.path.join(REPO, ".nox")
nox.options.default_venv_backend = "uv|venv"
nox.options.reuse_venv = "yes"
nox.options.error_on_external_run = False


@nox.session(venv_backend="uv|venv" if VENV == NOX_DEV_ENV else "none", reuse_venv=True, default=False)
def dev(session):
    """The test tools' environment (requirements-dev.txt), .nox/dev; with NUMA_KUBELET_VENV set, that one instead,
    made by scripts/lib/common.sh."""
    if VENV != NOX_DEV_ENV:
        if not os.path.isfile(os.path.join(VENV, "bin", "python")):
            session.error(f"NUMA_KUBELET_VENV names {VENV}, which is no virtualenv (scripts/lib/common.sh ensure_venv makes it)")
        session.log(f"the test tools' environment is {VENV} (NUMA_KUBELET_VENV)")
        return
    session.install("-r", os.path.join(REPO, "requirements-dev.txt"))


def _kit(variable, default, tool=None):
    """The kit a stage needs: $VARIABLE, else DEFAULT beside the checkout (../shared/...); with TOOL, a directory
    given means its TOOL inside."""
    path = os.path.realpath(os.environ.get(variable) or os.path.join(REPO, "..", "shared", default))
    return os.path.join(path, tool) if tool and not os.path.isfile(path) else path


def _skip(session, why):
    print(f"stage {session.name} SKIPPED: {why}", flush=True)
    session.skip(why)


def _bash(session, function, *args):
    """A function of scripts/lib/common.sh (installing Debian packages, making a virtualenv)."""
    session.run("bash", "-c", 'source "$0" && "$@"', COMMON, function, *args, external=True)


def _pytest(session, *args, env=None):
    # pytest's exit code 5 means it collected no test: that is a failure here, as any other non-zero code.
    session.run(os.path.join(VENV, "bin", "python"), "-m", "pytest", "-p", "no:cacheprovider", *args, env=env, external=True)


def _test_hosts(session, which):
    session.run(os.path.join(REPO, "scripts", "build-test-hosts"), "--only", which, external=True)


def stage(*, fast=False, waits=False, alone=False, requirements=None):
    """A session of nox that runs in the project's virtualenvs: their bin first on the PATH of what it runs (nox itself
    finds a program on its own PATH, so the sessions name the virtualenvs' programs by path); `fast` sessions need no
    test host and are what `./scripts/test --fast` runs. `waits`: a stage that mostly waits (test hosts, an API server,
    kubelets' settle times) and names its own containers and ports; ./scripts/test runs these one after the other
    beside the other stages. `alone`: a stage that needs the machine to itself, run after all the others.
    `requirements`: a pinned file of the checkout holding the stage's own tools, which nox installs (and brings up to
    its pins at each run) into an environment of the stage's own, .nox/NAME, first on that PATH."""
    tags = ["stage"] + [tag for tag, wanted in (("fast", fast), ("waits", waits), ("alone", alone)) if wanted]

    def decorate(function):
        def run(session):
            session.env["PATH"] = os.path.join(VENV, "bin") + os.pathsep + os.environ.get("PATH", "")
            if requirements:
                session.install("-r", os.path.join(REPO, requirements))
            function(session)

        run.__name__, run.__doc__ = function.__name__, function.__doc__
        backend = "uv|venv" if requirements else "none"
        return nox.session(venv_backend=backend, tags=tags, requires=["dev"])(run)

    return decorate


ORACLE = _kit("NUMA_KUBELET_ORACLE", "oracle", "kubelet-check")
NODEADM_CONFIG = _kit("NUMA_KUBELET_NODEADM_CONFIG", "nodeadm", "nodeadm-config")
APISERVER = _kit("NUMA_KUBELET_APISERVER", "apiserver")
LABLABS_RKE2 = _kit("NUMA_KUBELET_LABLABS_RKE2", os.path.join("clients", "lablabs.rke2"))
REAL_KUBELET = _kit("NUMA_KUBELET_REAL_KUBELET", os.path.join("oracle", "kubelet.xz"))
# Directories of tests/ that run in a stage of their own (tests/docs runs against the built tarball, in distribution).
OWN_STAGE = ["oracle", "docs", "distribution", "apiserver", "restart", "nodeadm", "lablabs", "testhost", "ee"]


@stage(fast=True)
def pytest(session):
    """Unit, through-Ansible and stand-in tests (tests/, without the directories of other stages)."""
    _pytest(session, "-n", "2", "tests", *(f"--ignore=tests/{name}" for name in OWN_STAGE))


@stage(fast=True, requirements="requirements-lint.txt")
def lint(session):
    """What .pre-commit-config.yaml runs, from the pinned tools: ruff check and format (ruff.toml), mypy (mypy.ini), shellcheck
    (.shellcheckrc, from Debian), pre-commit's check of its config and ansible-lint (production); yamllint is the stage
    yamllint."""
    _bash(session, "ensure_debian_packages", "shellcheck")
    session.run(os.path.join(session.bin, "ruff"), "check", "--no-cache", "--output-format", "concise", ".")
    session.run(os.path.join(session.bin, "ruff"), "format", "--no-cache", "--check", ".")
    session.run(os.path.join(session.bin, "mypy"))  # the engine, as mypy.ini says
    session.run("shellcheck", *shell_scripts(REPO), external=True)
    session.run(os.path.join(session.bin, "pre-commit"), "validate-config", ".pre-commit-config.yaml")
    # ANSIBLE_HOME keeps ansible-lint's cache (which it searches first) out of ~/.ansible, where a stale installed
    # numa.kubelet would shadow the checkout (ansible.cfg makes the checkout numa.kubelet).
    session.run(
        os.path.join(VENV, "bin", "ansible-lint"),
        "--offline",
        "--profile",
        "production",
        env={"ANSIBLE_HOME": os.path.join(CACHE, "ansible-lint-home")},
        external=True,
    )


# In the order antsibull-nox adds them (the toml's sessions, then yamllint), which is the order of the summary.
ANTSIBULL_NOX_STAGES = ("docs-check", "extra-checks", "yamllint")


def _antsibull_nox_stages():
    """antsibull-nox's sessions as stages that need no test host: extra-checks and docs-check (antsibull-nox.toml), and
    yamllint, added here rather than through the toml's [sessions.lint], which would also add a session `lint` (and
    isort, black, flake8, pylint, mypy over its own file lists) in place of this file's. yamllint lints every YAML file
    git tracks with .yamllint, and the YAML of the plugins' documentation and examples with .yamllint-plugin-docs."""
    antsibull_nox.load_antsibull_nox_toml()
    add_yamllint(
        run_yamllint=True,
        yamllint_config=".yamllint",
        yamllint_config_plugins=".yamllint-plugin-docs",
        yamllint_config_plugins_examples=".yamllint-plugin-docs",
        yamllint_config_extra_docs=None,
        yamllint_package="yamllint==" + _pin("requirements-dev.txt", "yamllint"),
        # What antsibull-docs 2.28.0 of requirements-dev.txt installs with it.
        yamllint_antsibull_docutils_package="antsibull-docutils==1.4.1",
    )
    for name in ANTSIBULL_NOX_STAGES:
        session = nox.registry.get()[name]
        session.tags += ["stage", "fast"]
        session.default = True  # antsibull-nox adds yamllint as a part of its lint session, not to run alone


def _pin(requirements, package):
    """The version REQUIREMENTS (a file of the checkout) pins PACKAGE at."""
    with open(os.path.join(REPO, requirements), encoding="utf-8") as handle:
        for line in handle:
            name, pinned, version = line.strip().partition("==")
            if pinned and name == package:
                return version
    raise LookupError(f"{requirements} pins no {package}")


_antsibull_nox_stages()


@stage(fast=True)
def distribution(session):
    """The built tarball installed into an empty collections path: tests/distribution, and tests/docs against it."""
    session.run(os.path.join(REPO, "scripts", "check-distribution"))


@stage(fast=True)
def oracle(session):
    """tests/oracle against the real kubelet v1.36.2 of kubelet-check (needs root, containerd and runc)."""
    if not os.path.exists(ORACLE):
        _skip(session, f"no real kubelet at {os.path.dirname(ORACLE)} (../shared/oracle)")
    _bash(session, "ensure_debian_packages", "containerd", "runc")
    _pytest(session, "-n", "2", "tests/oracle", env={"NUMA_KUBELET_ORACLE": ORACLE})


@stage(fast=True)
def nodeadm(session):
    """tests/nodeadm; the real kubelet checks what nodeadm writes where the oracle exists (as in the oracle stage)."""
    if not os.path.exists(NODEADM_CONFIG):
        _skip(session, f"no nodeadm-config at {os.path.dirname(NODEADM_CONFIG)} (../shared/nodeadm)")
    oracle = ""
    if os.path.exists(ORACLE):
        _bash(session, "ensure_debian_packages", "containerd", "runc")
        oracle = ORACLE
    _pytest(session, "-n", "2", "tests/nodeadm", env={"NUMA_KUBELET_NODEADM_CONFIG": NODEADM_CONFIG, "NUMA_KUBELET_ORACLE": oracle})


@stage(waits=True)
def apiserver(session):
    """tests/apiserver in one pytest process: the tests share one fleet of three test hosts and one API server."""
    if not os.path.exists(os.path.join(APISERVER, "apiserver-up")):
        _skip(session, f"no real API server at {APISERVER} (../shared/apiserver)")
    _bash(session, "ensure_debian_packages", "etcd-server")
    _test_hosts(session, "container")
    _pytest(session, "-p", "no:xdist", "tests/apiserver", env={"NUMA_KUBELET_APISERVER": APISERVER})


@stage(waits=True)
def restart(session):
    """Restarts and their faults on podman test hosts of this stage's own (tests/restart/conftest.py), two at a time."""
    _test_hosts(session, "container")
    _pytest(session, "-n", "2", "tests/restart")


@stage(waits=True)
def lablabs(session):
    """tests/lablabs in one pytest process (one cluster of two test hosts and one API server). lablabs.rke2 needs the
    netaddr package on the controller (its README, "Requirements for Ansible Controller"); it goes beside the
    virtualenv, not into it, so that requirements-dev.txt stays the tools of every stage."""
    if not os.path.isdir(os.path.join(LABLABS_RKE2, "tasks")):
        _skip(session, f"no lablabs.rke2 role at {LABLABS_RKE2} (../shared/clients/lablabs.rke2)")
    if not os.path.exists(os.path.join(APISERVER, "apiserver-up")):
        _skip(session, f"no real API server at {APISERVER} (../shared/apiserver)")
    _bash(session, "ensure_debian_packages", "etcd-server", "gcc", "libc6-dev")
    _test_hosts(session, "container")
    python_path = os.path.join(CACHE, "lablabs-python")
    if not os.path.isdir(os.path.join(python_path, "netaddr")):
        uv = (os.path.join(TOOLS_VENV, "bin", "uv"), "pip", "install", "-q", "--python", os.path.join(VENV, "bin", "python"))
        session.run(*uv, "--target", python_path, "netaddr==1.3.0")
    env = {"NUMA_KUBELET_APISERVER": APISERVER, "NUMA_KUBELET_LABLABS_RKE2": LABLABS_RKE2, "NUMA_KUBELET_LABLABS_PYTHONPATH": python_path}
    _pytest(session, "-p", "no:xdist", "tests/lablabs", env=env)


@stage()
def sanity(session):
    """ansible-test sanity (every test, no ignore file) on a copy in ansible_collections/numa/kubelet."""
    # Outside any hidden directory: ansible-test skips every file below one. One copy per checkout, so that two
    # checkouts (git worktrees) on one machine can run the stage at the same time.
    checkout = hashlib.sha256(REPO.encode()).hexdigest()[:12]
    copy = collection_copy(os.path.join(tempfile.gettempdir(), f"numa-kubelet-sanity-{checkout}"))
    # HOME is common.sh's machine-wide ANSIBLE_TEST_HOME, where ansible-test keeps its virtualenvs (with_ansible_test_home).
    _bash(session, "with_ansible_test_home", os.path.join(VENV, "bin", "python"), os.path.join(REPO, "scripts", "lib", "offline_get_pip.py"))
    session.chdir(copy)
    _bash(session, "with_ansible_test_home", os.path.join(VENV, "bin", "ansible-test"), "sanity", "--venv", "--python", "3.11", "--color", "no")


@stage()
def molecule(session):
    """The molecule scenarios on the test hosts (scripts/run-molecule), all but real_kubelet."""
    session.run(os.path.join(REPO, "scripts", "run-molecule"))


@stage(alone=True)
def real_kubelet(session):
    """molecule/real_kubelet: the real kubelet and containerd on the two-NUMA VM; alone, after every other stage,
    since the emulated VM needs both cores."""
    if not os.path.isfile(REAL_KUBELET):
        _skip(session, f"no real kubelet at {REAL_KUBELET} (../shared/oracle/kubelet.xz)")
    session.run(os.path.join(REPO, "scripts", "run-molecule"), "--jobs", "1", "real_kubelet", env={"NUMA_KUBELET_REAL_KUBELET": REAL_KUBELET})


@stage(waits=True)
def testhost(session):
    """tests/testhost: the installed tarball on a test host reached as a normal login (a container of its own)."""
    _test_hosts(session, "container")
    _pytest(session, "-p", "no:xdist", "tests/testhost")


@stage(waits=True, requirements="requirements-ee.txt")
def ee(session):
    """tests/ee: the collection in an execution environment built with ansible-builder, run through ansible-runner as
    AWX runs it (render, and a rollout over ssh through transmit | worker | process). Needs root and podman."""
    if os.geteuid() != 0 or not shutil.which("podman"):
        _skip(session, "the execution-environment stage needs root and podman")
    _test_hosts(session, "ee")
    _pytest(session, "-p", "no:xdist", "-s", "tests/ee", env={"NUMA_KUBELET_ANSIBLE_RUNNER": os.path.join(session.bin, "ansible-runner")})


@stage()
def matrix(session):
    """The ansible-core versions meta/runtime.yml claims (scripts/test-matrix)."""
    session.run(os.path.join(REPO, "scripts", "test-matrix"))


def _run_lane(stages, report, prefixed, output_lock):
    """nox over STAGES (one after the other) in a process of its own, writing REPORT; PREFIXED: each line of its output
    with the running stage's name in front, for lanes that run side by side."""
    # The session `dev` (what every stage requires) ran before (scripts/test: ensure_venv): --no-dependencies keeps two lanes from
    # bringing one environment up to date at once.
    argv = [sys.executable, "-m", "nox", "--noxfile", os.path.abspath(__file__), "--no-dependencies", "--report", report, "--sessions", *stages]
    if not prefixed:
        subprocess.run(argv, check=False)
        return
    prefixer = Prefixer(stages[0])
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=dict(os.environ, PYTHONUNBUFFERED="1")) as process:
        for raw in process.stdout:
            line = prefixer.line(raw.decode(errors="replace"))
            with output_lock:
                sys.stdout.write(line)
                sys.stdout.flush()


def _run_side_by_side(lanes, work):
    """Every lane of LANES at once (threads, each running nox); the sessions of their nox reports."""
    output_lock = threading.Lock()
    reports = [os.path.join(work, "report-%s.json" % lane[0]) for lane in lanes]
    threads = [threading.Thread(target=_run_lane, args=(lane, report, len(lanes) > 1, output_lock)) for lane, report in zip(lanes, reports, strict=True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    sessions = []
    for report in reports:
        if os.path.exists(report):
            with open(report, encoding="utf-8") as handle:
                sessions += json.load(handle)["sessions"]
    return sessions


def main(argv):
    """./scripts/test: nox over every stage (or the fast ones), the stages that mostly wait beside the others (or all
    one after the other with --serial), then one line per stage and the `stages:` line."""
    parser = argparse.ArgumentParser(prog="scripts/test", description="Runs the stages of numa.kubelet's tests (noxfile.py).")
    parser.add_argument("--fast", action="store_true", help="only the stages that need no test host")
    parser.add_argument("--serial", action="store_true", help="one stage after the other, none side by side")
    arguments = parser.parse_args(argv)
    registry = {name: function for name, function in nox.registry.get().items() if "stage" in function.tags}
    stages = [name for name, function in registry.items() if not arguments.fast or "fast" in function.tags]
    if arguments.serial:
        order = [[stages]]
    else:
        waiting = [name for name, function in registry.items() if "waits" in function.tags]
        order = phases(stages, waiting, [name for name, function in registry.items() if "alone" in function.tags])
    sessions = []
    with tempfile.TemporaryDirectory(prefix="numa-kubelet-stages.") as work:
        for lanes in order:
            sessions += _run_side_by_side(lanes, work)
    lines, passed = summary(sessions, stages)
    print("\n".join(lines), flush=True)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
