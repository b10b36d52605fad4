"""What every workload of a platform shares: its labels, its image from the version's bundle,
the fleet-wide and per-component settings layered on it, and its three objects.

Each component's builder (``core``, ``services``, ``gateway``) says what is its own (env,
probes, volumes, helper containers) as a ``Base``; ``platform_workload`` layers on it, in the
reference operator's order, the platform-wide ``additionalEnv`` (first, so a component's own
value of the same name wins), the component's ``ComponentSpec`` (its env last) and the
``common`` block (its containers, volumes, ports and whole Secrets and ConfigMaps before the
component's own), and returns the shared ``Workload`` the connector's builders render too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from components.args.blocks import ProbeArgs, ProbesArgs
from components.args.platform_blocks import ComponentImageArgs, ComponentSpec
from components.args.platform_bundles import (
    BUNDLES,
    DEFAULT_REGISTRY,
    DEFAULT_REPOSITORY,
    DEFAULT_VERSION,
    VERSION_ANNOTATION,
    Bundle,
)
from components.args.platform_spec import EnvFromSourcesArgs, PlatformArgs
from components.render.meta import COMPONENT_LABEL, MANAGED_BY_LABEL, NAME_LABEL, OPERATOR_MANAGED_BY
from components.render.objects import Obj
from components.render.projection import project_refs
from components.render.workload import (
    Probe,
    Workload,
    render_deployment,
    render_service,
    render_service_account,
    render_stateful_set,
)

INSTANCE_LABEL = "app.kubernetes.io/instance"
PART_OF_LABEL = "app.kubernetes.io/part-of"
PART_OF = "ilm"
SERVICE_PORT = 8080
"""The port of every component's Service but the gateway's."""
EPHEMERAL = "ephemeral"


@dataclass(frozen=True)
class Platform:
    """A platform's validated arguments and the bundle of the version it runs."""

    args: PlatformArgs
    bundle: Bundle

    @property
    def name(self) -> str:
        return self.args.name

    @property
    def namespace(self) -> str:
        return self.args.namespace


def platform_of(args: PlatformArgs, version: str | None = None) -> Platform:
    """``version``: the version decided for this run (its default: the spec's, else the default)."""
    return Platform(args, BUNDLES[version or args.version or DEFAULT_VERSION])


def platform_labels(instance: str, role: str) -> dict[str, str]:
    """The labels of every object a platform renders (the operator's, so its objects are taken over as they are)."""
    return {
        NAME_LABEL: role,
        INSTANCE_LABEL: instance,
        COMPONENT_LABEL: role,
        PART_OF_LABEL: PART_OF,
        MANAGED_BY_LABEL: OPERATOR_MANAGED_BY,
    }


def platform_selector(instance: str, role: str) -> dict[str, str]:
    return {NAME_LABEL: role, INSTANCE_LABEL: instance}


def metadata(platform: Platform, name: str, role: str) -> Obj:
    return {"name": name, "namespace": platform.namespace, "labels": platform_labels(platform.name, role)}


def image_of(platform: Platform, key: str, own: ComponentImageArgs | None = None) -> tuple[str, str]:
    """A component's image reference and pull policy: per field its own setting, then
    ``common.image``, then the bundle (the registry and repository: the public ones)."""
    shared = platform.args.common.image or ComponentImageArgs()
    own = own or ComponentImageArgs()
    bundled = platform.bundle.images.get(key)
    name = own.name or shared.name or (bundled.name if bundled else None)
    digest = own.digest or shared.digest
    tag = own.tag or shared.tag or (None if digest or bundled is None else bundled.tag)
    repository = own.repository
    if repository is None and bundled is not None and bundled.repository and shared.repository in (None, DEFAULT_REPOSITORY):
        repository = bundled.repository
    repository = repository or shared.repository or (DEFAULT_REPOSITORY if bundled else None)
    reference = "/".join(part for part in (own.registry or shared.registry or DEFAULT_REGISTRY, repository, name) if part)
    reference += f"@{digest}" if digest else (f":{tag}" if tag else "")
    policy = own.pull_policy if "pull_policy" in own.model_fields_set else shared.pull_policy
    return reference, policy


def ephemeral_volume(size: str = "1Mi") -> Obj:
    return {"name": EPHEMERAL, "emptyDir": {"medium": "Memory", "sizeLimit": size}}


def mount(name: str, path: str, **more: Any) -> Obj:
    return {"name": name, "mountPath": path, **more}


def http_probes(readiness_path: str, readiness_delay: int, startup_path: str) -> tuple[Probe, Probe]:
    """The readiness and startup probes of the stateless components (none has a liveness probe)."""
    return (
        Probe(readiness_path, readiness_delay, 10, 3, timeout_seconds=5, success_threshold=1),
        Probe(startup_path, 15, 10, 45, timeout_seconds=5, success_threshold=1),
    )


def helper_container(platform: Platform, name: str, script: str, env: list[Obj]) -> Obj:
    """A shell container of the bundle's ``curl`` image (the wait loops, the queue's registration)."""
    image, policy = image_of(platform, "curl")
    container: Obj = {"name": name, "image": image, "imagePullPolicy": policy, "command": ["/bin/sh", "-c", script]}
    if env:
        container["env"] = env
    container["securityContext"] = {"readOnlyRootFilesystem": True}
    return container


def plain_env(pairs: list[tuple[str, str | None]]) -> list[Obj]:
    """Plain variables; an empty value is written as the operator writes it: no ``value`` at all."""
    return [{"name": name, "value": value} if value else {"name": name} for name, value in pairs]


def secret_env(name: str, secret: str, key: str, optional: bool = False) -> Obj:
    ref: Obj = {"name": secret, "key": key}
    if optional:
        ref["optional"] = True
    return {"name": name, "valueFrom": {"secretKeyRef": ref}}


def config_map_env(name: str, config_map: str, key: str) -> Obj:
    return {"name": name, "valueFrom": {"configMapKeyRef": {"name": config_map, "key": key}}}


@dataclass(frozen=True)
class Base:
    """What a component is before the user's settings: the operator's own wiring of it."""

    role: str
    image_key: str
    spec: ComponentSpec
    env: list[Obj] = field(default_factory=list)
    """Plain values (the component's own ``env`` follows them)."""
    referenced_env: list[Obj] = field(default_factory=list)
    """From Secrets, then ConfigMaps."""
    pod_env: list[Obj] = field(default_factory=list)
    """From the pod itself (downward API): last, so nothing shadows them."""
    readiness: Probe | None = None
    startup: Probe | None = None
    volumes: list[Obj] = field(default_factory=list)
    volume_mounts: list[Obj] = field(default_factory=list)
    init_containers: list[Obj] = field(default_factory=list)
    sidecars: list[Obj] = field(default_factory=list)
    port: int = SERVICE_PORT
    port_name: str = "http"
    extra_ports: list[tuple[str, int]] = field(default_factory=list)
    service_ports: list[Obj] | None = None
    recreate: bool = False
    sidecars_first: bool = False
    lifecycle: Obj | None = None
    pull_secrets: list[str] = field(default_factory=list)
    """The pod's further image pull secrets (a sidecar's of its own), after common's and the component's."""


def platform_workload(platform: Platform, base: Base) -> Workload:
    """The component's ``Workload``: its base with the platform's and its own settings layered on."""
    args, spec, common = platform.args, base.spec, platform.args.common
    image, policy = image_of(platform, base.image_key, spec.image)
    shared_image = common.image or ComponentImageArgs()
    own_image = spec.image or ComponentImageArgs()
    projection = project_refs(spec.secret_refs, spec.config_map_refs, [])
    additional = plain_env([(e.name, e.value) for e in args.additional_env])
    user_env = plain_env([(e.name, e.value) for e in spec.env])
    probes = spec.probes or ProbesArgs()
    pull_secrets = list(dict.fromkeys([*shared_image.pull_secrets, *own_image.pull_secrets, *base.pull_secrets]))
    port = spec.service.port if spec.service is not None and base.service_ports is None else base.port
    service_ports = base.service_ports or [{"name": base.port_name, "port": port, "targetPort": base.port_name}]
    return Workload(
        name=base.role,
        namespace=platform.namespace,
        labels=platform_labels(platform.name, base.role),
        selector_labels=platform_selector(platform.name, base.role),
        image=image,
        pull_policy=policy,
        pull_secrets=pull_secrets,
        port=port,
        container_name=base.role,
        port_name=base.port_name,
        extra_ports=list(base.extra_ports),
        container_ports=list(common.additional_ports),
        replicas=None if spec.autoscaling is not None else 1 if spec.replicas is None else spec.replicas,
        strategy={"type": "Recreate"} if base.recreate else None,
        command=own_image.command or shared_image.command,
        args=own_image.args or shared_image.args,
        env=[*additional, *base.env, *user_env, *base.referenced_env, *projection.env, *base.pod_env],
        env_from=[*_whole_objects(common.additional_env_from), *projection.env_from],
        volumes=[*common.volumes, *base.volumes, *projection.volumes, *_emptydir_volumes(spec)],
        volume_mounts=[*common.volume_mounts, *base.volume_mounts, *projection.volume_mounts, *_emptydir_mounts(spec)],
        liveness=_probe(probes.liveness, None),
        readiness=_probe(probes.readiness, base.readiness),
        startup=_probe(probes.startup, base.startup),
        resources=spec.resources,
        pod_labels={**common.pod_labels, **spec.pod_labels},
        pod_annotations={**common.pod_annotations, **spec.pod_annotations, VERSION_ANNOTATION: platform.bundle.version},
        node_selector={**common.node_selector, **spec.node_selector},
        tolerations=[*common.tolerations, *spec.tolerations],
        affinity=spec.affinity or common.affinity,
        init_containers=[*common.init_containers, *base.init_containers, *spec.init_containers],
        sidecars=[*common.sidecars, *base.sidecars, *spec.sidecars],
        service_account_name=spec.service_account.name if spec.service_account else None,
        operator_hardening=True,
        sidecars_first=base.sidecars_first,
        lifecycle=base.lifecycle,
        service_ports=service_ports,
    )


def _whole_objects(sources: EnvFromSourcesArgs | None) -> list[Obj]:
    """Every key of each Secret, then of each ConfigMap, as a variable."""
    if sources is None:
        return []
    return [
        *({"secretRef": {"name": name}} for name in sources.secrets),
        *({"configMapRef": {"name": name}} for name in sources.config_maps),
    ]


def _probe(given: ProbeArgs | None, default: Probe | None) -> Probe | None:
    """A given probe replaces the component's (an empty path: no probe); none keeps it."""
    if given is None:
        return default
    return Probe(given.path, given.initial_delay_seconds, given.period_seconds, given.failure_threshold) if given.path else None


def _emptydir_volumes(spec: ComponentSpec) -> list[Obj]:
    return [
        {"name": v.name, "emptyDir": {} if v.empty_dir is None else v.empty_dir.model_dump(by_alias=True, exclude_none=True)}
        for v in spec.volumes
    ]


def _emptydir_mounts(spec: ComponentSpec) -> list[Obj]:
    return [mount(v.name, v.mount_path) for v in spec.volumes]


def workload_objects(workload: Workload, spec: ComponentSpec) -> list[Obj]:
    """The component's ServiceAccount, Deployment (or StatefulSet) and Service, in the operator's order."""
    annotations = spec.service_account.annotations if spec.service_account else None
    service_type = spec.service.type if spec.service else "ClusterIP"
    kind = render_stateful_set if spec.workload_type == "StatefulSet" else render_deployment
    return [render_service_account(workload, annotations), kind(workload), render_service(workload, service_type)]
