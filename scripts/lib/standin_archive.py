# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright: numa.kubelet contributors; GNU General Public License v3.0+ (see LICENSE or
# https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pack the kubelet STAND-IN (tests/standins/image/kubelet-standin and its kubelet_standin package) into one
executable zip archive, the single /usr/local/bin/kubelet-standin a test host runs.

    python3 scripts/lib/standin_archive.py OUTPUT

scripts/build-test-hosts installs it into the images; the restart stage copies it into its hosts, so that the stage
runs this checkout's stand-in whichever checkout built the shared image.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import zipapp

IMAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "tests", "standins", "image")
# The image's python is python-is-python3's /usr/bin/python, as in the other stand-ins' shebang lines.
INTERPRETER = "/usr/bin/env python"


def pack(output: str, image: str = IMAGE) -> str:
    """Write the archive to `output` (mode 0755): kubelet-standin as its __main__.py, beside the package."""
    with tempfile.TemporaryDirectory() as stage:
        shutil.copyfile(os.path.join(image, "kubelet-standin"), os.path.join(stage, "__main__.py"))
        package = os.path.join(stage, "kubelet_standin")
        os.mkdir(package)
        for name in sorted(os.listdir(os.path.join(image, "kubelet_standin"))):
            if name.endswith(".py"):  # no __pycache__ of a local test run
                shutil.copyfile(os.path.join(image, "kubelet_standin", name), os.path.join(package, name))
        zipapp.create_archive(stage, output, interpreter=INTERPRETER)
    os.chmod(output, 0o755)
    return output


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: standin_archive.py OUTPUT")
    pack(sys.argv[1])
