# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A module's argument spec read from its DOCUMENTATION, so that an action plugin validates its task's arguments
against the one declaration of its options (as ansible.utils' validate action does with its module's DOCUMENTATION).

The spec is what Ansible's ArgumentSpecValidator takes (ActionBase.validate_argument_spec): the documentation keys
that are also argument spec keys, suboptions as options
(https://docs.ansible.com/ansible/latest/dev_guide/developing_program_flow_modules.html#argument-spec).
"""

from __future__ import annotations

from typing import Any

import yaml

# The keys an option's documentation shares with its argument spec; the rest (description, version_added) are docs only.
_SPEC_KEYS = ("type", "elements", "default", "required", "choices", "aliases", "no_log")


# The controller parses a module's DOCUMENTATION when it loads the action plugin, before it forks a worker per host:
# libyaml where PyYAML has it (about ten times as fast as the pure-Python parser; the same data for the collection's
# own documentation, which the unit tests compare).
_DOCUMENTATION_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def argument_spec_from_documentation(documentation: str) -> dict[str, dict[str, Any]]:
    """{option: spec} of a module's DOCUMENTATION (YAML text); {} for a module without options."""
    return _options(yaml.load(documentation, Loader=_DOCUMENTATION_LOADER).get("options") or {})


def _options(options: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    specs: dict[str, dict[str, Any]] = {}
    for name, option in options.items():
        spec = {key: option[key] for key in _SPEC_KEYS if key in option}
        if "suboptions" in option:
            spec["options"] = _options(option["suboptions"])
        specs[name] = spec
    return specs
