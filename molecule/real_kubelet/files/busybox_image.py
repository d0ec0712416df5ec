#!/usr/bin/env python
# SPDX-License-Identifier: GPL-3.0-or-later
"""Write a docker-archive image (for `ctr images import`) holding only a static busybox, without a registry.

usage: busybox_image.py BUSYBOX_BINARY OUT.tar

Tagged localhost/busybox:local (the test pods' image) and localhost/pause:local (containerd's sandbox_image): its
default command sleeps for ever, which is all a pod sandbox does. The layout is the one `docker save` writes
(manifest.json, the config named by its digest, one layer tarball), which `ctr images import` reads:
https://github.com/moby/moby/blob/master/image/spec/v1.2.md
"""

import hashlib
import io
import json
import os
import sys
import tarfile

TAGS = ["localhost/busybox:local", "localhost/pause:local"]


def _add(archive, name, data=None, mode=0o644, kind=tarfile.REGTYPE, link=""):
    info = tarfile.TarInfo(name)
    info.type, info.mode, info.linkname = kind, mode, link
    if data is not None:
        info.size = len(data)
    archive.addfile(info, io.BytesIO(data) if data is not None else None)


def layer(busybox):
    """The one layer: the directories a container needs, busybox and the applets the tests call."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.USTAR_FORMAT) as archive:
        for directory in ("bin", "dev", "etc", "proc", "sys", "tmp"):
            _add(archive, directory, mode=0o1777 if directory == "tmp" else 0o755, kind=tarfile.DIRTYPE)
        with open(busybox, "rb") as handle:
            _add(archive, "bin/busybox", handle.read(), mode=0o755)
        for applet in ("sh", "sleep", "cat", "grep"):
            _add(archive, "bin/" + applet, kind=tarfile.SYMTYPE, link="busybox")
    return buffer.getvalue()


def main(busybox, out):
    layer_bytes = layer(busybox)
    config = json.dumps(
        {
            "architecture": "amd64",
            "os": "linux",
            "created": "1970-01-01T00:00:00Z",
            "config": {"Cmd": ["/bin/busybox", "sleep", "2147483647"], "Env": ["PATH=/bin"], "WorkingDir": "/"},
            "rootfs": {"type": "layers", "diff_ids": ["sha256:" + hashlib.sha256(layer_bytes).hexdigest()]},
        },
        sort_keys=True,
    ).encode()
    config_name = hashlib.sha256(config).hexdigest() + ".json"
    manifest = json.dumps([{"Config": config_name, "RepoTags": TAGS, "Layers": ["layer.tar"]}]).encode()
    with tarfile.open(out + ".tmp", "w") as archive:
        for name, data in ((config_name, config), ("layer.tar", layer_bytes), ("manifest.json", manifest)):
            _add(archive, name, data)
    os.replace(out + ".tmp", out)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
