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
    registry: str | None = None
    name: str | None = None
    tag: StrInput
    digest: Annotated[Any, AfterValidator(_digest)] = None
    pull_policy: Literal["Always", "IfNotPresent", "Never"] = "IfNotPresent"
    pull_secrets: list[Annotated[str, Field(min_length=1)]] = []
    command: list[str] | None = None
    args: list[str] | None = None

    @model_validator(mode="after")
    def _tag_not_empty(self) -> ImageArgs:
        if isinstance(self.tag, str) and not self.tag and self.digest is None:
            raise ValueError("image.tag must not be empty unless image.digest is set")
        return self


class ServiceArgs(Model):
    port: Port = 8080
    type: Literal["ClusterIP", "NodePort", "LoadBalancer"] = "ClusterIP"
    node_port: Annotated[int, Field(ge=30000, le=32767)] | None = None

    @model_validator(mode="after")
    def _node_port_needs_node_port_type(self) -> ServiceArgs:
        if self.node_port is not None and self.type != "NodePort":
            raise ValueError("nodePort can only be set when type is NodePort")
        return self


class RollingUpdateArgs(Model):
    max_surge: IntOrPercent | None = None
    max_unavailable: IntOrPercent | None = None


class StrategyArgs(Model):
    type: Literal["Recreate", "RollingUpdate"] | None = None
    rolling_update: RollingUpdateArgs | None = None

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
    read_only_root_filesystem: bool = True
    fs_group: NonNegative | None = None

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
    initial_delay_seconds: NonNegative | None = None
    period_seconds: Positive | None = None
    failure_threshold: Positive | None = None


class ProbesArgs(Model):
    liveness: ProbeArgs | None = None
    readiness: ProbeArgs | None = None
    startup: ProbeArgs | None = None


class EnvVarArgs(Model):
    name: EnvName
    value: str | None = None


class SecretKeyArgs(Model):
    secret_key: Annotated[str, Field(min_length=1)]
    env_var: EnvName | None = None
    path: str | None = None


class ConfigMapKeyArgs(Model):
    config_map_key: Annotated[str, Field(min_length=1)]
    env_var: EnvName | None = None
    path: str | None = None


def _resource_or_none(value: Any) -> Any:
    if value is not None and not isinstance(value, pulumi.CustomResource):
        raise ValueError("must be a Secret or ConfigMap resource of the program (Python only)")
    return value


class _RefArgs(Model):
    name: Annotated[str, Field(min_length=1, max_length=253)]
    type: Literal["env", "volume"]
    mount_path: AbsolutePath | None = None
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


class ConfigMapRefArgs(_RefArgs):
    keys: list[ConfigMapKeyArgs] = []


class EmptyDirArgs(Model):
    medium: Literal["", "Memory"] | None = None
    size_limit: Annotated[str, Field(pattern=kube_schema.QUANTITY)] | None = None


class PersistentVolumeClaimArgs(Model):
    claim_name: Annotated[str, Field(min_length=1)]
    read_only: bool = False


class VolumeArgs(Model):
    name: DnsLabel
    mount_path: AbsolutePath
    empty_dir: EmptyDirArgs | None = None
    persistent_volume_claim: PersistentVolumeClaimArgs | None = None

    @model_validator(mode="after")
    def _one_source(self) -> VolumeArgs:
        if self.empty_dir is not None and self.persistent_volume_claim is not None:
            raise ValueError("set either emptyDir or persistentVolumeClaim, not both")
        return self


class PodDisruptionBudgetArgs(Model):
    enabled: bool = False
    min_available: IntOrPercent | None = None
    max_unavailable: IntOrPercent | None = None


class LifecycleArgs(Model):
    termination_grace_period_seconds: Annotated[int, Field(ge=0, le=2**63 - 1)] | None = None
    pod_disruption_budget: PodDisruptionBudgetArgs | None = None


class ServiceMonitorArgs(Model):
    enabled: bool = False
    interval: Annotated[str, Field(pattern=r"^([0-9]+(ms|s|m|h))+$")] | None = None
    labels: Labels = {}


class MetricsArgs(Model):
    enabled: bool = False
    # Accepted so that a Connector manifest pastes unchanged; scraping uses the `http` port.
    port: Port | None = None
    path: AbsolutePath = "/v1/metrics"
    service_monitor: ServiceMonitorArgs | None = None


class NetworkPolicyArgs(Model):
    enabled: bool = True


class ServiceAccountArgs(Model):
    name: DnsLabel | None = None
    annotations: Annotations = {}


class IngressArgs(Model):
    host: Annotated[str, Field(pattern=r"^(\*\.)?[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")]
    path: AbsolutePath = "/"
    path_type: Literal["Prefix", "Exact", "ImplementationSpecific"] = "Prefix"
    class_name: str | None = None
    tls_secret_name: str | None = None
    annotations: Annotations = {}


class AttributeArgs(Model):
    name: Annotated[str, Field(min_length=1)]
    content: Annotated[JsonValue, BeforeValidator(bounded)] = None


class AdminSecretRefArgs(Model):
    """A Secret in the connector's namespace holding the administrator's credentials."""

    name: DnsLabel
    bearer_token_key: Annotated[str, Field(min_length=1, max_length=253)] | None = None
    client_certificate_key: Annotated[str, Field(min_length=1, max_length=253)] | None = None
    client_key_key: Annotated[str, Field(min_length=1, max_length=253)] | None = None

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
    client_certificate: StrInput | None = None
    client_key: StrInput | None = None
    secret_ref: AdminSecretRefArgs | None = None

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
    name: Annotated[str, Field(min_length=1)]
    auth_type: Literal["none", "basic", "certificate", "apiKey", "jwt"]
    auth_attributes: list[AttributeArgs] = []
    custom_attributes: list[AttributeArgs] = []
    version: Literal["v1", "v2"] = "v2"
    retry_initial_seconds: Annotated[float, Field(gt=0, le=86400)] = 5
    retry_max_seconds: Annotated[float, Field(gt=0, le=86400)] = 300
    deadline_seconds: Annotated[float, Field(gt=0, le=86400)] = 600
    ca_bundle: str | None = None
    insecure_skip_tls_verify: bool = False
    route: Literal["auto", "direct", "apiServerProxy"] = "auto"
    uuid: Annotated[str, Field(pattern=PLATFORM_UUID)] | None = None
    """A connector already registered (by the operator, or before state was lost): adopted, never posted."""
    admin_credentials: AdminCredentialsArgs | None = None
    approve: bool = False
    deregister_on_destroy: bool = False

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
    service: ServiceArgs = ServiceArgs()
    replicas: NonNegative = 1
    strategy: StrategyArgs | None = None
    resources: Annotated[FreeForm, AfterValidator(conforms_to(kube_schema.RESOURCES))] | None = None
    pod_annotations: AnnotationInputs = {}
    pod_labels: LabelInputs = {}
    security_context: SecurityContextArgs = SecurityContextArgs()
    probes: ProbesArgs = ProbesArgs()
    env: list[EnvVarArgs] = []
    secret_refs: list[SecretRefArgs] = []
    config_map_refs: list[ConfigMapRefArgs] = []
    volumes: list[VolumeArgs] = []
    lifecycle: LifecycleArgs = LifecycleArgs()
    metrics: MetricsArgs = MetricsArgs()
    network_policy: NetworkPolicyArgs = NetworkPolicyArgs()
    node_selector: dict[QualifiedName, str] = {}
    tolerations: Annotated[list[FreeForm], AfterValidator(each_conforms_to(kube_schema.TOLERATION))] = []
    affinity: Annotated[FreeForm, AfterValidator(conforms_to(kube_schema.AFFINITY))] | None = None
    service_account: ServiceAccountArgs = ServiceAccountArgs()
    init_containers: Annotated[list[FreeForm], AfterValidator(each_conforms_to(kube_schema.CONTAINER))] = []
    sidecars: Annotated[list[FreeForm], AfterValidator(each_conforms_to(kube_schema.CONTAINER))] = []
    ingress: IngressArgs | None = None
    registration: RegistrationArgs | None = None

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
    namespace: DnsLabel = "default"
    labels: Labels = {}
    from_operator: Annotated[bool, Field(description=FROM_OPERATOR)] = False


class EntryIdentity(Identity):
    """An entry of a stack's list: as ``Identity``, with the namespace always written out."""

    namespace: DnsLabel

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
