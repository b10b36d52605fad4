"""Rendered objects turned into the Kubernetes resources of a component, as its children.

Shared by every workload component (connector, proxy): the same kinds, names, parent,
``patchForce`` ownership and checksum stamping, whichever renderer produced the objects.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from .outputs import from_rendered
from .render.objects import API_TYPES, REQUIRED_KINDS, Obj, ObjectKind, OptionalKind, RenderedWorkload, stamp_checksum

Factory = Callable[..., pulumi.CustomResource]


def _service_monitor(name: str, **parts: Any) -> pulumi.CustomResource:
    api_version, kind = API_TYPES["service_monitor"]  # a custom resource: its type is the rendered one
    return k8s.apiextensions.CustomResource(name, api_version=api_version, kind=kind, **parts)


RESOURCES: dict[ObjectKind, Factory] = {
    "service_account": k8s.core.v1.ServiceAccount,
    "service": k8s.core.v1.Service,
    "deployment": k8s.apps.v1.Deployment,
    "pod_disruption_budget": k8s.policy.v1.PodDisruptionBudget,
    "service_monitor": _service_monitor,
    "network_policy": k8s.networking.v1.NetworkPolicy,
    "ingress": k8s.networking.v1.Ingress,
}
"""The Pulumi resource each rendered kind becomes."""
DEPENDS_ON: dict[ObjectKind, ObjectKind] = {"deployment": "service_account"}
WAITS_FOR_PODS: tuple[ObjectKind, ...] = ("deployment", "service")
"""The kinds whose create and update the Kubernetes provider holds until pods are Ready (a
Service until it targets one)."""


def retains(opts: pulumi.ResourceOptions | None) -> bool:
    """Whether a component's options keep its resources when they leave the stack."""
    return bool(opts is not None and opts.retain_on_delete)


def owned_by_the_program(metadata: Obj) -> Obj:
    """Metadata with the Kubernetes provider's ``patchForce``: the program's values win a
    server-side-apply conflict, so a hand-scaled Deployment is restored on the next ``up``, and
    objects another tool wrote (the operator's, when taking over) become the program's."""
    return {**metadata, "annotations": {**metadata.get("annotations", {}), "pulumi.com/patchForce": "true"}}


def _parts(rendered: RenderedWorkload | pulumi.Output[RenderedWorkload], kind: ObjectKind, checksum: Any) -> dict[str, Any]:
    """The resource's arguments: ``metadata`` owned by the program, and the rest of the object
    (a ServiceAccount has only metadata). The checksum is the one value derived from referenced
    Secrets: stamped on the Deployment as a nested Output when one went in, only it is secret
    in state and in ``preview --diff``, never the whole spec."""

    def pick(key: str) -> Callable[[RenderedWorkload], Any]:
        def picked(r: RenderedWorkload) -> Any:
            obj = getattr(r, kind)
            if kind == "deployment" and key == "spec":
                obj = stamp_checksum(obj, checksum)
            return owned_by_the_program(obj[key]) if key == "metadata" else obj[key]

        return picked

    keys = ["metadata"] if kind == "service_account" else ["metadata", "spec"]
    return {key: from_rendered(rendered, pick(key)) for key in keys}


def create_children(
    parent: pulumi.Resource,
    name: str,
    rendered: RenderedWorkload | pulumi.Output[RenderedWorkload],
    checksum: str | pulumi.Output[str],
    optional: Iterable[OptionalKind],
    retain_on_delete: bool = False,
    rollout_timeout_seconds: int | None = None,
) -> dict[ObjectKind, pulumi.CustomResource]:
    """A resource per rendered kind: the ServiceAccount, Service and Deployment, and each of
    ``optional`` (the kinds the arguments enable). ``rendered`` is plain objects, or an Output
    of them when an argument was an Output. ``retain_on_delete``: the component's (Pulumi
    passes ``protect`` down to children, not this). ``rollout_timeout_seconds``: how long the
    Deployment's and the Service's create or update wait for Ready pods (the Kubernetes
    provider's default: 10 minutes each)."""
    resources: dict[ObjectKind, pulumi.CustomResource] = {}
    for kind in (*REQUIRED_KINDS, *optional):
        after = DEPENDS_ON.get(kind)
        depends_on = [resources[after]] if after else None
        waits = kind in WAITS_FOR_PODS and rollout_timeout_seconds is not None
        timeouts = (
            pulumi.CustomTimeouts(create=f"{rollout_timeout_seconds}s", update=f"{rollout_timeout_seconds}s") if waits else None
        )
        opts = pulumi.ResourceOptions(
            parent=parent, depends_on=depends_on, retain_on_delete=retain_on_delete or None, custom_timeouts=timeouts
        )
        resources[kind] = RESOURCES[kind](name, **_parts(rendered, kind, checksum), opts=opts)
    return resources
