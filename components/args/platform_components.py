"""The workloads of a ``Platform``, each on ``ComponentSpec``: core (its instance id and its
time-quality monitor sidecar), auth, the scheduler, the OPA bundle server, the administrator's
front end, utils, the Kong gateway, and the provisioning service of proxies.

From the public repository ``OmniTrustILM/operator``: ``api/v1alpha1/platform_types.go`` at commit
3b4337259f918ade0139d564a83cdef851aea358 (``CoreSpec``, ``AuthSpec``, ``SchedulerSpec``,
``AuthOpaPoliciesSpec``, ``FeAdministratorSpec``, ``UtilsSpec``, ``GatewaySpec``,
``ProvisioningSpec`` and their blocks), with their defaults, patterns and CEL rules.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BeforeValidator, Field, JsonValue, model_validator

from components.args.base import Model
from components.args.blocks import Resources
from components.args.fields import NonEmpty, SecretKeyName
from components.args.kube_schema import bounded
from components.args.platform_blocks import ComponentImageArgs, ComponentSpec, CredentialsRefArgs, ObjectName, matching

__all__ = [
    "AuthArgs",
    "AuthOpaPoliciesArgs",
    "CoreArgs",
    "FeAdministratorArgs",
    "GatewayArgs",
    "ProvisioningArgs",
    "SchedulerArgs",
    "UtilsArgs",
]

ExchangeName = Annotated[
    str, matching(r"^[a-zA-Z0-9._:-]{1,255}$", "an exchange name: at most 255 letters, digits, '.', '_', ':' or '-'")
]
RoutingKey = Annotated[
    str,
    matching(
        r"^[a-zA-Z0-9._:*#${}-]{1,255}$",
        "a routing key: at most 255 letters, digits, '.', '_', ':', '-', '*' or '#' (and the '$', '{' and '}' of ${HOSTNAME})",
    ),
]
ArgumentName = Annotated[
    str, matching(r"^[a-zA-Z0-9._-]{1,255}$", "an argument name: at most 255 letters, digits, '.', '_' or '-'")
]
InstanceId = Annotated[int, Field(ge=0, le=65535)]


class TimeQualityMonitorArgs(Model):
    """The time-quality monitor sidecar on core's pod (2.19.0 and later; independent of `messaging.timeQuality`)."""

    enabled: bool = False
    """Run the sidecar (it gates core's readiness, and blocks a messaging migration while on)."""
    image: ComponentImageArgs | None = None
    """The sidecar's image, per field; its pull secrets join core's pod."""
    resources: Resources | None = None
    """The sidecar's resource requests and limits."""
    credentials: CredentialsRefArgs | None = None
    """The Secret of the monitor's broker user; required with an external broker."""


class CoreArgs(ComponentSpec):
    """Core: the component settings, its client-certificate header and its instance id."""

    client_cert_header: NonEmpty | None = None
    """The header carrying the client certificate the edge forwards (the operator's default: `ssl-client-cert`)."""
    instance_id: InstanceId | None = None
    """Core's explicit instance id, unique per running pod (2.19.0 and later; a single replica only)."""
    time_quality_monitor: TimeQualityMonitorArgs | None = None
    """The time-quality monitor sidecar."""

    @model_validator(mode="after")
    def _instance_id_single_replica(self) -> CoreArgs:
        if self.instance_id is None:
            return self
        if self.replicas is not None and self.replicas > 1:
            raise ValueError(
                "instanceId: needs a single-replica core (one id on several replicas gives identical certificate serial "
                "numbers); for several replicas use workloadType StatefulSet and leave instanceId unset"
            )
        if self.autoscaling is not None:
            raise ValueError(
                "instanceId: cannot be combined with autoscaling (an autoscaled core has several replicas); "
                "use workloadType StatefulSet and leave instanceId unset"
            )
        return self


class SchedulerArgs(ComponentSpec):
    """The scheduler: the component settings only."""


class AuthOpaPoliciesArgs(ComponentSpec):
    """The server of the OPA policy bundle core's OPA sidecar reads: the component settings only."""


class UtilsArgs(ComponentSpec):
    """The optional utils service."""

    enabled: bool = False
    """Deploy utils (and the gateway's `/utils` route)."""


class GatewayCorsArgs(Model):
    """The gateway's cors plugin."""

    enabled: bool = False
    """Turn the cors plugin on."""
    origins: list[NonEmpty] = []
    """Allowed origins (default: the platform's own `https://<host>`, or `*` when no host is known)."""
    exposed_headers: list[NonEmpty] = []
    """Headers exposed to the browser (default: `X-Auth-Token`)."""


class GatewayLoggingArgs(Model):
    """The gateway's request logging."""

    request: bool = False
    """Log every request to standard output (the file-log plugin)."""


class GatewayArgs(ComponentSpec):
    """The Kong gateway (DB-less): the component settings and its plugins."""

    cors: GatewayCorsArgs = GatewayCorsArgs()
    """The cors plugin."""
    logging: GatewayLoggingArgs = GatewayLoggingArgs()
    """Request logging."""
    trusted_ips: list[NonEmpty] = []
    """Client address ranges whose X-Forwarded-* headers Kong trusts, e.g. `0.0.0.0/0` and `::/0` for all."""


class AuthCreateArgs(Model):
    """What auth creates on its own from a signed-in user's token."""

    create_unknown_users: bool = False
    """Create a user not yet known (forced on while the password bootstrap is on)."""
    create_unknown_roles: bool = False
    """Create a role not yet known."""


class AuthArgs(ComponentSpec):
    """Auth: the component settings, and how it creates and syncs users and roles."""

    create: AuthCreateArgs = AuthCreateArgs()
    """Creating unknown users and roles."""
    sync_policy: Literal["create-only", "sync-data"] = "create-only"
    """Create users and roles from the token only (create-only), or keep them in sync with it (sync-data)."""


class FeAdministratorUrlArgs(Model):
    """The administrator front end's paths, written into its `config.js`."""

    base: str | None = None
    """The application's base path (informational: not written)."""
    api: str = "/api"
    """The API's base URL."""
    login: str = "/login"
    """The login URL."""
    logout: str = "/logout"
    """The logout URL."""


class FeAdministratorArgs(ComponentSpec):
    """The administrator front end: the component settings and its paths."""

    url: FeAdministratorUrlArgs = FeAdministratorUrlArgs()
    """The paths written into its `config.js`."""


def _not_null(value: JsonValue) -> JsonValue:
    """Any JSON value but null: the CRD drops a null, and the value is required."""
    if value is None:
        raise ValueError("must be a JSON value other than null (the operator's CRD requires one)")
    return value


class QueueArgumentArgs(Model):
    """One argument of the queue core registers for itself, passed on as given."""

    name: ArgumentName
    """The argument's name, e.g. `x-expires`."""
    value: Annotated[JsonValue, BeforeValidator(bounded), AfterValidator(_not_null)]
    """The argument's value: any JSON value but null."""


def _unique_names(arguments: list[QueueArgumentArgs]) -> list[QueueArgumentArgs]:
    """Each name once (the CRD's list is keyed by name)."""
    first: dict[str, int] = {}
    for index, argument in enumerate(arguments):
        if argument.name in first:
            raise ValueError(f"item {index} repeats the name of item {first[argument.name]}: each name may appear once")
        first[argument.name] = index
    return arguments


class ProvisioningDeployArgs(ComponentSpec):
    """The bundled provisioning-rabbitmq service: the component settings and its Secrets and names."""

    bootstrap_secret_ref: ObjectName
    """The Secret holding the service's API key and token signing key."""
    api_key_key: SecretKeyName | None = None
    """The key holding the API key (the operator's default: `securityApiKey`)."""
    token_signing_key_key: SecretKeyName | None = None
    """The key holding the token signing key, of at least 32 characters (the operator's default: `tokenSigningKey`)."""
    provisioner_credentials: CredentialsRefArgs | None = None
    """The broker user managing queues and exchanges (default: the platform's messaging credentials)."""
    proxy_credentials: CredentialsRefArgs | None = None
    """The broker user written into proxies' tokens (default: the platform's messaging credentials)."""
    exchange: ExchangeName | None = None
    """The proxy exchange (default: the version's, `ilm-proxy` from 2.19.0)."""
    routing_key: RoutingKey | None = None
    """The routing key of core's own queue (the operator's default: `proxymessage.*.${HOSTNAME}`)."""
    queue_arguments: Annotated[list[QueueArgumentArgs], Field(max_length=32), AfterValidator(_unique_names)] = []
    """The arguments of core's own queue, replacing the default `x-expires: 1800000`."""
    response_queue: NonEmpty | None = None
    """The queue of proxies' replies (default: the version's, `core`)."""


class ProvisioningArgs(Model):
    """Proxy provisioning: your own provisioner (external), or the bundled service (deploy)."""

    mode: Literal["external", "deploy"] = "external"
    """Point core at your provisioner (external), or deploy the bundled provisioning-rabbitmq (deploy)."""
    api_url: Annotated[NonEmpty | None, Field(alias="apiURL")] = None
    """Your provisioner's base URL (external mode)."""
    api_key_secret_ref: ObjectName | None = None
    """The Secret holding your provisioner's API key (external mode)."""
    api_key: SecretKeyName | None = None
    """The key holding the API key (the operator's default: `provisioningApiKey`)."""
    deploy: ProvisioningDeployArgs | None = None
    """The bundled service (deploy mode)."""

    @model_validator(mode="after")
    def _deploy_needs_its_block(self) -> ProvisioningArgs:
        if self.mode == "deploy" and self.deploy is None:
            raise ValueError("deploy: required when mode is deploy")
        return self
