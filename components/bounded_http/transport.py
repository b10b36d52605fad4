"""Within one deadline: httpx's timeouts apply to each socket operation alone, so an answer that
trickles a byte a second, or headers that never end, would keep a run reading for as long as the
server likes. Here httpx's transport runs on an httpcore pool whose network backend bounds every
name lookup, connect, TLS handshake, write and read by the time left (``Deadline``)."""

from __future__ import annotations

import contextlib
import queue
import socket
import ssl
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import httpcore
import httpx

from components.bounded_http.destination import (
    PROXY_ADMIN_REFUSED,
    PROXY_IN_CLEAR,
    Destination,
    client_certificate_files,
    headers_for,
    proxy_for,
    tls_context,
)
from components.bounded_http.failures import RequestError
from components.bounded_http.settings import ATTEMPT_TIMEOUT

__all__ = ["Deadline"]


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


@contextmanager
def open_client(destination: Destination, deadline: Deadline) -> Iterator[httpx.Client]:
    """A client for ``destination`` whose every request keeps ``deadline``."""
    admin = destination.admin
    if admin is not None and (admin.bearer_token or admin.client_certificate) and destination.through_proxy:
        raise RequestError(PROXY_ADMIN_REFUSED)
    headers = headers_for(destination)
    proxy = proxy_for(destination.base)
    if proxy is not None and destination.base.startswith("http://") and "Authorization" in headers:
        raise RequestError(PROXY_IN_CLEAR)
    with client_certificate_files(admin) as admin_cert:
        transport = DeadlineTransport(deadline, tls_context(destination.verify, admin_cert or destination.cert), proxy)
        with httpx.Client(
            transport=transport, headers=headers, timeout=ATTEMPT_TIMEOUT, follow_redirects=False, trust_env=False
        ) as client:
            yield client
