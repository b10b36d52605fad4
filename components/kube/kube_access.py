"""The cluster's credentials, loaded the way the Kubernetes provider loads them: the kubernetes
client's kubeconfig loader does the work (contexts, bearer tokens, client certificates, exec
credential plugins, the cluster CA). Credentials are loaded inside the function that needs them,
never kept on an object that is pickled into state, never logged. Loads neither pydantic nor
pulumi: the registration's provider process imports it."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import yaml

__all__ = ["ApiServerAccess", "NoClusterCredentials", "client_configuration", "is_kubeconfig_content", "load_access"]


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
