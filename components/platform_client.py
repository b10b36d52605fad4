"""The one HTTP call to the platform: register a connector, with retries and clean messages.

Nothing the platform sends back on failure is read, and no URL, host or exception text
reaches a message: the body of a refusal can echo request and identity material.
"""

from __future__ import annotations

import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx

from .cluster_access import ApiServerAccess
from .routing import in_cluster_target

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


@dataclass(frozen=True)
class Destination:
    """Where the request goes and with what transport settings; built per call, never stored."""

    url: str
    verify: bool | str = True
    headers: tuple[tuple[str, str], ...] = ()
    cert: tuple[str, str] | None = None
    refusal_suffix: str = ""
    """Added to a 401/403 message to say which side refused."""


def tls_context(verify: bool | str, cert: tuple[str, str] | None) -> ssl.SSLContext | bool:
    """What httpx takes as ``verify``: a context with the CA bundle and client certificate."""
    if verify is True and cert is None:
        return True
    context = ssl.create_default_context(cafile=verify if isinstance(verify, str) else None)
    if verify is False:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    if cert is not None:
        context.load_cert_chain(*cert)
    return context


def direct(platform_url: str, tls: TlsSettings = TlsSettings()) -> Destination:
    return Destination(register_url(platform_url), verify=tls.verify())


def through_api_server(platform_url: str, access: ApiServerAccess) -> Destination:
    """The same request through the API server's service proxy to the platform's Service."""
    target = in_cluster_target(register_url(platform_url))
    if target is None:
        raise RegistrationError("registration failed: platformUrl is not an in-cluster Service address")
    headers = (("Authorization", access.authorization),) if access.authorization else ()
    return Destination(
        access.host + target.proxy_path(),
        verify=access.verify,
        headers=headers,
        cert=access.client_cert,
        refusal_suffix=" from the Kubernetes API server",
    )


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


def _attempt(client: httpx.Client, destination: Destination, body: dict[str, Any]) -> Registered:
    try:
        with client.stream("POST", destination.url, json=body) as response:
            status = response.status_code
            if status >= 500:
                raise _Retryable(f"status {status}")
            if status in (401, 403):
                raise RegistrationError(f"registration failed with status {status}{destination.refusal_suffix}")
            if status != 200:
                raise RegistrationError(f"registration failed with status {status}")
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
    destination: Destination | str,
    body: dict[str, Any],
    retry: RetryPolicy = RetryPolicy(),
    timeout_seconds: float = 30,
    sleep: Callable[[float], None] = time.sleep,
) -> Registered:
    """POST the registration; retry 5xx and transport failures on the policy's schedule.

    A plain string is a platform URL reached directly with TLS verified."""
    if isinstance(destination, str):
        destination = direct(destination)
    delays = retry.delays()
    attempts = 0
    with httpx.Client(
        verify=tls_context(destination.verify, destination.cert),
        headers=dict(destination.headers),
        timeout=timeout_seconds,
        follow_redirects=False,
    ) as client:
        while True:
            attempts += 1
            try:
                return _attempt(client, destination, body)
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
