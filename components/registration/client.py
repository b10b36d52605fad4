"""The HTTP transport to the platform's Core: an operation sent to a destination, its answer
read within bounds, failed attempts retried, all within one deadline.

Retry rules: 5xx, 429 and transport failures are retried on the policy's schedule (waiting a
``Retry-After`` instead when the platform sends one and it fits in the deadline); other 4xx, a
TLS handshake that fails verification and anything wrong on this side fail at once. One
deadline bounds the whole operation: connecting, TLS, sending, every byte of every answer,
and every wait. Nothing the platform sends on failure is read into a message.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any

import httpcore
import httpx

from .answers import ACCEPTED_ENCODINGS, BadAnswer, parse_json, read_body
from .deadline import Deadline, DeadlineTransport, Expired, TlsFailure, proxy_for
from .destination import Destination, tls_context
from .errors import TLS_FAILURE, TRANSPORT_FAILURE, RegistrationError
from .rules import HEADER_RULE, header_value_problem

PROXY_IN_CLEAR = (
    "the credentials would pass through the HTTP proxy of the environment (HTTP_PROXY) in clear: "
    "use an https:// platformUrl, or exclude its host with NO_PROXY"
)
PROXY_ADMIN_REFUSED = "administrator calls cannot go through the API server's proxy: it forwards no credentials to the platform"
ATTEMPT_TIMEOUT = 30.0
"""The longest one connect, send or read may wait, within the deadline."""


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
    unanswered: str = ""
    """Added to the message when an attempt got no complete answer (what the platform may hold now)."""


@dataclass(frozen=True)
class Answer:
    status: int
    payload: Any
    after_unanswered: bool = False
    """An earlier attempt got no complete answer: the platform may have acted on it."""


class _Retryable(Exception):
    def __init__(self, reason: str, retry_after: float | None = None, unanswered: bool = False) -> None:
        self.reason, self.retry_after, self.unanswered = reason, retry_after, unanswered


def retry_after(value: str | None, now: float) -> float | None:
    """Seconds a ``Retry-After`` asks for (delay-seconds or an HTTP date), None when absent or unreadable."""
    if not value or len(value) > 64 or not value.isascii():
        return None
    if value.strip().isdecimal():
        return float(value.strip())
    try:
        return max(parsedate_to_datetime(value).timestamp() - now, 0.0)
    except (TypeError, ValueError, OverflowError, IndexError):
        return None


def _headers(destination: Destination) -> dict[str, str]:
    """The destination's headers and the administrator's bearer token, each checked before use:
    a value no header can carry fails now, naming its source, never the value."""
    headers = dict(destination.headers)
    if any(header_value_problem(v.removeprefix("Bearer ")) for _, v in destination.headers):
        raise RegistrationError(f"the kubeconfig's credentials for the API server {HEADER_RULE}")
    admin = destination.admin
    if admin is not None and admin.bearer_token:
        if header_value_problem(admin.bearer_token):
            raise RegistrationError(f"registration.adminCredentials.bearerToken {HEADER_RULE}")
        headers["Authorization"] = f"Bearer {admin.bearer_token}"
    return {**headers, "Accept-Encoding": ACCEPTED_ENCODINGS}


@contextmanager
def _client(destination: Destination, deadline: Deadline) -> Iterator[httpx.Client]:
    """A client with the destination's TLS and headers, plus the administrator's credentials
    when given: a bearer header, or the client certificate written for the call's lifetime
    only to a private temporary folder (the TLS library reads it from a file)."""
    admin = destination.admin
    if admin is not None and (admin.bearer_token or admin.client_certificate) and destination.through_proxy:
        raise RegistrationError(PROXY_ADMIN_REFUSED)
    headers, cert = _headers(destination), destination.cert
    with tempfile.TemporaryDirectory(prefix="platform-admin-") as folder:
        if admin is not None and not admin.bearer_token and admin.client_certificate and admin.client_key:
            cert = (os.path.join(folder, "admin.crt"), os.path.join(folder, "admin.key"))
            for path, text in zip(cert, (admin.client_certificate, admin.client_key), strict=True):
                descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(descriptor, "w") as handle:
                    handle.write(text)
        proxy = proxy_for(destination.base)
        if proxy is not None and destination.base.startswith("http://") and "Authorization" in headers:
            raise RegistrationError(PROXY_IN_CLEAR)
        transport = DeadlineTransport(deadline, tls_context(destination.verify, cert), proxy)
        with httpx.Client(
            transport=transport, headers=headers, timeout=ATTEMPT_TIMEOUT, follow_redirects=False, trust_env=False
        ) as client:
            yield client


@dataclass
class Transport:
    """Sends operations to one destination within the policy's deadline (see the module)."""

    destination: Destination
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    deadline: Deadline | None = None
    """Shared by every call of one operation (a create's register, list and approve); else one per call."""

    def send(self, operation: Operation) -> Answer:
        deadline = self.deadline or Deadline(self.retry.deadline_seconds, self.clock)
        delays = iter(self.retry.delays())
        attempts, unanswered, last = 0, False, None
        with _client(self.destination, deadline) as client:
            while True:
                attempts += 1
                try:
                    answer = self._attempt(client, operation)
                    return Answer(answer.status, answer.payload, unanswered)
                except Expired as expired:
                    unanswered |= expired.sent
                    if last is not None:  # the deadline ended a retry: the failure retried is the news
                        raise self._gave_up(operation, last, attempts - (not expired.sent), unanswered) from None
                    raise RegistrationError(self._no_answer(operation, unanswered)) from None
                except _Retryable as failure:
                    last = failure
                    unanswered |= failure.unanswered
                    wait = next(delays, None)
                    wait = failure.retry_after if failure.retry_after is not None and wait is not None else wait
                    if wait is None or wait > deadline.remaining():
                        raise self._gave_up(operation, failure, attempts, unanswered) from None
                    try:
                        self.sleep(wait)
                    except KeyboardInterrupt:
                        raise RegistrationError(f"{operation.what} cancelled while waiting to retry") from None

    def _no_answer(self, operation: Operation, unanswered: bool) -> str:
        hint = operation.unanswered if unanswered else ""
        return f"{operation.what} failed: no complete answer within {self.retry.deadline_seconds:g} s{hint}"

    def _gave_up(self, operation: Operation, failure: _Retryable, attempts: int, unanswered: bool) -> RegistrationError:
        reason = failure.reason
        detail = f"with {reason}" if reason.startswith("status") else f"({reason})"
        hint = operation.unanswered if unanswered else ""
        within = f"within the {self.retry.deadline_seconds:g} s deadline"
        return RegistrationError(f"{operation.what} failed {detail} after {attempts} attempts {within}{hint}")

    def _attempt(self, client: httpx.Client, operation: Operation) -> Answer:
        what = operation.what
        try:
            url = self.destination.at(operation.path)
            with client.stream(operation.method, url, json=operation.body) as response:
                return self._answer(response, operation)
        except BadAnswer as problem:
            raise RegistrationError(f"{what} failed: {problem}") from None
        except TlsFailure:
            raise RegistrationError(f"{what} failed: {TLS_FAILURE}") from None
        except (httpcore.LocalProtocolError, httpcore.UnsupportedProtocol, httpx.InvalidURL, UnicodeError, ValueError):
            raise RegistrationError(f"{what} failed: the request could not be sent (a header or the URL is not valid)") from None
        except httpcore.ProxyError:
            raise RegistrationError(f"{what} failed: the HTTP proxy of the environment refused the connection") from None
        except (httpcore.TimeoutException, httpcore.NetworkError, httpcore.ProtocolError, httpx.TransportError) as error:
            sent = not isinstance(error, (httpcore.ConnectError, httpcore.ConnectTimeout, httpx.ConnectError))
            raise _Retryable(TRANSPORT_FAILURE, unanswered=sent) from None

    def _answer(self, response: httpx.Response, operation: Operation) -> Answer:
        status, what = response.status_code, operation.what
        if status >= 500 or status == 429:
            raise _Retryable(f"status {status}", retry_after(response.headers.get("retry-after"), time.time()))
        if status in operation.passed_through:
            return Answer(status, None)
        if status in (401, 403):
            raise RegistrationError(f"{what} failed with status {status}{self.destination.refusal_suffix}", status)
        if status not in operation.ok:
            raise RegistrationError(f"{what} failed with status {status}", status)
        body = read_body(response.iter_raw(), response.headers.get("content-encoding", ""))
        return Answer(status, parse_json(body))
