# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Render the kubelet_numa role's files for many hosts in one task on the controller.

Ansible pays about 0.4 s per host and task; rendering 1000 offline hosts with per-host tasks would take minutes.
This action plans every host with the same engine call the role makes (plan_host) and renders the role's own
templates with the same variables, so the output is what the role would write, byte for byte.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass

import yaml
from ansible.errors import AnsibleActionFail, AnsibleError
from ansible.module_utils.common.text.converters import to_text
from ansible.plugins.action import ActionBase
from ansible.release import __version__ as ansible_version
from ansible.template import generate_ansible_template_vars

try:
    from ansible.template import trust_as_template
except ImportError:  # ansible-core < 2.19 has no data tagging: every string given to the templar is a template.

    def trust_as_template(source):
        return source


from ansible_collections.numa.kubelet.plugins.modules.render import DOCUMENTATION
from ansible_collections.numa.kubelet.plugins.plugin_utils._argument_spec import argument_spec_from_documentation
from ansible_collections.numa.kubelet.plugins.plugin_utils._config import KubeletConfigError, plain_data
from ansible_collections.numa.kubelet.plugins.plugin_utils._core_version import too_old_message
from ansible_collections.numa.kubelet.plugins.plugin_utils._kubelet_fields import type_name
from ansible_collections.numa.kubelet.plugins.plugin_utils._plan import plan_host
from ansible_collections.numa.kubelet.plugins.plugin_utils._render_names import RenderPathError, destination_problem, host_name_problem
from ansible_collections.numa.kubelet.plugins.plugin_utils._render_tree import remove_host, write_host
from ansible_collections.numa.kubelet.plugins.plugin_utils._rollout import intent_conflicts

# The options as the module's DOCUMENTATION declares them, the one place they are written.
ARGUMENT_SPEC = argument_spec_from_documentation(DOCUMENTATION)
_ROLE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "roles", "kubelet_numa")
_PREFIX = "kubelet_numa_"
# How a failure that is a bug of the collection, not a problem of the input, starts.
INTERNAL_ERROR = "numa.kubelet.render: internal error (please report it):"
# What plan.json carries, in this order.
PLAN_JSON_KEYS = ("platform", "numa_nodes", "reserved_memory", "kubelet_config", "kubelet_inputs", "files", "unit", "restart", "warnings")


_JINJA_MARKERS = ("{{", "{%", "{#")


def _files_with_jinja(raw_files):
    """The paths of kubelet_numa_node_files (as written, before templating) whose text holds a Jinja marker."""
    if not isinstance(raw_files, dict):
        return []
    return [str(path) for path, text in raw_files.items() if isinstance(text, str) and any(marker in text for marker in _JINJA_MARKERS)]


def host_variables(host_vars, defaults, raw_vars=None):
    """The role's defaults overlaid with the host's kubelet_numa_* variables, as plain data; each variable whose
    templating fails is a problem naming it (a host with such a variable is not planned). raw_vars() -> the host's
    variables before templating, or None: with it a node file whose text Jinja cannot read is named by its path."""
    variables, problems = dict(defaults), []
    for name in host_vars:
        if not str(name).startswith(_PREFIX):
            continue
        try:
            variables[str(name)] = plain_data(host_vars[name])
        except AnsibleError as exc:
            message = to_text(exc.message if hasattr(exc, "message") else exc).strip().splitlines()
            reason = message[0] if message else type(exc).__name__
            paths = _files_with_jinja((raw_vars() or {}).get(name)) if name == "kubelet_numa_node_files" and raw_vars else []
            problems.extend(
                f"kubelet_numa_node_files[{path}]: the file's text holds {{{{, {{% or {{#, which Ansible templates as Jinja, and "
                f"its value cannot be templated: {reason} (mark the text !unsafe)"
                for path in paths
            )
            if not paths:
                hint = " (file content that holds {{ or {% is Jinja to Ansible: mark it !unsafe)" if name == "kubelet_numa_node_files" else ""
                problems.append(f"{name}: its value cannot be templated: {reason}{hint}")
    return variables, problems


@dataclass(frozen=True)
class RenderTarget:
    """Where and how render_hosts writes: dest (the directory of the hosts' directories), check_mode (write nothing),
    render_template(entry, plan) (renders a plan's template entry)."""

    dest: str
    check_mode: bool
    render_template: Callable[[dict, dict], str]


def render_hosts(hosts, hostvars, defaults, target, inventory=None):
    """Plan and write every host into target (a RenderTarget); one host's problem never stops another. Returns
    {rendered, failed_hosts, needs_discovery, unconfigured_hosts, warnings} (not "skipped": ansible-core reserves that
    result key for a boolean)."""
    rendered, failed, needs_discovery, skipped, warnings = {}, {}, [], [], []
    for host in hosts:
        host = str(host)
        try:
            conflicts = intent_conflicts(inventory, [host]) if inventory else []
            outcome = ("failed", conflicts) if conflicts else _render_host(host, hostvars, defaults, target)
        except RenderPathError as exc:
            outcome = ("failed", [str(exc)])
        except Exception as exc:  # pylint: disable=broad-exception-caught
            # A bug of ours must not stop the other hosts nor print a traceback; it is named as one.
            outcome = ("failed", [f"{INTERNAL_ERROR} {type(exc).__name__}: {exc}"])
        kind = outcome[0]
        if kind == "failed":
            failed[host] = outcome[1]
            if host_name_problem(host) is None:
                try:
                    warnings += remove_host(target.dest, host, target.check_mode)
                except RenderPathError as exc:
                    failed[host].append(str(exc))
        elif kind == "rendered":
            rendered[host] = outcome[1]
            warnings += outcome[2]
        elif kind == "skipped":
            skipped.append(host)
        else:
            needs_discovery.append(host)
    return {"rendered": rendered, "failed_hosts": failed, "needs_discovery": needs_discovery, "unconfigured_hosts": skipped, "warnings": warnings}


def _render_host(host, hostvars, defaults, target):
    """("rendered", paths, warnings), ("failed", problems), ("skipped",) or ("needs_discovery",) for one host."""
    problem = host_name_problem(host)
    if problem:
        return ("failed", [problem])
    if host not in hostvars:
        return ("failed", [f"{host}: not in the inventory"])
    raw_get = getattr(hostvars, "raw_get", None)
    variables, problems = host_variables(hostvars[host], defaults, (lambda: raw_get(host)) if raw_get else None)
    if problems:
        return ("failed", problems)
    if not variables.get("kubelet_numa_config"):
        return ("skipped",)
    discovered = variables.pop("kubelet_numa_discovered", None)
    if not variables.get("kubelet_numa_topology") and discovered is None:
        return ("needs_discovery",)
    facts = discovered or {"files": variables.get("kubelet_numa_node_files")}
    try:
        plan = plan_host(variables, facts)
    except KubeletConfigError as exc:
        return ("failed", exc.problems)
    outputs = []
    for entry in plan["files"]:
        outputs.append((entry["path"], target.render_template(entry, plan) if "template" in entry else entry["text"]))
    plan_json = {key: plan.get(key) for key in PLAN_JSON_KEYS}
    plan_json["files"] = [entry["path"] for entry in plan["files"]]
    outputs.append(("plan.json", json.dumps(plan_json, indent=2, sort_keys=False) + "\n"))
    warnings = write_host(target.dest, host, outputs, target.check_mode)
    return ("rendered", sorted(path for path, _text in outputs), warnings)


class ActionModule(ActionBase):
    """Plan and render hosts on the controller."""

    TRANSFERS_FILES = False
    _requires_connection = False

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        too_old = too_old_message(ansible_version)
        if too_old:
            result.update(failed=True, msg=too_old)
            return result
        _validated, args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)
        hosts = plain_data(args["hosts"])
        dest = args["dest"]
        problem = destination_problem(dest)
        if problem:
            raise AnsibleActionFail(f"numa.kubelet.render: {problem}")
        inventory = plain_data(args["inventory"])
        if inventory is not None and not isinstance(inventory, dict):
            raise AnsibleActionFail(f"numa.kubelet.render: inventory must be what `ansible-inventory --list --export` prints, got {type_name(inventory)}")
        with open(os.path.join(_ROLE, "defaults", "main.yml"), encoding="utf-8") as handle:
            defaults = yaml.safe_load(handle)
        templates = {}

        def render_template(entry, plan):
            return self._render(templates, entry, dict(task_vars, kubelet_numa_plan=plan))

        outcome = render_hosts(hosts, task_vars["hostvars"], defaults, RenderTarget(dest, self._task.check_mode, render_template), inventory)
        for warning in outcome.pop("warnings"):
            self._display.warning(warning)
        result.update(changed=bool(outcome["rendered"]), **outcome)
        return result

    def _render(self, templates, entry, variables):
        name = entry["template"]
        if name not in templates:
            path = os.path.join(_ROLE, "templates", name)
            with open(path, encoding="utf-8") as handle:
                templates[name] = (path, handle.read())
        path, source = templates[name]
        template_vars = dict(variables, item=entry)
        if "ansible_managed" not in template_vars:
            template_vars.update(generate_ansible_template_vars(name, path, entry["path"]))
        templar = self._templar.copy_with_new_env(searchpath=[os.path.dirname(path)], available_variables=template_vars)
        return to_text(templar.template(trust_as_template(source), escape_backslashes=False))
