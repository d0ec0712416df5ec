# SPDX-License-Identifier: GPL-3.0-or-later
"""Install an offline stand-in for the get-pip script that `ansible-test --venv` downloads.

ansible-test bootstraps pip in each virtualenv it makes by running get-pip-<version>.py from a host the test machines
cannot reach; it first looks in ~/.ansible/test/cache/get_pip_<version>.py. The script written there installs pip
from the standard library's ensurepip instead, then `pip install`s what ansible-test asked for from PyPI.
"""

from __future__ import annotations

import os
import sys
import types

BOOTSTRAP = '''\
"""Offline get-pip stand-in written by numa.kubelet scripts/lib/offline_get_pip.py (pip comes from ensurepip)."""
import ensurepip
import os
import subprocess
import sys

environment = dict(os.environ)
ensurepip.bootstrap(upgrade=True)
# ensurepip drops the PIP_* settings and sets PIP_CONFIG_FILE to /dev/null for itself; pip needs them back.
os.environ.clear()
os.environ.update(environment)
arguments = [argument for argument in sys.argv[1:] if argument not in ("--no-setuptools", "--no-wheel")]
sys.exit(subprocess.call([sys.executable, "-m", "pip", "install"] + arguments))
'''


def cache_path():
    """Where this ansible-test looks for its pip bootstrap script."""
    from ansible_test._internal.python_requirements import get_venv_packages

    pip_version = get_venv_packages(types.SimpleNamespace(version="%d.%d" % sys.version_info[:2]))["pip"]
    return os.path.expanduser("~/.ansible/test/cache/get_pip_%s.py" % pip_version.replace(".", "_"))


def main():
    path = cache_path()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(BOOTSTRAP)
    sys.stdout.write("offline pip bootstrap for ansible-test: %s\n" % path)


if __name__ == "__main__":
    main()
