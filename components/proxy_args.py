"""Typed arguments of a proxy: the operator's Proxy resource spec as pydantic v2 models.

The proxy is the outbound-only broker bridge of a restricted zone; every broker setting travels
in a config token held in a Secret, so the only required argument is that Secret. The field
types and shared blocks (image parts, references, volumes, probes, free-form Kubernetes blocks)
are the connector's; what differs is here: BOM image defaults, no service, strategy, lifecycle
or registration, a top-level PDB and grace period, and a proxy-local metrics block.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, model_validator

from . import kube_schema
from .args import (
    AnnotationInputs,
    ConfigMapRefArgs,
    EntryIdentity,
    EnvVarArgs,
    FreeForm,
    Identity,
    LabelInputs,
    Model,
    NetworkPolicyArgs,
    NonNegative,
    PodDisruptionBudgetArgs,
    ProbesArgs,
    SecretRefArgs,
    SecurityContextArgs,
    ServiceAccountArgs,
    ServiceMonitorArgs,
    StrInput,
    VolumeArgs,
    _digest,
    check_extra_containers,
    check_unique_volume_names,
)
from .kube_schema import conforms_to, each_conforms_to

BOM_REGISTRY = "hub.omnitrustregistry.com"
BOM_REPOSITORY = "ilm"
BOM_NAME = "proxy"
BOM_TAG = "1.0.0"
"""The operator's bill of materials for the proxy (the same tag in its 2.18.0 and 2.19.0 bundles)."""

TOKEN_ENV = "PROXY_CONFIG_TOKEN"
SIGNING_KEY_ENV = "PROXY_TOKEN_SIGNING_KEY"
RESERVED_ENV = (TOKEN_ENV, SIGNING_KEY_ENV)


class ProxyImageArgs(Model):
    registry: str = BOM_REGISTRY
    """The registry host."""
    repository: str = BOM_REPOSITORY
    """The image repository."""
    name: str = BOM_NAME
    """The image name."""
    tag: StrInput = BOM_TAG
    """The image tag (default: the operator's bill of materials)."""
    digest: Annotated[Any, AfterValidator(_digest)] = None
    """A `sha256:` digest: the image is pulled by digest."""
    pull_policy: Literal["Always", "IfNotPresent", "Never"] = "IfNotPresent"
    """When the kubelet pulls the image."""
    pull_secrets: list[Annotated[str, Field(min_length=1)]] = []
    """Names of image pull Secrets in the namespace."""
    command: list[str] | None = None
    """Replaces the image's entrypoint."""
    args: list[str] | None = None
    """Replaces the image's arguments."""


class ConfigTokenSecretRefArgs(Model):
    """The Secret holding the config token the platform's provisioning service minted."""

    name: Annotated[str, Field(min_length=1, max_length=253)]
    """The Secret's name, in the proxy's namespace."""
    token_key: Annotated[str, Field(min_length=1, max_length=253)] = "configToken"
    """The key holding the config token."""
    signing_key_key: Annotated[str, Field(min_length=1, max_length=253)] = "tokenSigningKey"
    """The key holding the token's signing key."""


class ProxyMetricsArgs(Model):
    enabled: bool
    """The proxy serves metrics."""
    path: Annotated[str, Field(pattern=r"^/")] = "/metrics"
    """The metrics path."""
    service_monitor: ServiceMonitorArgs | None = None
    """The ServiceMonitor, when enabled."""


class ProxySpec(Model):
    """The ``spec`` of a Proxy resource."""

    config_token_secret_ref: ConfigTokenSecretRefArgs
    """The Secret holding the proxy's config token."""
    image: ProxyImageArgs = ProxyImageArgs()
    """The proxy's image (default: the operator's bill of materials)."""
    replicas: NonNegative = 1
    """The number of pods."""
    resources: Annotated[FreeForm, AfterValidator(conforms_to(kube_schema.RESOURCES))] | None = None
    """The container's resource requests and limits, as in a pod spec."""
    env: list[EnvVarArgs] = []
    """Environment variables (the token's two names are reserved)."""
    pod_annotations: AnnotationInputs = {}
    """Annotations on the pods."""
    pod_labels: LabelInputs = {}
    """Labels on the pods."""
    node_selector: dict[str, str] = {}
    """Node labels the pods must run on."""
    tolerations: Annotated[list[FreeForm], AfterValidator(each_conforms_to(kube_schema.TOLERATION))] = []
    """Tolerations, as in a pod spec."""
    affinity: Annotated[FreeForm, AfterValidator(conforms_to(kube_schema.AFFINITY))] | None = None
    """Affinity, as in a pod spec."""
    init_containers: Annotated[list[FreeForm], AfterValidator(each_conforms_to(kube_schema.CONTAINER))] = []
    """Init containers, as in a pod spec."""
    sidecars: Annotated[list[FreeForm], AfterValidator(each_conforms_to(kube_schema.CONTAINER))] = []
    """Further containers, as in a pod spec."""
    termination_grace_period_seconds: Annotated[int, Field(ge=0, le=2**63 - 1)] | None = None
    """Seconds a pod has to stop before it is killed."""
    security_context: SecurityContextArgs = SecurityContextArgs()
    """The container's security settings."""
    probes: ProbesArgs = ProbesArgs()
    """The container's probes."""
    secret_refs: list[SecretRefArgs] = []
    """Secrets consumed as environment variables or files; their data rolls the pods when it changes."""
    config_map_refs: list[ConfigMapRefArgs] = []
    """ConfigMaps consumed as environment variables or files; their data rolls the pods when it changes."""
    volumes: list[VolumeArgs] = []
    """Further volumes."""
    metrics: ProxyMetricsArgs | None = None
    """The metrics endpoint and its ServiceMonitor."""
    pod_disruption_budget: PodDisruptionBudgetArgs | None = None
    """The PodDisruptionBudget, when enabled."""
    network_policy: NetworkPolicyArgs = NetworkPolicyArgs()
    """The NetworkPolicy."""
    service_account: ServiceAccountArgs = ServiceAccountArgs()
    """The ServiceAccount."""

    def optional_kinds(self) -> set[str]:
        """The optional kinds this proxy renders (the renderer and the component both ask)."""
        pdb, metrics = self.pod_disruption_budget, self.metrics
        monitor = metrics.service_monitor if metrics is not None else None
        enabled = {
            "pod_disruption_budget": pdb is not None and pdb.enabled,
            "service_monitor": metrics is not None and metrics.enabled and monitor is not None and monitor.enabled,
            "network_policy": self.network_policy.enabled,
        }
        return {kind for kind, on in enabled.items() if on}

    @model_validator(mode="after")
    def _rules(self) -> ProxySpec:
        check_unique_volume_names(self.volumes, self.secret_refs, self.config_map_refs)
        check_extra_containers(self.init_containers, self.sidecars)
        return self


class ProxyArgs(ProxySpec, Identity):
    """Everything a ``ProxyComponent`` needs: identity plus the spec, flattened."""


class ProxyEntry(EntryIdentity):
    """One entry of the stack config's ``proxies`` list: a Proxy manifest's metadata and spec."""

    spec: ProxySpec

    def to_args(self) -> ProxyArgs:
        return ProxyArgs.model_validate(self.flattened(self.spec))
