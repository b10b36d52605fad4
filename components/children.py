"""Rendered objects turned into the Kubernetes resources of a component, as its children.

Shared by every workload component (connector, proxy): the same kinds, names, parent,
``patchForce`` ownership and checksum stamping, whichever renderer produced the objects.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

import pulumi
import pulumi_kubernetes as k8s
from pydantic import BaseModel

from .render.objects import RenderedWorkload, stamp_checksum

Args = TypeVar("Args", bound=BaseModel)
T = TypeVar("T")


def has_outputs(value: Any) -> bool:
    if isinstance(value, pulumi.Output):
        return True
    if isinstance(value, Mapping):
        return any(has_outputs(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(has_outputs(v) for v in value)
    return False


def render_when_known(
    args: Args, render: Callable[[Args], RenderedWorkload], exclude: set[str] | None = None
) -> RenderedWorkload | pulumi.Output[RenderedWorkload]:
    """Plain arguments render now, to plain objects; arguments holding Outputs (an image tag
    from another resource) render once every value is known. ``exclude``: fields the render
    does not read (a registration, whose Outputs must not delay the objects)."""
    dumped = args.model_dump(exclude=exclude)
    if not has_outputs(dumped):
        return render(args)
    return pulumi.Output.from_input(dumped).apply(lambda values: render(type(args).model_validate(values)))


def from_rendered(
    rendered: RenderedWorkload | pulumi.Output[RenderedWorkload], pick: Callable[[RenderedWorkload], T]
) -> T | pulumi.Output[T]:
    """``pick`` of the rendered objects: at once when they are plain (no apply for the SDK to
    await), an Output of it when they are an Output."""
    return pick(rendered) if isinstance(rendered, RenderedWorkload) else rendered.apply(pick)


NOT_RENDERED = {"registration", "kubeconfig", "kube_context"}
"""Inputs of a component that no rendered object is made from."""


def secret_if(value: Any, secret: bool) -> Any:
    """``value`` as a secret Output when ``secret``."""
    return pulumi.Output.secret(value) if secret and value is not None else value


def owned_by_the_program(metadata: dict[str, Any]) -> dict[str, Any]:
    """Metadata with the Kubernetes provider's ``patchForce``: the program's values win a
    server-side-apply conflict, so a hand-scaled Deployment is restored on the next ``up``, and
    objects another tool wrote (the operator's, when taking over) become the program's."""
    return {**metadata, "annotations": {**metadata.get("annotations", {}), "pulumi.com/patchForce": "true"}}


def create_children(
    parent: pulumi.Resource,
    name: str,
    rendered: RenderedWorkload | pulumi.Output[RenderedWorkload],
    checksum: str | pulumi.Output[str],
    optional: Iterable[str],
) -> dict[str, pulumi.CustomResource]:
    """The ServiceAccount, Service and Deployment, and each kind of ``optional`` that is enabled.

    ``rendered`` is plain objects, or an Output of them when an argument was an Output."""
    child = pulumi.ResourceOptions(parent=parent)

    def part(kind: str, key: str) -> Any:
        def pick(r: RenderedWorkload) -> Any:
            value = getattr(r, kind)[key]
            return owned_by_the_program(value) if key == "metadata" else value

        return from_rendered(rendered, pick)

    def deployment_spec(r: RenderedWorkload) -> dict[str, Any]:
        # The checksum is the one value derived from referenced Secrets: stamped as a nested
        # Output when one went in, only it is secret in state and in `preview --diff`, never
        # the whole spec.
        return stamp_checksum(r.deployment, checksum)["spec"]  # type: ignore[arg-type]

    resources: dict[str, pulumi.CustomResource] = {}
    resources["service_account"] = k8s.core.v1.ServiceAccount(name, metadata=part("service_account", "metadata"), opts=child)
    resources["service"] = k8s.core.v1.Service(
        name, metadata=part("service", "metadata"), spec=part("service", "spec"), opts=child
    )
    resources["deployment"] = k8s.apps.v1.Deployment(
        name,
        metadata=part("deployment", "metadata"),
        spec=from_rendered(rendered, deployment_spec),
        opts=pulumi.ResourceOptions(parent=parent, depends_on=[resources["service_account"]]),
    )
    enabled = set(optional)
    if "pod_disruption_budget" in enabled:
        resources["pod_disruption_budget"] = k8s.policy.v1.PodDisruptionBudget(
            name, metadata=part("pod_disruption_budget", "metadata"), spec=part("pod_disruption_budget", "spec"), opts=child
        )
    if "service_monitor" in enabled:
        resources["service_monitor"] = k8s.apiextensions.CustomResource(
            name,
            api_version="monitoring.coreos.com/v1",
            kind="ServiceMonitor",
            metadata=part("service_monitor", "metadata"),
            spec=part("service_monitor", "spec"),
            opts=child,
        )
    if "network_policy" in enabled:
        resources["network_policy"] = k8s.networking.v1.NetworkPolicy(
            name, metadata=part("network_policy", "metadata"), spec=part("network_policy", "spec"), opts=child
        )
    if "ingress" in enabled:
        resources["ingress"] = k8s.networking.v1.Ingress(
            name, metadata=part("ingress", "metadata"), spec=part("ingress", "spec"), opts=child
        )
    return resources
