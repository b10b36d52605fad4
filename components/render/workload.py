"""The workload shape shared by every Deployment-based kind of the platform.

A ``Workload`` says what runs (image, port, env, probes, volumes, scheduling); the functions
here turn it into a Deployment, a Service and a ServiceAccount. Each kind fills one in with
its own probes, ports and env (``render.connector``, ``render.proxy``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from components.render.meta import merged, object_meta
from components.render.objects import Obj, type_fields


@dataclass(frozen=True)
class Probe:
    """An HTTP GET of ``path`` on the workload's port, or ``command`` run in the container."""

    path: str
    initial_delay_seconds: int | None = None
    period_seconds: int | None = None
    failure_threshold: int | None = None
    timeout_seconds: int | None = None
    success_threshold: int | None = None
    command: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Workload:
    name: str
    namespace: str
    labels: dict[str, str]
    selector_labels: dict[str, str]
    image: str
    port: int
    container_name: str
    port_name: str = "http"
    extra_ports: list[tuple[str, int]] = field(default_factory=list)
    """Named ports after the primary one, on the container and the Service alike."""
    container_ports: list[Obj] = field(default_factory=list)
    """Further ports of the container alone, as given, between the primary one and ``extra_ports``."""
    pull_policy: str = "IfNotPresent"
    pull_secrets: list[str] = field(default_factory=list)
    replicas: int | None = 1
    """None: the field left out, for an autoscaler owns the count."""
    strategy: Obj | None = None
    command: list[str] | None = None
    args: list[str] | None = None
    env: list[Obj] = field(default_factory=list)
    env_from: list[Obj] = field(default_factory=list)
    volumes: list[Obj] = field(default_factory=list)
    volume_mounts: list[Obj] = field(default_factory=list)
    liveness: Probe | None = None
    readiness: Probe | None = None
    startup: Probe | None = None
    resources: Obj | None = None
    read_only_root_filesystem: bool = True
    fs_group: int | None = None
    run_as_user: int | None = None
    run_as_group: int | None = None
    pod_labels: dict[str, Any] = field(default_factory=dict)
    pod_annotations: dict[str, Any] = field(default_factory=dict)
    node_selector: dict[str, str] = field(default_factory=dict)
    tolerations: list[Obj] = field(default_factory=list)
    affinity: Obj | None = None
    init_containers: list[Obj] = field(default_factory=list)
    sidecars: list[Obj] = field(default_factory=list)
    service_account_name: str | None = None
    termination_grace_period_seconds: int | None = None
    template_labels: dict[str, str] | None = None
    """The pod template's own labels when they differ from the objects' (``labels``)."""
    operator_hardening: bool = False
    """Harden containers exactly as the reference operator writes it (see ``harden_container``)."""
    sidecars_first: bool = False
    """List the sidecars before the main container (the kubelet starts them in this order)."""
    lifecycle: Obj | None = None
    """The main container's lifecycle hooks."""
    service_ports: list[Obj] | None = None
    """The Service's ports as given, instead of one per container port."""

    def ports(self) -> list[tuple[str, int]]:
        """(name, port) of every port, the primary first."""
        return [(self.port_name, self.port), *self.extra_ports]


def restricted_security_context() -> Obj:
    """The restricted Pod Security Standard for one container."""
    return {
        "runAsNonRoot": True,
        "allowPrivilegeEscalation": False,
        "privileged": False,
        "capabilities": {"drop": ["ALL"]},
        "seccompProfile": {"type": "RuntimeDefault"},
    }


def harden_container(container: Obj, as_the_operator: bool = False) -> Obj:
    """A copy of ``container`` with the restricted fields forced and its other settings kept
    (a new mapping and security context; its other values are shared, and neither is changed).

    ``as_the_operator``: byte for byte what the reference operator writes, so that a pod
    template it rendered is rendered again unchanged: a container without a security context
    gets the restricted fields without ``privileged`` (the operator leaves it unset there)."""
    hardened = dict(container)
    given = hardened.get("securityContext")
    context = dict(given or {})
    context.update(restricted_security_context())
    if as_the_operator and not given:
        del context["privileged"]
    hardened["securityContext"] = context
    return hardened


def render_probe(probe: Probe | None, port: int) -> Obj | None:
    if probe is None or not (probe.path or probe.command):
        return None
    rendered: Obj = (
        {"exec": {"command": list(probe.command)}} if probe.command else {"httpGet": {"path": probe.path, "port": port}}
    )
    for key, value in (
        ("initialDelaySeconds", probe.initial_delay_seconds),
        ("periodSeconds", probe.period_seconds),
        ("failureThreshold", probe.failure_threshold),
        ("timeoutSeconds", probe.timeout_seconds),
        ("successThreshold", probe.success_threshold),
    ):
        if value:
            rendered[key] = value
    return rendered


def render_main_container(w: Workload) -> Obj:
    container: Obj = {
        "name": w.container_name,
        "image": w.image,
        "imagePullPolicy": w.pull_policy,
        "ports": [
            {"name": w.port_name, "containerPort": w.port},
            *w.container_ports,
            *({"name": name, "containerPort": port} for name, port in w.extra_ports),
        ],
    }
    optional = {
        "command": w.command,
        "args": w.args,
        "env": w.env,
        "envFrom": w.env_from,
        "resources": w.resources,
        "volumeMounts": w.volume_mounts,
        "livenessProbe": render_probe(w.liveness, w.port),
        "readinessProbe": render_probe(w.readiness, w.port),
        "startupProbe": render_probe(w.startup, w.port),
        "lifecycle": w.lifecycle,
    }
    container.update({key: value for key, value in optional.items() if value})
    container = harden_container(container, w.operator_hardening)
    container["securityContext"]["readOnlyRootFilesystem"] = w.read_only_root_filesystem
    return container


def render_pod_template(w: Workload) -> Obj:
    pod_security: Obj = {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}}
    ids = {"fsGroup": w.fs_group, "runAsUser": w.run_as_user, "runAsGroup": w.run_as_group}
    pod_security.update({key: value for key, value in ids.items() if value is not None})
    spec: Obj = {
        "serviceAccountName": w.service_account_name or w.name,
        "securityContext": pod_security,
        "containers": _containers(w),
    }
    optional = {
        "imagePullSecrets": [{"name": s} for s in w.pull_secrets],
        "initContainers": [harden_container(c, w.operator_hardening) for c in w.init_containers],
        "volumes": w.volumes,
        "nodeSelector": w.node_selector,
        "tolerations": w.tolerations,
        "affinity": w.affinity,
    }
    spec.update({key: value for key, value in optional.items() if value})
    if w.termination_grace_period_seconds is not None:
        spec["terminationGracePeriodSeconds"] = w.termination_grace_period_seconds
    metadata: Obj = {"labels": merged(w.pod_labels, w.template_labels or w.labels)}
    if w.pod_annotations:
        metadata["annotations"] = dict(w.pod_annotations)
    return {"metadata": metadata, "spec": spec}


def _containers(w: Workload) -> list[Obj]:
    sidecars = [harden_container(c, w.operator_hardening) for c in w.sidecars]
    main = render_main_container(w)
    return [*sidecars, main] if w.sidecars_first else [main, *sidecars]


def render_deployment(w: Workload) -> Obj:
    spec: Obj = {"replicas": w.replicas} if w.replicas is not None else {}
    spec |= {"selector": {"matchLabels": dict(w.selector_labels)}, "template": render_pod_template(w)}
    if w.strategy is not None:
        spec["strategy"] = w.strategy
    return {
        **type_fields("deployment"),
        "metadata": object_meta(w.name, w.namespace, w.labels),
        "spec": spec,
    }


def render_stateful_set(w: Workload) -> Obj:
    """The Deployment's pods with a stable name each, known under the workload's Service (no
    volume claims: what the pods keep lives elsewhere); no ``strategy``, a Deployment's alone."""
    spec: Obj = {"serviceName": w.name}
    spec |= {"replicas": w.replicas} if w.replicas is not None else {}
    spec |= {"selector": {"matchLabels": dict(w.selector_labels)}, "template": render_pod_template(w)}
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": object_meta(w.name, w.namespace, w.labels), "spec": spec}


def in_cluster_url(name: str, namespace: str, port: int) -> str:
    """The address of a Service in the cluster, as the platform and the other workloads call it."""
    return f"http://{name}.{namespace}.svc.cluster.local:{port}"


def render_service(w: Workload, service_type: str = "ClusterIP", node_port: int | None = None) -> Obj:
    ports: list[Obj] = [{"name": name, "port": port, "targetPort": port, "protocol": "TCP"} for name, port in w.ports()]
    if w.service_ports is not None:
        ports = [dict(port) for port in w.service_ports]
    if node_port is not None:
        ports[0]["nodePort"] = node_port
    return {
        **type_fields("service"),
        "metadata": object_meta(w.name, w.namespace, w.labels),
        "spec": {"type": service_type, "selector": dict(w.selector_labels), "ports": ports},
    }


def render_service_account(w: Workload, annotations: dict[str, str] | None = None) -> Obj:
    return {
        **type_fields("service_account"),
        "metadata": object_meta(w.service_account_name or w.name, w.namespace, w.labels, annotations),
    }
