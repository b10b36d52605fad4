"""The HTTP calls to the platform's Core: register a connector, and with an administrator's
credentials read, edit, approve, list and delete connector records; with retries and clean
messages.

Nothing the platform sends back on failure is read, and no URL, host, credential or exception
text reaches a message: the body of a refusal can echo request and identity material.
"""

from __future__ import annotations

import os
import ssl
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

import httpx

from .cluster_access import ApiServerAccess
from .routing import in_cluster_target

PLATFORM_STATUSES = ("waitingForApproval", "connected", "failed", "offline")
TRANSPORT_FAILURE = "the platform could not be reached"


class RegistrationError(Exception):
    """A failed call to the platform; its message holds a status code or a fixed phrase only."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class AdminCredentials:
    """An administrator of the platform: a bearer JWT, or a client certificate and key (PEM)
    presented in TLS to the platform's gateway. Never stored on a client, never printed."""

    bearer_token: str | None = None
    client_certificate: str | None = None
    client_key: str | None = None

    def __repr__(self) -> str:
        return "AdminCredentials(<hidden>)"

    @staticmethod
    def from_props(value: Any) -> AdminCredentials | None:
        if not isinstance(value, dict) or not any(value.get(k) for k in ("bearerToken", "clientCertificate")):
            return None
        return AdminCredentials(value.get("bearerToken"), value.get("clientCertificate"), value.get("clientKey"))


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
    """Where the requests go and with what transport settings; built per call, never stored.

    ``base`` is the platform URL (``.../api``) or its path through the API server's proxy;
    each operation's path is joined to it."""

    base: str
    verify: bool | str = True
    headers: tuple[tuple[str, str], ...] = ()
    cert: tuple[str, str] | None = None
    refusal_suffix: str = ""
    """Added to a 401/403 message to say which side refused."""
    admin: AdminCredentials | None = None

    @property
    def url(self) -> str:
        """The register endpoint."""
        return self.at(REGISTER_PATH)

    def at(self, path: str) -> str:
        return self.base.rstrip("/") + path

    def with_admin(self, admin: AdminCredentials | None) -> Destination:
        return replace(self, admin=admin)


REGISTER_PATH = "/v2/connector/register"


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
    return Destination(platform_url.rstrip("/"), verify=tls.verify())


def through_api_server(platform_url: str, access: ApiServerAccess) -> Destination:
    """The same requests through the API server's service proxy to the platform's Service."""
    target = in_cluster_target(platform_url)
    if target is None:
        raise RegistrationError("registration failed: platformUrl is not an in-cluster Service address")
    headers = (("Authorization", access.authorization),) if access.authorization else ()
    return Destination(
        access.host + target.proxy_path().rstrip("/"),
        verify=access.verify,
        headers=headers,
        cert=access.client_cert,
        refusal_suffix=" from the Kubernetes API server",
    )


def register_url(platform_url: str) -> str:
    """Join, never rewrite: a trailing slash is tolerated and a missing /api is not added."""
    return platform_url.rstrip("/") + REGISTER_PATH


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


@dataclass(frozen=True)
class Answer:
    status: int
    payload: Any


def now_utc() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


PROXY_ADMIN_REFUSED = "administrator calls cannot go through the API server's proxy: it forwards no credentials to the platform"


@contextmanager
def _client(destination: Destination, timeout_seconds: float) -> Iterator[httpx.Client]:
    """A client with the destination's TLS and headers, plus the administrator's credentials
    when given: a bearer header, or the client certificate written for the call's lifetime
    only to a private temporary folder (the TLS library reads it from a file)."""
    headers = dict(destination.headers)
    cert = destination.cert
    admin = destination.admin
    with tempfile.TemporaryDirectory(prefix="platform-admin-") as folder:
        if admin is not None and admin.bearer_token:
            if destination.refusal_suffix:
                raise RegistrationError(PROXY_ADMIN_REFUSED)
            headers["Authorization"] = f"Bearer {admin.bearer_token}"
        elif admin is not None and admin.client_certificate and admin.client_key:
            if destination.refusal_suffix:
                raise RegistrationError(PROXY_ADMIN_REFUSED)
            cert_path, key_path = os.path.join(folder, "admin.crt"), os.path.join(folder, "admin.key")
            for path, text in ((cert_path, admin.client_certificate), (key_path, admin.client_key)):
                descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(descriptor, "w") as handle:
                    handle.write(text)
            cert = (cert_path, key_path)
        with httpx.Client(
            verify=tls_context(destination.verify, cert),
            headers=headers,
            timeout=timeout_seconds,
            follow_redirects=False,
        ) as client:
            yield client


def call(
    destination: Destination,
    method: str,
    path: str,
    body: Any = None,
    *,
    what: str = "registration",
    ok: tuple[int, ...] = (200,),
    passed_through: tuple[int, ...] = (),
    retry: RetryPolicy = RetryPolicy(),
    timeout_seconds: float = 30,
    sleep: Callable[[float], None] = time.sleep,
) -> Answer:
    """One platform operation: 5xx and transport failures retried on the policy's schedule
    until its deadline, 4xx failing at once. Statuses in ``passed_through`` (say 404 or 409)
    come back to the caller, who decides; others fail with the status alone."""
    delays = retry.delays()
    attempts = 0
    with _client(destination, timeout_seconds) as client:
        while True:
            attempts += 1
            try:
                return _attempt(client, destination, method, path, body, what, ok, passed_through)
            except _Retryable as failure:
                if attempts > len(delays):
                    reason = failure.reason
                    detail = f"with {reason}" if reason.startswith("status") else f"({reason})"
                    raise RegistrationError(
                        f"{what} failed {detail} after {attempts} attempts within the {retry.deadline_seconds:g} s deadline"
                    ) from None
                try:
                    sleep(delays[attempts - 1])
                except KeyboardInterrupt:
                    raise RegistrationError(f"{what} cancelled while waiting to retry") from None


def _attempt(
    client: httpx.Client,
    destination: Destination,
    method: str,
    path: str,
    body: Any,
    what: str,
    ok: tuple[int, ...],
    passed_through: tuple[int, ...],
) -> Answer:
    try:
        with client.stream(method, destination.at(path), json=body) as response:
            status = response.status_code
            if status >= 500:
                raise _Retryable(f"status {status}")
            if status in passed_through:
                return Answer(status, None)
            if status in (401, 403):
                raise RegistrationError(f"{what} failed with status {status}{destination.refusal_suffix}", status)
            if status not in ok:
                raise RegistrationError(f"{what} failed with status {status}", status)
            response.read()
            if not response.content:
                return Answer(status, None)
            try:
                return Answer(status, response.json())
            except ValueError:
                raise RegistrationError(f"{what} failed: the platform's answer was not JSON") from None
    except httpx.TransportError:
        raise _Retryable(TRANSPORT_FAILURE) from None


def _registered(payload: Any, what: str) -> Registered:
    uuid = payload.get("uuid") if isinstance(payload, dict) else None
    if not isinstance(uuid, str) or not uuid.strip():
        raise RegistrationError(f"{what} failed: the platform answered without a uuid")
    status = payload.get("status")
    if status not in PLATFORM_STATUSES:
        raise RegistrationError(
            f"{what} failed: the platform answered an unknown status (expected one of {', '.join(PLATFORM_STATUSES)})"
        )
    return Registered(uuid=uuid, status=status, registered_at=now_utc())


class Duplicate(RegistrationError):
    """409 on register: a connector with this name, or with this url and version, exists."""


def register(
    destination: Destination | str,
    body: dict[str, Any],
    retry: RetryPolicy = RetryPolicy(),
    timeout_seconds: float = 30,
    sleep: Callable[[float], None] = time.sleep,
) -> Registered:
    """POST the registration; retry 5xx and transport failures on the policy's schedule.

    A plain string is a platform URL reached directly with TLS verified. A 409 raises
    ``Duplicate``."""
    if isinstance(destination, str):
        destination = direct(destination)
    answer = call(
        destination, "POST", REGISTER_PATH, body, passed_through=(409,), retry=retry, timeout_seconds=timeout_seconds, sleep=sleep
    )
    if answer.status == 409:
        raise Duplicate("registration failed with status 409", 409)
    return _registered(answer.payload, "registration")


@dataclass(frozen=True)
class ConnectorRecord:
    """What the platform holds for a connector (getConnectorV2 / listConnectorsV2)."""

    uuid: str
    name: str
    url: str
    version: str
    status: str

    @staticmethod
    def of(payload: Any) -> ConnectorRecord:
        if not isinstance(payload, dict) or not isinstance(payload.get("uuid"), str):
            raise RegistrationError("the platform answered a connector without a uuid")
        return ConnectorRecord(
            payload["uuid"],
            str(payload.get("name") or ""),
            str(payload.get("url") or ""),
            str(payload.get("version") or ""),
            str(payload.get("status") or "unknown"),
        )


class PlatformAdmin:
    """The administrator's operations on connector records; every call needs ``destination.admin``."""

    def __init__(self, destination: Destination, retry: RetryPolicy = RetryPolicy()) -> None:
        if destination.admin is None:
            raise ValueError("administrator credentials are required")
        self.destination = destination
        self.retry = retry

    def _call(self, method: str, path: str, body: Any = None, **options: Any) -> Answer:
        return call(self.destination, method, path, body, retry=self.retry, **options)

    def get(self, uuid: str) -> ConnectorRecord | None:
        """The record, or None when the platform has no connector with that uuid (404)."""
        answer = self._call("GET", f"/v2/connectors/{uuid}", what="reading the connector", passed_through=(404,))
        return None if answer.status == 404 else ConnectorRecord.of(answer.payload)

    def edit(self, uuid: str, body: dict[str, Any]) -> ConnectorRecord | None:
        """editConnectorV2: url, authType, authAttributes, customAttributes; None on 404."""
        answer = self._call("PUT", f"/v2/connectors/{uuid}", body, what="updating the connector", passed_through=(404,))
        return None if answer.status == 404 else ConnectorRecord.of(answer.payload)

    def approve(self, uuid: str) -> None:
        self._call("PATCH", f"/v2/connectors/{uuid}/approve", what="approving the connector", ok=(200, 204))

    def delete(self, uuid: str) -> bool:
        """True when deleted, False when it was already gone (404)."""
        answer = self._call(
            "DELETE", f"/v2/connectors/{uuid}", what="de-registering the connector", ok=(200, 204), passed_through=(404,)
        )
        return answer.status != 404

    def find(self, predicate: Callable[[ConnectorRecord], bool], page_size: int = 100) -> list[ConnectorRecord]:
        """Every record that matches, reading listConnectorsV2 page by page."""
        found: list[ConnectorRecord] = []
        page = 1
        while True:
            body = {"pageNumber": page, "itemsPerPage": page_size, "filters": []}
            answer = self._call("POST", "/v2/connectors/list", body, what="listing connectors")
            payload = answer.payload if isinstance(answer.payload, dict) else {}
            items = payload.get("items") or []
            found += [r for r in map(ConnectorRecord.of, items) if predicate(r)]
            if page >= int(payload.get("totalPages") or 1) or not items:
                return found
            page += 1


def edit_body(url: str, auth_type: str, auth_attributes: Any, custom_attributes: Any) -> dict[str, Any]:
    return {
        "url": url,
        "authType": auth_type,
        "authAttributes": list(auth_attributes or []),
        "customAttributes": list(custom_attributes or []),
    }
