"""The HTTP client of one call to the platform (``open_client``), on a transport bounded by the
call's deadline: httpx's transport on an httpcore pool whose network backend bounds every
connect, TLS handshake, write and read by the time left.

httpx's timeouts apply to each socket operation alone, so an answer that trickles a byte a
second, or headers that never end, would keep a run reading for as long as the platform likes.
Here each operation waits at most the time left (``deadline``), and a TLS handshake refused by
verification raises ``TlsFailure``, this module's own exception. The client carries the
destination's TLS and headers, and the administrator's credentials when the call needs them.
What cannot work is refused before any request: a header value no header can carry,
administrator credentials through the API server's proxy, credentials in clear through an HTTP
proxy of the environment."""

from __future__ import annotations

import contextlib
import os
import queue
import socket
import ssl
import tempfile
import threading
import urllib.request
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import httpcore
import httpx

from .destination import AdminCredentials, Destination, tls_context
from .errors import RegistrationError
from .rules import HEADER_RULE, header_value_problem, is_loopback
from .settings import ATTEMPT_TIMEOUT, Deadline, Expired

ACCEPTED_ENCODINGS = "gzip, deflate"
"""What the client asks answers to be encoded in (``sending.read_body`` inflates no other)."""


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
