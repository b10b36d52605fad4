"""The assembly both workload kinds share: the ``Workload`` fields they fill alike, probes from
their arguments, and every object rendered from a filled-in ``Workload`` and the blocks the
kind hands over (as the operator's kind builders hand their own blocks to the shared ones)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from components.args.blocks import ImageBase, NetworkPolicyArgs, PodDisruptionBudgetArgs, ProbeArgs, ServiceMonitorArgs
from components.args.workloads import WorkloadArgs
from components.render.meta import CHECKSUM_ANNOTATION, OPERATOR_MANAGED_BY, labels, merged, selector_labels
from components.render.network_policy import render_network_policy
from components.render.objects import OPTIONAL_KINDS, Obj, OptionalKind, RenderedWorkload
from components.render.pod_disruption_budget import render_pod_disruption_budget
from components.render.projection import Projection
from components.render.service_monitor import render_service_monitor
from components.render.workload import Probe, Workload, render_deployment, render_service_account


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


def shared_workload_fields(
    args: WorkloadArgs, component: str, projection: Projection, config_checksum: str | None
) -> dict[str, Any]:
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
        "run_as_user": args.security_context.run_as_user,
        "run_as_group": args.security_context.run_as_group,
        "pod_labels": dict(args.pod_labels),
        # None: the caller stamps it (``objects.stamp_checksum``; the component's may be an Output).
        "pod_annotations": merged(
            args.pod_annotations, {} if config_checksum is None else {CHECKSUM_ANNOTATION: config_checksum}
        ),
        "node_selector": dict(args.node_selector),
        "tolerations": list(args.tolerations),
        "init_containers": list(args.init_containers),
        "sidecars": list(args.sidecars),
        "service_account_name": args.service_account.name,
        "template_labels": labels(args.name, component, OPERATOR_MANAGED_BY) if args.from_operator else None,
        "operator_hardening": args.from_operator,
    }


@dataclass(frozen=True)
class SharedBlocks:
    """A kind's own blocks for the optional objects both kinds render, wherever the kind keeps
    them (a connector's budget under ``lifecycle``, a proxy's at the top)."""

    pod_disruption_budget: PodDisruptionBudgetArgs | None
    service_monitor: ServiceMonitorArgs | None
    """The ServiceMonitor block, None unless the workload serves metrics."""
    metrics_path: str
    network_policy: NetworkPolicyArgs


def optional_kinds(blocks: SharedBlocks, ingress: bool = False) -> tuple[OptionalKind, ...]:
    """The optional kinds a workload renders, in creation order: those its blocks enable, and
    an Ingress when the kind has one."""
    pdb, monitor = blocks.pod_disruption_budget, blocks.service_monitor
    enabled = {
        "pod_disruption_budget": pdb is not None and pdb.enabled,
        "service_monitor": monitor is not None and monitor.enabled,
        "network_policy": blocks.network_policy.enabled,
        "ingress": ingress,
    }
    return tuple(kind for kind in OPTIONAL_KINDS if enabled[kind])


def with_extra_labels(obj: Obj, extra: dict[str, str]) -> Obj:
    """The entry's own labels (its manifest's metadata.labels) under ours on a child."""
    if extra:
        obj["metadata"]["labels"] = merged(extra, obj["metadata"]["labels"])
    return obj


def assemble(
    args: WorkloadArgs, w: Workload, service: Obj, endpoint: str, blocks: SharedBlocks, ingress: Obj | None = None
) -> RenderedWorkload:
    """Every object of a workload: its ServiceAccount, ``service``, Deployment, the optional
    kinds its ``blocks`` enable and the kind's own ``ingress``, each with the entry's own labels."""
    kinds = optional_kinds(blocks, ingress is not None)
    rendered = RenderedWorkload(
        deployment=render_deployment(w),
        service=service,
        service_account=render_service_account(w, args.service_account.annotations),
        pod_disruption_budget=(
            render_pod_disruption_budget(w, blocks.pod_disruption_budget) if "pod_disruption_budget" in kinds else None
        ),
        service_monitor=(
            render_service_monitor(w, blocks.metrics_path, blocks.service_monitor) if "service_monitor" in kinds else None
        ),
        network_policy=render_network_policy(w) if "network_policy" in kinds else None,
        ingress=ingress,
        endpoint=endpoint,
        current_image=w.image,
    )
    for obj in rendered.objects():
        with_extra_labels(obj, args.labels)
    return rendered
