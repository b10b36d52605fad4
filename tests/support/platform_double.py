"""A stand-in for the platform's Core on 127.0.0.1: connector records with the Core's rules,
every request and answer checked against its OpenAPI description.

- ``POST /v2/connector/register`` needs no credentials, and answers in the Core's order
  (release 2.18.0): a body it cannot read as its request (an attribute whose content is not a
  list of ``{data}`` items) 400; a blank name 422 ``{"message"}``; a duplicate name, then a
  duplicate url+version, 409; with ``callback`` set, the call back to the connector
  (``GET <url>/v2/info`` for v2, ``GET <url>/v1`` for v1: nothing listening 503, the connector's
  404 answered 404, a v2 connector whose info lacks the info, health and metrics interfaces or a
  functional one refused, 422 assumed: the facts give no status for it); then the record is
  saved (``waitingForApproval``); then, with ``attribute_definitions`` set, each custom
  attribute is looked up by name: an unknown one answers 404 and the record stays.
- ``GET|PUT|DELETE /v2/connectors/{uuid}``, ``PATCH .../approve``, ``POST /v2/connectors/list``
  and ``GET .../health`` need an administrator: ``Authorization: Bearer <ADMIN_TOKEN>`` (401
  without, 403 with another token), or a client certificate verified by the TLS layer when the
  stand-in serves HTTPS (as the Core's gateway does: a certificate of another CA ends the
  handshake with an alert); 404 for an unknown uuid. As the Core: an edit (PUT) of a record
  that waits for approval, and an approve of one that does not, answer 422 with an array of
  strings; the list leaves out the records the caller may not see (``hidden``).
- ``script`` holds answers for the next register calls (fault injection: 503, 400...).

Anything the OpenAPI file does not allow (an unknown path or method, a body that breaks the
request schema, an answer status or body the operation does not declare) is recorded in
``violations``; the tests assert there are none.
"""

from __future__ import annotations

import json
import ssl
import threading
import uuid as uuids
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .core_contract import json_schema_of, operation, registry, schema_problems
from .http_answer import answer_json, serving
from .platform_register import RegisterCalls

ADMIN_TOKEN = "platform-admin-jwt-test-token"
REQUIRED_INTERFACES = ("info", "health", "metrics")
V2_INTERFACES = (*REQUIRED_INTERFACES, "compliance")
"""What a v2 connector's ``/v2/info`` must list: the three the Core requires, and a functional one."""


@dataclass
class Answer:
    status: int
    body: Any = None


@dataclass
class Record:
    uuid: str
    name: str
    version: str
    url: str
    auth_type: str
    auth_attributes: list[Any]
    custom_attributes: list[Any]
    status: str = "waitingForApproval"

    interfaces: list[str] = field(default_factory=lambda: list(V2_INTERFACES))

    def detail(self) -> dict[str, Any]:
        return {
            "uuid": self.uuid,
            "name": self.name,
            "version": self.version,
            "url": self.url,
            "status": self.status,
            "authType": self.auth_type,
            "functionGroups": [],
            "interfaces": [
                {"uuid": str(uuids.uuid5(uuids.NAMESPACE_URL, code)), "code": code, "version": "v2"} for code in self.interfaces
            ],
        }


@dataclass
class PlatformDouble:
    url: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    """Bodies of the register calls, in order."""
    paths: list[str] = field(default_factory=list)
    """Paths of the register calls, in order."""
    register_times: list[datetime] = field(default_factory=list)
    """When each register call arrived (UTC)."""
    calls: list[tuple[str, str]] = field(default_factory=list)
    """Every request as (method, path under /api)."""
    peers: list[int] = field(default_factory=list)
    """The client's port of each call: calls on one connection share it."""
    cut_off: int = 0
    """Requests whose connection closed before their body had come (a client killed while
    sending): dropped unprocessed, as any HTTP server drops them, and not a violation."""
    script: list[Answer] = field(default_factory=list)
    """Answers for the next register calls, in order, before the records are consulted."""
    records: dict[str, Record] = field(default_factory=dict)
    violations: list[str] = field(default_factory=list)
    admin_cert_subjects: list[str] = field(default_factory=list)
    register_delay: float = 0.0
    """Seconds each register call waits before it is answered (a slow platform)."""
    lock: threading.Lock = field(default_factory=threading.Lock)
    """Held while a record is checked for duplicates and added (requests are served in threads)."""
    register_gate: threading.Event | None = None
    """When set, register calls are held until the event is set (a run kept busy on purpose)."""
    hold_after: int | None = None
    """Register calls that arrive once the platform holds this many records are kept waiting,
    unsaved and unanswered, until ``released`` is set (a run killed while its requests travel)."""
    lose_answers_after: int | None = None
    """Register calls that find the platform holding this many records are saved, then their
    answers kept back until ``released`` and dropped (a run killed before the answer arrived)."""
    released: threading.Event = field(default_factory=threading.Event)
    held: int = 0
    """How many register calls are being kept waiting."""
    after_register: Callable[[], None] | None = None
    """Called once a register call has been answered (a test kills the client there)."""
    callback: bool = False
    """Call the connector back at its url before registering it, as the Core does."""
    resolve: Callable[[str], str] | None = None
    """The cluster's DNS for the call back (a Service's name to its address), on the host."""
    attribute_definitions: set[str] | None = None
    """The names of the platform's custom attribute definitions; None: every name has one."""
    hidden: set[str] = field(default_factory=set)
    """uuids of records the administrator may not see: the Core filters its list by the caller's
    object permissions."""

    def count(self, method: str, template: str) -> int:
        """How many requests matched the OpenAPI path ``template`` with ``method``."""
        return sum(1 for m, p in self.calls if m == method and (found := operation(m, p)) and found[0] == template)

    def add(self, name: str, url: str, version: str = "v2", status: str = "waitingForApproval") -> Record:
        """A record as if registered earlier (by the operator, or before state was lost)."""
        record = Record(str(uuids.uuid4()), name, version, url, "none", [], [], status)
        self.records[record.uuid] = record
        return record

    def by_name(self, name: str) -> list[Record]:
        return [r for r in self.records.values() if r.name == name]


class _CutOff(Exception):
    """A request's body ended early: its client went away while sending it."""


class _Handler(RegisterCalls, BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the Core's server answers

    double: PlatformDouble

    def log_message(self, *args: Any) -> None:
        pass

    def _body(self) -> Any:
        """The request's JSON body, None without one; raises ``_CutOff`` when the connection
        closed before the ``Content-Length`` it announced had come."""
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if len(raw) < length:
            raise _CutOff
        return json.loads(raw) if raw else None

    def _answer(self, op: dict[str, Any] | None, status: int, body: Any = None) -> None:
        double = self.double
        if op is not None:
            declared = op.get("responses", {})
            if str(status) not in declared:
                double.violations.append(f"{self.command} {self.path}: answered {status}, not declared")
            else:
                schema = json_schema_of(declared[str(status)].get("content"))
                if schema is not None and body is not None:
                    double.violations += [f"{self.command} {self.path} answer: {p}" for p in schema_problems(schema, body)]
        answer_json(self, status, json.dumps(body).encode() if body is not None else b"")

    def _admin(self, op: dict[str, Any]) -> bool:
        """Answers 401/403 and returns False unless the caller is an administrator."""
        peer = getattr(self.connection, "getpeercert", lambda: None)()
        if peer:
            subject = dict(part[0] for part in peer.get("subject", ()))
            self.double.admin_cert_subjects.append(subject.get("commonName", ""))
            return True
        header = self.headers.get("Authorization")
        if header is None:
            self._answer(op, 401)
            return False
        if header != f"Bearer {ADMIN_TOKEN}":
            self._answer(op, 403, {"statusCode": 403, "code": "FORBIDDEN", "message": "forbidden"})
            return False
        return True

    def _handle(self) -> None:
        double = self.double
        if not self.path.startswith("/api/"):
            double.violations.append(f"{self.command} {self.path}: not under /api")
            answer_json(self, 404, b"")
            return
        path = self.path.removeprefix("/api")
        try:
            body = self._body()
        except _CutOff:
            double.cut_off += 1
            self.close_connection = True
            return
        double.calls.append((self.command, path))
        double.peers.append(self.client_address[1])
        found = operation(self.command, path)
        if found is None:
            double.violations.append(f"{self.command} {path}: no such operation in the OpenAPI description")
            answer_json(self, 404, b"")
            return
        template, op = found
        unreadable = self._request_problems(op, template, path, body)
        uuid = path.split("/")[3] if template.startswith("/v2/connectors/{uuid}") else None
        if template == "/v2/connector/register":
            self._register(op, path, body, unreadable)
            return
        if not self._admin(op):
            return
        if template == "/v2/connectors/list":
            self._answer(op, 200, self._page(body if isinstance(body, dict) else {}))
            return
        record = double.records.get(uuid or "")
        if record is None:
            self._answer(op, 404, {"message": "connector not found"})
            return
        if template == "/v2/connectors/{uuid}" and self.command == "GET":
            self._answer(op, 200, record.detail())
        elif template == "/v2/connectors/{uuid}" and self.command == "PUT":
            clash = [
                r
                for r in double.records.values()
                if r.uuid != record.uuid and (r.url, r.version) == (body["url"], record.version)
            ]
            if clash:
                self._answer(op, 400, {"message": "duplicate url"})
                return
            if record.status == "waitingForApproval":  # the Core edits approved records only
                self._answer(op, 422, ["Connector has invalid status: Waiting for approval"])
                return
            record.url, record.auth_type = body["url"], body["authType"]
            record.auth_attributes, record.custom_attributes = body.get("authAttributes") or [], body["customAttributes"]
            self._answer(op, 200, record.detail())
        elif template == "/v2/connectors/{uuid}" and self.command == "DELETE":
            del double.records[record.uuid]
            self._answer(op, 204)
        elif template == "/v2/connectors/{uuid}/approve" and record.status != "waitingForApproval":
            shown = {"connected": "Connected", "failed": "Failed", "offline": "Offline"}[record.status]
            # Undeclared in the OpenAPI file; the Core 2.18.0 answers so (an array of strings, as its other 422s).
            answer_json(self, 422, json.dumps([f"Connector '{record.name}' has unexpected status {shown}"]).encode())
        elif template == "/v2/connectors/{uuid}/approve":
            record.status = "connected"
            self._answer(op, 204)
        elif template == "/v2/connectors/{uuid}/health":
            self._answer(op, 200, {"status": "ok"})
        else:
            double.violations.append(f"{self.command} {path}: not served by the stand-in")
            answer_json(self, 501, b"")

    def _page(self, asked: dict[str, Any]) -> dict[str, Any]:
        """The page asked for (``pageNumber`` from 1, ``itemsPerPage``), as the Core pages its list."""
        items = [r.detail() for r in list(self.double.records.values()) if r.uuid not in self.double.hidden]
        size, number = max(int(asked.get("itemsPerPage") or 10), 1), max(int(asked.get("pageNumber") or 1), 1)
        pages = max(-(-len(items) // size), 1)
        shown = items[(number - 1) * size : number * size]
        return {"items": shown, "itemsPerPage": size, "pageNumber": number, "totalPages": pages, "totalItems": len(items)}

    def _request_problems(self, op: dict[str, Any], template: str, path: str, body: Any) -> bool:
        """Whether the body breaks the request schema (each problem recorded as a violation). A
        register call's blank name is the Core's validation (422), not a body it cannot read."""
        request_schema = json_schema_of((op.get("requestBody") or {}).get("content"))
        if request_schema is None:
            return False
        if body is None:
            if (op.get("requestBody") or {}).get("required"):
                self.double.violations.append(f"{self.command} {path}: required body missing")
            return False
        read = body
        if template == "/v2/connector/register" and isinstance(body, dict) and isinstance(body.get("name"), str):
            read = {**body, "name": body["name"] or "x"}
        problems = [f"{self.command} {path} request: {p}" for p in schema_problems(request_schema, read)]
        self.double.violations += problems
        return bool(problems)

    def _refuse(self, status: int, message: str) -> None:
        """An answer the OpenAPI file leaves undeclared for the operation, as the Core gives it."""
        answer_json(self, status, json.dumps({"message": message}).encode())

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _handle


@contextmanager
def platform_double(tls: Any = None) -> Iterator[PlatformDouble]:
    """Serves the stand-in on 127.0.0.1; ``tls`` (``tests.support.apiserver_standin.Certificates``) makes
    it HTTPS with client certificates signed by that CA accepted as administrators."""
    # Parsed before serving: threads answering the first requests at once would each parse the
    # description (``cache`` does not hold them back), seconds of CPU the client sees as delay.
    registry()
    handler = type("Handler", (_Handler,), {})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    scheme = "http"
    if tls is not None:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(tls.server_cert, tls.server_key)
        context.load_verify_locations(tls.ca)
        context.verify_mode = ssl.CERT_OPTIONAL
        server.socket = context.wrap_socket(server.socket, server_side=True)
        scheme = "https"
    double = PlatformDouble(url=f"{scheme}://127.0.0.1:{server.server_address[1]}/api")
    handler.double = double
    with serving(server):
        try:
            yield double
        finally:
            double.released.set()  # before the server waits for its handlers' threads
