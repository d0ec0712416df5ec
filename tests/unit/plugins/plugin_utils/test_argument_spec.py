# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""_argument_spec: an action plugin's argument spec is its module's DOCUMENTATION, declared once."""

from __future__ import annotations

import ast
import glob
import os

import pytest
import yaml
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.numa.kubelet.plugins.modules.plan_node import DOCUMENTATION
from ansible_collections.numa.kubelet.plugins.plugin_utils import _argument_spec
from ansible_collections.numa.kubelet.plugins.plugin_utils._argument_spec import argument_spec_from_documentation

MODULES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))), "plugins", "modules")

NESTED = """
module: example
options:
  name:
    description: A name.
    type: str
    required: true
    aliases: [id]
  mode:
    description: How.
    type: str
    choices: [fast, safe]
    default: safe
    version_added: 0.2.0
  token:
    description: A secret.
    type: str
    no_log: true
  items:
    description: Things.
    type: list
    elements: dict
    default: []
    suboptions:
      path:
        description: Where.
        type: path
        required: true
"""


def test_the_documented_keys_become_the_spec_and_the_docs_only_keys_do_not():
    assert argument_spec_from_documentation(NESTED) == {
        "name": {"type": "str", "required": True, "aliases": ["id"]},
        "mode": {"type": "str", "choices": ["fast", "safe"], "default": "safe"},
        "token": {"type": "str", "no_log": True},
        "items": {"type": "list", "elements": "dict", "default": [], "options": {"path": {"type": "path", "required": True}}},
    }


def test_a_module_without_options_has_an_empty_spec():
    assert argument_spec_from_documentation("module: example\ndescription: Nothing to set.\n") == {}


def test_plan_node_is_validated_against_its_own_documentation():
    spec = argument_spec_from_documentation(DOCUMENTATION)
    assert spec == {
        "variables": {"type": "dict", "required": True},
        "also_read": {"type": "list", "elements": "path", "default": []},
        "also_units": {"type": "list", "elements": "str", "default": []},
        "lablabs": {"type": "dict", "default": {}},
        "plan": {"type": "bool", "default": True},
        "pending": {"type": "bool", "default": False},
    }
    result = ArgumentSpecValidator(spec).validate({"variables": {}, "pending": "yes", "also_units": "kubelet.service"})
    assert result.error_messages == []
    assert result.validated_parameters == {"variables": {}, "pending": True, "also_units": ["kubelet.service"], "also_read": [], "lablabs": {}, "plan": True}
    refused = ArgumentSpecValidator(spec).validate({"variables": {}, "pendng": True})
    assert "pendng" in " ".join(refused.error_messages)


@pytest.mark.parametrize("module", sorted(glob.glob(os.path.join(MODULES, "*.py"))))
def test_every_modules_documentation_reads_the_same_with_libyaml(module):
    # The controller reads DOCUMENTATION with libyaml where PyYAML has it: the same data as yaml.safe_load.
    with open(module, encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    documentation = ast.literal_eval(next(node.value for node in tree.body if _assigns(node, "DOCUMENTATION")))
    assert yaml.load(documentation, Loader=_argument_spec._DOCUMENTATION_LOADER) == yaml.safe_load(documentation)
    assert _argument_spec._DOCUMENTATION_LOADER is getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _assigns(node, name):
    return isinstance(node, ast.Assign) and [getattr(target, "id", None) for target in node.targets] == [name]
