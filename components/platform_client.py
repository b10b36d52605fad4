"""The one HTTP call to the platform: register a connector, with retries and clean messages.

Nothing the platform sends back on failure is read, and no URL, host or exception text
reaches a message: the body of a refusal can echo request and identity material.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx

PLATFORM_STATUSES = ("waitingForApproval", "connected", "failed", "offline")
TRANSPORT_FAILURE = "the platform could not be reached"


class RegistrationError(Exception):
    """A failed registration; its message holds a status code or a fixed phrase only."""


@dataclass(frozen=True)
class RetryPolicy:
    initial_seconds: float = 5
    max_seconds: float = 300
    deadline_seconds: float = 600

    def delays(self) -> list[float]:
        """The waits between attempts, doubling to the ceiling, within the deadline."""
        out, delay, total = [], self.initial_seconds, 0.0
        while total + delay <= self.deadline_seconds:
            out.append(delay)
            total += delay
            delay = min(delay * 2, self.max_seconds)
        return out


@dataclass(frozen=True)
class TlsSettings:
    ca_bundle: str | None = None
    insecure_skip_verify: bool = False

    def verify(self) -> bool | str:
        if self.insecure_skip_verify:
            return False
        return self.ca_bundle or True


@dataclass(frozen=True)
class Registered:
    uuid: str
    status: str
    registered_at: str


def register_url(platform_url: str) -> str:
    """Join, never rewrite: a trailing slash is tolerated and a missing /api is not added."""
    return platform_url.rstrip("/") + "/v2/connector/register"


def request_body(
    name: str,
    version: str,
    url: str,
    auth_type: str,
    auth_attributes: list[dict[str, Any]] | None,
    custom_attributes: list[dict[str, Any]] | None,
) -> dict[str, Any]:
    return {
        "name": name,
        "version": version,
        "url": url,
        "authType": auth_type,
        "authAttributes": list(auth_attributes or []),
        "customAttributes": list(custom_attributes or []),
    }


class _Retryable(Exception):
    def __init__(self, reason: str) -> None:
        self.reason = reason


def _attempt(client: httpx.Client, url: str, body: dict[str, Any]) -> Registered:
    try:
        with client.stream("POST", url, json=body) as response:
            if response.status_code >= 500:
                raise _Retryable(f"status {response.status_code}")
            if response.status_code != 200:
                raise RegistrationError(f"registration failed with status {response.status_code}")
            response.read()
            try:
                payload = response.json()
            except ValueError:
                raise RegistrationError("registration failed: the platform's answer was not JSON") from None
    except httpx.TransportError:
        raise _Retryable(TRANSPORT_FAILURE) from None
    uuid = payload.get("uuid") if isinstance(payload, dict) else None
    if not isinstance(uuid, str) or not uuid.strip():
        raise RegistrationError("registration failed: the platform answered 200 without a uuid")
    status = payload.get("status")
    if status not in PLATFORM_STATUSES:
        raise RegistrationError(
            f"registration failed: the platform answered an unknown status (expected one of {', '.join(PLATFORM_STATUSES)})"
        )
    now = datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    return Registered(uuid=uuid, status=status, registered_at=now)


def register(
    platform_url: str,
    body: dict[str, Any],
    retry: RetryPolicy = RetryPolicy(),
    tls: TlsSettings = TlsSettings(),
    timeout_seconds: float = 30,
    sleep: Callable[[float], None] = time.sleep,
) -> Registered:
    """POST the registration; retry 5xx and transport failures on the policy's schedule."""
    url = register_url(platform_url)
    delays = retry.delays()
    attempts = 0
    with httpx.Client(verify=tls.verify(), timeout=timeout_seconds, follow_redirects=False) as client:
        while True:
            attempts += 1
            try:
                return _attempt(client, url, body)
            except _Retryable as failure:
                if attempts > len(delays):
                    reason = failure.reason
                    detail = f"with {reason}" if reason.startswith("status") else f"({reason})"
                    raise RegistrationError(
                        f"registration failed {detail} after {attempts} attempts within the {retry.deadline_seconds:g} s deadline"
                    ) from None
                try:
                    sleep(delays[attempts - 1])
                except KeyboardInterrupt:
                    raise RegistrationError("registration cancelled while waiting to retry") from None
