"""A platform that answers badly on purpose: a raw socket server on 127.0.0.1 whose answer to
each request is a function the test gives (drip, black hole, oversized, compressed bombs, odd
JSON, redirects...). It records every request (method, path, headers) it read."""

from __future__ import annotations

import socket
import ssl
import struct
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


Behaviour = Callable[[Request, socket.socket, threading.Event], None]
"""Answers a request on its connection; a slow one gives up when the event (the end of the test) is set."""


@dataclass
class HostilePlatform:
    url: str
    behaviour: Behaviour
    requests: list[Request] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)


def raw_answer(status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> bytes:
    head = [f"HTTP/1.1 {status} X", f"Content-Length: {len(body)}", "Connection: close"]
    head += [f"{k}: {v}" for k, v in (headers or {}).items()]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def answer(status: int, body: bytes = b"", **headers: str) -> Behaviour:
    def behave(_request: Request, conn: socket.socket, _stop: threading.Event) -> None:
        conn.sendall(raw_answer(status, body, {k.replace("_", "-"): v for k, v in headers.items()}))

    return behave


def _read_request(conn: socket.socket) -> Request | None:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method, path, _ = lines[0].split(" ", 2)
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    length = int(headers.get("content-length") or 0)
    while len(rest) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        rest += chunk
    return Request(method, path, headers, rest)


def _serve(platform: HostilePlatform, conn: socket.socket) -> None:
    with conn:
        try:
            request = _read_request(conn)
            if request is not None:
                platform.requests.append(request)
                platform.behaviour(request, conn, platform.stop)
        except OSError:
            pass


@contextmanager
def hostile_platform(behaviour: Behaviour, tls: ssl.SSLContext | None = None) -> Iterator[HostilePlatform]:
    """Serves ``behaviour`` on 127.0.0.1 (HTTPS with ``tls``) for the block; stops every
    connection's thread at the end (``platform.stop`` tells slow behaviours to give up)."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.1)
    scheme = "https" if tls else "http"
    platform = HostilePlatform(f"{scheme}://127.0.0.1:{server.getsockname()[1]}/api", behaviour)
    threads: list[threading.Thread] = []

    def accept() -> None:
        while not platform.stop.is_set():
            try:
                conn, _ = server.accept()
            except (TimeoutError, OSError):
                continue
            if tls is not None:
                try:
                    conn = tls.wrap_socket(conn, server_side=True)
                except (ssl.SSLError, OSError):
                    conn.close()
                    continue
            thread = threading.Thread(target=_serve, args=(platform, conn), daemon=True)
            thread.start()
            threads.append(thread)

    acceptor = threading.Thread(target=accept, daemon=True)
    acceptor.start()
    try:
        yield platform
    finally:
        platform.stop.set()
        acceptor.join(5)
        server.close()
        for thread in threads:
            thread.join(5)


def drip(head: bytes, every: float = 0.2, byte: bytes = b" ") -> Behaviour:
    """Sends ``head`` then ``byte`` every ``every`` seconds, until the test ends."""

    def behave(_request: Request, conn: socket.socket, stop: threading.Event) -> None:
        conn.sendall(head)
        while not stop.wait(every):
            conn.sendall(byte)

    return behave


def black_hole(_request: Request, _conn: socket.socket, stop: threading.Event) -> None:
    """Reads the request and never answers."""
    stop.wait(60)


def reset(_request: Request, conn: socket.socket, _stop: threading.Event) -> None:
    """Closes the connection without an answer, at once (a reset)."""
    conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def sequence(*behaviours: Behaviour) -> Behaviour:
    """Each request gets the next behaviour; the last one repeats."""
    queue = list(behaviours)

    def behave(request: Request, conn: socket.socket, stop: threading.Event) -> None:
        (queue.pop(0) if len(queue) > 1 else queue[0])(request, conn, stop)

    return behave


def json_answer(status: int, text: str, **headers: Any) -> Behaviour:
    return answer(status, text.encode(), Content_Type="application/json", **headers)
