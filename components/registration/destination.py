"""Where the platform's requests go: the platform URL directly or through the API server's
service proxy, with which trust, and an administrator's credentials when the call needs them.

One trust rule whatever the credentials: the certificates of ``caBundle`` (PEM text, or a file
of them) when given, else Mozilla's CA bundle as ``certifi`` ships it (httpx's default).
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass, replace
from typing import Any

import certifi

from .cluster_access import ApiServerAccess
from .errors import RegistrationError
from .inputs import ADMIN_CREDENTIAL_KEYS
from .routing import in_cluster_target
from .rules import PEM_MARK


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
        """The ``admin_credentials`` input's values (keys ``inputs.ADMIN_CREDENTIAL_KEYS``, in this order)."""
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
