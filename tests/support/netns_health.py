"""A connector's health endpoint as a process of its own, for a network namespace made by a
test: ``python netns_health.py <host> <port> <ok|fail|silent>``. ``ok`` answers 200, ``fail``
500, ``silent`` never answers (it reads the request and waits)."""

from __future__ import annotations

import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def main() -> None:
    host, port, behaviour = sys.argv[1], int(sys.argv[2]), sys.argv[3]

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if behaviour == "silent":
                time.sleep(120)
                return
            body = b'{"status": "ok"}' if behaviour == "ok" else b'{"status": "down", "detail": "HEALTH-DETAIL"}'
            self.send_response(200 if behaviour == "ok" else 500)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    ThreadingHTTPServer((host, port), Handler).serve_forever()


if __name__ == "__main__":
    main()
