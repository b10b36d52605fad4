"""A ``Platform``'s infrastructure: its database, its message broker and its identity provider,
each brought by the user (``external``) or provisioned through an upstream operator
(``managed``: CloudNativePG, the RabbitMQ Cluster and Topology operators, the Keycloak Operator).

From the public repository ``OmniTrustILM/operator``: ``api/v1alpha1/platform_types.go`` at commit
3b4337259f918ade0139d564a83cdef851aea358 (``DatabaseSpec``, ``MessagingSpec``, ``KeycloakSpec``
and their blocks), with their defaults, patterns and CEL rules.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import field_validator, model_validator

from components.args.base import Model
from components.args.blocks import Resources
from components.args.fields import FreeForm, NonEmpty, Port, Positive, SecretKeyName
from components.args.platform_blocks import (
    CredentialsRefArgs,
    ObjectName,
    ReleaseVersion,
    ServerHost,
    StorageArgs,
    matching,
)

__all__ = ["DatabaseArgs", "KeycloakArgs", "MessagingArgs"]

DATABASE_KEPT = (
    "metadata.name",
    "metadata.namespace",
    "metadata.ownerReferences",
    "spec.bootstrap.initdb.database",
    "spec.bootstrap.initdb.owner",
)
"""What a managed database's ``overrides`` may not change: the names the platform reads back."""
MESSAGING_KEPT = (
    "metadata.name",
    "metadata.namespace",
    "metadata.ownerReferences",
    "spec.rabbitmq.additionalConfig",
    "spec.rabbitmq.advancedConfig",
)
"""What a managed broker's ``overrides`` may not change: its name (the platform's host for it) and
the configuration the operator owns (the management UI's path)."""
GO_DURATION = re.compile(r"^([0-9]+([.][0-9]+)?(ns|us|ms|s|m|h))+$")
Realm = Annotated[str, matching(r"^[a-zA-Z0-9._-]{1,255}$", "a realm name: at most 255 letters, digits, '.', '_' or '-'")]


def listed(names: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def touched(patch: dict[str, Any] | None, paths: tuple[str, ...]) -> list[str]:
    """The dotted ``paths`` a JSON merge patch sets or deletes (its null deletes)."""

    def reaches(node: object, keys: list[str]) -> bool:
        return not keys or (isinstance(node, dict) and keys[0] in node and reaches(node[keys[0]], keys[1:]))

    return [path for path in paths if patch is not None and reaches(patch, path.split("."))]


def unset(fields: dict[str, object]) -> list[str]:
    """The paths of the fields left unset (or empty), in order."""
    return [path for path, value in fields.items() if not value]


class PgBackupArgs(Model):
    """Scheduled backups of the managed database (accepted; the operator does not render them yet)."""

    schedule: NonEmpty | None = None
    """The schedule, in CloudNativePG's six-field cron format, e.g. `0 0 2 * * *`."""
    retention: NonEmpty | None = None
    """How long backups are kept, e.g. `30d`."""


class ManagedDatabaseArgs(Model):
    """The PostgreSQL cluster provisioned through CloudNativePG."""

    instances: Positive = 1
    """PostgreSQL instances: 1 is a single primary, more add standbys."""
    version: NonEmpty | None = None
    """The major PostgreSQL version, e.g. `18` (default: the upstream operator's)."""
    upgrade_acknowledged: bool = False
    """Allow a major version upgrade of the running cluster (reset it afterwards)."""
    storage: StorageArgs
    """The persistent volume of each instance."""
    resources: Resources | None = None
    """Each instance's resource requests and limits."""
    backup: PgBackupArgs | None = None
    """Scheduled backups."""
    overrides: FreeForm | None = None
    """A JSON merge patch onto the rendered Cluster (`{"spec": {...}}`), but not its names or bootstrap database and owner."""

    @field_validator("overrides")
    @classmethod
    def _keeps_what_the_platform_reads(cls, overrides: dict[str, Any] | None) -> dict[str, Any] | None:
        if kept := touched(overrides, DATABASE_KEPT):
            raise ValueError(f"may not change {listed(kept)} (the platform connects to them)")
        return overrides


class PgBouncerArgs(Model):
    """The PgBouncer pooler in front of a managed database: on when the block is left out."""

    managed: bool = False
    """Provision the pooler (a given block without it turns the pooler off)."""
    instances: Positive = 1
    """Pooler instances."""
    parameters: dict[str, str] = {}
    """Further PgBouncer settings, e.g. `max_client_conn` (nothing sensitive)."""


class DatabaseArgs(Model):
    """The PostgreSQL database: an external one by host, name and credentials, or a managed one."""

    mode: Literal["external", "managed"] = "external"
    """Bring your own database (external), or have one provisioned through CloudNativePG (managed)."""
    host: ServerHost | None = None
    """The database server's host (external mode)."""
    port: Port = 5432
    """The database server's port."""
    name: NonEmpty | None = None
    """The database's name (external mode)."""
    credentials: CredentialsRefArgs | None = None
    """The Secret holding the username and password (external mode)."""
    managed: ManagedDatabaseArgs | None = None
    """The managed cluster (managed mode)."""
    pg_bouncer: PgBouncerArgs | None = None
    """The connection pooler of a managed database."""

    @model_validator(mode="after")
    def _mode_needs_its_block(self) -> DatabaseArgs:
        secret = self.credentials.secret_ref if self.credentials else None
        missing = unset({"host": self.host, "name": self.name, "credentials.secretRef": secret})
        if self.mode == "external" and missing:
            raise ValueError(f"{listed(missing)}: required when mode is external")
        if self.mode == "managed" and self.managed is None:
            raise ValueError("managed: required when mode is managed (the CloudNativePG cluster's sizing)")
        return self


class ManagedMessagingArgs(Model):
    """The RabbitMQ cluster and its topology, provisioned through the RabbitMQ operators."""

    replicas: Positive = 1
    """RabbitMQ nodes: 1 is a single node, more form a cluster."""
    version: NonEmpty | None = None
    """The RabbitMQ version, e.g. `4.3` (default: the upstream operator's)."""
    upgrade_acknowledged: bool = False
    """Allow a major version upgrade of the running cluster (reset it afterwards)."""
    storage: StorageArgs
    """The persistent volume of each node."""
    resources: Resources | None = None
    """Each node's resource requests and limits."""
    overrides: FreeForm | None = None
    """A JSON merge patch onto the rendered RabbitmqCluster (`{"spec": {...}}`), but not its names or config files."""
    drain_timeout: str = "15m"
    """How long each waiting phase of a messaging migration may last, as a Go duration such as `1h30m`."""
    force_cutover_for_version: ReleaseVersion | None = None
    """Cut a migration to this version over even if the old vhost did not drain, discarding what remains."""

    @field_validator("overrides")
    @classmethod
    def _keeps_what_the_platform_reads(cls, overrides: dict[str, Any] | None) -> dict[str, Any] | None:
        if kept := touched(overrides, MESSAGING_KEPT):
            raise ValueError(f"may not change {listed(kept)} (the operator owns them)")
        return overrides

    @model_validator(mode="after")
    def _duration(self) -> ManagedMessagingArgs:
        if not GO_DURATION.fullmatch(self.drain_timeout):
            raise ValueError("drainTimeout: must be a Go duration such as 15m or 1h30m")
        return self


class MessagingManagementArgs(Model):
    """The broker's management UI."""

    expose: bool = False
    """Publish the management UI through the gateway on `/mq` (a managed RabbitMQ broker only)."""


class TimeQualityArgs(Model):
    """Core's time-quality messaging integration (independent of the monitor sidecar)."""

    enabled: bool = False
    """Turn the integration on (2.19.0 and later)."""


class MessagingArgs(Model):
    """The AMQP broker: an external one by host and credentials, or a managed RabbitMQ."""

    mode: Literal["external", "managed"] = "external"
    """Bring your own broker (external), or have a RabbitMQ cluster provisioned (managed)."""
    broker_type: Literal["rabbitmq", "servicebus"] = "rabbitmq"
    """The AMQP 1.0 broker dialect."""
    host: ServerHost | None = None
    """The broker's host (external mode)."""
    port: Port = 5672
    """The broker's port."""
    virtual_host: str | None = None
    """The vhost: external mode passes it as given; managed mode, when unset, takes the version's default."""
    credentials: CredentialsRefArgs | None = None
    """The Secret holding the username and password (external mode)."""
    managed: ManagedMessagingArgs | None = None
    """The managed cluster (managed mode)."""
    management: MessagingManagementArgs = MessagingManagementArgs()
    """The broker's management UI."""
    time_quality: TimeQualityArgs = TimeQualityArgs()
    """Core's time-quality messaging integration."""
    migration_acknowledged_for_version: ReleaseVersion | None = None
    """External mode: the version you have migrated your broker's topology to, which lets that upgrade go on."""

    @model_validator(mode="after")
    def _mode_needs_its_block(self) -> MessagingArgs:
        secret = self.credentials.secret_ref if self.credentials else None
        missing = unset({"host": self.host, "credentials.secretRef": secret})
        if self.mode == "external" and missing:
            raise ValueError(f"{listed(missing)}: required when mode is external")
        if self.mode == "managed" and self.managed is None:
            raise ValueError("managed: required when mode is managed (the RabbitmqCluster's sizing)")
        return self


class RealmImportArgs(Model):
    """A ConfigMap holding the realm to import once into the managed Keycloak."""

    config_map_ref: ObjectName
    """The ConfigMap's name, in the platform's namespace."""
    key: SecretKeyName = "realm.json"
    """The key holding the realm's JSON."""


class ManagedKeycloakArgs(Model):
    """The Keycloak instance provisioned through the Keycloak Operator, sharing the platform's database."""

    instances: Positive = 1
    """Keycloak instances: more than one forms a cluster."""
    version: NonEmpty | None = None
    """The Keycloak version, e.g. `26.6` (default: the upstream operator's)."""
    upgrade_acknowledged: bool = False
    """Allow a major version upgrade of the running instance (reset it afterwards)."""
    log_level: NonEmpty | None = None
    """The server's log level, e.g. `info` or `info,org.keycloak:debug` (default: Keycloak's)."""
    realm_import: RealmImportArgs | None = None
    """The realm to import once."""
    overrides: FreeForm | None = None
    """A JSON merge patch onto the rendered Keycloak spec (its database, hostname and proxy are kept)."""


class KeycloakArgs(Model):
    """The OIDC identity provider: configured in Core (external), or a managed Keycloak."""

    mode: Literal["external", "managed"] = "external"
    """Configure OIDC providers in Core yourself (external), or have Keycloak provisioned (managed)."""
    realm: Realm = "ilm"
    """The realm the platform's clients live in."""
    managed: ManagedKeycloakArgs | None = None
    """The managed instance (managed mode)."""

    @model_validator(mode="after")
    def _mode_needs_its_block(self) -> KeycloakArgs:
        if self.mode == "managed" and self.managed is None:
            raise ValueError("managed: required when mode is managed (the Keycloak instance's sizing)")
        return self
