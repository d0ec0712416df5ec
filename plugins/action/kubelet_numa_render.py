# -*- coding: utf-8 -*-
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
import shutil

import yaml

from ansible.errors import AnsibleActionFail
from ansible.module_utils.common.text.converters import to_text
from ansible.plugins.action import ActionBase
from ansible.release import __version__ as ansible_version
from ansible.template import generate_ansible_template_vars

try:
    from ansible.template import trust_as_template
except ImportError:  # ansible-core < 2.19 has no data tagging: every string given to the templar is a template.
    def trust_as_template(source):
        return source

from ansible_collections.numa.kubelet.plugins.plugin_utils._config import KubeletConfigError
from ansible_collections.numa.kubelet.plugins.plugin_utils._core_version import too_old_message
from ansible_collections.numa.kubelet.plugins.plugin_utils._plan import plan_host

_ROLE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "roles", "kubelet_numa")
_PREFIX = "kubelet_numa_"
# What plan.json carries, in this order.
PLAN_JSON_KEYS = ("platform", "numa_nodes", "reserved_memory", "kubelet_config", "kubelet_inputs", "files", "unit", "restart", "warnings")


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
        args = self._task.args
        hosts = args.get("hosts") or []
        dest = args.get("dest")
        if not isinstance(hosts, list) or not all(isinstance(host, str) for host in hosts):
            raise AnsibleActionFail("kubelet_numa_render: hosts must be a list of inventory host names, got %r" % (hosts,))
        if not isinstance(dest, str) or not os.path.isabs(dest):
            raise AnsibleActionFail("kubelet_numa_render: dest %r must be an absolute path on the controller" % (dest,))
        with open(os.path.join(_ROLE, "defaults", "main.yml"), encoding="utf-8") as handle:
            defaults = yaml.safe_load(handle)
        templates = {}
        hostvars = task_vars["hostvars"]
        # Not "skipped": ansible-core reserves that result key for a boolean.
        rendered, failed, needs_discovery, unconfigured = {}, {}, [], []
        for host in hosts:
            host_vars = hostvars[host]
            variables = dict(defaults)
            variables.update({name: host_vars[name] for name in host_vars if str(name).startswith(_PREFIX)})
            if not variables.get("kubelet_numa_config"):
                unconfigured.append(host)
                continue
            discovered = variables.pop("kubelet_numa_discovered", None)
            if not variables.get("kubelet_numa_topology") and discovered is None:
                needs_discovery.append(host)
                continue
            facts = discovered or {"files": variables.get("kubelet_numa_node_files") or {}}
            directory = os.path.join(dest, host)
            try:
                plan = plan_host(variables, facts)
            except KubeletConfigError as exc:
                failed[host] = exc.problems
                if not self._task.check_mode:
                    shutil.rmtree(directory, ignore_errors=True)
                continue
            outputs = {}
            for entry in plan["files"]:
                if "template" in entry:
                    outputs[entry["path"]] = self._render(templates, entry, dict(task_vars, kubelet_numa_plan=plan))
                else:
                    outputs[entry["path"]] = entry["text"]
            plan_json = {key: plan.get(key) for key in PLAN_JSON_KEYS}
            plan_json["files"] = [entry["path"] for entry in plan["files"]]
            outputs["plan.json"] = json.dumps(plan_json, indent=2, sort_keys=False) + "\n"
            if not self._task.check_mode:
                shutil.rmtree(directory, ignore_errors=True)
                for path, text in outputs.items():
                    target = os.path.join(directory, path.lstrip("/"))
                    os.makedirs(os.path.dirname(target), exist_ok=True)
                    with open(target, "w", encoding="utf-8") as handle:
                        handle.write(text)
            rendered[host] = sorted(outputs)
        result.update(changed=bool(rendered), rendered=rendered, failed_hosts=failed, needs_discovery=needs_discovery,
                      unconfigured_hosts=unconfigured)
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
