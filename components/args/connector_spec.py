"""A connector's arguments: the Connector resource's spec, on the shared workload spec.

What only a connector has: its Service, rollout strategy, lifecycle (grace period and PDB),
metrics block, an optional Ingress and its registration with the platform.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from components.args.base import EntryIdentity, Identity, Model
from components.args.blocks import ImageBase, PodDisruptionBudgetArgs, ServiceMonitorArgs
from components.args.fields import AbsolutePath, Annotations, GracePeriod, IngressHost, IntOrPercent, Port, is_zero
from components.args.registration_spec import RegistrationArgs
from components.args.workload_spec import WorkloadSpec

__all__ = ["ConnectorArgs", "ConnectorEntry", "ConnectorSpec", "HealthCheckArgs"]


class ImageArgs(ImageBase):
    """A connector's image: a repository and a tag (or digest) are required."""


class ServiceArgs(Model):
    """The Service in front of the connector: its port and type."""

    port: Port = 8080
    """The port the connector listens on and the Service exposes."""
    type: Literal["ClusterIP", "NodePort", "LoadBalancer"] = "ClusterIP"
    """The Service type."""
    node_port: Annotated[int, Field(ge=30000, le=32767)] | None = None
    """The node port (30000-32767); only with type NodePort."""

    @model_validator(mode="after")
    def _node_port_needs_node_port_type(self) -> ServiceArgs:
        if self.node_port is not None and self.type != "NodePort":
            raise ValueError("nodePort can only be set when type is NodePort")
        return self


class RollingUpdateArgs(Model):
    """The bounds of a rolling update: pods above the desired count, and pods that may be unavailable."""

    max_surge: IntOrPercent | None = None
    """Pods above the desired count during a rollout: a number or a percentage."""
    max_unavailable: IntOrPercent | None = None
    """Pods that may be unavailable during a rollout: a number or a percentage."""


class StrategyArgs(Model):
    """How the Deployment replaces the connector's pods on a change."""

    type: Literal["Recreate", "RollingUpdate"] | None = None
    """How pods are replaced on a change."""
    rolling_update: RollingUpdateArgs | None = None
    """Rolling update settings; only with type RollingUpdate."""

    @model_validator(mode="after")
    def _rules(self) -> StrategyArgs:
        if self.rolling_update is None:
            return self
        if self.type != "RollingUpdate":
            raise ValueError("rollingUpdate can only be set when type is RollingUpdate")
        surge, unavailable = self.rolling_update.max_surge, self.rolling_update.max_unavailable
        if is_zero(surge) and is_zero(unavailable):
            raise ValueError("rollingUpdate.maxSurge and maxUnavailable must not both be zero")
        return self


class LifecycleArgs(Model):
    """How the connector's pods stop: their grace period, and the disruption budget that bounds evictions."""

    termination_grace_period_seconds: GracePeriod | None = None
    """Seconds a pod has to stop before it is killed."""
    pod_disruption_budget: PodDisruptionBudgetArgs | None = None
    """The PodDisruptionBudget, when enabled."""


class MetricsArgs(Model):
    """The connector's metrics endpoint, and the ServiceMonitor that has Prometheus scrape it."""

    enabled: bool = False
    """The connector serves metrics."""
    port: Port | None = None
    """Accepted as in a Connector manifest; scraping uses the Service's http port."""
    path: AbsolutePath = "/v1/metrics"
    """The metrics path."""
    service_monitor: ServiceMonitorArgs | None = None
    """The ServiceMonitor, when enabled."""


class IngressArgs(Model):
    """An Ingress routing a host (and path) to the connector's Service."""

    host: IngressHost
    """The host name routed to the connector."""
    path: AbsolutePath = "/"
    """The path routed."""
    path_type: Literal["Prefix", "Exact", "ImplementationSpecific"] = "Prefix"
    """How the path matches."""
    class_name: str | None = None
    """The IngressClass."""
    tls_secret_name: str | None = None
    """A Secret with the host's TLS certificate."""
    annotations: Annotations = {}
    """Annotations on the Ingress."""


class HealthCheckArgs(Model):
    """How the connector's health endpoint is watched between runs (`status`, `status --check`),
    as the operator's `Healthy` condition watches it; nothing is rendered from it."""

    enabled: bool = True
    """Watch the health endpoint."""
    path: AbsolutePath | None = None
    """The health endpoint (default: `/v2/health`, then `/v1/health` when that one is not found)."""
    period_seconds: Annotated[int, Field(ge=10, le=86400)] = 30
    """Seconds between checks (at least 10)."""
    timeout_seconds: Annotated[int, Field(ge=1, le=30)] = 10
    """How long one check waits for the answer (at most 30, and never above the period)."""

    @model_validator(mode="after")
    def _timeout_within_period(self) -> HealthCheckArgs:
        if self.timeout_seconds > self.period_seconds:
            raise ValueError("timeoutSeconds must not be above periodSeconds")
        return self


class ConnectorSpec(WorkloadSpec):
    """The ``spec`` of a Connector resource."""

    image: ImageArgs
    """The connector's image."""
    service: ServiceArgs = ServiceArgs()
    """The Service in front of the connector."""
    strategy: StrategyArgs | None = None
    """How the Deployment replaces pods."""
    lifecycle: LifecycleArgs = LifecycleArgs()
    """Termination and disruption settings."""
    metrics: MetricsArgs = MetricsArgs()
    """The metrics endpoint and its ServiceMonitor."""
    ingress: IngressArgs | None = None
    """An Ingress routing to the connector."""
    registration: RegistrationArgs | None = None
    """The connector's registration with the platform, done once."""
    health_check: HealthCheckArgs = HealthCheckArgs()
    """How the connector's health is watched between runs (renders nothing)."""


class ConnectorArgs(ConnectorSpec, Identity):
    """Everything a ``ConnectorComponent`` needs: identity plus the spec, flattened."""


class ConnectorEntry(EntryIdentity):
    """One entry of the stack config's ``connectors`` list: a Connector manifest's metadata and spec."""

    spec: ConnectorSpec

    def to_args(self) -> ConnectorArgs:
        return ConnectorArgs.model_validate(self.flattened(self.spec))
