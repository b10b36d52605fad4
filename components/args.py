"""Typed arguments of a connector: the Connector resource's spec as pydantic v2 models.

Stack config and YAML use the resource's camelCase names (a Connector manifest's ``spec:``
pastes in unchanged); Python callers use snake_case. Unknown fields are refused by name.
A few values that another resource may produce (image tag and digest, the platform URL, pod
label and annotation values) may be ``pulumi.Output``s when the component is used from Python.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Any, Literal, TypeVar

import pulumi
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    JsonValue,
    ValidationError,
    model_validator,
)
from pydantic.alias_generators import to_camel

from . import kube_schema
from .errors import InvalidArgumentsError, describe, kind_of
from .kube_schema import bounded, conforms_to, each_conforms_to
from .routing import url_problem

DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")
INT_OR_PERCENT = re.compile(r"^[0-9]+%$")
ENV_NAME = re.compile(r"^[-._a-zA-Z][-._a-zA-Z0-9]*$")
# A label or annotation key: an optional DNS-subdomain prefix and '/', then a name of at most 63.
QUALIFIED_NAME = re.compile(
    r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$"
)
LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
INT32_MAX = 2**31 - 1


def _is_output(value: object) -> bool:
    return isinstance(value, pulumi.Output)


def _dns_label(value: str) -> str:
    if len(value) > 63:
        raise ValueError(f"must be at most 63 characters, got {len(value)}")
    if not DNS_LABEL.match(value):
        raise ValueError(
            "must be a DNS-1123 label: lowercase letters, digits and '-', starting and ending with a letter or digit"
        )
    return value


def _digest(value: Any) -> Any:
    if _is_output(value) or value is None:
        return value
    if not isinstance(value, str):
        raise ValueError("must be a string")
    if not DIGEST.match(value):
        raise ValueError("must be 'sha256:' followed by 64 lowercase hex digits")
    return value


def _int_or_percent(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        if not 0 <= value <= INT32_MAX:
            raise ValueError(f"must be between 0 and {INT32_MAX}")
        return value
    if not isinstance(value, str) or not INT_OR_PERCENT.match(value) or len(value) > 12:
        raise ValueError("must be a non-negative integer or a percentage like '25%'")
    return value


def _qualified_name(value: str) -> str:
    if len(value) > 316 or not QUALIFIED_NAME.match(value):
        raise ValueError(
            "keys must be qualified names: an optional DNS prefix and '/', then at most 63 letters, digits, '-', '_' or '.'"
        )
    return value


def _label_value(value: Any) -> Any:
    if isinstance(value, str) and (len(value) > 63 or not LABEL_VALUE.match(value)):
        raise ValueError("must be a label value: at most 63 letters, digits, '-', '_' or '.', starting and ending alphanumeric")
    return value


def _absolute_path(value: str) -> str:
    if not value.startswith("/"):
        raise ValueError("must be an absolute path starting with '/'")
    return value


def _str_input(value: Any) -> Any:
    if _is_output(value) or isinstance(value, str):
        return value
    raise ValueError("must be a string")


DnsLabel = Annotated[str, AfterValidator(_dns_label)]
IntOrPercent = Annotated[Any, AfterValidator(_int_or_percent)]
AbsolutePath = Annotated[str, Field(max_length=4096), AfterValidator(_absolute_path)]
EnvName = Annotated[str, Field(pattern=ENV_NAME.pattern, max_length=253)]
Port = Annotated[int, Field(ge=1, le=65535)]
# Kubernetes' int32 fields (replicas, probe settings): never negative here, at most 2^31-1.
NonNegative = Annotated[int, Field(ge=0, le=INT32_MAX)]
Positive = Annotated[int, Field(ge=1, le=INT32_MAX)]
# A plain string, or an Output of one when the value comes from another resource.
StrInput = Annotated[Any, AfterValidator(_str_input)]
QualifiedName = Annotated[str, AfterValidator(_qualified_name)]
# Label and annotation maps: Kubernetes takes strings only.
Labels = dict[QualifiedName, Annotated[str, AfterValidator(_label_value)]]
Annotations = dict[QualifiedName, str]
# Values that may also be Outputs (Python callers).
LabelInputs = dict[QualifiedName, Annotated[StrInput, AfterValidator(_label_value)]]
AnnotationInputs = dict[QualifiedName, StrInput]
FreeForm = Annotated[dict[str, Any], BeforeValidator(bounded)]


class Model(BaseModel):
    """Base of every argument model: camelCase aliases, snake_case names, no unknown fields.

    Built directly from Python (``ConnectorArgs(name=..., replicas=...)``), a model refuses bad
    input with ``InvalidArgumentsError`` like the stack config does: every problem by its path,
    no value repeated (pydantic's own error would print the values)."""

    def __init__(self, /, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as error:
            raise InvalidArgumentsError(describe(error), heading=f"invalid {type(self).__name__}") from None

    # Only a direct call goes through this ``__init__``: pydantic still validates nested models
    # itself (it would call an overridden ``__init__`` for them and lose the nested paths).
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        arbitrary_types_allowed=True,
        frozen=True,
        # No silent conversions: `replicas: true` or `port: "80"` is an error, not 1 or 80.
        strict=True,
        # Field docstrings are the fields' descriptions (the component package's schema shows them).
        use_attribute_docstrings=True,
    )


M = TypeVar("M", bound=Model)


def validated(model: type[M], args: M | Mapping[str, Any], path: str = "", heading: str = "invalid connector arguments") -> M:
    """``args`` as a ``model``: given as one, or validated from a mapping; else
    ``InvalidArgumentsError`` listing every offending field."""
    if isinstance(args, model):
        return args
    if not isinstance(args, Mapping):
        raise InvalidArgumentsError([f"{path or 'args'}: must be {model.__name__} or a mapping of them (got {kind_of(args)})"])
    try:
        return model.model_validate(dict(args))
    except ValidationError as error:
        raise InvalidArgumentsError(describe(error, path), heading) from None


class ImageArgs(Model):
    repository: Annotated[str, Field(min_length=1)]
    """The image repository (with its registry unless `registry` is set), e.g. `registry.example.com/team/connector`."""
    registry: str | None = None
    """The registry host, joined before the repository when set."""
    name: str | None = None
    """The image name, joined after the repository when set."""
    tag: StrInput
    """The image tag; may be empty only when `digest` is set."""
    digest: Annotated[Any, AfterValidator(_digest)] = None
    """A `sha256:` digest: the image is pulled by digest (and the tag kept for readers)."""
    pull_policy: Literal["Always", "IfNotPresent", "Never"] = "IfNotPresent"
    """When the kubelet pulls the image."""
    pull_secrets: list[Annotated[str, Field(min_length=1)]] = []
    """Names of image pull Secrets in the namespace."""
    command: list[str] | None = None
    """Replaces the image's entrypoint."""
    args: list[str] | None = None
    """Replaces the image's arguments."""

    @model_validator(mode="after")
    def _tag_not_empty(self) -> ImageArgs:
        if isinstance(self.tag, str) and not self.tag and self.digest is None:
            raise ValueError("image.tag must not be empty unless image.digest is set")
        return self


class ServiceArgs(Model):
    port: Port = 8080
    """The port the connector listens on and the Service exposes."""
    type: Literal["ClusterIP", "NodePort", "LoadBalancer"] = "ClusterIP"
    """The Service type."""
    node_port: Annotated[int, Field(ge=30000, le=32767)] | None = None
    """The node port (30000-32767); only with type NodePort."""

    @model_validator(mode="after")
    def _node_port_needs_node_port_type(self) -> ServiceArgs:
        if self.node_port is not None and self.type != "NodePort":
            raise ValueError("nodePort can only be set when type is NodePort")
        return self


class RollingUpdateArgs(Model):
    max_surge: IntOrPercent | None = None
    """Pods above the desired count during a rollout: a number or a percentage."""
    max_unavailable: IntOrPercent | None = None
    """Pods that may be unavailable during a rollout: a number or a percentage."""


class StrategyArgs(Model):
    type: Literal["Recreate", "RollingUpdate"] | None = None
    """How pods are replaced on a change."""
    rolling_update: RollingUpdateArgs | None = None
    """Rolling update settings; only with type RollingUpdate."""

    @model_validator(mode="after")
    def _rules(self) -> StrategyArgs:
        if self.rolling_update is None:
            return self
        if self.type != "RollingUpdate":
            raise ValueError("rollingUpdate can only be set when type is RollingUpdate")
        surge, unavailable = self.rolling_update.max_surge, self.rolling_update.max_unavailable
        if is_zero(surge) and is_zero(unavailable):
            raise ValueError("rollingUpdate.maxSurge and maxUnavailable must not both be zero")
        return self


def is_zero(value: int | str | None) -> bool:
    """0, or a zero percentage of any width ("0%", "00%"), as the operator counts it."""
    if isinstance(value, str) and INT_OR_PERCENT.match(value):
        return int(value[:-1]) == 0
    return value == 0 and not isinstance(value, bool)


class SecurityContextArgs(Model):
    run_as_non_root: bool = True
    """Always true: connectors run as non-root (false is refused)."""
    read_only_root_filesystem: bool = True
    """Mount the container's root filesystem read-only."""
    fs_group: NonNegative | None = None
    """The group that owns mounted volumes."""

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
    liveness: ProbeArgs | None = None
    """Restarts the container when it fails."""
    readiness: ProbeArgs | None = None
    """Takes the pod out of the Service while it fails."""
    startup: ProbeArgs | None = None
    """Holds the other probes until it succeeds."""


class EnvVarArgs(Model):
    name: EnvName
    """The variable's name."""
    value: str | None = None
    """The variable's value (plain text in the Deployment: put secrets in `secretRefs`)."""


class SecretKeyArgs(Model):
    secret_key: Annotated[str, Field(min_length=1)]
    """The key in the Secret."""
    env_var: EnvName | None = None
    """The environment variable it becomes (type env)."""
    path: str | None = None
    """The file it becomes under the mount path (type volume)."""


class ConfigMapKeyArgs(Model):
    config_map_key: Annotated[str, Field(min_length=1)]
    """The key in the ConfigMap."""
    env_var: EnvName | None = None
    """The environment variable it becomes (type env)."""
    path: str | None = None
    """The file it becomes under the mount path (type volume)."""


def _resource_or_none(value: Any) -> Any:
    if value is not None and not isinstance(value, pulumi.CustomResource):
        raise ValueError("must be a Secret or ConfigMap resource of the program (Python only)")
    return value


class _RefArgs(Model):
    name: Annotated[str, Field(min_length=1, max_length=253)]
    """The referenced object's name, in the connector's namespace."""
    type: Literal["env", "volume"]
    """Consumed as environment variables or as a mounted volume."""
    mount_path: AbsolutePath | None = None
    """Where the volume is mounted; required for type volume."""
    source: Annotated[Any, AfterValidator(_resource_or_none)] = None
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
    keys: list[SecretKeyArgs] = []
    """The keys used (default: every key, by its own name)."""


class ConfigMapRefArgs(_RefArgs):
    keys: list[ConfigMapKeyArgs] = []
    """The keys used (default: every key, by its own name)."""


class EmptyDirArgs(Model):
    medium: Literal["", "Memory"] | None = None
    """Where the volume lives: node storage (empty) or memory."""
    size_limit: Annotated[str, Field(pattern=kube_schema.QUANTITY)] | None = None
    """The volume's size limit, as a Kubernetes quantity."""


class PersistentVolumeClaimArgs(Model):
    claim_name: Annotated[str, Field(min_length=1)]
    """The claim's name in the namespace."""
    read_only: bool = False
    """Mount the claim read-only."""


class VolumeArgs(Model):
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
    enabled: bool = False
    """Render a PodDisruptionBudget."""
    min_available: IntOrPercent | None = None
    """Pods that must stay available: a number or a percentage."""
    max_unavailable: IntOrPercent | None = None
    """Pods that may be unavailable: a number or a percentage."""


class LifecycleArgs(Model):
    termination_grace_period_seconds: Annotated[int, Field(ge=0, le=2**63 - 1)] | None = None
    """Seconds a pod has to stop before it is killed."""
    pod_disruption_budget: PodDisruptionBudgetArgs | None = None
    """The PodDisruptionBudget, when enabled."""


class ServiceMonitorArgs(Model):
    enabled: bool = False
    """Render a Prometheus Operator ServiceMonitor."""
    interval: Annotated[str, Field(pattern=r"^([0-9]+(ms|s|m|h))+$")] | None = None
    """How often Prometheus scrapes, e.g. `30s`."""
    labels: Labels = {}
    """Labels on the ServiceMonitor (so that a Prometheus selects it)."""


class MetricsArgs(Model):
    enabled: bool = False
    """The connector serves metrics."""
    port: Port | None = None
    """Accepted as in a Connector manifest; scraping uses the Service's http port."""
    path: AbsolutePath = "/v1/metrics"
    """The metrics path."""
    service_monitor: ServiceMonitorArgs | None = None
    """The ServiceMonitor, when enabled."""


class NetworkPolicyArgs(Model):
    enabled: bool = True
    """Render a NetworkPolicy letting in only the connector's port."""


class ServiceAccountArgs(Model):
    name: DnsLabel | None = None
    """The ServiceAccount's name (default: the connector's)."""
    annotations: Annotations = {}
    """Annotations on the ServiceAccount (e.g. a cloud identity binding)."""


class IngressArgs(Model):
    host: Annotated[str, Field(pattern=r"^(\*\.)?[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")]
    """The host name routed to the connector."""
    path: AbsolutePath = "/"
    """The path routed."""
    path_type: Literal["Prefix", "Exact", "ImplementationSpecific"] = "Prefix"
    """How the path matches."""
    class_name: str | None = None
    """The IngressClass."""
    tls_secret_name: str | None = None
    """A Secret with the host's TLS certificate."""
    annotations: Annotations = {}
    """Annotations on the Ingress."""


class AttributeArgs(Model):
    name: Annotated[str, Field(min_length=1)]
    """The attribute's name."""
    content: Annotated[JsonValue, BeforeValidator(bounded)] = None
    """The attribute's content, any JSON value."""


class AdminSecretRefArgs(Model):
    """A Secret in the connector's namespace holding the administrator's credentials."""

    name: DnsLabel
    """The Secret's name."""
    bearer_token_key: Annotated[str, Field(min_length=1, max_length=253)] | None = None
    """The key holding a bearer token."""
    client_certificate_key: Annotated[str, Field(min_length=1, max_length=253)] | None = None
    """The key holding a PEM client certificate."""
    client_key_key: Annotated[str, Field(min_length=1, max_length=253)] | None = None
    """The key holding the certificate's PEM private key."""

    @model_validator(mode="after")
    def _one_kind(self) -> AdminSecretRefArgs:
        pair = (self.client_certificate_key, self.client_key_key)
        if bool(self.bearer_token_key) == any(pair):
            raise ValueError("set either bearerTokenKey, or clientCertificateKey and clientKeyKey")
        if any(pair) and not all(pair):
            raise ValueError("clientCertificateKey and clientKeyKey go together")
        return self


class AdminCredentialsArgs(Model):
    """An administrator of the platform, for the calls beyond registering: a bearer JWT, or a
    client certificate and key (PEM) for mTLS at the platform's gateway, given as values
    (secret config, or Outputs from Python) or as a Secret to read. Always secret in state."""

    bearer_token: StrInput | None = None
    """An administrator's bearer token."""
    client_certificate: StrInput | None = None
    """An administrator's PEM client certificate."""
    client_key: StrInput | None = None
    """The client certificate's PEM private key."""
    secret_ref: AdminSecretRefArgs | None = None
    """A Secret to read the credentials from instead."""

    @model_validator(mode="after")
    def _one_source(self) -> AdminCredentialsArgs:
        given = [v is not None for v in (self.bearer_token, self.client_certificate, self.client_key)]
        if self.secret_ref is not None and any(given):
            raise ValueError("set either secretRef or the credential values, not both")
        if self.secret_ref is None:
            if self.bearer_token is not None and any(given[1:]):
                raise ValueError("set either bearerToken, or clientCertificate and clientKey")
            if self.bearer_token is None and not all(given[1:]):
                raise ValueError("set bearerToken, or clientCertificate and clientKey, or secretRef")
        return self


PLATFORM_UUID = r"^[A-Za-z0-9][-A-Za-z0-9]{0,63}$"


class RegistrationArgs(Model):
    platform_url: StrInput
    """The platform Core's base URL."""
    name: Annotated[str, Field(min_length=1)]
    """The connector's name on the platform."""
    auth_type: Literal["none", "basic", "certificate", "apiKey", "jwt"]
    """How the platform authenticates to the connector."""
    auth_attributes: list[AttributeArgs] = []
    """The authentication's attributes (always secret in state)."""
    custom_attributes: list[AttributeArgs] = []
    """Further attributes sent with the registration."""
    version: Literal["v1", "v2"] = "v2"
    """The connector API version the connector implements."""
    retry_initial_seconds: Annotated[float, Field(gt=0, le=86400)] = 5
    """The first wait between attempts while the platform is unreachable."""
    retry_max_seconds: Annotated[float, Field(gt=0, le=86400)] = 300
    """The longest wait between attempts."""
    deadline_seconds: Annotated[float, Field(gt=0, le=86400)] = 600
    """How long registration keeps trying before the update fails."""
    ca_bundle: str | None = None
    """PEM certificates to trust for the platform's URL."""
    insecure_skip_tls_verify: bool = False
    """Skip verifying the platform's certificate (tests only)."""
    route: Literal["auto", "direct", "apiServerProxy"] = "auto"
    """How to reach the platform: direct, through the API server's service proxy, or auto (chosen by the URL)."""
    uuid: Annotated[str, Field(pattern=PLATFORM_UUID)] | None = None
    """A connector already registered (by the operator, or before state was lost): adopted, never posted."""
    admin_credentials: AdminCredentialsArgs | None = None
    """An administrator, for adopting, approving and de-registering."""
    approve: bool = False
    """Approve the connector after registering it (needs adminCredentials)."""
    deregister_on_destroy: bool = False
    """Delete the platform's record when the connector is destroyed (needs adminCredentials)."""

    @model_validator(mode="after")
    def _rules(self) -> RegistrationArgs:
        for setting, wanted in (("approve", self.approve), ("deregisterOnDestroy", self.deregister_on_destroy)):
            if wanted and self.admin_credentials is None:
                raise ValueError(f"{setting}: true needs adminCredentials (only an administrator may do it)")
        if isinstance(self.platform_url, str):
            problem = url_problem(self.platform_url)
            if problem:
                raise ValueError(f"platformUrl {problem}")
        if self.auth_type != "none" and not self.auth_attributes:
            raise ValueError(f"authAttributes are required when authType is {self.auth_type}")
        return self


class ConnectorSpec(Model):
    """The ``spec`` of a Connector resource."""

    image: ImageArgs
    """The connector's image."""
    service: ServiceArgs = ServiceArgs()
    """The Service in front of the connector."""
    replicas: NonNegative = 1
    """The number of pods."""
    strategy: StrategyArgs | None = None
    """How the Deployment replaces pods."""
    resources: Annotated[FreeForm, AfterValidator(conforms_to(kube_schema.RESOURCES))] | None = None
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
    """Environment variables."""
    secret_refs: list[SecretRefArgs] = []
    """Secrets consumed as environment variables or files; their data rolls the pods when it changes."""
    config_map_refs: list[ConfigMapRefArgs] = []
    """ConfigMaps consumed as environment variables or files; their data rolls the pods when it changes."""
    volumes: list[VolumeArgs] = []
    """Further volumes."""
    lifecycle: LifecycleArgs = LifecycleArgs()
    """Termination and disruption settings."""
    metrics: MetricsArgs = MetricsArgs()
    """The metrics endpoint and its ServiceMonitor."""
    network_policy: NetworkPolicyArgs = NetworkPolicyArgs()
    """The NetworkPolicy."""
    node_selector: dict[QualifiedName, str] = {}
    """Node labels the pods must run on."""
    tolerations: Annotated[list[FreeForm], AfterValidator(each_conforms_to(kube_schema.TOLERATION))] = []
    """Tolerations, as in a pod spec."""
    affinity: Annotated[FreeForm, AfterValidator(conforms_to(kube_schema.AFFINITY))] | None = None
    """Affinity, as in a pod spec (default: spread pods across nodes)."""
    service_account: ServiceAccountArgs = ServiceAccountArgs()
    """The ServiceAccount."""
    init_containers: Annotated[list[FreeForm], AfterValidator(each_conforms_to(kube_schema.CONTAINER))] = []
    """Init containers, as in a pod spec."""
    sidecars: Annotated[list[FreeForm], AfterValidator(each_conforms_to(kube_schema.CONTAINER))] = []
    """Further containers, as in a pod spec."""
    ingress: IngressArgs | None = None
    """An Ingress routing to the connector."""
    registration: RegistrationArgs | None = None
    """The connector's registration with the platform, done once."""

    def optional_kinds(self) -> set[str]:
        """The optional kinds this connector renders (the renderer and the component both ask)."""
        pdb, monitor = self.lifecycle.pod_disruption_budget, self.metrics.service_monitor
        enabled = {
            "pod_disruption_budget": pdb is not None and pdb.enabled,
            "service_monitor": self.metrics.enabled and monitor is not None and monitor.enabled,
            "network_policy": self.network_policy.enabled,
            "ingress": self.ingress is not None,
        }
        return {kind for kind, on in enabled.items() if on}

    @model_validator(mode="after")
    def _unique_names(self) -> ConnectorSpec:
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
            if not isinstance(c.get("name"), str) or not DNS_LABEL.match(c["name"]):
                raise ValueError(f"{field}[{i}].name must be a DNS-1123 label")
            if not isinstance(c.get("image"), str) or not c["image"]:
                raise ValueError(f"{field}[{i}].image is required")


FROM_OPERATOR = """Take over a workload the reference operator runs today without a pod restart: the
pod template is rendered exactly as the operator renders it (its managed-by value on the pods,
its container security contexts, no default anti-affinity), so the running ReplicaSet is kept.
Every object becomes the program's. Turning it off later rolls the pods once."""


class Identity(Model):
    """Who a workload is: what a manifest's metadata says, plus the takeover setting."""

    name: DnsLabel
    """The workload's name: every object's name."""
    namespace: DnsLabel = "default"
    """The namespace of every object."""
    labels: Labels = {}
    """Labels on every object."""
    from_operator: Annotated[bool, Field(description=FROM_OPERATOR)] = False


class EntryIdentity(Identity):
    """An entry of a stack's list: as ``Identity``, with the namespace always written out."""

    namespace: DnsLabel
    """The namespace of every object."""

    def flattened(self, spec: BaseModel) -> dict[str, Any]:
        """The spec's fields and the identity's, as the matching ``...Args`` take them."""
        return {**dict(spec), **{field: getattr(self, field) for field in Identity.model_fields}}


class ConnectorArgs(ConnectorSpec, Identity):
    """Everything a ``ConnectorComponent`` needs: identity plus the spec, flattened."""


class ConnectorEntry(EntryIdentity):
    """One entry of the stack config's ``connectors`` list: a Connector manifest's metadata and spec."""

    spec: ConnectorSpec

    def to_args(self) -> ConnectorArgs:
        return ConnectorArgs.model_validate(self.flattened(self.spec))
