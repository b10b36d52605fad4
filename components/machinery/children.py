"""Rendered objects turned into the Kubernetes resources of a component, as its children.

Shared by every workload component (connector, proxy): the same kinds, names, parent,
``patchForce`` ownership and checksum stamping, whichever renderer produced the objects.

``planned_children`` says what each child is; the component's constructor makes them itself
(``Child.make`` called in its own frame). Why: for every resource the SDK records each frame
below the resource's constructor, and the state keeps them; children made in helpers here
would carry the library's frames in every child's state, which a hand-written component's
children do not.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from components.kube.referenced_objects import ResolvedReferences
from components.machinery.output_values import from_rendered
from components.render.checksum import ReferencedData, config_checksum
from components.render.objects import API_TYPES, REQUIRED_KINDS, Obj, ObjectKind, OptionalKind, RenderedWorkload, stamp_checksum

Factory = Callable[..., pulumi.CustomResource]


RESOURCES: dict[ObjectKind, Factory] = {
    "service_account": k8s.core.v1.ServiceAccount,
    "service": k8s.core.v1.Service,
    "deployment": k8s.apps.v1.Deployment,
    "pod_disruption_budget": k8s.policy.v1.PodDisruptionBudget,
    # A custom resource: its type is the rendered one (a partial adds no frame under the child).
    "service_monitor": functools.partial(
        k8s.apiextensions.CustomResource, api_version=API_TYPES["service_monitor"][0], kind=API_TYPES["service_monitor"][1]
    ),
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


@dataclass(frozen=True)
class Child:
    """One child as planned: its resource, its arguments, and the options it is made with."""

    kind: ObjectKind
    make: Factory
    parts: dict[str, Any]
    options: dict[str, Any]
    """The ``ResourceOptions`` it is made with, but ``depends_on``."""
    after: ObjectKind | None
    """The kind it is made after (``depends_on``), made before it."""

    def opts(self, made: dict[ObjectKind, pulumi.CustomResource]) -> pulumi.ResourceOptions:
        return pulumi.ResourceOptions(**self.options, depends_on=[made[self.after]] if self.after else None)


def planned_children(
    parent: pulumi.Resource,
    rendered: RenderedWorkload | pulumi.Output[RenderedWorkload],
    checksum: str | pulumi.Output[str],
    optional: Iterable[OptionalKind],
    retain_on_delete: bool = False,
    rollout_timeout_seconds: int | None = None,
) -> list[Child]:
    """A child per rendered kind, in the order they are made: the ServiceAccount, Service and
    Deployment, and each of ``optional`` (the kinds the arguments enable). ``rendered`` is plain
    objects, or an Output of them when an argument was an Output. ``retain_on_delete``: the
    component's (Pulumi passes ``protect`` down to children, not this).
    ``rollout_timeout_seconds``: how long the Deployment's and the Service's create or update
    wait for Ready pods (the Kubernetes provider's default: 10 minutes each)."""
    children = []
    for kind in (*REQUIRED_KINDS, *optional):
        waits = kind in WAITS_FOR_PODS and rollout_timeout_seconds is not None
        timeouts = (
            pulumi.CustomTimeouts(create=f"{rollout_timeout_seconds}s", update=f"{rollout_timeout_seconds}s") if waits else None
        )
        options = {"parent": parent, "retain_on_delete": retain_on_delete or None, "custom_timeouts": timeouts}
        children.append(Child(kind, RESOURCES[kind], _parts(rendered, kind, checksum), options, DEPENDS_ON.get(kind)))
    return children


def checksum_input(resolved: ResolvedReferences) -> str | pulumi.Output[str]:
    """The config checksum as the pods get it, from the resolved references: a plain string when
    it can be (the pod template then holds no Output for the SDK to await), an Output when an
    object comes from a resource of the program, secret whenever a Secret's values went into it."""
    if not resolved.from_resources and not resolved.read_any_secret:
        return config_checksum(resolved.read)
    outputs = [data for _, data in resolved.from_resources]

    def combine(values: list[Mapping[str, str]]) -> str:
        pending = [
            ReferencedData(ref.kind, ref.name, data) for (ref, _), data in zip(resolved.from_resources, values, strict=True)
        ]
        return config_checksum([*resolved.read, *pending])

    checksum = pulumi.Output.all(*outputs).apply(combine) if outputs else pulumi.Output.from_input(combine([]))
    return pulumi.Output.secret(checksum) if resolved.read_any_secret else checksum
