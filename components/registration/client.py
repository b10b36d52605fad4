"""The platform's client: one ``PlatformApi`` per provider operation, whose calls share their
connections (a listing's pages, a register then an approve). Read from the top, a call goes:

- **Where** (``Destination``): the platform URL directly or through the API server's service
  proxy, with which trust (the certificates of ``caBundle``, PEM text or a file of them, when
  given, else Mozilla's CA bundle as ``certifi`` ships it, httpx's default) and an
  administrator's credentials when the call needs them.
- **Within one deadline** (``Deadline``): httpx's timeouts apply to each socket operation
  alone, so an answer that trickles a byte a second, or headers that never end, would keep a run
  reading for as long as the platform likes. Here httpx's transport runs on an httpcore pool
  whose network backend bounds every name lookup, connect, TLS handshake, write and read by the
  time left. What cannot work is refused before any request: a header value no header can
  carry, administrator credentials through the API server's proxy, credentials in clear through
  an HTTP proxy of the environment.
- **Sent and retried** (``Sender``): 5xx, 429 and transport failures are retried on the
  schedule (``settings.RetryPolicy``; a ``Retry-After`` instead when the platform sends one and
  it fits in the deadline); other 4xx, a TLS handshake that fails verification and anything
  wrong on this side fail at once. Nothing the platform sends on failure is read into a message.
- **Answers read within bounds**: at most ``MAX_BODY`` bytes once decoded (a compressed answer
  is inflated only up to that), nested at most ``MAX_DEPTH`` levels, then JSON. Every way an
  answer can be malformed ends in ``BadAnswer`` with a fixed phrase.
- **The operations** (``PlatformApi``): register a connector, and with an administrator's
  credentials read, edit, approve, list and delete connector records. Every uuid an answer
  carries is checked before anything is built with it, and goes into a path only
  percent-escaped; the register call carries no administrator credentials."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import socket
import ssl
import tempfile
import threading
import time
import urllib.request
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from email.utils import parsedate_to_datetime
from typing import Any

import certifi
import httpcore
import httpx

from components.registration import errors
from components.registration.contract import (
    ADMIN_CREDENTIAL_KEYS,
    HEADER_RULE,
    PEM_MARK,
    IdentifierError,
    checked_uuid,
    header_value_problem,
    is_loopback,
    segment,
)
from components.registration.errors import TLS_FAILURE, TRANSPORT_FAILURE, RegistrationError
from components.registration.settings import (
    ATTEMPT_TIMEOUT,
    DEFAULT,
    MAX_BODY,
    MAX_DEPTH,
    MAX_PAGES,
    MAX_RECORDS,
    PAGE_SIZE,
    RetryPolicy,
)

# Where the requests go.


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
        """The ``admin_credentials`` input's values (keys ``contract.ADMIN_CREDENTIAL_KEYS``, in this order)."""
        if not isinstance(value, dict) or not any(value.get(k) for k in ADMIN_CREDENTIAL_KEYS[:2]):
            return None
        return AdminCredentials(*(value.get(k) for k in ADMIN_CREDENTIAL_KEYS))


@dataclass(frozen=True)
class TlsSettings:
    ca_bundle: str | None = None
    """PEM certificates to trust, as text or a file's path."""
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
    """True: the default trust; a string: PEM certificates or a file of them; False: none."""
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


def tls_context(verify: bool | str, cert: tuple[str, str] | None) -> ssl.SSLContext:
    """The TLS settings as one context: the trust of ``verify`` and the client certificate.
    A bundle or certificate that does not load is a ``RegistrationError`` now, before any request."""
    try:
        if verify is False:
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        elif isinstance(verify, str) and PEM_MARK in verify:
            context = ssl.create_default_context(cadata=verify)
        else:
            context = ssl.create_default_context(cafile=verify if isinstance(verify, str) else certifi.where())
    except (OSError, ValueError):
        raise RegistrationError(
            "the certificates to trust could not be loaded (registration.caBundle: PEM text or a file of it)"
        ) from None
    if cert is not None:
        try:
            context.load_cert_chain(*cert)
        except (OSError, ValueError):
            raise RegistrationError("the client certificate and key could not be loaded (PEM, and a key that matches)") from None
    return context


def direct(platform_url: str, tls: TlsSettings = TlsSettings()) -> Destination:
    return Destination(platform_url.rstrip("/"), verify=tls.verify())


# Within one deadline: the transport.


class Expired(Exception):
    """The operation's deadline passed; ``sent`` once the request (or some of it) went out."""

    def __init__(self, sent: bool = True) -> None:
        super().__init__()
        self.sent = sent


class Deadline:
    """One deadline for a whole operation: the time left, cut into every wait; ``Expired`` (this
    module's own exception, so nothing in httpx or httpcore turns it into another) once none is left."""

    def __init__(self, seconds: float, clock: Any = time.monotonic) -> None:
        self.seconds = seconds
        self.clock = clock
        self.at = clock() + seconds

    def remaining(self) -> float:
        return self.at - self.clock()

    def bound(self, timeout: float | None, sent: bool = True) -> float:
        """``timeout`` cut to the time left; ``Expired`` when none is."""
        left = self.remaining()
        if left <= 0:
            raise Expired(sent)
        return left if timeout is None else min(timeout, left)


ACCEPTED_ENCODINGS = "gzip, deflate"
"""What the client asks answers to be encoded in (``read_body`` inflates no other)."""


class TlsFailure(Exception):
    """The platform's certificate (or ours) was refused in the TLS handshake."""


class CertificateRefused(TlsFailure):
    """The platform (its gateway) ended the TLS session with an alert about our client
    certificate: with TLS 1.3 it arrives on the first read, after the handshake looked done."""

    def __init__(self, alert: str) -> None:
        super().__init__(alert)
        self.alert = alert


CERTIFICATE_ALERTS = (
    "bad_certificate", "unsupported_certificate", "certificate_revoked", "certificate_expired",
    "certificate_unknown", "unknown_ca", "access_denied", "certificate_required",
)  # fmt: skip
"""The TLS alerts (RFC 8446, 6.2) a server sends when it refuses the client's certificate."""


def certificate_alert(error: BaseException) -> CertificateRefused | None:
    """The alert's name when ``error`` came from a certificate alert (OpenSSL's reason reads
    ``TLSV1_ALERT_UNKNOWN_CA``, ``SSLV3_ALERT_BAD_CERTIFICATE``...); None for anything else."""
    cause = error.__cause__
    reason = (getattr(cause, "reason", None) or "") if isinstance(cause, ssl.SSLError) else ""
    _, found, alert = reason.lower().partition("_alert_")
    return CertificateRefused(alert) if found and alert in CERTIFICATE_ALERTS else None


def resolve(host: str, port: int, deadline: Deadline, timeout: float | None = None) -> list[str]:
    """The addresses ``host`` resolves to, waited for at most the attempt's ``timeout`` within
    the deadline: the system's resolver has timeouts of its own (seconds per name server, per
    attempt) that no socket timeout bounds, so it runs in a thread of its own, left to finish
    on its own if late."""
    found: queue.Queue[list[Any] | None] = queue.Queue(maxsize=1)

    def lookup() -> None:
        infos = None
        with contextlib.suppress(Exception):  # any failure of the lookup: "did not resolve"
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        found.put(infos)

    threading.Thread(target=lookup, name="platform-address-lookup", daemon=True).start()
    wait = deadline.bound(timeout, sent=False)
    try:
        infos = found.get(timeout=wait)
    except queue.Empty:
        if deadline.remaining() <= 0:
            raise Expired(sent=False) from None
        raise httpcore.ConnectTimeout("the platform's host name did not resolve in time") from None
    if infos is None:
        raise httpcore.ConnectError("the platform's host name did not resolve")
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


class _Stream(httpcore.NetworkStream):
    def __init__(self, stream: httpcore.NetworkStream, deadline: Deadline) -> None:
        self._stream, self._deadline = stream, deadline

    def _expired_instead(self, error: Exception, sent: bool = True) -> Exception:
        return Expired(sent) if self._deadline.remaining() <= 0 else error

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        try:
            return self._stream.read(max_bytes, self._deadline.bound(timeout))
        except httpcore.TimeoutException as error:
            raise self._expired_instead(error) from None
        except httpcore.ReadError as error:
            raise certificate_alert(error) or error from None

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        try:
            self._stream.write(buffer, self._deadline.bound(timeout))
        except httpcore.TimeoutException as error:
            raise self._expired_instead(error) from None
        except httpcore.WriteError as error:
            raise certificate_alert(error) or error from None

    def close(self) -> None:
        self._stream.close()

    def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        try:
            bound = self._deadline.bound(timeout, sent=False)
            return _Stream(self._stream.start_tls(ssl_context, server_hostname, bound), self._deadline)
        except httpcore.TimeoutException as error:
            raise self._expired_instead(error, sent=False) from None
        except httpcore.ConnectError as error:
            if isinstance(error.__cause__, ssl.SSLCertVerificationError):
                raise TlsFailure from None
            # a handshake cut short (a reset, an EOF) is a transport failure, retried
            raise certificate_alert(error) or error from None

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class _Backend(httpcore.NetworkBackend):
    def __init__(self, deadline: Deadline) -> None:
        self._backend, self._deadline = httpcore.SyncBackend(), deadline

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        """Each address the name resolves to in turn, the lookup and each address bounded by the
        time left (a plain ``create_connection`` would give every address the whole timeout)."""
        addresses = resolve(host, port, self._deadline, timeout)
        failure: Exception = httpcore.ConnectError("no address")
        for address in addresses:
            try:
                bound = self._deadline.bound(timeout, sent=False)
                stream = self._backend.connect_tcp(address, port, bound, local_address, socket_options)
                return _Stream(stream, self._deadline)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as error:
                failure = error
            if self._deadline.remaining() <= 0:
                raise Expired(sent=False)
        raise failure

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


class _Body(httpx.SyncByteStream):
    def __init__(self, response: httpcore.Response) -> None:
        self._response = response

    def __iter__(self) -> Iterator[bytes]:
        stream = self._response.stream
        assert isinstance(stream, Iterable)  # a sync pool's responses stream synchronously
        yield from stream

    def close(self) -> None:
        self._response.close()


class DeadlineTransport(httpx.BaseTransport):
    """httpx's transport, on a pool whose sockets keep ``deadline``; the proxy settings of the
    environment (``HTTPS_PROXY``, ``NO_PROXY``...) are honoured as httpx honours them."""

    def __init__(self, deadline: Deadline, ssl_context: ssl.SSLContext, proxy: httpx.URL | None) -> None:
        backend = _Backend(deadline)
        self._pool: httpcore.ConnectionPool
        if proxy is None:
            self._pool = httpcore.ConnectionPool(ssl_context=ssl_context, network_backend=backend)
        else:
            auth = (proxy.username, proxy.password) if proxy.username else None
            url = httpcore.URL(scheme=proxy.raw_scheme, host=proxy.raw_host, port=proxy.port, target=b"/")
            self._pool = httpcore.HTTPProxy(proxy_url=url, proxy_auth=auth, ssl_context=ssl_context, network_backend=backend)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        core = httpcore.Request(
            method=request.method,
            url=httpcore.URL(scheme=url.raw_scheme, host=url.raw_host, port=url.port, target=url.raw_path),
            headers=request.headers.raw,
            content=request.stream,  # type: ignore[arg-type]
            extensions=request.extensions,
        )
        response = self._pool.handle_request(core)
        return httpx.Response(response.status, headers=response.headers, stream=_Body(response), extensions=response.extensions)

    def close(self) -> None:
        self._pool.close()


def proxy_for(url: str) -> httpx.URL | None:
    """The proxy the environment sets for ``url`` (never for a loopback host)."""
    parts = httpx.URL(url)
    proxy = urllib.request.getproxies().get(parts.scheme)
    if not proxy or is_loopback(parts.host) or urllib.request.proxy_bypass(parts.host):
        return None
    return httpx.URL(proxy if "://" in proxy else f"http://{proxy}")


PROXY_IN_CLEAR = (
    "the credentials would pass through the HTTP proxy of the environment (HTTP_PROXY) in clear: "
    "use an https:// platformUrl, or exclude its host with NO_PROXY"
)
PROXY_ADMIN_REFUSED = "administrator calls cannot go through the API server's proxy: it forwards no credentials to the platform"


def headers_for(destination: Destination) -> dict[str, str]:
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
def client_certificate_files(admin: AdminCredentials | None) -> Iterator[tuple[str, str] | None]:
    """The administrator's client certificate and key as files (the TLS library reads them from
    files), in a private temporary folder that lives as long as the call; None without them."""
    if admin is None or admin.bearer_token or not (admin.client_certificate and admin.client_key):
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="platform-admin-") as folder:
        paths = (os.path.join(folder, "admin.crt"), os.path.join(folder, "admin.key"))
        for path, text in zip(paths, (admin.client_certificate, admin.client_key), strict=True):
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "w") as handle:
                handle.write(text)
        yield paths


@contextmanager
def open_client(destination: Destination, deadline: Deadline) -> Iterator[httpx.Client]:
    """A client for ``destination`` whose every request keeps ``deadline``."""
    admin = destination.admin
    if admin is not None and (admin.bearer_token or admin.client_certificate) and destination.through_proxy:
        raise RegistrationError(PROXY_ADMIN_REFUSED)
    headers = headers_for(destination)
    proxy = proxy_for(destination.base)
    if proxy is not None and destination.base.startswith("http://") and "Authorization" in headers:
        raise RegistrationError(PROXY_IN_CLEAR)
    with client_certificate_files(admin) as admin_cert:
        transport = DeadlineTransport(deadline, tls_context(destination.verify, admin_cert or destination.cert), proxy)
        with httpx.Client(
            transport=transport, headers=headers, timeout=ATTEMPT_TIMEOUT, follow_redirects=False, trust_env=False
        ) as client:
            yield client


# Sent and retried, answers read within bounds.


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
            raise RegistrationError(f"{operation.what} cancelled while waiting to retry") from None

    def _expired(self, operation: Operation, attempts: _Attempts, sent: bool) -> RegistrationError:
        """The deadline ended an attempt: after a failure retried, that failure is the news."""
        unanswered = attempts.unanswered or sent
        if attempts.last is not None:
            return self._gave_up(operation, attempts.last, attempts.count - (not sent), unanswered)
        hint = operation.unanswered if unanswered else ""
        return errors.NoAnswer(errors.no_answer(operation.what, self.retry.deadline_seconds, hint))

    def _gave_up(self, operation: Operation, failure: _Retryable, attempts: int, unanswered: bool) -> RegistrationError:
        hint = operation.unanswered if unanswered else ""
        message = errors.gave_up(operation.what, failure.reason, attempts, self.retry.deadline_seconds, hint)
        return RegistrationError(message, failure.status)

    def _send_once(self, client: httpx.Client, operation: Operation) -> Answer:
        what = operation.what
        try:
            url = self.destination.at(operation.path)
            with client.stream(operation.method, url, json=operation.body) as response:
                return self._answer(response, operation)
        except BadAnswer as problem:
            raise RegistrationError(f"{what} failed: {problem}") from None
        except CertificateRefused as refused:
            raise errors.TlsRefused(f"{what} failed: {errors.certificate_refused(refused.alert)}") from None
        except TlsFailure:
            raise errors.TlsRefused(f"{what} failed: {TLS_FAILURE}") from None
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
            raise _Retryable(f"status {status}", retry_after(response.headers.get("retry-after"), time.time()), status=status)
        if status in operation.passed_through:
            return Answer(status, None)
        if status in (401, 403):
            raise RegistrationError(f"{what} failed with status {status}{self.destination.refusal_suffix}", status)
        if status not in operation.ok:
            raise RegistrationError(f"{what} failed with status {status}", status)
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


# The operations.

PLATFORM_STATUSES = ("waitingForApproval", "connected", "failed", "offline")
UNKNOWN_STATUS = "unknown"
REGISTER_PATH = "/v2/connector/register"
REGISTER_UNANSWERED = (
    "; an attempt got no answer and may have registered the connector: the next run meets status 409 and adopts "
    "the record with registration.adminCredentials (or set registration.uuid to its uuid)"
)
NOT_FOUND_ON_REGISTER = (
    "registration failed with status 404: either platformUrl lacks its /api prefix, or an attribute names no "
    "attribute definition on the platform, which then keeps the record (waitingForApproval): create the attribute "
    "definition on the platform, then adopt the record with registration.adminCredentials (or set registration.uuid "
    "to its uuid)"
)
EDIT_REFUSED = (
    "updating the connector failed with status 422: the platform edits only approved connectors, and this one is not "
    "approved (it waits for approval): approve it (registration.approve: true, or in the platform's UI), or register "
    "it anew: pulumi up --replace <urn of the registration>"
)
ANSWERED = "the uuid in the platform's answer"
REGISTER_ANSWER = "registration failed: the uuid in the platform's answer"


class Duplicate(RegistrationError):
    """409 on register: a connector with this name, or with this url and version, exists."""

    def __init__(self, message: str, after_unanswered: bool = False) -> None:
        super().__init__(message, 409)
        self.after_unanswered = after_unanswered


@dataclass(frozen=True)
class Registered:
    uuid: str
    status: str
    odd: tuple[str, ...] = ()
    """Fields of the answer outside the documented shape (the record is kept all the same)."""


@dataclass(frozen=True)
class ConnectorRecord:
    """What the platform holds for a connector (getConnectorV2 / listConnectorsV2)."""

    uuid: str
    name: str
    url: str
    version: str
    status: str

    @staticmethod
    def of(payload: Any, source: str) -> ConnectorRecord:
        if not isinstance(payload, dict):
            raise RegistrationError(f"{source.removeprefix('the uuid in ')}: a connector record that is not an object")
        name, url, version = (value if isinstance(value := payload.get(key), str) else "" for key in ("name", "url", "version"))
        status = payload.get("status")
        known = status if status in PLATFORM_STATUSES else UNKNOWN_STATUS
        return ConnectorRecord(checked_uuid(payload.get("uuid"), source), name, url, version, known)


def registered(payload: Any) -> Registered:
    """The record the register answer describes: kept whenever its uuid is one, odd status or not."""
    uuid = payload.get("uuid") if isinstance(payload, dict) else None
    if uuid is None:
        raise RegistrationError("registration failed: the platform answered without a uuid")
    try:
        checked_uuid(uuid, REGISTER_ANSWER)
    except IdentifierError as error:
        raise IdentifierError(
            f"{error}. The platform may hold a record for this connector now: find its uuid on the platform and set "
            "registration.uuid to adopt it, or give registration.adminCredentials so that the next run finds it"
        ) from None
    status = payload.get("status")
    if status in PLATFORM_STATUSES:
        return Registered(uuid, status)
    return Registered(uuid, UNKNOWN_STATUS, odd=("status",))


class PlatformApi:
    """The connector operations on one destination. ``register`` goes without the
    administrator's credentials; every other operation is an administrator's."""

    def __init__(
        self,
        destination: Destination,
        retry: RetryPolicy = DEFAULT,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.destination = destination
        self.retry, self.sleep, self.clock = retry, sleep, clock
        self.deadline = Deadline(retry.deadline_seconds, clock)
        """One deadline for every call this client makes (a provider builds one per operation)."""
        self._clients: dict[bool, httpx.Client] = {}
        self._opened: contextlib.ExitStack | None = None

    def __enter__(self) -> PlatformApi:
        """Within ``with``, the calls of one operation share a connection per destination (with
        and without admin credentials): a listing's pages, a register then an approve."""
        self._opened = contextlib.ExitStack()
        return self

    def __exit__(self, *_: object) -> None:
        opened, self._opened = self._opened, None
        self._clients.clear()
        if opened is not None:
            opened.close()

    def _client(self, destination: Destination, admin: bool) -> httpx.Client | None:
        """The operation's client for this destination, opened on first use; None outside ``with``."""
        if self._opened is None:
            return None
        if admin not in self._clients:
            self._clients[admin] = self._opened.enter_context(open_client(destination, self.deadline))
        return self._clients[admin]

    @property
    def is_admin(self) -> bool:
        return self.destination.admin is not None

    def _send(self, operation: Operation, admin: bool = True) -> Answer:
        if admin and not self.is_admin:
            raise RegistrationError(f"{operation.what} needs administrator credentials")
        destination = self.destination if admin else self.destination.with_admin(None)
        sender = Sender(destination, self.retry, self.sleep, self.clock, self.deadline)
        return sender.send(operation, self._client(destination, admin))

    def register(self, body: dict[str, Any]) -> Registered:
        """POST the registration. A 409 raises ``Duplicate``; a 404 says what it may have left
        on the platform (the Core saves the record before it looks the attributes' definitions up)."""
        operation = Operation("POST", REGISTER_PATH, body, passed_through=(404, 409), unanswered=REGISTER_UNANSWERED)
        answer = self._send(operation, admin=False)
        if answer.status == 404:
            raise RegistrationError(NOT_FOUND_ON_REGISTER, 404)
        if answer.status == 409:
            raise Duplicate("registration failed with status 409", answer.after_unanswered)
        return registered(answer.payload)

    def get(self, uuid: str) -> ConnectorRecord | None:
        """The record, or None when the platform has no connector with that uuid (404)."""
        path = f"/v2/connectors/{segment(uuid)}"
        answer = self._send(Operation("GET", path, what="reading the connector", passed_through=(404,)))
        return None if answer.status == 404 else ConnectorRecord.of(answer.payload, f"{ANSWERED} to reading it")

    def edit(self, uuid: str, body: dict[str, Any]) -> ConnectorRecord | None:
        """editConnectorV2: url, authType, authAttributes, customAttributes; None on 404."""
        operation = Operation(
            "PUT", f"/v2/connectors/{segment(uuid)}", body, what="updating the connector", passed_through=(404, 422)
        )
        answer = self._send(operation)
        if answer.status == 422:
            raise RegistrationError(EDIT_REFUSED, 422)
        return None if answer.status == 404 else ConnectorRecord.of(answer.payload, f"{ANSWERED} to updating it")

    def approve(self, uuid: str) -> bool:
        """True when approved; False when the platform refused (422: the record does not wait
        for approval, say approved already)."""
        path = f"/v2/connectors/{segment(uuid)}/approve"
        return (
            self._send(Operation("PATCH", path, what="approving the connector", ok=(200, 204), passed_through=(422,))).status
            != 422
        )

    def delete(self, uuid: str) -> bool:
        """True when deleted, False when it was already gone (404)."""
        path = f"/v2/connectors/{segment(uuid)}"
        operation = Operation("DELETE", path, what="de-registering the connector", ok=(200, 204), passed_through=(404,))
        return self._send(operation).status != 404

    def find(self, predicate: Callable[[ConnectorRecord], bool]) -> list[ConnectorRecord]:
        """Every record that matches, reading listConnectorsV2 page by page: until the last
        page, a page that adds no record not seen before, or ``MAX_PAGES``."""
        found: dict[str, ConnectorRecord] = {}
        seen: set[str] = set()
        for page in range(1, MAX_PAGES + 1):
            body = {"pageNumber": page, "itemsPerPage": PAGE_SIZE, "filters": []}
            payload = self._send(Operation("POST", "/v2/connectors/list", body, what="listing connectors")).payload
            items, pages = _page(payload)
            records = [ConnectorRecord.of(item, "a uuid in the platform's list answer") for item in items]
            new = [r for r in records if r.uuid not in seen]
            seen.update(r.uuid for r in records)
            if len(seen) > MAX_RECORDS:
                raise RegistrationError(f"listing connectors stopped after {MAX_RECORDS} records")
            found.update((r.uuid, r) for r in new if predicate(r))
            if page >= pages or not new:
                return list(found.values())
        raise RegistrationError(f"listing connectors stopped after {MAX_PAGES} pages without reaching the last")


def _page(payload: Any) -> tuple[list[Any], int]:
    """A list answer's items and page count; an answer of another shape is refused."""
    if not isinstance(payload, dict):
        raise RegistrationError("listing connectors failed: the platform's answer was not a page of connectors")
    items, pages = payload.get("items") or [], payload.get("totalPages")
    pages = 1 if pages is None else pages
    if not isinstance(items, list) or isinstance(pages, bool) or not isinstance(pages, int) or pages < 0:
        raise RegistrationError("listing connectors failed: the platform's answer was not a page of connectors")
    return items, pages
