"""The one way the test servers answer: a status and a JSON body."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler


def answer_json(handler: BaseHTTPRequestHandler, status: int, payload: bytes) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(payload)))
    handler.end_headers()
    handler.wfile.write(payload)
