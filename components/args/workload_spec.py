"""``WorkloadSpec``: the fields and rules a connector's and a proxy's spec share. Each kind's
own blocks (a connector's lifecycle and ingress, a proxy's token) are the kind's, and its
renderer hands them to the shared builders: nothing here knows the kinds."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, model_validator

from components.args.base import Model
from components.args.blocks import (
    Affinity,
    ConfigMapRefArgs,
    Containers,
    EnvVarArgs,
    ImageBase,
    NetworkPolicyArgs,
    ProbesArgs,
    Resources,
    SecretRefArgs,
    SecurityContextArgs,
    ServiceAccountArgs,
    Tolerations,
    VolumeArgs,
)
from components.args.fields import DNS_LABEL, AnnotationInputs, LabelInputs, NonNegative, QualifiedName


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
    rollout_timeout_seconds: Annotated[int, Field(ge=10, le=86400)] = 600
    """How long ``up`` waits for the Deployment's pods to be Ready before it fails, naming the
    kubelet's reason (renders nothing; not the operator's field)."""

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
