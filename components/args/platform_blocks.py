"""The building blocks every part of a ``Platform`` shares: ``ComponentSpec`` (what each platform
component takes: image, replicas, workload kind, disruption budget, autoscaling, the free-form
pod blocks, service and metrics), a Secret's credentials and a managed volume's storage, and
the value rules the operator's CRD states as patterns.

From the public repository ``OmniTrustILM/operator``: ``api/v1alpha1/common_types.go`` at commit
3a6a59d9495e39d550b88ffab5909a971c569da1 (its ``ComponentSpec`` and the types it embeds).
Where the operator's type is the connector's, the shared block of ``args/blocks`` is used.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, model_validator

from components.args import kube_schema
from components.args.base import Model
from components.args.blocks import (
    Affinity,
    ConfigMapRefArgs,
    Containers,
    EmptyDirArgs,
    EnvVarArgs,
    PodDisruptionBudgetArgs,
    ProbesArgs,
    Resources,
    SecretRefArgs,
    ServiceAccountArgs,
    ServiceMonitorArgs,
    Tolerations,
)
from components.args.fields import (
    AbsolutePath,
    Annotations,
    Digest,
    DnsLabel,
    FreeForm,
    ImageHost,
    ImagePath,
    ImageRepository,
    ImageTag,
    Labels,
    NonEmpty,
    NonNegative,
    Port,
    Positive,
    QualifiedName,
    SecretKeyName,
)
from components.args.kube_schema import each_conforms_to
from components.args.workload_spec import check_extra_containers


def matching(pattern: str, rule: str) -> Any:
    """An after-validator for a CRD ``Pattern`` marker: "must be <rule>", never the value."""
    compiled = re.compile(pattern)

    def check(value: str) -> str:
        if not compiled.fullmatch(value):
            raise ValueError(f"must be {rule}")
        return value

    check.__doc__ = f"{rule[0].upper()}{rule[1:]}."
    return AfterValidator(check)


ObjectName = Annotated[str, Field(min_length=1, max_length=253)]
"""The name of a Secret, ConfigMap or other object in the platform's namespace."""
SERVER_HOST_RULE = "a host name or IP address: at most 253 letters, digits, '.', '_', '-', ':', '[' or ']'"
PUBLIC_HOST_RULE = "a host name: at most 253 letters, digits, '.', '_' or '-', after an optional '*.'"
ServerHost = Annotated[str, matching(r"^[a-zA-Z0-9._:\[\]-]{1,253}$", SERVER_HOST_RULE)]
PublicHost = Annotated[str, matching(r"^(\*\.)?[a-zA-Z0-9._-]{1,253}$", PUBLIC_HOST_RULE)]
ReleaseVersion = Annotated[str, matching(r"^[0-9]+\.[0-9]+\.[0-9]+$", "a version of three numbers, such as 2.19.0")]
Quantity = Annotated[str, matching(kube_schema.QUANTITY, "a Kubernetes quantity such as 10Gi")]
Percent = Annotated[int, Field(ge=1, le=100)]
Volumes = Annotated[list[FreeForm], AfterValidator(each_conforms_to("io.k8s.api.core.v1.Volume"))]
VolumeMounts = Annotated[list[FreeForm], AfterValidator(each_conforms_to("io.k8s.api.core.v1.VolumeMount"))]
ContainerPorts = Annotated[list[FreeForm], AfterValidator(each_conforms_to("io.k8s.api.core.v1.ContainerPort"))]


class ComponentImageArgs(Model):
    """A component's image, per field: an unset part falls back to ``common.image``, then to the version's bundle."""

    registry: ImageHost | None = None
    """The registry host, e.g. `registry.example.com`."""
    repository: ImageRepository | None = None
    """The image repository or path (the bundle's is `ilm`)."""
    name: ImagePath | None = None
    """The image name (default: the version's bundle)."""
    tag: ImageTag | None = None
    """The image tag (default: the version's bundle); ignored when `digest` is set."""
    digest: Digest = None
    """A `sha256:` digest pinning the image; it wins over the tag."""
    pull_policy: Literal["Always", "IfNotPresent", "Never"] = "IfNotPresent"
    """When the kubelet pulls the image."""
    pull_secrets: list[NonEmpty] = []
    """Names of image pull Secrets in the namespace."""
    command: list[str] | None = None
    """Replaces the image's entrypoint."""
    args: list[str] | None = None
    """Replaces the image's arguments."""


class CredentialsRefArgs(Model):
    """A Secret holding a username and password, and the keys they are under (never the values)."""

    secret_ref: ObjectName | None = None
    """The Secret's name."""
    username_key: SecretKeyName | None = None
    """The key holding the username (the operator's default: `username`)."""
    password_key: SecretKeyName | None = None
    """The key holding the password (the operator's default: `password`)."""


class StorageArgs(Model):
    """The persistent volume of each instance of a managed stateful workload."""

    size: Quantity
    """The volume's size, e.g. `100Gi`."""
    storage_class: str | None = None
    """The StorageClass to provision from (default: the cluster's; an empty name: none, binding a pre-provisioned volume)."""


class ComponentPodDisruptionBudgetArgs(PodDisruptionBudgetArgs):
    """A component's PodDisruptionBudget; with neither bound set it keeps one pod available."""

    enabled: bool
    """Render a PodDisruptionBudget (required when the block is given)."""


class ComponentServiceMonitorArgs(ServiceMonitorArgs):
    """A Prometheus Operator ServiceMonitor scraping a component's metrics."""

    enabled: bool
    """Render a ServiceMonitor (required when the block is given)."""


class ComponentMetricsArgs(Model):
    """A component's metrics endpoint and its ServiceMonitor."""

    enabled: bool
    """The component serves metrics (required when the block is given)."""
    path: AbsolutePath = "/v1/metrics"
    """The metrics path."""
    port: Port = 8080
    """Reserved: the ServiceMonitor scrapes the Service's port."""
    service_monitor: ComponentServiceMonitorArgs | None = None
    """The ServiceMonitor, when enabled."""


class AutoscalingArgs(Model):
    """A HorizontalPodAutoscaler for a component: it then owns the replica count."""

    min_replicas: Positive | None = None
    """The fewest replicas (the autoscaler's default: 1)."""
    max_replicas: Positive
    """The most replicas."""
    target_cpu_utilization: Annotated[Percent | None, Field(alias="targetCPUUtilization")] = None
    """The average CPU use to keep, as a percentage of the CPU request."""
    target_memory_utilization: Percent | None = None
    """The average memory use to keep, as a percentage of the memory request."""

    @model_validator(mode="after")
    def _bounds(self) -> AutoscalingArgs:
        # Not a CEL rule of the CRD: the HPA API refuses it at apply time.
        if self.min_replicas is not None and self.max_replicas < self.min_replicas:
            raise ValueError("maxReplicas: must not be below minReplicas")
        return self


class ComponentVolumeArgs(Model):
    """A further volume of a component's pod (emptyDir only), and where it is mounted."""

    name: DnsLabel
    """The volume's name in the pod."""
    mount_path: AbsolutePath
    """Where it is mounted in the main container."""
    empty_dir: EmptyDirArgs | None = None
    """A scratch volume."""


class ComponentSecurityContextArgs(Model):
    """The main container's security settings (the operator's hardening fills the rest)."""

    run_as_non_root: bool = True
    """Always true: platform components run as non-root (false is refused)."""
    read_only_root_filesystem: bool = True
    """Mount the container's root filesystem read-only."""

    @model_validator(mode="after")
    def _non_root_only(self) -> ComponentSecurityContextArgs:
        # Not a CEL rule: the operator's hardening forces it whatever the CR says.
        if not self.run_as_non_root:
            raise ValueError("runAsNonRoot: false is refused: every platform container runs as non-root")
        return self


class ComponentServiceArgs(Model):
    """A component's Service: its port and type."""

    port: Port = 8080
    """The Service port."""
    type: Literal["ClusterIP", "NodePort", "LoadBalancer"] = "ClusterIP"
    """The Service type."""


class ComponentSpec(Model):
    """What every platform component takes; an unset field keeps the operator's derived default."""

    image: ComponentImageArgs | None = None
    """The component's image, per field (unset fields: `common.image`, then the version's bundle)."""
    replicas: NonNegative | None = None
    """The number of pods; ignored under autoscaling (the HA profile's default when unset)."""
    workload_type: Literal["Deployment", "StatefulSet"] = "Deployment"
    """The workload kind: a Deployment, or a StatefulSet for stable pod names and ordered rollouts."""
    pod_disruption_budget: ComponentPodDisruptionBudgetArgs | None = None
    """A PodDisruptionBudget for the component."""
    autoscaling: AutoscalingArgs | None = None
    """A HorizontalPodAutoscaler; it wins over `replicas`."""
    resources: Resources | None = None
    """The main container's resource requests and limits, as in a pod spec."""
    env: list[EnvVarArgs] = []
    """Plain environment variables, after the operator's own (a name given twice: the last wins)."""
    secret_refs: list[SecretRefArgs] = []
    """Secrets consumed as environment variables or files."""
    config_map_refs: list[ConfigMapRefArgs] = []
    """ConfigMaps consumed as environment variables or files."""
    volumes: list[ComponentVolumeArgs] = []
    """Further volumes mounted into the main container."""
    probes: ProbesArgs | None = None
    """The main container's probes (default: the operator's for the component)."""
    security_context: ComponentSecurityContextArgs | None = None
    """The main container's security settings."""
    pod_annotations: Annotations = {}
    """Annotations on the pods."""
    pod_labels: Labels = {}
    """Labels on the pods (the operator's own labels win)."""
    node_selector: dict[QualifiedName, str] = {}
    """Node labels the pods must run on."""
    affinity: Affinity | None = None
    """Affinity, as in a pod spec."""
    tolerations: Tolerations = []
    """Tolerations, as in a pod spec."""
    init_containers: Containers = []
    """Further init containers, after the operator's own, as in a pod spec."""
    sidecars: Containers = []
    """Further containers beside the main one, as in a pod spec."""
    service_account: ServiceAccountArgs | None = None
    """The ServiceAccount's name and annotations (default: one named after the component)."""
    service: ComponentServiceArgs | None = None
    """The Service's port and type."""
    metrics: ComponentMetricsArgs | None = None
    """The metrics endpoint and its ServiceMonitor."""

    @model_validator(mode="after")
    def _extra_containers(self) -> ComponentSpec:
        check_extra_containers(self.init_containers, self.sidecars)
        return self
