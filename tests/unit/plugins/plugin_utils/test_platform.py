# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""_platform's interface and the platform modules behind it (_platforms): frozen declarations, the detection order,
and the house rules of the split: each platform in a module of its own under 300 lines, a strict import DAG, no
private name imported across modules, and no platform name in _plan."""

from __future__ import annotations

import ast
import dataclasses
import os

import pytest

from ansible_collections.numa.kubelet.plugins.plugin_utils._discovery import detect_platform, detection_paths, units_to_guard
from ansible_collections.numa.kubelet.plugins.plugin_utils._plan_inputs import PlanError
from ansible_collections.numa.kubelet.plugins.plugin_utils._platform import Layout, Platform
from ansible_collections.numa.kubelet.plugins.plugin_utils._platforms import PLATFORM_NAMES, PLATFORMS, platform_named, units_of

PLUGIN_UTILS = os.path.join(os.path.dirname(os.path.abspath(__file__)), *[os.pardir] * 4, "plugins", "plugin_utils")
PLATFORM_MODULES = ("_platform_kubeadm", "_platform_rke2", "_platform_rke2_lablabs", "_platform_nodeadm", "_platform_k3s", "_k3s_agent")


def source(module):
    with open(os.path.join(PLUGIN_UTILS, module + ".py"), encoding="utf-8") as handle:
        return handle.read()


def relative_imports(module):
    """{imported module: [names]} of the `from .x import ...` statements of a plugin_utils module."""
    found = {}
    for node in ast.walk(ast.parse(source(module))):
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            found.setdefault(node.module, []).extend(alias.name for alias in node.names)
    return found


def test_platforms_in_detection_order_each_a_frozen_declaration():
    assert PLATFORM_NAMES == ("kubeadm", "rke2", "nodeadm", "k3s")
    for platform in PLATFORMS:
        assert isinstance(platform, Platform) and platform_named(platform.name) is platform
        with pytest.raises(dataclasses.FrozenInstanceError):
            platform.name = "other"
    with pytest.raises(KeyError):
        platform_named("k0s")


def test_detection_paths_are_the_markers_in_platform_order():
    assert detection_paths() == [
        "/var/lib/kubelet/kubeadm-flags.env",
        "/var/lib/kubelet/config.yaml",
        "/etc/rancher/rke2",
        "/usr/local/bin/rke2",
        "/usr/bin/rke2",
        "/etc/eks/nodeadm.d",
        "/etc/kubernetes/kubelet/config.json",
        "/etc/rancher/k3s",
        "/usr/local/bin/k3s",
        "/opt/bin/k3s",
    ]
    for platform in PLATFORMS:
        assert detect_platform({platform.markers[-1] + "/x"}) == platform.name
    with pytest.raises(PlanError, match=r"this host looks like kubeadm \(/var/lib/kubelet/config.yaml\) and rke2 \(/usr/bin/rke2\)"):
        detect_platform({"/usr/bin/rke2", "/var/lib/kubelet/config.yaml"})
    # /etc/rancher holds both products' directories; only /etc/rancher/k3s tells k3s.
    assert detect_platform({"/etc/rancher/k3s/config.yaml", "/etc/rancher/node/password"}) == "k3s"


def test_layout_is_frozen_and_has_no_platform_report_by_default():
    layout = Layout(unit="kubelet.service", apply_unit=None, files=[], directories=[], before=None, layers_for=dict)
    assert (layout.warnings, layout.report_key, layout.hand_over, layout.report_for) == (None, None, None, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        layout.unit = "other.service"


@pytest.mark.parametrize("module", PLATFORM_MODULES)
def test_each_platform_module_is_small_and_imports_only_common_pieces(module):
    assert len(source(module).splitlines()) < 300
    imported = relative_imports(module)
    assert not {"_plan", "_discovery", "_platforms"} & set(imported), imported
    assert not [name for names in imported.values() for name in names if name.startswith("_")], imported


def test_plan_holds_no_platform_layout():
    """No path, unit or platform name in _plan's code (its docstrings may name the platforms they point to)."""
    code = ast.parse(source("_plan"))
    documented = {
        id(node.body[0].value)
        for node in ast.walk(code)
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and ast.get_docstring(node) is not None
    }
    strings = [node.value for node in ast.walk(code) if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in documented]
    for word in ("kubeadm", "rke2", "nodeadm", "k3s", "lablabs", ".service", "/etc/", "/var/"):
        assert not [value for value in strings if word in value], word


def test_plugin_utils_imports_form_a_dag_without_private_names_across_modules():
    modules = sorted(name[:-3] for name in os.listdir(PLUGIN_UTILS) if name.endswith(".py") and name != "__init__.py")
    graph = {module: relative_imports(module) for module in modules}
    for module, imported in graph.items():
        private = [(target, name) for target, names in imported.items() for name in names if name.startswith("_")]
        assert not private, (module, private)
    visiting, done = set(), set()

    def visit(module, path):
        assert module not in visiting, "import cycle: %s" % " -> ".join(path + [module])
        if module in done:
            return
        visiting.add(module)
        for target in graph.get(module, {}):
            visit(target, path + [module])
        visiting.discard(module)
        done.add(module)

    for module in modules:
        visit(module, [])


def test_the_units_a_plan_may_restart_are_the_platforms_own():
    assert {platform.name: platform.units for platform in PLATFORMS} == {
        "kubeadm": ("kubelet.service",),
        "rke2": ("rke2-server.service", "rke2-agent.service"),
        "nodeadm": ("kubelet.service",),
        "k3s": ("k3s.service", "k3s-agent.service"),
    }
    # Before detection, every platform's, each once.
    assert units_of() == ["kubelet.service", "rke2-server.service", "rke2-agent.service", "k3s.service", "k3s-agent.service"]
    assert units_of("k3s") == ["k3s.service", "k3s-agent.service"]
    for variables, units in (
        ({"kubelet_numa_platform": "nodeadm"}, ["kubelet.service"]),
        ({"kubelet_numa_platform": ""}, units_of()),
        ({}, units_of()),
        # Not a platform: the read goes on as for detection, and reads() refuses the name.
        ({"kubelet_numa_platform": "k0s"}, units_of()),
    ):
        assert units_to_guard(variables) == units, variables


@pytest.mark.parametrize("platform", PLATFORM_NAMES)
def test_every_layout_restarts_one_of_its_platforms_units(platform):
    source_text = source("_platform_" + platform)
    # The unit of the Layout is named through the declared units, never as a literal of its own.
    assert 'unit="' not in source_text and "unit='" not in source_text, platform
