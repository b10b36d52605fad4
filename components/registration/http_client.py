"""The HTTP client of one call to the platform: the destination's TLS and headers, the
administrator's credentials when the call carries them, on the deadline-bound transport.

What cannot work is refused here, before any request: a header value no header can carry,
administrator credentials through the API server's proxy, credentials in clear through an
HTTP proxy of the environment."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

import httpx

from .answers import ACCEPTED_ENCODINGS
from .destination import AdminCredentials, Destination, tls_context
from .errors import RegistrationError
from .rules import HEADER_RULE, header_value_problem
from .settings import ATTEMPT_TIMEOUT, Deadline
from .transport import DeadlineTransport, proxy_for

PROXY_IN_CLEAR = (
    "the credentials would pass through the HTTP proxy of the environment (HTTP_PROXY) in clear: "
    "use an https:// platformUrl, or exclude its host with NO_PROXY"
)
PROXY_ADMIN_REFUSED = "administrator calls cannot go through the API server's proxy: it forwards no credentials to the platform"
"""The longest one connect, send or read may wait, within the deadline."""


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
