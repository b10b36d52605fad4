"""Sent and retried (``Sender``): 5xx, 429 and transport failures are retried on the schedule
(``settings.RetryPolicy``; a ``Retry-After`` instead when the server sends one and it fits in the
deadline); other 4xx, a TLS handshake that fails verification and anything wrong on this side
fail at once. Nothing the server sends on failure is read into a message. Answers are read
within bounds: at most ``MAX_BODY`` bytes once decoded (a compressed answer is inflated only up
to that), nested at most ``MAX_DEPTH`` levels, then JSON; every way an answer can be malformed
ends in ``BadAnswer`` with a fixed phrase."""

from __future__ import annotations

import json
import time
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

import httpcore
import httpx

from components.bounded_http import failures
from components.bounded_http.destination import Destination
from components.bounded_http.failures import TLS_FAILURE, TRANSPORT_FAILURE, RequestError
from components.bounded_http.settings import DEFAULT, MAX_BODY, MAX_DEPTH, RetryPolicy
from components.bounded_http.transport import CertificateRefused, Deadline, Expired, TlsFailure, open_client

__all__ = ["Answer", "Operation", "Sender"]


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
    read_body: bool = True
    """Read the answer's body as JSON (a health check needs the status only)."""


@dataclass(frozen=True)
class Answer:
    status: int
    payload: Any
    after_unanswered: bool = False
    """An earlier attempt got no complete answer: the platform may have acted on it."""


class _Retryable(Exception):
    def __init__(
        self, reason: str, retry_after: float | None = None, unanswered: bool = False, status: int | None = None
    ) -> None:
        self.reason, self.retry_after, self.unanswered, self.status = reason, retry_after, unanswered, status


@dataclass
class _Attempts:
    """What the attempts of one operation came to so far."""

    count: int = 0
    unanswered: bool = False
    last: _Retryable | None = None


@dataclass
class Sender:
    """Sends operations to one destination within the schedule's deadline (see the module)."""

    destination: Destination
    retry: RetryPolicy = DEFAULT
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    deadline: Deadline | None = None
    """Shared by every call of one operation (a create's register, list and approve); else one per call."""

    def send(self, operation: Operation, client: httpx.Client | None = None) -> Answer:
        """``operation`` on ``client`` (its connections kept for the next call), else on a client
        of its own, closed after it."""
        deadline = self.deadline or Deadline(self.retry.deadline_seconds, self.clock)
        if client is not None:
            return self._send_with_retries(client, operation, deadline)
        with open_client(self.destination, deadline) as own:
            return self._send_with_retries(own, operation, deadline)

    def _send_with_retries(self, client: httpx.Client, operation: Operation, deadline: Deadline) -> Answer:
        waits: Iterator[float] | None = None  # the schedule, worked out at the first failure
        attempts = _Attempts()
        while True:
            attempts.count += 1
            try:
                answer = self._send_once(client, operation)
                return Answer(answer.status, answer.payload, attempts.unanswered)
            except Expired as expired:
                raise self._expired(operation, attempts, expired.sent) from None
            except _Retryable as failure:
                attempts.last, attempts.unanswered = failure, attempts.unanswered or failure.unanswered
                waits = waits or iter(self.retry.delays())
                wait = next(waits, None)
                wait = failure.retry_after if failure.retry_after is not None and wait is not None else wait
                if wait is None or wait > deadline.remaining():
                    raise self._gave_up(operation, failure, attempts.count, attempts.unanswered) from None
                self._wait(operation, wait)

    def _wait(self, operation: Operation, seconds: float) -> None:
        try:
            self.sleep(seconds)
        except KeyboardInterrupt:
            raise RequestError(f"{operation.what} cancelled while waiting to retry") from None

    def _expired(self, operation: Operation, attempts: _Attempts, sent: bool) -> RequestError:
        """The deadline ended an attempt: after a failure retried, that failure is the news."""
        unanswered = attempts.unanswered or sent
        if attempts.last is not None:
            return self._gave_up(operation, attempts.last, attempts.count - (not sent), unanswered)
        hint = operation.unanswered if unanswered else ""
        return failures.NoAnswer(failures.no_answer(operation.what, self.retry.deadline_seconds, hint))

    def _gave_up(self, operation: Operation, failure: _Retryable, attempts: int, unanswered: bool) -> RequestError:
        hint = operation.unanswered if unanswered else ""
        message = failures.gave_up(operation.what, failure.reason, attempts, self.retry.deadline_seconds, hint)
        return RequestError(message, failure.status)

    def _send_once(self, client: httpx.Client, operation: Operation) -> Answer:
        what = operation.what
        try:
            url = self.destination.at(operation.path)
            with client.stream(operation.method, url, json=operation.body) as response:
                return self._answer(response, operation)
        except BadAnswer as problem:
            raise RequestError(f"{what} failed: {problem}") from None
        except CertificateRefused as refused:
            raise failures.TlsRefused(f"{what} failed: {failures.certificate_refused(refused.alert)}") from None
        except TlsFailure:
            raise failures.TlsRefused(f"{what} failed: {TLS_FAILURE}") from None
        except (httpcore.LocalProtocolError, httpcore.UnsupportedProtocol, httpx.InvalidURL, UnicodeError, ValueError):
            raise RequestError(f"{what} failed: the request could not be sent (a header or the URL is not valid)") from None
        except httpcore.ProxyError:
            raise RequestError(f"{what} failed: the HTTP proxy of the environment refused the connection") from None
        except (httpcore.TimeoutException, httpcore.NetworkError, httpcore.ProtocolError, httpx.TransportError) as error:
            sent = not isinstance(error, (httpcore.ConnectError, httpcore.ConnectTimeout, httpx.ConnectError))
            raise _Retryable(TRANSPORT_FAILURE, unanswered=sent) from None

    def _answer(self, response: httpx.Response, operation: Operation) -> Answer:
        status, what = response.status_code, operation.what
        if status >= 500 or status == 429:
            raise _Retryable(f"status {status}", retry_after(response.headers.get("retry-after"), time.time()), status=status)
        if status in operation.passed_through:
            return Answer(status, None)
        if status in (401, 403):
            raise RequestError(f"{what} failed with status {status}{self.destination.refusal_suffix}", status)
        if status not in operation.ok:
            raise RequestError(f"{what} failed with status {status}", status)
        if not operation.read_body:
            return Answer(status, None)
        body = read_body(response.iter_raw(), response.headers.get("content-encoding", ""))
        return Answer(status, parse_json(body))


class BadAnswer(Exception):
    """An answer that cannot be used; its message is a fixed phrase."""


class _Decoder:
    """Inflates a ``Content-Encoding`` without ever producing more than ``limit`` bytes."""

    def __init__(self, encoding: str, limit: int) -> None:
        self.limit = limit
        codings = [c.strip().lower() for c in encoding.split(",") if c.strip() and c.strip().lower() != "identity"]
        if len(codings) > 1 or (codings and codings[0] not in ("gzip", "x-gzip", "deflate")):
            raise BadAnswer("the platform's answer used an encoding this program does not read")
        self.inflate = None
        if codings:
            self.inflate = zlib.decompressobj(zlib.MAX_WBITS | 16 if "gzip" in codings[0] else zlib.MAX_WBITS)

    def feed(self, data: bytes, room: int) -> bytes:
        if self.inflate is None:
            return data[: room + 1]
        try:
            return self.inflate.decompress(data, room + 1)
        except zlib.error:
            raise BadAnswer("the platform's answer could not be decoded") from None

    def finish(self) -> None:
        if self.inflate is not None and not self.inflate.eof:
            raise BadAnswer("the platform's answer could not be decoded")


def read_body(chunks: Iterable[bytes], encoding: str = "", limit: int = MAX_BODY) -> bytes:
    """The decoded body, refused as soon as it (or its raw bytes) would pass ``limit``."""
    decoder = _Decoder(encoding, limit)
    body = bytearray()
    raw = 0
    for chunk in chunks:
        raw += len(chunk)
        body += decoder.feed(chunk, limit - len(body))
        if len(body) > limit or raw > limit:
            raise BadAnswer(f"the platform's answer was larger than {limit // 1024} KiB")
    if body:
        decoder.finish()
    return bytes(body)


def nesting_depth(text: bytes) -> int:
    """How deep arrays and objects nest in a JSON text (strings skipped), without recursion."""
    depth = deepest = 0
    in_string = escaped = False
    for byte in text:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            deepest = max(deepest, depth)
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return deepest


def parse_json(body: bytes, max_depth: int = MAX_DEPTH) -> Any:
    """The answer as JSON (None when empty)."""
    if not body.strip():
        return None
    if nesting_depth(body) > max_depth:
        raise BadAnswer(f"the platform's answer was nested more than {max_depth} levels deep")
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        raise BadAnswer("the platform's answer was not JSON") from None
