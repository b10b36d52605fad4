"""The Core's call back to a connector before it registers it (release 2.18.0), for the
platform double: ``GET <url>/v2/info`` for a v2 connector, ``GET <url>/v1`` for a v1 one."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from typing import Any

REQUIRED = {"info", "health", "metrics"}
REFUSED = 422
"""The status for a connector that answers but not as the Core requires (assumed: the facts give none)."""


def _get(url: str) -> tuple[int, Any]:
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(request, timeout=5) as response:
        return response.status, json.loads(response.read() or b"null")


def call_back(url: str, version: str, resolve: Callable[[str], str] | None = None) -> tuple[int | None, list[str]]:
    """The status the Core answers when the connector does not do (None: it does), and the
    interfaces the connector lists (v2). ``resolve``: the cluster's DNS for the url's host (a
    Service's name to its address), where the double runs on the host."""
    path = "/v2/info" if version == "v2" else "/v1"
    try:
        parts = urllib.parse.urlsplit(url)
        if resolve is not None and parts.hostname:
            url = parts._replace(netloc=f"{resolve(parts.hostname)}:{parts.port or 80}").geturl()
        status, payload = _get(url.rstrip("/") + path)
    except urllib.error.HTTPError as error:
        return (404 if error.code == 404 else 502), []
    except (OSError, ValueError):
        return 503, []
    if status != 200:
        return 502, []
    if version == "v1":
        return (None if isinstance(payload, list) and payload else REFUSED), []
    interfaces = payload.get("interfaces") if isinstance(payload, dict) else None
    codes = [i.get("code") for i in interfaces or [] if isinstance(i, dict)]
    functional = set(codes) - REQUIRED
    if not REQUIRED <= set(codes) or not functional:
        return REFUSED, []
    return None, [str(code) for code in codes]
