"""A connector's arguments, rendered: the Workload it runs and every object it deploys."""

from __future__ import annotations

from components.args.blocks import ProbeArgs
from components.args.connector_spec import ConnectorArgs, ConnectorSpec, StrategyArgs
from components.args.fields import is_zero
from components.render.checksum import EMPTY_CHECKSUM
from components.render.common import SharedBlocks, assemble, optional_kinds, probe_from, shared_workload_fields
from components.render.ingress import render_ingress
from components.render.meta import selector_labels
from components.render.objects import Obj, OptionalKind, RenderedWorkload
from components.render.projection import project_refs
from components.render.workload import Probe, Workload, in_cluster_url, render_service

__all__ = ["DEFAULT_PROBES", "HEALTH_PATHS", "render_connector"]

HEALTH_PATH = "/v2/health"
"""A connector's health endpoint (its probes' paths below it); ``/v1/health`` on older connectors."""
HEALTH_PATHS = (HEALTH_PATH, "/v1/health")
"""Where a connector's health is asked, in order, when its health check names no path."""
DEFAULT_PROBES = {
    "liveness": Probe(f"{HEALTH_PATH}/liveness", initial_delay_seconds=15, period_seconds=10, failure_threshold=3),
    "readiness": Probe(f"{HEALTH_PATH}/readiness", initial_delay_seconds=5, period_seconds=10, failure_threshold=3),
    "startup": Probe(f"{HEALTH_PATH}/liveness", initial_delay_seconds=0, period_seconds=10, failure_threshold=45),
}


def probe(given: ProbeArgs | None, kind: str) -> Probe | None:
    return probe_from(given, DEFAULT_PROBES[kind])


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


def connector_workload(args: ConnectorArgs, config_checksum: str | None = EMPTY_CHECKSUM) -> Workload:
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


def shared_blocks(args: ConnectorSpec) -> SharedBlocks:
    """The connector's blocks for the shared optional objects: its budget under ``lifecycle``,
    its ServiceMonitor while it serves metrics."""
    metrics = args.metrics
    monitor = metrics.service_monitor if metrics.enabled else None
    return SharedBlocks(args.lifecycle.pod_disruption_budget, monitor, metrics.path, args.network_policy)


def connector_optional_kinds(args: ConnectorSpec) -> tuple[OptionalKind, ...]:
    """The optional kinds a connector renders (the component creates their resources)."""
    return optional_kinds(shared_blocks(args), ingress=args.ingress is not None)


def render_connector(args: ConnectorArgs, config_checksum: str | None = EMPTY_CHECKSUM) -> RenderedWorkload:
    w = connector_workload(args, config_checksum)
    service = render_service(w, args.service.type, args.service.node_port)
    ingress = render_ingress(w, args.ingress) if args.ingress is not None else None
    endpoint = in_cluster_url(args.name, args.namespace, args.service.port)
    return assemble(args, w, service, endpoint, shared_blocks(args), ingress)
