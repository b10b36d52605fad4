"""The platform double as a process of its own, for a network namespace made by a test.

    python netns_double.py <host> <port> <log file>

Appends one JSON line ``{"path", "body"}`` per request to the log file; answers 200 with a uuid."""

from __future__ import annotations

import json
import sys
import uuid
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any


def main() -> None:
    host, port, log = sys.argv[1], int(sys.argv[2]), sys.argv[3]

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            with open(log, "a") as out:
                out.write(json.dumps({"path": self.path, "body": json.loads(body or b"null")}) + "\n")
            payload = json.dumps({"uuid": str(uuid.uuid4()), "status": "waitingForApproval"}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: Any) -> None:
            pass

    HTTPServer((host, port), Handler).serve_forever()


if __name__ == "__main__":
    main()
