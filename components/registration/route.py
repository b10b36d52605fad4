"""How requests reach a Service in the cluster: directly, or through the Kubernetes API server's
service proxy when the URL is an in-cluster name that does not resolve where Pulumi runs (the
API server's credentials for that route: ``kube.kube_access``)."""

from __future__ import annotations

import dataclasses
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from components.bounded_http.destination import AdminCredentials, Destination, TlsSettings, direct
from components.bounded_http.settings import RetryPolicy
from components.kube.kube_access import ApiServerAccess, NoClusterCredentials, load_access
from components.registration import contract, rules
from components.registration.contract import Route, RouteSetting
from components.registration.errors import RegistrationError
from components.registration.platform_api import PlatformApi
from components.registration.rules import IN_CLUSTER_HOST, url_problem

__all__ = ["RouteError", "choose_route", "host_resolves", "in_cluster_target", "platform_api_for", "through_api_server"]


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


def cluster_access(props: dict[str, Any]) -> ApiServerAccess | None:
    """The API server's credentials for the route through it (None on the direct route): read
    before anything is journaled or sent."""
    if props.get("route") != "apiServerProxy":
        return None
    try:
        return load_access(props.get("kubeconfig"), props.get("kube_context"))
    except NoClusterCredentials as error:
        raise RegistrationError(str(error)) from None


def admin_credentials(value: Any) -> AdminCredentials | None:
    """The ``admin_credentials`` input's values as the client takes them (either shape of
    ``contract.ADMIN_CREDENTIAL_SHAPES``), None without any."""
    if not isinstance(value, dict) or not any(value.get(shape[0]) for shape in contract.ADMIN_CREDENTIAL_SHAPES):
        return None
    return AdminCredentials(**{f.name: value.get(contract.camel_case(f.name)) for f in dataclasses.fields(AdminCredentials)})


def destination(props: dict[str, Any], access: ApiServerAccess | None) -> Destination:
    """Where the requests go: through the API server with ``access``, else directly."""
    if access is not None:
        target = through_api_server(props["platform_url"], access)
    else:
        target = direct(props["platform_url"], TlsSettings(props.get("ca_bundle"), props.get("insecure_skip_tls_verify") is True))
    return target.with_admin(admin_credentials(props.get("admin_credentials")))


def platform_api_for(props: dict[str, Any]) -> PlatformApi:
    """The client of one operation, its inputs checked first."""
    retry = RetryPolicy(*contract.schedule(rules.checked(props)))
    return PlatformApi(destination(props, cluster_access(props)), retry)
