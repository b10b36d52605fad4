"""A stand-in for the platform's Core on 127.0.0.1: records registrations, answers from a script."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .http_answer import answer_json, serving


@dataclass
class Answer:
    status: int
    body: Any = None


@dataclass
class PlatformDouble:
    url: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    script: list[Answer] = field(default_factory=list)
    """Answers for the next requests, in order; after it runs out, 200 with a fresh uuid."""

    def answer(self) -> Answer:
        if self.script:
            return self.script.pop(0)
        return Answer(200, {"uuid": str(uuid.uuid4()), "name": "x", "status": "waitingForApproval"})


@contextmanager
def platform_double() -> Iterator[PlatformDouble]:
    holder: dict[str, PlatformDouble] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            double = holder["double"]
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            double.paths.append(self.path)
            double.requests.append(json.loads(raw or b"null"))
            answer = double.answer()
            answer_json(self, answer.status, json.dumps(answer.body).encode() if answer.body is not None else b"")

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    holder["double"] = PlatformDouble(url=f"http://127.0.0.1:{server.server_address[1]}/api")
    with serving(server):
        yield holder["double"]
