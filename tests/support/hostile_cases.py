"""What the hostile-platform tests share: the credentials no message or log may show, the
registration's inputs, and the failure every bad answer must end in."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from components.registration.errors import RegistrationError

from .registration_props import registration_props

TOKEN = "Admin-Token-7c1e"
PASSWORD = "attribute-password-93b2"
FRAGMENT = "BODY-FRAGMENT-5f0a"
GOOD_UUID = "6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b"
BAD_UUIDS = ["../../admin/x", "a/b?c", "x\r\ny", f"{GOOD_UUID}/../x", ""]


def props(url: str, deadline: float = 1.5, admin: bool = False, **extra: Any) -> dict[str, Any]:
    given: dict[str, Any] = {
        "auth_type": "basic",
        "auth_attributes": [{"name": "password", "content": PASSWORD}],
        "retry_initial_seconds": 0.05,
        "retry_max_seconds": 0.1,
        "deadline_seconds": deadline,
        "connector_label": 'connector "x509"',
    }
    if admin:
        given["admin_credentials"] = {"bearerToken": TOKEN}
    return registration_props(**{"platform_url": url, **given, **extra})


def registered(uuid: str, status: str = "waitingForApproval") -> bytes:
    return json.dumps({"uuid": uuid, "name": "X.509", "status": status}).encode()


def fails(operation: Any, *args: Any) -> tuple[str, float]:
    """The message of the RegistrationError ``operation`` ends in, and how long it took."""
    start = time.monotonic()
    with pytest.raises(RegistrationError) as caught:
        operation(*args)
    message = str(caught.value)
    assert caught.value.__cause__ is None
    assert TOKEN not in message and PASSWORD not in message and FRAGMENT not in message
    return message, time.monotonic() - start
