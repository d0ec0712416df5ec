# SPDX-License-Identifier: GPL-3.0-or-later
# Copyright: numa.kubelet contributors; GNU General Public License v3.0+ (see LICENSE or
# https://www.gnu.org/licenses/gpl-3.0.txt)
"""Kubelet STAND-IN: the healthz endpoint and the kubelet API (/configz)."""

import http.server
import json
import os
import socket
import ssl
import subprocess
import threading
import time

from .common import StartError, host_path
from .klog import klog
from .machine import parse_cpulist

# ----------------------------------------------------------------------------------------------- healthz
HEALTHZ_PATHS = ("/healthz", "/healthz/ping", "/healthz/log", "/healthz/syncloop")


class HealthzHandler(http.server.BaseHTTPRequestHandler):
    """GET /healthz (and the kubelet's named checks) -> 200 "ok"; anything else -> 404."""

    server_version = "kubelet-standin"
    sys_version = ""

    def _answer(self, with_body):
        path = self.path.split("?", 1)[0]
        if path in HEALTHZ_PATHS:
            status, body = 200, b"ok"
        else:
            status, body = 404, b"404 page not found\n"
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if with_body:
            self.wfile.write(body)

    def do_GET(self):  # http.server's naming
        """Answer a GET."""
        self._answer(True)

    def do_HEAD(self):  # http.server's naming
        """Answer a HEAD."""
        self._answer(False)

    def log_message(self, *args):  # the kubelet does not log healthz requests
        """Stay quiet."""


def serve_healthz(config):
    """Serve healthz in a daemon thread, retrying every 5 s when the address cannot be bound (like the kubelet)."""
    port = config.get("healthzPort") or 0
    address = str(config.get("healthzBindAddress") or "127.0.0.1")
    if port == 0:
        return None

    class Server(http.server.ThreadingHTTPServer):
        address_family = socket.AF_INET6 if ":" in address else socket.AF_INET
        daemon_threads = True

    def run():
        while True:
            try:
                server = Server((address, port), HealthzHandler)
            except OSError as err:
                klog("E", "server.go:1290", "Failed to start healthz server", err=str(err))
                time.sleep(5)
                continue
            server.serve_forever()

    thread = threading.Thread(target=run, name="healthz", daemon=True)
    thread.start()
    return thread


# ----------------------------------------------------------------------------------------------- kubelet API
def running_config(config):
    """The config as the kubelet runs it and /configz shows it: server.go's rewrite for reservedSystemCPUs.

    "Option --reserved-cpus is specified, it will overwrite the cpu setting in KubeReserved and SystemReserved":
    kubeReserved loses cpu, systemReserved.cpu becomes the number of reserved CPUs (seen on the kubelet v1.36.2).
    """
    config = json.loads(json.dumps(config))
    reserved = config.get("reservedSystemCPUs")
    if reserved:
        count = len(set(parse_cpulist(str(reserved))))
        if isinstance(config.get("kubeReserved"), dict):
            config["kubeReserved"].pop("cpu", None)
        config["systemReserved"] = dict(config.get("systemReserved") or {}, cpu=str(count))
    return config


def serving_certificate(config, cert_dir):
    """(certificate, key) paths: tlsCertFile/tlsPrivateKeyFile, else a self-signed pair in cert_dir made at start.

    The kubelet (server.go InitializeTLS) keeps <cert-dir>/kubelet.crt and kubelet.key when both can be read and
    otherwise generates a self-signed certificate for its hostname, valid for a year; here the openssl CLI makes it.
    """
    if config.get("tlsCertFile"):
        return host_path(config["tlsCertFile"]), host_path(config.get("tlsPrivateKeyFile") or "")
    cert, key = os.path.join(cert_dir, "kubelet.crt"), os.path.join(cert_dir, "kubelet.key")
    config["tlsCertFile"], config["tlsPrivateKeyFile"] = cert, key
    cert, key = host_path(cert), host_path(key)
    if not (os.path.isfile(cert) and os.path.isfile(key)):
        os.makedirs(os.path.dirname(cert), exist_ok=True)
        hostname = socket.gethostname()
        made = subprocess.run(
            [
                "openssl",
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "365",
                "-keyout",
                key,
                "-out",
                cert,
                "-subj",
                "/CN=%s@%d" % (hostname, int(time.time())),
                "-addext",
                f"subjectAltName=DNS:{hostname}",
                "-addext",
                "extendedKeyUsage=serverAuth",
                "-addext",
                "keyUsage=critical,digitalSignature,keyEncipherment",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if made.returncode != 0:
            raise StartError(f"unable to generate a self-signed certificate in {os.path.dirname(cert)}: {made.stderr.strip()}")
        os.chmod(key, 0o600)
    return cert, key


class KubeletApiHandler(HealthzHandler):
    """The kubelet API on its port: GET /configz -> {"kubeletconfig": ...}; /healthz as on the healthz port."""

    def _answer(self, with_body):
        if self.path.split("?", 1)[0] != "/configz":
            super()._answer(with_body)
            return
        body = json.dumps({"kubeletconfig": self.server.kubelet_config}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if with_body:
            self.wfile.write(body)


def serve_kubelet_api(config, cert_dir):
    """Bind address:port now; serve HTTPS in a daemon thread. Like the kubelet, a port that cannot be bound is fatal."""
    if config.get("enableServer") is False:
        return None
    shown = running_config(config)
    cert, key = serving_certificate(shown, cert_dir)
    address = str(config.get("address") or "0.0.0.0")

    class Server(http.server.ThreadingHTTPServer):
        address_family = socket.AF_INET6 if ":" in address else socket.AF_INET
        daemon_threads = True

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        context.load_cert_chain(cert, key)
    except (OSError, ssl.SSLError) as err:
        raise StartError("unable to load the serving certificate %s and key %s: %s" % (shown["tlsCertFile"], shown["tlsPrivateKeyFile"], err)) from None
    try:
        server = Server((address, config.get("port")), KubeletApiHandler)
    except OSError as err:
        raise StartError("failed to listen and serve on %s:%s: %s" % (address, config.get("port"), err)) from None
    server.socket = context.wrap_socket(server.socket, server_side=True)
    server.kubelet_config = shown
    thread = threading.Thread(target=server.serve_forever, name="kubelet-api", daemon=True)
    thread.start()
    return thread
