# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright: numa.kubelet contributors; GNU General Public License v3.0+ (see LICENSE or
# https://www.gnu.org/licenses/gpl-3.0.txt)
"""Kubelet STAND-IN: the kubelet's log lines in klog's text format."""

import datetime
import os
import sys


# ----------------------------------------------------------------------------------------------- logging
def go_quote_string(text):
    """strconv.Quote, which klog uses for a one-line string value."""
    out = ['"']
    for char in text:
        code = ord(char)
        if char in ('"', "\\"):
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif char == "\r":
            out.append("\\r")
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def klog(severity, where, message, **values):
    """Print one line in klog's text format (`E0612 10:23:45.123456   12345 run.go:72] "msg" key="value"`).

    The file:line is the kubelet source the real line comes from, approximately; the stand-in has no Go source.
    """
    now = datetime.datetime.now()
    line = "%s%s %7d %s] %s" % (severity, now.strftime("%m%d %H:%M:%S.%f"), os.getpid(), where, go_quote_string(message))
    for key, value in values.items():
        line += f" {key}={go_quote_string(str(value)) if isinstance(value, str) else value}"
    print(line, file=sys.stderr, flush=True)


CONFIG_ERROR_PREFIXES = ("failed to parse kubelet flag", "failed to load ", "failed to validate kubelet configuration", "failed to merge kubelet configs")
START_ERROR_PREFIXES = ("start memory manager error", "start cpu manager error")


def log_refusal(message):
    """The kubelet's last log line for this error, as it appears in `journalctl -u kubelet`."""
    if message.startswith(START_ERROR_PREFIXES):
        # Container manager Start() runs after "Started kubelet"; the kubelet logs this and calls os.Exit(1).
        klog("I", "kubelet.go:1720", "Started kubelet")
        klog("E", "kubelet.go:1740", "Failed to start ContainerManager", err=message)
    elif message.startswith(CONFIG_ERROR_PREFIXES):
        # Flag parsing, config loading and validation happen in the command's RunE, before run().
        klog("E", "run.go:72", "command failed", err=message)
    else:
        klog("E", "run.go:72", "command failed", err="failed to run Kubelet: " + message)
