"""A connector's arguments, rendered: the Workload it runs and every object it deploys."""

from __future__ import annotations

from typing import Any, Protocol

from ..args import ConnectorArgs, ProbeArgs, StrategyArgs, is_zero
from ..checksum import EMPTY_CHECKSUM
from ..proxy_args import ProxyArgs
from .ingress import render_ingress
from .meta import CHECKSUM_ANNOTATION, OPERATOR_MANAGED_BY, labels, merged, selector_labels
from .network_policy import render_network_policy
from .objects import RenderedWorkload, stamp_checksum
from .pod_disruption_budget import render_pod_disruption_budget
from .refs import Projection, project_refs
from .service_monitor import render_service_monitor
from .workload import Probe, Workload, render_deployment, render_service, render_service_account

Obj = dict[str, Any]
RenderedConnector = RenderedWorkload
__all__ = ["RenderedConnector", "render_connector", "stamp_checksum"]

DEFAULT_PROBES = {
    "liveness": Probe("/v2/health/liveness", initial_delay_seconds=15, period_seconds=10, failure_threshold=3),
    "readiness": Probe("/v2/health/readiness", initial_delay_seconds=5, period_seconds=10, failure_threshold=3),
    "startup": Probe("/v2/health/liveness", initial_delay_seconds=0, period_seconds=10, failure_threshold=45),
}


class ImageParts(Protocol):
    """The image fields a reference is made of (a connector's image, or a proxy's)."""

    @property
    def registry(self) -> str | None: ...
    @property
    def repository(self) -> str: ...
    @property
    def name(self) -> str | None: ...
    @property
    def tag(self) -> Any: ...
    @property
    def digest(self) -> Any: ...


def image_reference(image: ImageParts) -> str:
    """``registry/repository/name`` (non-empty parts), then ``@digest`` if set, else ``:tag``."""
    base = "/".join(part for part in (image.registry, image.repository, image.name) if part)
    return f"{base}@{image.digest}" if image.digest else f"{base}:{image.tag}"


def endpoint(name: str, namespace: str, port: int) -> str:
    return f"http://{name}.{namespace}.svc.cluster.local:{port}"


def probe(given: ProbeArgs | None, kind: str) -> Probe | None:
    return probe_from(given, DEFAULT_PROBES[kind])


def probe_from(given: ProbeArgs | None, default: Probe) -> Probe | None:
    """A missing block takes the default; a given one is used as given; an empty path is none."""
    if given is None:
        return default
    if not given.path:
        return None
    return Probe(given.path, given.initial_delay_seconds, given.period_seconds, given.failure_threshold)


def strategy(given: StrategyArgs | None) -> Obj | None:
    if given is None or given.type is None:
        return None
    if given.type == "Recreate":
        return {"type": "Recreate"}
    rolling = given.rolling_update
    surge = rolling.max_surge if rolling else None
    unavailable = rolling.max_unavailable if rolling else None
    if is_zero(surge) and unavailable is None:
        unavailable = 1
    return {
        "type": "RollingUpdate",
        "rollingUpdate": {
            "maxSurge": "25%" if surge is None else surge,
            "maxUnavailable": "25%" if unavailable is None else unavailable,
        },
    }


def spread_over_nodes(selector: dict[str, str]) -> Obj:
    """The soft anti-affinity default for more than one replica."""
    return {
        "podAntiAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 100,
                    "podAffinityTerm": {
                        "labelSelector": {"matchLabels": dict(selector)},
                        "topologyKey": "kubernetes.io/hostname",
                    },
                }
            ]
        }
    }


def shared_workload_fields(
    args: ConnectorArgs | ProxyArgs, component: str, projection: Projection, config_checksum: str
) -> dict[str, Any]:
    """The ``Workload`` fields every kind fills the same way from its arguments: identity and
    labels, image, replicas, references and volumes, resources, hardening, pod metadata,
    scheduling, extra containers, service account, the operator's pod template when taking over."""
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


def connector_workload(args: ConnectorArgs, config_checksum: str = EMPTY_CHECKSUM) -> Workload:
    selector = selector_labels(args.name)
    projection = project_refs(args.secret_refs, args.config_map_refs, args.volumes)
    env = [{"name": e.name, "value": e.value} if e.value is not None else {"name": e.name} for e in args.env]
    affinity = args.affinity
    if affinity is None and args.replicas > 1 and not args.from_operator:
        affinity = spread_over_nodes(selector)
    return Workload(
        **shared_workload_fields(args, "connector", projection, config_checksum),
        container_name="connector",
        port=args.service.port,
        strategy=strategy(args.strategy),
        env=env + projection.env,
        liveness=probe(args.probes.liveness, "liveness"),
        readiness=probe(args.probes.readiness, "readiness"),
        startup=probe(args.probes.startup, "startup"),
        affinity=affinity,
        termination_grace_period_seconds=args.lifecycle.termination_grace_period_seconds,
    )


def with_extra_labels(obj: Obj, extra: dict[str, str]) -> Obj:
    """The entry's own labels (its manifest's metadata.labels) under ours on a child."""
    if extra:
        obj["metadata"]["labels"] = merged(extra, obj["metadata"]["labels"])
    return obj


def render_connector(args: ConnectorArgs, config_checksum: str = EMPTY_CHECKSUM) -> RenderedWorkload:
    w = connector_workload(args, config_checksum)
    name, namespace, own = args.name, args.namespace, w.labels
    pdb = args.lifecycle.pod_disruption_budget
    monitor = args.metrics.service_monitor
    kinds = args.optional_kinds()
    rendered = RenderedWorkload(
        deployment=render_deployment(w),
        service=render_service(w, args.service.type, args.service.node_port),
        service_account=render_service_account(w, args.service_account.annotations),
        pod_disruption_budget=(
            render_pod_disruption_budget(name, namespace, own, w.selector_labels, pdb)
            if pdb is not None and "pod_disruption_budget" in kinds
            else None
        ),
        service_monitor=(
            render_service_monitor(name, namespace, own, w.selector_labels, args.metrics.path, monitor)
            if "service_monitor" in kinds
            else None
        ),
        network_policy=(
            render_network_policy(name, namespace, own, w.selector_labels, [args.service.port])
            if "network_policy" in kinds
            else None
        ),
        ingress=render_ingress(name, namespace, own, args.ingress) if args.ingress is not None else None,
        endpoint=endpoint(name, namespace, args.service.port),
        current_image=w.image,
    )
    for obj in rendered.objects():
        with_extra_labels(obj, args.labels)
    return rendered
