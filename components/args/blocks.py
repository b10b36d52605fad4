"""What every Deployment-based kind of the platform takes (a connector, a proxy): the image,
pods, references, volumes, probes, scheduling and the free-form Kubernetes blocks, as one base
spec the two kinds derive from."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, model_validator

from components.args import kube_schema
from components.args.base import Model, NotInPackage
from components.args.fields import (
    IMAGE_NAME,
    IMAGE_NAME_MAX,
    IMAGE_REPOSITORY_RULE,
    AbsolutePath,
    Annotations,
    Digest,
    DnsLabel,
    EnvName,
    FreeForm,
    ImageHost,
    ImagePath,
    ImageRepository,
    ImageTag,
    IntOrPercent,
    Labels,
    NonEmpty,
    NonNegative,
    Positive,
)
from components.args.kube_schema import conforms_to, each_conforms_to
from components.args.sdk_values import is_custom_resource


class ImageBase(Model):
    """An image reference in parts: ``registry/repository/name``, then ``@digest`` or ``:tag``."""

    repository: ImageRepository
    """The image repository (with its registry unless `registry` is set), e.g. `registry.example.com/team/connector`."""
    registry: ImageHost | None = None
    """The registry host, joined before the repository when set."""
    name: ImagePath | None = None
    """The image name, joined after the repository when set."""
    tag: ImageTag
    """The image tag; may be empty only when `digest` is set."""
    digest: Digest = None
    """A `sha256:` digest: the image is pulled by digest (and the tag kept for readers)."""
    pull_policy: Literal["Always", "IfNotPresent", "Never"] = "IfNotPresent"
    """When the kubelet pulls the image."""
    pull_secrets: list[NonEmpty] = []
    """Names of image pull Secrets in the namespace."""
    command: list[str] | None = None
    """Replaces the image's entrypoint."""
    args: list[str] | None = None
    """Replaces the image's arguments."""

    def image_name(self) -> str:
        """``registry/repository/name`` of the parts that are set."""
        return "/".join(part for part in (self.registry, self.repository, self.name) if part)

    @model_validator(mode="after")
    def _reference(self) -> ImageBase:
        if isinstance(self.tag, str) and not self.tag and self.digest is None:
            raise ValueError("image.tag must not be empty unless image.digest is set")
        whole = self.image_name()
        if len(whole) > IMAGE_NAME_MAX or not IMAGE_NAME.fullmatch(whole):
            raise ValueError(f"registry, repository and name joined must be {IMAGE_REPOSITORY_RULE} (at most {IMAGE_NAME_MAX})")
        return self


class SecurityContextArgs(Model):
    """The main container's security settings, within the restricted Pod Security Standard."""

    run_as_non_root: bool = True
    """Always true: connectors run as non-root (false is refused)."""
    read_only_root_filesystem: bool = True
    """Mount the container's root filesystem read-only."""
    fs_group: NonNegative | None = None
    """The group that owns mounted volumes."""
    run_as_user: Positive | None = None
    """The user id every container runs as (not the operator's field): needed for an image whose
    user is root or a name, which the kubelet refuses to start under runAsNonRoot."""
    run_as_group: Positive | None = None
    """The primary group id every container runs with (not the operator's field)."""

    @model_validator(mode="after")
    def _non_root_only(self) -> SecurityContextArgs:
        if not self.run_as_non_root:
            raise ValueError(
                "runAsNonRoot: false is refused: connectors always run as non-root (restricted Pod Security Standard)"
            )
        return self


class ProbeArgs(Model):
    """One probe as given: an empty path means no such probe; unset numbers take the API's."""

    path: str = ""
    """The HTTP path probed; empty means no such probe."""
    initial_delay_seconds: NonNegative | None = None
    """Seconds before the first probe."""
    period_seconds: Positive | None = None
    """Seconds between probes."""
    failure_threshold: Positive | None = None
    """Failures in a row before the probe fails."""


class ProbesArgs(Model):
    """The main container's probes; a missing one takes its default."""

    liveness: ProbeArgs | None = None
    """Restarts the container when it fails."""
    readiness: ProbeArgs | None = None
    """Takes the pod out of the Service while it fails."""
    startup: ProbeArgs | None = None
    """Holds the other probes until it succeeds."""


class EnvVarArgs(Model):
    """One environment variable of the main container."""

    name: EnvName
    """The variable's name."""
    value: str | None = None
    """The variable's value (plain text in the Deployment: put secrets in `secretRefs`)."""


class SecretKeyArgs(Model):
    """One key of a referenced Secret, and the environment variable or file it becomes."""

    secret_key: NonEmpty
    """The key in the Secret."""
    env_var: EnvName | None = None
    """The environment variable it becomes (type env)."""
    path: str | None = None
    """The file it becomes under the mount path (type volume)."""


class ConfigMapKeyArgs(Model):
    """One key of a referenced ConfigMap, and the environment variable or file it becomes."""

    config_map_key: NonEmpty
    """The key in the ConfigMap."""
    env_var: EnvName | None = None
    """The environment variable it becomes (type env)."""
    path: str | None = None
    """The file it becomes under the mount path (type volume)."""


def _resource_or_none(value: Any) -> Any:
    if value is not None and not is_custom_resource(value):
        raise ValueError("must be a Secret or ConfigMap resource of the program (Python only)")
    return value


class _RefArgs(Model):
    name: Annotated[str, Field(min_length=1, max_length=253)]
    """The referenced object's name, in the connector's namespace."""
    type: Literal["env", "volume"]
    """Consumed as environment variables or as a mounted volume."""
    mount_path: AbsolutePath | None = None
    """Where the volume is mounted; required for type volume."""
    source: Annotated[Any, AfterValidator(_resource_or_none), NotInPackage()] = None
    """Python only: the program's own Secret / ConfigMap resource named ``name``; its data
    output feeds the checksum and nothing is read from the cluster."""

    @model_validator(mode="after")
    def _mount_path_for_volume(self) -> _RefArgs:
        if self.type == "volume" and not self.mount_path:
            raise ValueError("mountPath is required when type is volume")
        if self.type == "env" and self.mount_path:
            raise ValueError("mountPath is only valid when type is volume")
        return self


class SecretRefArgs(_RefArgs):
    """A Secret the workload consumes, as environment variables or a mounted volume."""

    keys: list[SecretKeyArgs] = []
    """The keys used (default: every key, by its own name)."""


class ConfigMapRefArgs(_RefArgs):
    """A ConfigMap the workload consumes, as environment variables or a mounted volume."""

    keys: list[ConfigMapKeyArgs] = []
    """The keys used (default: every key, by its own name)."""


class EmptyDirArgs(Model):
    """A scratch volume, on node storage or in memory."""

    medium: Literal["", "Memory"] | None = None
    """Where the volume lives: node storage (empty) or memory."""
    size_limit: Annotated[str, Field(pattern=kube_schema.QUANTITY)] | None = None
    """The volume's size limit, as a Kubernetes quantity."""


class PersistentVolumeClaimArgs(Model):
    """A persistent volume claim mounted into the pod."""

    claim_name: NonEmpty
    """The claim's name in the namespace."""
    read_only: bool = False
    """Mount the claim read-only."""


class VolumeArgs(Model):
    """A further volume of the pod, and where it is mounted."""

    name: DnsLabel
    """The volume's name in the pod."""
    mount_path: AbsolutePath
    """Where it is mounted in the container."""
    empty_dir: EmptyDirArgs | None = None
    """A scratch volume."""
    persistent_volume_claim: PersistentVolumeClaimArgs | None = None
    """A persistent volume claim."""

    @model_validator(mode="after")
    def _one_source(self) -> VolumeArgs:
        if self.empty_dir is not None and self.persistent_volume_claim is not None:
            raise ValueError("set either emptyDir or persistentVolumeClaim, not both")
        return self


class PodDisruptionBudgetArgs(Model):
    """The PodDisruptionBudget bounding voluntary evictions of the pods."""

    enabled: bool = False
    """Render a PodDisruptionBudget."""
    min_available: IntOrPercent | None = None
    """Pods that must stay available: a number or a percentage."""
    max_unavailable: IntOrPercent | None = None
    """Pods that may be unavailable: a number or a percentage."""


class ServiceMonitorArgs(Model):
    """A Prometheus Operator ServiceMonitor scraping the workload's metrics."""

    enabled: bool = False
    """Render a Prometheus Operator ServiceMonitor."""
    interval: Annotated[str, Field(pattern=r"^([0-9]+(ms|s|m|h))+$")] | None = None
    """How often Prometheus scrapes, e.g. `30s`."""
    labels: Labels = {}
    """Labels on the ServiceMonitor (so that a Prometheus selects it)."""


class NetworkPolicyArgs(Model):
    """The NetworkPolicy letting in only the workload's ports, from its namespace."""

    enabled: bool = True
    """Render a NetworkPolicy letting in only the workload's ports."""


class ServiceAccountArgs(Model):
    """The ServiceAccount the pods run as."""

    name: DnsLabel | None = None
    """The ServiceAccount's name (default: the workload's)."""
    annotations: Annotations = {}
    """Annotations on the ServiceAccount (e.g. a cloud identity binding)."""


Resources = Annotated[FreeForm, AfterValidator(conforms_to(kube_schema.RESOURCES))]
Tolerations = Annotated[list[FreeForm], AfterValidator(each_conforms_to(kube_schema.TOLERATION))]
Affinity = Annotated[FreeForm, AfterValidator(conforms_to(kube_schema.AFFINITY))]
Containers = Annotated[list[FreeForm], AfterValidator(each_conforms_to(kube_schema.CONTAINER))]
