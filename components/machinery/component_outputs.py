"""What each component outputs, one model per kind: the component declares these attributes (a
class whose outputs differ from its model is refused as it is defined), registers them, and the
component package's schema describes them."""

from __future__ import annotations

from pydantic import Field, create_model

from components.args.base import Model
from components.registration import contract

RegistrationStatus = create_model(
    "RegistrationStatus",
    __base__=Model,
    __doc__="The connector's record on the platform.",
    **{o.python: (str, Field(description=o.doc)) for o in contract.OUTPUTS},  # type: ignore[call-overload]
)


class ConnectorOutputs(Model):
    """The outputs of a connector component."""

    endpoint: str
    """The in-cluster URL of the connector's Service (what the platform calls)."""
    current_image: str
    """The image reference the Deployment runs."""
    config_checksum: str
    """The hash of the referenced Secrets and ConfigMaps stamped on the pod template."""
    children: dict[str, str]
    """The name of each Kubernetes object of the component in the cluster (a custom ServiceAccount's own), by kind."""
    registration: RegistrationStatus | None = None  # type: ignore[valid-type]
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
    """The name of each Kubernetes object of the component in the cluster (a custom ServiceAccount's own), by kind."""


class PlatformOutputs(Model):
    """The outputs of a platform component."""

    api_endpoint: str
    """Core's API in the cluster: what a connector passes as its registration's platformUrl."""
    version: str
    """The platform version deployed."""
