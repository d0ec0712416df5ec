# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""./scripts/render, the README's first command, as a user runs it: with an empty HOME and no test virtualenv.

It needs only ansible-core (at requirements-dev.txt's pin) and the collection, in a small virtualenv of its own that
holds none of the test tools; it prints the files it wrote where -e kubelet_numa_render_dir says, and nothing warns.
"""

from __future__ import annotations

import json
import os
import re
import subprocess

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(REPO, "scripts", "render")
# Where scripts/lib/common.sh puts the render's virtualenv.
RENDER_VENV = os.environ.get("NUMA_KUBELET_RENDER_VENV") or os.path.join(os.environ.get("NUMA_KUBELET_CACHE") or os.path.join(REPO, ".cache"), "render-venv")

pytestmark = pytest.mark.skipif(not os.path.exists(SCRIPT), reason="scripts/ is not part of an installed collection")


def requirements(*files):
    """{distribution name: pinned version} of the checkout's requirements files."""
    pins = {}
    for name in files:
        with open(os.path.join(REPO, name), encoding="utf-8") as handle:
            for line in handle:
                match = re.match(r"^([A-Za-z0-9_.-]+)(?:\[[^]]*\])?==(\S+)", line)
                if match:
                    pins[match.group(1).lower()] = match.group(2)
    return pins


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("render-script")
    home, output, test_venv = tmp / "home", tmp / "my render", tmp / "no-test-venv"
    home.mkdir()
    env = {key: value for key, value in os.environ.items() if not key.startswith(("ANSIBLE_", "VIRTUAL_ENV"))}
    # The test tools' virtualenv is somewhere that does not exist: the render must neither need nor create it.
    env.update(HOME=str(home), NUMA_KUBELET_VENV=str(test_venv), PATH="/usr/local/bin:/usr/bin:/bin")
    # Quoted as ansible-playbook's key=value syntax wants a value with a space: the script must read it the same way.
    result = subprocess.run(
        [SCRIPT, "-e", f"kubelet_numa_render_dir='{output}'"], cwd=str(tmp), env=env, capture_output=True, text=True, check=False, timeout=900
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert not test_venv.exists()
    return result, output


def test_render_venv_holds_ansible_core_at_the_pin_and_no_test_tool(rendered):
    listed = subprocess.run(
        [os.path.join(RENDER_VENV, "bin", "python"), "-m", "pip", "list", "--format", "json"], capture_output=True, text=True, check=True, timeout=300
    )
    installed = {package["name"].lower(): package["version"] for package in json.loads(listed.stdout)}
    pins = requirements("requirements-dev.txt", "requirements-tools.txt", "requirements-lint.txt", "requirements-ee.txt")
    assert installed["ansible-core"] == pins["ansible-core"]
    test_tools = sorted(set(pins) - {"ansible-core"})
    assert {"molecule", "ansible-lint", "pytest", "ruff"} <= set(test_tools)
    assert [tool for tool in test_tools if tool in installed] == []


def test_prints_the_files_written_into_the_chosen_directory(rendered):
    result, output = rendered
    hosts = sorted(name for name in os.listdir(output) if os.path.isfile(os.path.join(output, name, "plan.json")))
    assert "kubeadm-gpu-01" in hosts
    printed = re.findall(r"^===== (.*)$", result.stdout, re.MULTILINE)
    assert printed == [os.path.join(str(output), host) for host in hosts]
    dropin = os.path.join(output, "kubeadm-gpu-01", "etc", "kubernetes", "kubelet.conf.d", "50-numa-kubelet.conf")
    with open(dropin, encoding="utf-8") as handle:
        assert "--- /etc/kubernetes/kubelet.conf.d/50-numa-kubelet.conf\n" + handle.read() in result.stdout


def test_nothing_warns(rendered):
    result = rendered[0]
    assert not re.search(r"WARNING|DEPRECATION|Could not match supplied host pattern", result.stdout + result.stderr), result.stdout + result.stderr
