"""The platform double as a process of its own, for a network namespace made by a test.

    python netns_double.py <host> <port> <log file>

Appends one JSON line ``{"method", "path", "body", "authorization"}`` per request to the log
file. Register answers 200 with a uuid (status ``waitingForApproval``); ``approve`` answers 204;
reading a connector answers it ``connected``."""

from __future__ import annotations

import json
import sys
import uuid
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any


def main() -> None:
    host, port, log = sys.argv[1], int(sys.argv[2]), sys.argv[3]

    class Handler(BaseHTTPRequestHandler):
        def handle_any(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            entry = {
                "method": self.command,
                "path": self.path,
                "body": json.loads(body or b"null"),
                "authorization": self.headers.get("Authorization"),
            }
            with open(log, "a") as out:
                out.write(json.dumps(entry) + "\n")
            if self.path.endswith("/approve"):
                self.send_response(204)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            status = "waitingForApproval" if self.command == "POST" else "connected"
            payload = json.dumps({"uuid": str(uuid.uuid4()), "status": status}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = handle_any

        def log_message(self, *args: Any) -> None:
            pass

    HTTPServer((host, port), Handler).serve_forever()


if __name__ == "__main__":
    main()
