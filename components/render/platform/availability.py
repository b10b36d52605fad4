"""How a platform's components stay available: the high-availability profile's defaults, and
each component's PodDisruptionBudget, HorizontalPodAutoscaler and ServiceMonitor.

The profile fills only what a component left unset (its own setting, then ``common``'s, wins):
two replicas unless an autoscaler owns the count, a budget keeping one pod, and a preferred
anti-affinity spreading the pods over nodes, so that one node drained keeps the component up.
"""

from __future__ import annotations

from dataclasses import replace

from components.args.platform_blocks import ComponentPodDisruptionBudgetArgs, ComponentSpec
from components.render.meta import NAME_LABEL, object_meta
from components.render.objects import Obj
from components.render.platform.resolve import Base, Platform
from components.render.pod_disruption_budget import render_pod_disruption_budget
from components.render.service_monitor import render_service_monitor
from components.render.workload import Workload

STATELESS = ("core", "scheduler", "auth-opa-policies", "auth", "fe-administrator", "api-gateway", "utils")
"""The components the profile covers and that get a budget or an autoscaler, in the operator's
order of them (utils after the gateway; the bundled provisioning service gets neither)."""
MONITORED = (*STATELESS, "provisioning-rabbitmq")
"""The components that get a ServiceMonitor, in the operator's order."""
HA_REPLICAS = 2
"""The fewest replicas that survive one pod's voluntary disruption under a budget keeping one."""
HOSTNAME_TOPOLOGY = "kubernetes.io/hostname"


def with_availability_defaults(platform: Platform, base: Base) -> Base:
    """The component with the profile's defaults filled in, when the platform asks for it."""
    profile = platform.args.high_availability
    if profile is None or not profile.enabled or base.role not in STATELESS:
        return base
    spec: ComponentSpec = base.spec
    filled: dict[str, object] = {}
    if spec.replicas is None and spec.autoscaling is None:
        filled["replicas"] = HA_REPLICAS
    if spec.pod_disruption_budget is None:
        filled["pod_disruption_budget"] = ComponentPodDisruptionBudgetArgs.model_validate({"enabled": True, "minAvailable": 1})
    if spec.affinity is None and platform.args.common.affinity is None:
        filled["affinity"] = _spread_over_nodes(base.role)
    return replace(base, spec=spec.model_copy(update=filled)) if filled else base


def _spread_over_nodes(role: str) -> Obj:
    """Preferred, not required: a cluster of one node still schedules every pod."""
    term = {"topologyKey": HOSTNAME_TOPOLOGY, "labelSelector": {"matchLabels": {NAME_LABEL: role}}}
    return {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 100, "podAffinityTerm": term}]}}


def budgets_and_autoscalers(built: list[tuple[Workload, Base]]) -> list[Obj]:
    """Each stateless component's PodDisruptionBudget when enabled, then its autoscaler when configured."""
    objects = []
    for workload, base in sorted(
        (pair for pair in built if pair[1].role in STATELESS), key=lambda pair: STATELESS.index(pair[1].role)
    ):
        budget, scaling = base.spec.pod_disruption_budget, base.spec.autoscaling
        if budget is not None and budget.enabled:
            objects.append(render_pod_disruption_budget(workload, budget))
        if scaling is not None:
            objects.append(_autoscaler(workload, base.spec))
    return objects


def _autoscaler(workload: Workload, spec: ComponentSpec) -> Obj:
    """Scales the component's workload on the utilisation targets given (none: an autoscaler that does not scale)."""
    scaling = spec.autoscaling
    assert scaling is not None
    targets = (("cpu", scaling.target_cpu_utilization), ("memory", scaling.target_memory_utilization))
    metrics = [
        {"type": "Resource", "resource": {"name": name, "target": {"type": "Utilization", "averageUtilization": value}}}
        for name, value in targets
        if value is not None
    ]
    target = {"apiVersion": "apps/v1", "kind": spec.workload_type, "name": workload.name}
    body: Obj = {"scaleTargetRef": target, "maxReplicas": scaling.max_replicas}
    if scaling.min_replicas is not None:
        body["minReplicas"] = scaling.min_replicas
    if metrics:
        body["metrics"] = metrics
    return {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": object_meta(workload.name, workload.namespace, workload.labels),
        "spec": body,
    }


def service_monitors(built: list[tuple[Workload, Base]]) -> list[Obj]:
    """A ServiceMonitor of each component whose metrics and their monitor are enabled."""
    monitors = []
    for workload, base in sorted(built, key=lambda pair: MONITORED.index(pair[1].role)):
        metrics = base.spec.metrics
        if metrics is not None and metrics.enabled and metrics.service_monitor is not None and metrics.service_monitor.enabled:
            monitors.append(render_service_monitor(workload, metrics.path, metrics.service_monitor, port=workload.port_name))
    return monitors
