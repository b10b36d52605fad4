"""A platform's arguments: the reference operator's ``Platform`` resource (``otilm.com/v1alpha1``)
as argument models, its CRD's defaults and CEL rules as validators.

What is here: the fleet-wide ``common`` block, the network policies, the high-availability
profile, the platform versions, ``PlatformSpec`` with its cross-field rules, and the
``PlatformEntry`` of a stack's list with the ``PlatformArgs`` it flattens to. The blocks are in
``platform_blocks`` (``ComponentSpec``), ``platform_infra`` (database, messaging, Keycloak),
``platform_access`` (edge, first administrator) and ``platform_components`` (the workloads).

From the public repository ``OmniTrustILM/operator``: ``api/v1alpha1/platform_types.go`` at commit
3b4337259f918ade0139d564a83cdef851aea358, ``api/v1alpha1/common_types.go`` at 3a6a59d9495e39d550b88ffab5909a971c569da1,
and the versions of ``pkg/bom/bom.go`` at a5f33843a2b4cbd591f4db901b7a64b0bbd9597c
(``platform_upgrade_types.go`` holds status only).
"""

from __future__ import annotations

from typing import Literal

from pydantic import model_validator

from components.args.base import EntryIdentity, Identity, Model
from components.args.blocks import Affinity, Containers, EnvVarArgs, Tolerations
from components.args.fields import Annotations, DnsLabel, Labels, NonEmpty, QualifiedName, SecretKeyName
from components.args.platform_access import EdgeArgs, RegisterAdminArgs
from components.args.platform_blocks import ComponentImageArgs, ContainerPorts, ObjectName, PublicHost, VolumeMounts, Volumes
from components.args.platform_bundles import PlatformVersion
from components.args.platform_components import (
    AuthArgs,
    AuthOpaPoliciesArgs,
    CoreArgs,
    FeAdministratorArgs,
    GatewayArgs,
    ProvisioningArgs,
    SchedulerArgs,
    UtilsArgs,
)
from components.args.platform_infra import DatabaseArgs, KeycloakArgs, MessagingArgs
from components.args.workload_spec import check_extra_containers

__all__ = ["PlatformArgs", "PlatformEntry", "PlatformSpec"]


class OutboundProxyArgs(Model):
    """The outbound HTTP(S) proxy of every component."""

    enabled: bool = False
    """Turn proxy support on (`PROXY_ENABLED`)."""
    http: NonEmpty | None = None
    """The HTTP proxy's URL (`HTTP_PROXY`)."""
    https: NonEmpty | None = None
    """The HTTPS proxy's URL (`HTTPS_PROXY`)."""
    no_proxy: NonEmpty | None = None
    """The comma-separated hosts reached without the proxy (`NO_PROXY`)."""


class LoggingArgs(Model):
    """The platform's own log level."""

    level: NonEmpty = "INFO"
    """The log level of the platform's components, through the version's logging variable."""


class TrustedCertificatesArgs(Model):
    """A Secret holding the CA bundle every component trusts (`TRUSTED_CERTIFICATES`)."""

    secret_ref: ObjectName | None = None
    """The Secret's name."""
    ca_key: SecretKeyName | None = None
    """The key holding the PEM bundle (the operator's default: `ca.crt`)."""


class EnvFromSourcesArgs(Model):
    """Whole Secrets and ConfigMaps, every key of which becomes an environment variable."""

    secrets: list[ObjectName] = []
    """Secret names."""
    config_maps: list[ObjectName] = []
    """ConfigMap names."""


class CommonArgs(Model):
    """What applies to every component, under each component's own settings."""

    image: ComponentImageArgs | None = None
    """The shared image settings, per field (unset fields: the version's bundle)."""
    host_name: PublicHost | None = None
    """The platform's public host name: the edge's default host, Keycloak's and the OIDC client's URLs."""
    proxy: OutboundProxyArgs = OutboundProxyArgs()
    """The outbound HTTP(S) proxy."""
    logging: LoggingArgs = LoggingArgs()
    """The log level."""
    trusted_certificates: TrustedCertificatesArgs = TrustedCertificatesArgs()
    """The trusted CA bundle."""
    init_containers: Containers = []
    """Init containers added to every component's pod, as in a pod spec."""
    sidecars: Containers = []
    """Containers added to every component's pod, as in a pod spec."""
    volumes: Volumes = []
    """Volumes added to every component's pod, as in a pod spec."""
    volume_mounts: VolumeMounts = []
    """Mounts added to every component's main container, as in a pod spec."""
    additional_ports: ContainerPorts = []
    """Named ports added to every component's main container, as in a pod spec."""
    additional_env_from: EnvFromSourcesArgs | None = None
    """Secrets and ConfigMaps projected whole as environment variables of every main container."""
    node_selector: dict[QualifiedName, str] = {}
    """Node labels every component's pods must run on (a component's own keys win)."""
    tolerations: Tolerations = []
    """Tolerations of every component's pods (a component's own are added)."""
    affinity: Affinity | None = None
    """Affinity of every component's pods (a component's own replaces it)."""
    pod_annotations: Annotations = {}
    """Annotations on every component's pods (a component's own win)."""
    pod_labels: Labels = {}
    """Labels on every component's pods (a component's own win)."""

    @model_validator(mode="after")
    def _extra_containers(self) -> CommonArgs:
        check_extra_containers(self.init_containers, self.sidecars)
        return self


class PlatformNetworkPolicyArgs(Model):
    """The platform's default-deny NetworkPolicies (ingress from its namespace and the edge only)."""

    enabled: bool = True
    """Render the NetworkPolicies."""
    ingress_namespace: DnsLabel | None = None
    """The namespace of the ingress controller or Gateway let in to the gateway (the operator's default: `ingress-nginx`)."""


class HighAvailabilityArgs(Model):
    """The high-availability profile of the stateless components."""

    enabled: bool = False
    """Give components without replicas or autoscaling several replicas, a PodDisruptionBudget and anti-affinity."""


class PlatformSpec(Model):
    """The ``spec`` of a Platform resource."""

    version: PlatformVersion | None = None
    """The platform version; unset: the version the platform runs, or the default for a new one
    (2.19.0; 2.20.0 is a preview: named only, never an upgrade of a running platform)."""
    common: CommonArgs = CommonArgs()
    """What applies to every component."""
    database: DatabaseArgs
    """The PostgreSQL database."""
    messaging: MessagingArgs
    """The AMQP broker."""
    keycloak: KeycloakArgs | None = None
    """The OIDC identity provider (none: configure OIDC providers in core)."""
    high_availability: HighAvailabilityArgs | None = None
    """The high-availability profile (none: off)."""
    additional_env: list[EnvVarArgs] = []
    """Plain environment variables of every component, under each component's own."""
    network_policy: PlatformNetworkPolicyArgs | None = None
    """The default-deny NetworkPolicies (none: rendered, the operator's default)."""
    core: CoreArgs = CoreArgs()
    """Core."""
    provisioning: ProvisioningArgs | None = None
    """Proxy provisioning."""
    auth: AuthArgs = AuthArgs()
    """Auth."""
    scheduler: SchedulerArgs = SchedulerArgs()
    """The scheduler."""
    auth_opa_policies: AuthOpaPoliciesArgs = AuthOpaPoliciesArgs()
    """The OPA policy bundle server."""
    fe_administrator: FeAdministratorArgs = FeAdministratorArgs()
    """The administrator's front end."""
    utils: UtilsArgs = UtilsArgs()
    """The optional utils service."""
    gateway: GatewayArgs = GatewayArgs()
    """The Kong gateway."""
    edge: EdgeArgs | None = None
    """The edge (none: no edge)."""
    register_admin: RegisterAdminArgs | None = None
    """The first administrator's bootstrap (none: off)."""
    deletion_policy: Literal["Retain", "Delete"] = "Retain"
    """What deleting the platform does to managed infrastructure and its data: keep it, or delete it."""

    @model_validator(mode="after")
    def _across_blocks(self) -> PlatformSpec:
        problem = self._provisioning_or_edge_problem() or self._admin_or_core_problem()
        if problem:
            raise ValueError(problem)
        return self

    def _provisioning_or_edge_problem(self) -> str | None:
        if self.provisioning is not None and self.provisioning.mode == "deploy" and self.messaging.broker_type != "rabbitmq":
            return "messaging.brokerType: provisioning.mode deploy needs rabbitmq (provisioning-rabbitmq is RabbitMQ's)"
        if self.edge is not None and self.edge.enabled and not (self.edge.host or self.common.host_name):
            return "edge.host: an enabled edge needs a public host: set edge.host or common.hostName"
        return None

    def _admin_or_core_problem(self) -> str | None:
        admin = self.register_admin
        if admin is not None and admin.password is not None and admin.password.enabled:
            if self.keycloak is None or self.keycloak.mode != "managed":
                return "registerAdmin.password: needs keycloak.mode managed (the realm user is made through Keycloak's admin API)"
        high_availability = self.high_availability is not None and self.high_availability.enabled
        if self.core.instance_id is not None and high_availability and (self.core.replicas is None or self.core.replicas > 1):
            return "core.replicas: core.instanceId with highAvailability.enabled needs replicas set to 1 (HA would give several)"
        monitor = self.core.time_quality_monitor
        if monitor is not None and monitor.enabled and self.messaging.mode != "managed":
            if monitor.credentials is None or not monitor.credentials.secret_ref:
                return "core.timeQualityMonitor.credentials.secretRef: required when messaging.mode is external"
        return None


class PlatformArgs(PlatformSpec, Identity):
    """Everything a ``PlatformComponent`` needs: identity plus the spec, flattened."""


class PlatformEntry(EntryIdentity):
    """One entry of the stack config's ``platforms`` list: a Platform manifest's metadata and spec."""

    spec: PlatformSpec
    """The Platform's spec."""

    def to_args(self) -> PlatformArgs:
        return PlatformArgs.model_validate(self.flattened(self.spec))
