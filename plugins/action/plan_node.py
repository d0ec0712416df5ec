# Copyright (c) 2026 numa.kubelet developers
# GNU General Public License v3.0+ (see LICENSE or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Discover one node and plan it, in one task.

The order of the reads and what each one depends on is the engine's (_discovery.discover); this action only carries its
questions to the node with the modules a task would use (numa.kubelet.node_files, numa.kubelet.numa_facts,
ansible.builtin.systemd_service, ansible.builtin.uri), `rke2 --version` and `k3s --version`. As one task it costs a host one turn
where the steps as separate tasks cost about ten, most of them on the controller (docs/performance.md).
"""

from __future__ import annotations

from ansible.errors import AnsibleError
from ansible.module_utils.parsing.convert_bool import boolean
from ansible.plugins.action import ActionBase
from ansible.plugins.loader import lookup_loader
from ansible.release import __version__ as ansible_version

from ansible_collections.numa.kubelet.plugins.modules.plan_node import DOCUMENTATION
from ansible_collections.numa.kubelet.plugins.plugin_utils._argument_spec import argument_spec_from_documentation
from ansible_collections.numa.kubelet.plugins.plugin_utils._config import KubeletConfigError, plain_data
from ansible_collections.numa.kubelet.plugins.plugin_utils._core_version import too_old_message
from ansible_collections.numa.kubelet.plugins.plugin_utils._discovery import discover, units_to_guard
from ansible_collections.numa.kubelet.plugins.plugin_utils._pending import guard_state_paths, role_writes
from ansible_collections.numa.kubelet.plugins.plugin_utils._plan import plan_host
from ansible_collections.numa.kubelet.plugins.plugin_utils._role_facts import role_facts

# The options as the module's DOCUMENTATION declares them, the one place they are written.
ARGUMENT_SPEC = argument_spec_from_documentation(DOCUMENTATION)

# Inputs that stand in for the node (numa.kubelet.render, check mode): a real run must read the node itself, or a
# leftover group variable would plan and write another machine's topology or files.
RENDER_ONLY = ("kubelet_numa_topology", "kubelet_numa_node_files")


def render_only_message(host, given):
    """The refusal of render-only inputs on a run that changes the node."""
    return (
        "%s: %s %s for numa.kubelet.render and check mode only: a run that changes the node reads its own NUMA topology "
        "and kubelet files. Remove %s from this host's variables (or run numa.kubelet.render, or --check)"
        % (host, " and ".join(given), "is" if len(given) == 1 else "are", " and ".join(given))
    )


# As the RKE2 install script puts the binary (/usr/local/bin, or /usr/bin from the RPM), whatever the login PATH.
RKE2_PATH = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"
# As k3s's install.sh puts the binary (BIN_DIR: /usr/local/bin, or /opt/bin when /usr/local/bin is read-only).
K3S_PATH = "/usr/local/bin:/opt/bin:/usr/bin:/bin:/usr/sbin:/sbin"


class _NodeFailure(Exception):
    """A module or command on the node failed; its result becomes the task's."""

    def __init__(self, result):
        super().__init__(result.get("msg"))
        self.result = result


class _Node:
    """The node as _discovery.discover asks it, through the connection of the task."""

    def __init__(self, action, task_vars, imds_url):
        self._action = action
        self._task_vars = task_vars
        self._imds_url = imds_url

    def _module(self, name, args, read_only_without_check_mode=False):
        task = self._action._task
        check_mode = task.check_mode
        if read_only_without_check_mode:
            # A read that a module without check-mode support would skip; the task form was `check_mode: false`.
            task.check_mode = False
        try:
            result = self._action._execute_module(module_name=name, module_args=args, task_vars=self._task_vars)
        finally:
            task.check_mode = check_mode
        if result.get("failed") or result.get("unreachable"):
            raise _NodeFailure(result)
        return result

    def read(self, paths, dirs, topology, units=()):
        return self._module("numa.kubelet.node_files", {"paths": list(paths), "dirs": list(dirs), "topology": topology, "units": list(units)})

    def topology(self):
        return self._module("numa.kubelet.numa_facts", {})["ansible_facts"]

    def rke2_version(self):
        return self._version("rke2", "RKE2", RKE2_PATH, "kubelet_numa_rke2_version, or lablabs.rke2's rke2_version")

    def k3s_version(self):
        return self._version("k3s", "k3s", K3S_PATH, "kubelet_numa_k3s_version")

    def _version(self, program, product, path, variables):
        """What `PROGRAM --version` prints on the node (the engine parses it), or the host's failure saying what to set."""
        result = self._action._low_level_execute_command("PATH=%s %s --version" % (path, program))
        if result["rc"] != 0:
            raise _NodeFailure(
                {
                    "failed": True,
                    "rc": result["rc"],
                    "stdout": result["stdout"],
                    "stderr": result["stderr"],
                    "msg": "plan_node: `%s --version` failed (rc %s): %s; before %s is installed, give the version to install: %s"
                    % (program, result["rc"], result["stderr"].strip(), product, variables),
                }
            )
        return result["stdout"]

    def unit_file_state(self, unit):
        return (self._module("ansible.builtin.systemd_service", {"name": unit}).get("status") or {}).get("UnitFileState")

    def _imds_get(self, path, what, status_code=(200,)):
        """One IMDSv2 read: a session token first, then the GET with it."""
        url = self._imds_url
        if not url:
            raise _NodeFailure({"failed": True, "msg": f"plan_node: kubelet_numa_imds_url is unset; it is needed to read {what}"})
        token = self._module(
            "ansible.builtin.uri",
            {
                "url": url + "/latest/api/token",
                "method": "PUT",
                "return_content": True,
                "timeout": 5,
                "headers": {"X-aws-ec2-metadata-token-ttl-seconds": "60"},
            },
            read_only_without_check_mode=True,
        )["content"]
        return self._module(
            "ansible.builtin.uri",
            {"url": url + path, "return_content": True, "timeout": 5, "status_code": list(status_code), "headers": {"X-aws-ec2-metadata-token": token}},
            read_only_without_check_mode=True,
        )

    def instance_type(self):
        return self._imds_get("/latest/meta-data/instance-type", "the instance type")["content"].strip()

    def user_data(self):
        # IMDS answers 404 when the instance was launched without user data.
        answer = self._imds_get("/latest/user-data", "the user data", status_code=(200, 404))
        return answer["content"] if answer.get("status") == 200 else ""


class _ShallowCopied(dict):
    """Task variables whose deep copy (what ansible.builtin.template's lookup makes of its variables before it adds the
    template_* ones at the top) is a shallow one: the values are shared, never changed by a render."""

    def __deepcopy__(self, memo):
        return dict(self)


class ActionModule(ActionBase):
    """Discover the node (read-only) and plan its kubelet NUMA configuration."""

    TRANSFERS_FILES = False
    _supports_check_mode = True

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        too_old = too_old_message(ansible_version)
        if too_old:
            result.update(failed=True, msg=too_old)
            return result
        _validated, args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)
        variables = plain_data(args["variables"])
        given = [name for name in RENDER_ONLY if variables.get(name)]
        if args["plan"] and given and not self._task.check_mode:
            result.update(failed=True, msg=render_only_message(task_vars.get("inventory_hostname"), given))
            return result
        also_read, units = plain_data(args["also_read"]), plain_data(args["also_units"])
        if args["pending"]:
            try:
                reboot_reset = boolean(variables["kubelet_numa_reboot_reset"], strict=True)
            except (KeyError, TypeError) as exc:
                result.update(
                    failed=True,
                    msg="plan_node: %s: kubelet_numa_reboot_reset: %s; with pending=true the variables must hold the "
                    "role's kubelet_numa_reboot_reset, a boolean" % (task_vars.get("inventory_hostname"), "missing" if isinstance(exc, KeyError) else exc),
                )
                return result
            # The units the plan may restart come from the platform modules; their guard is compared before the plan names one.
            units += [unit for unit in units_to_guard(variables) if unit not in units]
            also_read += [path for path in guard_state_paths(units) if path not in also_read]
        try:
            facts, attributes = discover(
                variables, _Node(self, task_vars, variables.get("kubelet_numa_imds_url")), also_read, units, plain_data(args["lablabs"])
            )
            result.update(changed=False, discovered=facts, attributes=attributes)
            if args["plan"]:
                plan = plan_host(variables, facts)
                if args["pending"]:
                    plan["apply"] = role_writes(
                        plan, facts["files"], attributes, reboot_reset, bool(self._task.check_mode), self._role_template_renderer(task_vars)
                    )
                result["plan"] = plan
                if args["pending"]:
                    result["role_facts"] = role_facts(plan)
                # The node healed itself (or declined to) since the collection's last change: every run says so.
                healed = [plan["apply"]["healed"]] if args["pending"] and plan["apply"]["healed"] else []
                if plan["warnings"] or healed:
                    result["warnings"] = list(plan["warnings"]) + healed
        except KubeletConfigError as exc:
            result.update(failed=True, msg="plan_node: %s" % exc, problems=exc.problems)
        except _NodeFailure as exc:
            result.update(exc.result)
        except AnsibleError as exc:
            # A role template that cannot be found or rendered (pending=true outside the role).
            result.update(
                failed=True,
                msg="plan_node: %s: cannot decide what is pending (pending=true renders the templates of the role "
                "numa.kubelet.kubelet_numa, so the task must run in it): %s" % (task_vars.get("inventory_hostname"), exc),
            )
        finally:
            self._remove_tmp_path(self._connection._shell.tmpdir)
        return result

    def _role_template_renderer(self, task_vars):
        """render(template, template_vars) -> text: the role's template (found on the task's search path, the role's
        templates/ first) rendered by ansible.builtin.template's lookup, as `lookup('ansible.builtin.template', ...)` in
        the role renders it, so that the bytes (the ansible_managed header included) are those the role writes."""
        lookup = lookup_loader.get("ansible.builtin.template", loader=self._loader, templar=self._templar)
        # The lookup deep-copies the variables it is given for every template; the host's task variables are large and
        # nothing here changes them, so one shallow copy serves every render.
        variables = _ShallowCopied(task_vars)

        def render(template, template_vars):
            return lookup.run([template], variables=variables, template_vars=template_vars)[0]

        return render
