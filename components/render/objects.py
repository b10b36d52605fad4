"""What a workload renders to: plain Kubernetes objects, and the checksum stamp on its pods."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from components.render.meta import CHECKSUM_ANNOTATION

Obj = dict[str, Any]
"""A Kubernetes object (or a part of one) as plain data."""

OptionalKind = Literal["pod_disruption_budget", "service_monitor", "network_policy", "ingress"]
ObjectKind = Literal["service_account", "service", "deployment", OptionalKind]
"""The kind of a Kubernetes object a workload renders."""
REQUIRED_KINDS: tuple[ObjectKind, ...] = ("service_account", "service", "deployment")
OPTIONAL_KINDS: tuple[OptionalKind, ...] = ("pod_disruption_budget", "service_monitor", "network_policy", "ingress")
"""The kinds a workload renders only when its arguments ask."""
KINDS: tuple[ObjectKind, ...] = (*REQUIRED_KINDS, *OPTIONAL_KINDS)
API_TYPES: dict[ObjectKind, tuple[str, str]] = {
    "service_account": ("v1", "ServiceAccount"),
    "service": ("v1", "Service"),
    "deployment": ("apps/v1", "Deployment"),
    "pod_disruption_budget": ("policy/v1", "PodDisruptionBudget"),
    "service_monitor": ("monitoring.coreos.com/v1", "ServiceMonitor"),
    "network_policy": ("networking.k8s.io/v1", "NetworkPolicy"),
    "ingress": ("networking.k8s.io/v1", "Ingress"),
}
"""Each kind's ``apiVersion`` and ``kind``, written into its objects here alone (the resource
each becomes, ``children.RESOURCES``, is checked against it by a test)."""


def type_fields(kind: ObjectKind) -> dict[str, str]:
    """An object's ``apiVersion`` and ``kind``."""
    api_version, name = API_TYPES[kind]
    return {"apiVersion": api_version, "kind": name}


"""Every kind a workload renders, in the order its objects are created."""


@dataclass(frozen=True)
class RenderedWorkload:
    """Plain Kubernetes objects; optional kinds are None when not enabled."""

    deployment: Obj
    service: Obj
    service_account: Obj
    pod_disruption_budget: Obj | None
    service_monitor: Obj | None
    network_policy: Obj | None
    ingress: Obj | None
    endpoint: str
    current_image: str

    def by_kind(self) -> dict[ObjectKind, Obj]:
        """The rendered objects by kind, in creation order."""
        return {kind: obj for kind in KINDS if (obj := getattr(self, kind)) is not None}

    def objects(self) -> list[Obj]:
        return list(self.by_kind().values())


def stamp_checksum(deployment: Obj, config_checksum: str) -> Obj:
    """A copy of the Deployment whose pod template carries ``config_checksum``."""
    template = deployment["spec"]["template"]
    annotations = {**template["metadata"].get("annotations", {}), CHECKSUM_ANNOTATION: config_checksum}
    metadata = {**template["metadata"], "annotations": annotations}
    return {**deployment, "spec": {**deployment["spec"], "template": {**template, "metadata": metadata}}}
