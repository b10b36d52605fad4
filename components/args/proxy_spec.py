"""A proxy's arguments: the operator's Proxy resource spec, on the shared workload spec.

The proxy is the outbound-only broker bridge of a restricted zone; every broker setting travels
in a config token held in a Secret, so the only required argument is that Secret. What differs
from a connector is here: BOM image defaults, no service, strategy, lifecycle or registration,
a top-level PDB and grace period, and a proxy-local metrics block.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from components.args.base import EntryIdentity, Identity, Model
from components.args.blocks import ImageBase, PodDisruptionBudgetArgs, ServiceMonitorArgs
from components.args.fields import AbsolutePath, GracePeriod, ImageHost, ImagePath, ImageRepository, ImageTag
from components.args.workload_spec import WorkloadSpec

__all__ = ["ProxyArgs", "ProxyEntry", "ProxySpec"]

BOM_REGISTRY = "hub.omnitrustregistry.com"
BOM_REPOSITORY = "ilm"
BOM_NAME = "proxy"
BOM_TAG = "1.0.0"
"""The operator's bill of materials for the proxy (the same tag in its 2.18.0 and 2.19.0 bundles)."""

DEFAULT_METRICS_PATH = "/metrics"
TOKEN_ENV = "PROXY_CONFIG_TOKEN"
SIGNING_KEY_ENV = "PROXY_TOKEN_SIGNING_KEY"
RESERVED_ENV = (TOKEN_ENV, SIGNING_KEY_ENV)


class ProxyImageArgs(ImageBase):
    """A proxy's image: each part defaults to the operator's bill of materials."""

    repository: ImageRepository = BOM_REPOSITORY
    """The image repository."""
    registry: ImageHost = BOM_REGISTRY
    """The registry host."""
    name: ImagePath = BOM_NAME
    """The image name."""
    tag: ImageTag = BOM_TAG
    """The image tag (default: the operator's bill of materials); may be empty only when `digest` is set."""


class ConfigTokenSecretRefArgs(Model):
    """The Secret holding the config token the platform's provisioning service minted."""

    name: Annotated[str, Field(min_length=1, max_length=253)]
    """The Secret's name, in the proxy's namespace."""
    token_key: Annotated[str, Field(min_length=1, max_length=253)] = "configToken"
    """The key holding the config token."""
    signing_key_key: Annotated[str, Field(min_length=1, max_length=253)] = "tokenSigningKey"
    """The key holding the token's signing key."""


class ProxyMetricsArgs(Model):
    """The proxy's metrics endpoint, and the ServiceMonitor that has Prometheus scrape it."""

    enabled: bool
    """The proxy serves metrics."""
    path: AbsolutePath = DEFAULT_METRICS_PATH
    """The metrics path."""
    service_monitor: ServiceMonitorArgs | None = None
    """The ServiceMonitor, when enabled."""


class ProxySpec(WorkloadSpec):
    """The ``spec`` of a Proxy resource."""

    config_token_secret_ref: ConfigTokenSecretRefArgs
    """The Secret holding the proxy's config token."""
    image: ProxyImageArgs = ProxyImageArgs()
    """The proxy's image (default: the operator's bill of materials)."""
    termination_grace_period_seconds: GracePeriod | None = None
    """Seconds a pod has to stop before it is killed."""
    metrics: ProxyMetricsArgs | None = None
    """The metrics endpoint and its ServiceMonitor."""
    pod_disruption_budget: PodDisruptionBudgetArgs | None = None
    """The PodDisruptionBudget, when enabled."""


class ProxyArgs(ProxySpec, Identity):
    """Everything a ``ProxyComponent`` needs: identity plus the spec, flattened."""


class ProxyEntry(EntryIdentity):
    """One entry of the stack config's ``proxies`` list: a Proxy manifest's metadata and spec."""

    spec: ProxySpec

    def to_args(self) -> ProxyArgs:
        return ProxyArgs.model_validate(self.flattened(self.spec))
