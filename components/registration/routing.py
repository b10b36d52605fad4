"""How the registration request reaches the platform: directly, or through the Kubernetes API
server's service proxy when the platform URL is an in-cluster name that does not resolve here."""

from __future__ import annotations

import re
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

Route = Literal["direct", "apiServerProxy"]
RouteSetting = Literal["auto", "direct", "apiServerProxy"]

DNS_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
IN_CLUSTER_HOST = re.compile(rf"^(?P<service>{DNS_LABEL})\.(?P<namespace>{DNS_LABEL})\.svc(\.[a-z0-9.-]+)?$")
DEFAULT_PORTS = {"http": 80, "https": 443}


class RouteError(ValueError):
    """A platform URL that cannot work with the chosen route; says why and names the setting."""


@dataclass(frozen=True)
class ServiceTarget:
    scheme: str
    service: str
    namespace: str
    port: int
    path: str
    """Path and query of the request, kept as given."""

    def proxy_path(self) -> str:
        return f"/api/v1/namespaces/{self.namespace}/services/{self.scheme}:{self.service}:{self.port}/proxy{self.path}"


def url_problem(url: str) -> str | None:
    """Why ``url`` is not a usable http(s) URL, or None."""
    if len(url) > 2048:
        return "must be at most 2048 characters"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises on a port that is not a number in 0..65535
    except ValueError:
        return "must be an http:// or https:// URL with a valid host and a port between 1 and 65535"
    if parts.scheme not in ("http", "https") or not parts.hostname or re.search(r"\s", url):
        return "must be an http:// or https:// URL"
    if parts.port == 0:
        return "must have a port between 1 and 65535"
    return None


def in_cluster_target(url: str) -> ServiceTarget | None:
    """The Service a URL names (``<service>.<namespace>.svc[.<cluster domain>]``), else None."""
    parts = urlsplit(url)
    match = IN_CLUSTER_HOST.match(parts.hostname or "")
    if match is None:
        return None
    path = parts.path or "/"
    if parts.query:
        path += f"?{parts.query}"
    port = parts.port or DEFAULT_PORTS[parts.scheme]
    return ServiceTarget(parts.scheme, match["service"], match["namespace"], port, path)


def host_resolves(host: str) -> bool:
    try:
        socket.getaddrinfo(host, None)
    except (OSError, UnicodeError):
        return False
    return True


def choose_route(setting: RouteSetting, url: str, resolves: Callable[[str], bool] = host_resolves) -> Route:
    """``auto``: direct unless the URL is an in-cluster name that does not resolve from here."""
    problem = url_problem(url)
    if problem:
        raise RouteError(f"registration.platformUrl {problem}")
    target = in_cluster_target(url)
    host = urlsplit(url).hostname or ""
    if setting == "apiServerProxy":
        if target is None:
            raise RouteError(
                "registration.route is apiServerProxy, but platformUrl is not an in-cluster Service address "
                "(<service>.<namespace>.svc...): use route direct or auto"
            )
        return "apiServerProxy"
    if setting == "direct":
        if target is not None and not resolves(host):
            raise RouteError(
                "registration.route is direct, but platformUrl is an in-cluster address that does not resolve "
                "from where Pulumi runs: use route auto or apiServerProxy"
            )
        return "direct"
    if target is None or resolves(host):
        return "direct"
    return "apiServerProxy"
