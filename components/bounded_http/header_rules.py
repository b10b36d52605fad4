"""What may travel in a request, checked without sending anything (and without loading httpx:
the argument models restate these rules as field rules): a header value, PEM text, a loopback host."""

from __future__ import annotations

import ipaddress
import re

HEADER_VALUE = re.compile(r"[\x21-\x7e]+")
HEADER_RULE = "must be printable ASCII without spaces or line breaks (a value an HTTP header can carry)"
PEM_MARK = "-----BEGIN"
"""What PEM text holds and a file's path does not."""


def header_value_problem(value: object) -> str | None:
    if not isinstance(value, str) or not HEADER_VALUE.fullmatch(value):
        return HEADER_RULE
    return None


def is_loopback(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
