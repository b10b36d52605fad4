"""How requests reach a Service in the cluster: directly, or through the Kubernetes API server's
service proxy when the URL is an in-cluster name that does not resolve where Pulumi runs; and
the API server's credentials for that route, loaded the way the Kubernetes provider loads them.

The kubernetes client's kubeconfig loader does the work (contexts, bearer tokens, client
certificates, exec credential plugins, the cluster CA). Credentials are loaded inside the method
that needs them, never kept on an object that is pickled into state, never logged."""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

import yaml

from components.registration.client import Destination
from components.registration.contract import IN_CLUSTER_HOST, url_problem
from components.registration.errors import RegistrationError

Route = Literal["direct", "apiServerProxy"]
RouteSetting = Literal["auto", "direct", "apiServerProxy"]

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


class NoClusterCredentials(RuntimeError):
    pass


@dataclass(frozen=True)
class ApiServerAccess:
    host: str
    authorization: str | None
    client_cert: tuple[str, str] | None
    verify: bool | str


def is_kubeconfig_content(kubeconfig: str | None) -> bool:
    """Whether a kubeconfig setting is the file's content (it has lines), not its path."""
    return bool(kubeconfig) and "\n" in str(kubeconfig)


def client_configuration(kubeconfig: str | None = None, context: str | None = None) -> Any:
    """A ``kubernetes.client.Configuration`` from ``kubeconfig`` (a path or the file's content),
    else ``KUBECONFIG`` / ``~/.kube/config``, else the in-cluster service account."""
    from kubernetes import client, config

    configuration = client.Configuration()
    if kubeconfig and is_kubeconfig_content(kubeconfig):
        config.load_kube_config_from_dict(yaml.safe_load(kubeconfig), context=context, client_configuration=configuration)
        return configuration
    path = kubeconfig or os.environ.get("KUBECONFIG") or os.path.expanduser("~/.kube/config")
    try:
        config.load_kube_config(config_file=path, context=context, client_configuration=configuration)
    except config.ConfigException:
        config.load_incluster_config(client_configuration=configuration)
    return configuration


def load_access(kubeconfig: str | None = None, context: str | None = None) -> ApiServerAccess:
    try:
        configuration = client_configuration(kubeconfig, context)
    except Exception:
        raise NoClusterCredentials(
            "registration.route apiServerProxy needs cluster credentials (a kubeconfig or in-cluster service account), "
            "and none could be loaded"
        ) from None
    authorization = configuration.api_key.get("authorization") or configuration.api_key.get("BearerToken")
    if authorization and configuration.api_key_prefix.get("authorization"):
        authorization = f"{configuration.api_key_prefix['authorization']} {authorization}"
    cert = (configuration.cert_file, configuration.key_file) if configuration.cert_file and configuration.key_file else None
    verify: bool | str = configuration.ssl_ca_cert or True
    if not configuration.verify_ssl:
        verify = False
    return ApiServerAccess(configuration.host.rstrip("/"), authorization, cert, verify)


def has_credentials(kubeconfig: str | None = None, context: str | None = None) -> bool:
    try:
        load_access(kubeconfig, context)
    except NoClusterCredentials:
        return False
    return True
