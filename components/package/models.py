"""What the package adds to the argument models: its own inputs, and the components' outputs."""

from __future__ import annotations

from ..args.base import Model


class PackageOptions(Model):
    """Inputs of the package's components beyond a manifest's fields: what a Python caller
    passes as keyword arguments."""

    kubeconfig: str | None = None
    """The cluster to read referenced Secrets and ConfigMaps from (a kubeconfig's path or content;
    default: the ambient one), also the credentials of the registration's API-server proxy route."""
    kube_context: str | None = None
    """The kubeconfig context to use (default: its current context)."""
    read_references: bool = True
    """Read referenced Secrets and ConfigMaps for the config checksum. Set false when the
    Kubernetes provider renders to a directory (no cluster): each reference is then a warning."""


class RegistrationStatus(Model):
    """The connector's record on the platform."""

    uuid: str
    """The uuid the platform gave the connector (kept in state: never registered twice)."""
    status: str
    """The record's status as the platform last reported it."""
    registered_at: str
    """When the connector was registered (ISO 8601)."""


class ConnectorOutputs(Model):
    """The outputs of a connector component."""

    endpoint: str
    """The in-cluster URL of the connector's Service (what the platform calls)."""
    current_image: str
    """The image reference the Deployment runs."""
    config_checksum: str
    """The hash of the referenced Secrets and ConfigMaps stamped on the pod template."""
    children: dict[str, str]
    """The name of each Kubernetes object of the component, by kind."""
    registration: RegistrationStatus | None = None
    """The connector's registration, when it registers."""


class ProxyOutputs(Model):
    """The outputs of a proxy component."""

    endpoint: str
    """The in-cluster URL of the proxy's health port."""
    api_endpoint: str
    """The in-cluster URL of the proxy's API port."""
    current_image: str
    """The image reference the Deployment runs."""
    observed_version: str
    """The proxy version the image tag names."""
    config_checksum: str
    """The hash of the config token Secret and other referenced objects stamped on the pod template."""
    children: dict[str, str]
    """The name of each Kubernetes object of the component, by kind."""
