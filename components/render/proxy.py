"""A proxy's arguments, rendered: its Workload (on the shared assembly) and its objects.

Proxy-only rules: labels with ``component=proxy``; the config token consumed only as two env
entries, whose names are reserved; the fixed two-port Service (``http`` 8080, ``api`` 8081);
its probe defaults; a ServiceMonitor at ``metrics.path`` (default ``/metrics``).
"""

from __future__ import annotations

from components.args.proxy_spec import DEFAULT_METRICS_PATH, RESERVED_ENV, SIGNING_KEY_ENV, TOKEN_ENV, ProxyArgs, ProxySpec
from components.render.checksum import EMPTY_CHECKSUM
from components.render.common import SharedBlocks, assemble, optional_kinds, probe_from, shared_workload_fields
from components.render.objects import Obj, OptionalKind, RenderedWorkload
from components.render.projection import project_refs
from components.render.workload import Probe, Workload, in_cluster_url, render_service

COMPONENT = "proxy"
HTTP_PORT = 8080
API_PORT = 8081

DEFAULT_PROBES = {
    "liveness": Probe("/health", initial_delay_seconds=10, period_seconds=30, failure_threshold=3),
    "readiness": Probe("/ready", initial_delay_seconds=5, period_seconds=10, failure_threshold=3),
    "startup": Probe("/health", initial_delay_seconds=0, period_seconds=10, failure_threshold=30),
}


def endpoints(name: str, namespace: str) -> tuple[str, str]:
    """The in-cluster addresses: health, readiness and metrics; and the connector-facing API."""
    return in_cluster_url(name, namespace, HTTP_PORT), in_cluster_url(name, namespace, API_PORT)


def token_env(args: ProxyArgs) -> list[Obj]:
    """The config token and its optional signing key, by reference to their Secret only."""
    ref = args.config_token_secret_ref
    return [
        {"name": TOKEN_ENV, "valueFrom": {"secretKeyRef": {"name": ref.name, "key": ref.token_key}}},
        {
            "name": SIGNING_KEY_ENV,
            "valueFrom": {"secretKeyRef": {"name": ref.name, "key": ref.signing_key_key, "optional": True}},
        },
    ]


def proxy_env(args: ProxyArgs, keyed: list[Obj]) -> list[Obj]:
    """``env`` minus reserved and empty names, the token entries, then keyed references minus
    reserved names: the token wiring always wins."""
    given = [
        {"name": e.name, "value": e.value} if e.value is not None else {"name": e.name}
        for e in args.env
        if e.name and e.name not in RESERVED_ENV
    ]
    return given + token_env(args) + [e for e in keyed if e["name"] not in RESERVED_ENV]


def proxy_workload(args: ProxyArgs, config_checksum: str | None = EMPTY_CHECKSUM) -> Workload:
    projection = project_refs(args.secret_refs, args.config_map_refs, args.volumes)
    return Workload(
        **shared_workload_fields(args, COMPONENT, projection, config_checksum),
        container_name="proxy",
        port=HTTP_PORT,
        extra_ports=[("api", API_PORT)],
        env=proxy_env(args, projection.env),
        liveness=probe_from(args.probes.liveness, DEFAULT_PROBES["liveness"]),
        readiness=probe_from(args.probes.readiness, DEFAULT_PROBES["readiness"]),
        startup=probe_from(args.probes.startup, DEFAULT_PROBES["startup"]),
        affinity=args.affinity,
        termination_grace_period_seconds=args.termination_grace_period_seconds,
    )


def shared_blocks(args: ProxySpec) -> SharedBlocks:
    """The proxy's blocks for the shared optional objects: its budget at the top, its
    ServiceMonitor while it serves metrics, at its own path."""
    metrics = args.metrics
    monitor = metrics.service_monitor if metrics is not None and metrics.enabled else None
    path = metrics.path if metrics is not None else DEFAULT_METRICS_PATH
    return SharedBlocks(args.pod_disruption_budget, monitor, path, args.network_policy)


def proxy_optional_kinds(args: ProxySpec) -> tuple[OptionalKind, ...]:
    """The optional kinds a proxy renders (the component creates their resources)."""
    return optional_kinds(shared_blocks(args))


def render_proxy(args: ProxyArgs, config_checksum: str | None = EMPTY_CHECKSUM) -> RenderedWorkload:
    w = proxy_workload(args, config_checksum)
    return assemble(args, w, render_service(w), endpoints(args.name, args.namespace)[0], shared_blocks(args))
