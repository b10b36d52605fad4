"""``WorkloadSpec``: the fields and rules a connector's and a proxy's spec share, and what each
kind answers the renderer and the references reader (which optional kinds it renders, what it
references), so that neither needs to ask which kind it has."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import model_validator

from .base import Model
from .fields import DNS_LABEL, AnnotationInputs, LabelInputs, NonNegative, QualifiedName
from .workload import (
    OPTIONAL_KINDS,
    Affinity,
    ConfigMapRefArgs,
    Containers,
    EnvVarArgs,
    ImageBase,
    NetworkPolicyArgs,
    OptionalKind,
    PodDisruptionBudgetArgs,
    ProbesArgs,
    Resources,
    SecretRefArgs,
    SecurityContextArgs,
    ServiceAccountArgs,
    ServiceMonitorArgs,
    Tolerations,
    VolumeArgs,
)

if TYPE_CHECKING:
    from .connector import IngressArgs
    from .proxy import ConfigTokenSecretRefArgs
    from .registration import AdminSecretRefArgs


class WorkloadSpec(Model):
    """The ``spec`` fields every workload kind takes."""

    image: ImageBase
    """The workload's image."""
    replicas: NonNegative = 1
    """The number of pods."""
    resources: Resources | None = None
    """The container's resource requests and limits, as in a pod spec."""
    pod_annotations: AnnotationInputs = {}
    """Annotations on the pods."""
    pod_labels: LabelInputs = {}
    """Labels on the pods."""
    security_context: SecurityContextArgs = SecurityContextArgs()
    """The container's security settings."""
    probes: ProbesArgs = ProbesArgs()
    """The container's probes."""
    env: list[EnvVarArgs] = []
    """Environment variables (a proxy's two config token names are reserved)."""
    secret_refs: list[SecretRefArgs] = []
    """Secrets consumed as environment variables or files; their data rolls the pods when it changes."""
    config_map_refs: list[ConfigMapRefArgs] = []
    """ConfigMaps consumed as environment variables or files; their data rolls the pods when it changes."""
    volumes: list[VolumeArgs] = []
    """Further volumes."""
    network_policy: NetworkPolicyArgs = NetworkPolicyArgs()
    """The NetworkPolicy."""
    node_selector: dict[QualifiedName, str] = {}
    """Node labels the pods must run on."""
    tolerations: Tolerations = []
    """Tolerations, as in a pod spec."""
    affinity: Affinity | None = None
    """Affinity, as in a pod spec (a connector of more than one replica spreads its pods across nodes by default)."""
    service_account: ServiceAccountArgs = ServiceAccountArgs()
    """The ServiceAccount."""
    init_containers: Containers = []
    """Init containers, as in a pod spec."""
    sidecars: Containers = []
    """Further containers, as in a pod spec."""

    def disruption_budget(self) -> PodDisruptionBudgetArgs | None:
        """The PodDisruptionBudget block, wherever the kind keeps it."""
        return None

    def scraping(self) -> ServiceMonitorArgs | None:
        """The ServiceMonitor block when the workload serves metrics, else None."""
        return None

    def metrics_path(self) -> str:
        raise NotImplementedError

    def ingress_args(self) -> IngressArgs | None:
        return None

    def config_token(self) -> ConfigTokenSecretRefArgs | None:
        """The Secret a proxy's config token is in (its checksum covers it first)."""
        return None

    def admin_secret_ref(self) -> AdminSecretRefArgs | None:
        """The Secret a connector's registration reads its administrator's credentials from."""
        return None

    def optional_kinds(self) -> tuple[OptionalKind, ...]:
        """The optional kinds this workload renders, decided here once: the renderer and the
        component both ask."""
        pdb, monitor = self.disruption_budget(), self.scraping()
        enabled = {
            "pod_disruption_budget": pdb is not None and pdb.enabled,
            "service_monitor": monitor is not None and monitor.enabled,
            "network_policy": self.network_policy.enabled,
            "ingress": self.ingress_args() is not None,
        }
        return tuple(kind for kind in OPTIONAL_KINDS if enabled[kind])

    @model_validator(mode="after")
    def _unique_names(self) -> WorkloadSpec:
        check_unique_volume_names(self.volumes, self.secret_refs, self.config_map_refs)
        check_extra_containers(self.init_containers, self.sidecars)
        return self


def check_unique_volume_names(
    volumes: list[VolumeArgs], secret_refs: list[SecretRefArgs], config_map_refs: list[ConfigMapRefArgs]
) -> None:
    """The pod's volume names (extra volumes, ``secret-<name>``, ``configmap-<name>``) are unique."""
    volume_names = [(f"volumes[{i}]", v.name) for i, v in enumerate(volumes)]
    volume_names += [(f"secretRefs[{i}]", f"secret-{r.name}") for i, r in enumerate(secret_refs) if r.type == "volume"]
    volume_names += [(f"configMapRefs[{i}]", f"configmap-{r.name}") for i, r in enumerate(config_map_refs) if r.type == "volume"]
    seen: dict[str, str] = {}
    for where, volume_name in volume_names:
        if volume_name in seen:
            raise ValueError(f"volume names must be unique: {where} gives the pod the volume name of {seen[volume_name]}")
        seen[volume_name] = where


def check_extra_containers(init_containers: list[dict[str, Any]], sidecars: list[dict[str, Any]]) -> None:
    for field, containers in (("initContainers", init_containers), ("sidecars", sidecars)):
        for i, c in enumerate(containers):
            if not isinstance(c.get("name"), str) or not DNS_LABEL.fullmatch(c["name"]):
                raise ValueError(f"{field}[{i}].name must be a DNS-1123 label")
            if not isinstance(c.get("image"), str) or not c["image"]:
                raise ValueError(f"{field}[{i}].image is required")
