"""The assembly both workload kinds share: the ``Workload`` fields they fill alike, probes from
their arguments, and every object rendered from a filled-in ``Workload``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..args.kinds import WorkloadArgs
from ..args.spec import WorkloadSpec
from ..args.workload import ImageBase, OptionalKind, ProbeArgs
from .ingress import render_ingress
from .meta import CHECKSUM_ANNOTATION, OPERATOR_MANAGED_BY, labels, merged, selector_labels
from .network_policy import render_network_policy
from .objects import Obj, RenderedWorkload
from .pod_disruption_budget import render_pod_disruption_budget
from .refs import Projection
from .service_monitor import render_service_monitor
from .workload import Probe, Workload, render_deployment, render_service_account


def image_reference(image: ImageBase) -> str:
    """``registry/repository/name`` (non-empty parts), then ``@digest`` if set, else ``:tag``."""
    base = image.image_name()
    return f"{base}@{image.digest}" if image.digest else f"{base}:{image.tag}"


def probe_from(given: ProbeArgs | None, default: Probe) -> Probe | None:
    """A missing block takes the default; a given one is used as given; an empty path is none."""
    if given is None:
        return default
    if not given.path:
        return None
    return Probe(given.path, given.initial_delay_seconds, given.period_seconds, given.failure_threshold)


def shared_workload_fields(args: WorkloadArgs, component: str, projection: Projection, config_checksum: str) -> dict[str, Any]:
    """The ``Workload`` fields every kind fills the same way from its arguments (a connector's
    or a proxy's): identity and labels, image, replicas, references and volumes, resources,
    hardening, pod metadata, scheduling, extra containers, service account, the operator's pod
    template when taking over."""
    return {
        "name": args.name,
        "namespace": args.namespace,
        "labels": labels(args.name, component),
        "selector_labels": selector_labels(args.name, component),
        "image": image_reference(args.image),
        "pull_policy": args.image.pull_policy,
        "pull_secrets": list(args.image.pull_secrets),
        "replicas": args.replicas,
        "command": args.image.command,
        "args": args.image.args,
        "env_from": projection.env_from,
        "volumes": projection.volumes,
        "volume_mounts": projection.volume_mounts,
        "resources": args.resources,
        "read_only_root_filesystem": args.security_context.read_only_root_filesystem,
        "fs_group": args.security_context.fs_group,
        "pod_labels": dict(args.pod_labels),
        "pod_annotations": merged(args.pod_annotations, {CHECKSUM_ANNOTATION: config_checksum}),
        "node_selector": dict(args.node_selector),
        "tolerations": list(args.tolerations),
        "init_containers": list(args.init_containers),
        "sidecars": list(args.sidecars),
        "service_account_name": args.service_account.name,
        "template_labels": labels(args.name, component, OPERATOR_MANAGED_BY) if args.from_operator else None,
        "operator_hardening": args.from_operator,
    }


def _ingress(args: WorkloadSpec, w: Workload) -> Obj | None:
    ingress = args.ingress_args()
    return None if ingress is None else render_ingress(w, ingress)


OPTIONAL: dict[OptionalKind, Callable[[WorkloadSpec, Workload], Obj | None]] = {
    "pod_disruption_budget": lambda args, w: render_pod_disruption_budget(w, args.disruption_budget()),
    "service_monitor": lambda args, w: render_service_monitor(w, args.metrics_path(), args.scraping()),
    "network_policy": lambda args, w: render_network_policy(w),
    "ingress": _ingress,
}
"""How each optional kind renders from a workload's arguments, when they enable it."""


def with_extra_labels(obj: Obj, extra: dict[str, str]) -> Obj:
    """The entry's own labels (its manifest's metadata.labels) under ours on a child."""
    if extra:
        obj["metadata"]["labels"] = merged(extra, obj["metadata"]["labels"])
    return obj


def assemble(args: WorkloadArgs, w: Workload, service: Obj, endpoint: str) -> RenderedWorkload:
    """Every object of a workload: its ServiceAccount, ``service``, Deployment and the optional
    kinds its arguments enable, each with the entry's own labels."""
    optional = {kind: OPTIONAL[kind](args, w) for kind in args.optional_kinds()}
    rendered = RenderedWorkload(
        deployment=render_deployment(w),
        service=service,
        service_account=render_service_account(w, args.service_account.annotations),
        pod_disruption_budget=optional.get("pod_disruption_budget"),
        service_monitor=optional.get("service_monitor"),
        network_policy=optional.get("network_policy"),
        ingress=optional.get("ingress"),
        endpoint=endpoint,
        current_image=w.image,
    )
    for obj in rendered.objects():
        with_extra_labels(obj, args.labels)
    return rendered
