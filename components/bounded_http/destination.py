"""Where requests go (``Destination``): a base URL directly or through the API server's service
proxy, with which trust (the certificates of a CA bundle, PEM text or a file of them, when given,
else Mozilla's CA bundle as ``certifi`` ships it, httpx's default), which headers, and an
administrator's credentials when a call needs them. What cannot work is refused before any
request: a header value no header can carry, administrator credentials through the API server's
proxy, credentials in clear through an HTTP proxy of the environment."""

from __future__ import annotations

import os
import ssl
import tempfile
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace

import certifi
import httpx

from components.bounded_http.failures import RequestError
from components.bounded_http.header_rules import HEADER_RULE, PEM_MARK, header_value_problem, is_loopback

__all__ = ["AdminCredentials", "Destination", "TlsSettings", "direct"]

ACCEPTED_ENCODINGS = "gzip, deflate"
"""What the client asks answers to be encoded in (``sender.read_body`` inflates no other)."""


@dataclass(frozen=True)
class AdminCredentials:
    """An administrator of the platform: a bearer JWT, or a client certificate and key (PEM)
    presented in TLS to the platform's gateway. Never stored on a client, never printed."""

    bearer_token: str | None = None
    client_certificate: str | None = None
    client_key: str | None = None

    def __repr__(self) -> str:
        return "AdminCredentials(<hidden>)"


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
    A bundle or certificate that does not load is a ``RequestError`` now, before any request."""
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
        raise RequestError(
            "the certificates to trust could not be loaded (registration.caBundle: PEM text or a file of it)"
        ) from None
    if cert is not None:
        try:
            context.load_cert_chain(*cert)
        except (OSError, ValueError):
            raise RequestError("the client certificate and key could not be loaded (PEM, and a key that matches)") from None
    return context


def direct(platform_url: str, tls: TlsSettings = TlsSettings()) -> Destination:
    return Destination(platform_url.rstrip("/"), verify=tls.verify())


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
        raise RequestError(f"the kubeconfig's credentials for the API server {HEADER_RULE}")
    admin = destination.admin
    if admin is not None and admin.bearer_token:
        if header_value_problem(admin.bearer_token):
            raise RequestError(f"registration.adminCredentials.bearerToken {HEADER_RULE}")
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
