"""What a workload renders to: plain Kubernetes objects, and the checksum stamp on its pods."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, get_args

from components.render.meta import CHECKSUM_ANNOTATION

Obj = dict[str, Any]
"""A Kubernetes object (or a part of one) as plain data."""

RequiredKind = Literal["service_account", "service", "deployment"]
OptionalKind = Literal["pod_disruption_budget", "service_monitor", "network_policy", "ingress"]
"""The kinds a workload renders only when its arguments ask."""
ObjectKind = Literal[RequiredKind, OptionalKind]
"""The kind of a Kubernetes object a workload renders: written here alone, in creation order (the
tuples below are made from it; ``RenderedWorkload``, the component's attributes and
``children.RESOURCES`` name each kind once more, and a test holds them to it)."""
REQUIRED_KINDS: tuple[RequiredKind, ...] = get_args(RequiredKind)
OPTIONAL_KINDS: tuple[OptionalKind, ...] = get_args(OptionalKind)
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


def stamp_checksum(deployment: Obj, config_checksum: Any) -> Obj:
    """A copy of the Deployment whose pod template carries ``config_checksum`` (a string, or a
    component's Output of one, nested as it is)."""
    template = deployment["spec"]["template"]
    annotations = {**template["metadata"].get("annotations", {}), CHECKSUM_ANNOTATION: config_checksum}
    metadata = {**template["metadata"], "annotations": annotations}
    return {**deployment, "spec": {**deployment["spec"], "template": {**template, "metadata": metadata}}}


def merge_patch(target: Any, patch: Any) -> Any:
    """``target`` with a JSON merge patch applied (RFC 7396: a null deletes, an object merges,
    anything else replaces); neither argument is changed."""
    if not isinstance(patch, dict):
        return patch
    merged = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = merge_patch(merged.get(key), value)
    return merged
