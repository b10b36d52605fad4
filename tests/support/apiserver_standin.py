"""A local HTTPS stand-in for the Kubernetes API server's service proxy, on 127.0.0.1.

It checks credentials (a bearer token, or a client certificate signed by its CA) and forwards
``/api/v1/namespaces/<ns>/services/<scheme>:<name>:<port>/proxy/<path>`` to the upstream the
test maps to that Service, answering 503 when there is none (no ready endpoints)."""

from __future__ import annotations

import json
import re
import ssl
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import yaml

from .http_answer import answer_json, serving

GOOD_TOKEN = "standin-admin-token"
FORBIDDEN_TOKEN = "standin-forbidden-token"
CLIENT_CN = "standin-admin"
PROXY = re.compile(
    r"^/api/v1/namespaces/(?P<ns>[^/]+)/services/(?P<scheme>https?):(?P<name>[^:/]+):(?P<port>\d+)/proxy(?P<path>/.*)$"
)


@dataclass
class Certificates:
    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path


def make_certificates(folder: Path) -> Certificates:
    """A CA, a serving certificate for 127.0.0.1 and a client certificate, made with openssl."""

    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=folder)

    run(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.crt",
        "-days",
        "1",
        "-subj",
        "/CN=standin-ca",
    )
    for name, subject, ext in (
        ("server", "/CN=127.0.0.1", "subjectAltName=IP:127.0.0.1"),
        ("client", f"/CN={CLIENT_CN}/O=system:masters", "extendedKeyUsage=clientAuth"),
    ):
        run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", subject)
        (folder / f"{name}.ext").write_text(ext + "\n")
        run(
            "x509",
            "-req",
            "-in",
            f"{name}.csr",
            "-CA",
            "ca.crt",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            f"{name}.crt",
            "-days",
            "1",
            "-extfile",
            f"{name}.ext",
        )
    return Certificates(
        folder / "ca.crt", folder / "server.crt", folder / "server.key", folder / "client.crt", folder / "client.key"
    )


@dataclass
class ApiServerStandIn:
    url: str
    certificates: Certificates
    upstreams: dict[tuple[str, str, int], str] = field(default_factory=dict)
    """(namespace, service, port) -> base URL the proxy forwards to."""
    requests: list[dict[str, Any]] = field(default_factory=list)
    objects: dict[str, dict[str, Any]] = field(default_factory=dict)
    """API paths (``/api/v1/namespaces/<ns>/secrets/<name>``) -> objects served to GET."""


@contextmanager
def api_server_standin(folder: Path) -> Iterator[ApiServerStandIn]:
    certificates = make_certificates(folder)
    holder: dict[str, ApiServerStandIn] = {}

    class Handler(BaseHTTPRequestHandler):
        def answer(self, status: int, body: bytes = b"{}") -> None:
            answer_json(self, status, body)

        def authorized(self) -> bool:
            peer = self.connection.getpeercert() if isinstance(self.connection, ssl.SSLSocket) else None
            subject = dict(item[0] for item in peer["subject"]) if peer else {}
            return self.headers.get("Authorization") == f"Bearer {GOOD_TOKEN}" or subject.get("commonName") == CLIENT_CN

        def do_GET(self) -> None:
            if not self.authorized():
                return self.answer(401)
            obj = holder["standin"].objects.get(self.path.split("?")[0])
            self.answer(200 if obj else 404, json.dumps(obj or {"kind": "Status", "code": 404}).encode())

        def do_POST(self) -> None:
            standin = holder["standin"]
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            peer = self.connection.getpeercert() if isinstance(self.connection, ssl.SSLSocket) else None
            subject = dict(item[0] for item in peer["subject"]) if peer else {}
            auth = self.headers.get("Authorization")
            standin.requests.append({"path": self.path, "authorization": auth, "client_cn": subject.get("commonName")})
            if auth == f"Bearer {FORBIDDEN_TOKEN}":
                return self.answer(403, b'{"kind":"Status","message":"forbidden: LEAKED-API-DETAIL"}')
            if auth != f"Bearer {GOOD_TOKEN}" and subject.get("commonName") != CLIENT_CN:
                return self.answer(401, b'{"kind":"Status","message":"Unauthorized"}')
            match = PROXY.match(self.path)
            if match is None:
                return self.answer(404)
            upstream = standin.upstreams.get((match["ns"], match["name"], int(match["port"])))
            if upstream is None:
                return self.answer(503, b'{"kind":"Status","message":"no endpoints available for service"}')
            forwarded = httpx.post(upstream + match["path"], content=body, headers={"Content-Type": "application/json"})
            self.answer(forwarded.status_code, forwarded.content)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificates.server_cert, certificates.server_key)
    context.load_verify_locations(certificates.ca)
    context.verify_mode = ssl.CERT_OPTIONAL
    server.socket = context.wrap_socket(server.socket, server_side=True)
    holder["standin"] = ApiServerStandIn(f"https://127.0.0.1:{server.server_address[1]}", certificates)
    with serving(server):
        yield holder["standin"]


def kubeconfig_for(standin, **user: Any) -> str:
    return yaml.safe_dump(
        {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [
                {"name": "c", "cluster": {"server": standin.url, "certificate-authority": str(standin.certificates.ca)}}
            ],
            "users": [{"name": "u", "user": user}],
            "contexts": [{"name": "ctx", "context": {"cluster": "c", "user": "u"}}],
            "current-context": "ctx",
        }
    )
