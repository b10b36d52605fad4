"""The HTTP transport to the platform's Core: where requests go, with which TLS settings and
credentials, and how a failed attempt is retried.

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
from typing import Any

import httpx

from .cluster_access import ApiServerAccess
from .routing import in_cluster_target

TRANSPORT_FAILURE = "the platform could not be reached"
PROXY_ADMIN_REFUSED = "administrator calls cannot go through the API server's proxy: it forwards no credentials to the platform"


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
    """The waits between attempts: from ``initial_seconds``, doubling to ``max_seconds``, for at
    most ``deadline_seconds`` in all. These defaults are the registration's (``inputs``)."""

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

    def at(self, path: str) -> str:
        """Join, never rewrite: a trailing slash is tolerated and a missing /api is not added."""
        return self.base.rstrip("/") + path

    def with_admin(self, admin: AdminCredentials | None) -> Destination:
        return replace(self, admin=admin)

    @property
    def through_proxy(self) -> bool:
        return bool(self.refusal_suffix)


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


@dataclass(frozen=True)
class Operation:
    """One call of the platform's API, and which answers it takes."""

    method: str
    path: str
    body: Any = None
    what: str = "registration"
    """How messages name the operation."""
    ok: tuple[int, ...] = (200,)
    passed_through: tuple[int, ...] = ()
    """Statuses returned to the caller, who decides (say 404 or 409); others fail with the status alone."""


@dataclass(frozen=True)
class Answer:
    status: int
    payload: Any


class _Retryable(Exception):
    def __init__(self, reason: str) -> None:
        self.reason = reason


@contextmanager
def _client(destination: Destination, timeout_seconds: float) -> Iterator[httpx.Client]:
    """A client with the destination's TLS and headers, plus the administrator's credentials
    when given: a bearer header, or the client certificate written for the call's lifetime
    only to a private temporary folder (the TLS library reads it from a file)."""
    headers = dict(destination.headers)
    cert = destination.cert
    admin = destination.admin
    with tempfile.TemporaryDirectory(prefix="platform-admin-") as folder:
        if admin is not None and (admin.bearer_token or admin.client_certificate) and destination.through_proxy:
            raise RegistrationError(PROXY_ADMIN_REFUSED)
        if admin is not None and admin.bearer_token:
            headers["Authorization"] = f"Bearer {admin.bearer_token}"
        elif admin is not None and admin.client_certificate and admin.client_key:
            cert = (os.path.join(folder, "admin.crt"), os.path.join(folder, "admin.key"))
            for path, text in zip(cert, (admin.client_certificate, admin.client_key), strict=True):
                descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(descriptor, "w") as handle:
                    handle.write(text)
        with httpx.Client(
            verify=tls_context(destination.verify, cert),
            headers=headers,
            timeout=timeout_seconds,
            follow_redirects=False,
        ) as client:
            yield client


@dataclass(frozen=True)
class Transport:
    """Sends operations to one destination: 5xx and transport failures retried on the policy's
    schedule until its deadline, 4xx failing at once."""

    destination: Destination
    retry: RetryPolicy = RetryPolicy()
    timeout_seconds: float = 30
    sleep: Callable[[float], None] = time.sleep

    def send(self, operation: Operation) -> Answer:
        delays = self.retry.delays()
        attempts = 0
        with _client(self.destination, self.timeout_seconds) as client:
            while True:
                attempts += 1
                try:
                    return self._attempt(client, operation)
                except _Retryable as failure:
                    if attempts > len(delays):
                        raise self._gave_up(operation, failure.reason, attempts) from None
                    try:
                        self.sleep(delays[attempts - 1])
                    except KeyboardInterrupt:
                        raise RegistrationError(f"{operation.what} cancelled while waiting to retry") from None

    def _gave_up(self, operation: Operation, reason: str, attempts: int) -> RegistrationError:
        detail = f"with {reason}" if reason.startswith("status") else f"({reason})"
        return RegistrationError(
            f"{operation.what} failed {detail} after {attempts} attempts within the {self.retry.deadline_seconds:g} s deadline"
        )

    def _attempt(self, client: httpx.Client, operation: Operation) -> Answer:
        what = operation.what
        try:
            with client.stream(operation.method, self.destination.at(operation.path), json=operation.body) as response:
                status = response.status_code
                if status >= 500:
                    raise _Retryable(f"status {status}")
                if status in operation.passed_through:
                    return Answer(status, None)
                if status in (401, 403):
                    raise RegistrationError(f"{what} failed with status {status}{self.destination.refusal_suffix}", status)
                if status not in operation.ok:
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
