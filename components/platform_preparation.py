"""What the operator's controller decides beside rendering, decided here before anything is created.

The version to deploy (kept unless asked, never down, never onto a preview); the upstream
operators its objects need, installed; an external broker's messaging migration, acknowledged;
the database credentials, read (a missing Secret or key named at preview); what the managed
database and broker generate and the platform reads, waited for inside the ``up`` when it is not
there yet (``kube/generated_objects``); a major upgrade of a managed engine not acknowledged,
held at the running version and said at preview.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pulumi

from components.args.platform_bundles import decided_version, external_migration_problem, managed_migration_problem
from components.args.platform_spec import PlatformArgs
from components.args.problems import InvalidArgumentsError
from components.kube.generated_objects import DEADLINE_SECONDS, Generated, wait_for
from components.kube.object_reader import (
    CustomObjectReader,
    NotReadable,
    PlatformVersionReader,
    Reference,
    ReferenceReader,
    ServiceReader,
)
from components.kube.upstream_operators import missing_operators
from components.render.platform import render_platform
from components.render.platform.connections import database, messaging
from components.render.platform.managed_database import CNPG_API_VERSION, cluster_name, database_managed
from components.render.platform.managed_database import held_version as held_database_version
from components.render.platform.managed_database import running_version as stored_database_version
from components.render.platform.managed_messaging import RABBITMQ_API_VERSION, broker_name, messaging_managed
from components.render.platform.managed_messaging import running_version as stored_broker_version
from components.render.platform.managed_upgrade import held_version
from components.render.platform.resolve import platform_of

__all__ = ["PlatformPrepared", "prepare_platform", "running_version"]

KEYCLOAK_NOT_YET = (
    "managed is not rendered by this library yet (the Keycloak operator's Keycloak, its realm import and the"
    " OIDC client's secret): run Keycloak yourself and set keycloak.mode external"
)


@dataclass(frozen=True)
class PlatformPrepared:
    """What a platform needs decided before anything is created."""

    version: str
    """The version this run deploys."""
    credentials: Mapping[str, str] | None
    """The database credentials' Secret ``data`` (base64, as read), or None when nothing could be read."""
    held_database: str | None = None
    """The PostgreSQL version a managed database is kept at (a major upgrade not acknowledged)."""
    awaited_credentials: Callable[[], Mapping[str, str]] | None = None
    """When an upstream operator has not generated all the platform reads yet: waits for it and
    returns the database credentials (called by the component once the managed objects are created)."""
    held_broker: str | None = None
    """The RabbitMQ version a managed broker is kept at (a major upgrade not acknowledged)."""


def running_version(platform: PlatformArgs, reader: ReferenceReader) -> str | None:
    """The version the platform runs now, when the reader can tell (none without a cluster)."""
    if not isinstance(reader, PlatformVersionReader):
        return None
    try:
        return reader.platform_version(platform.namespace)
    except NotReadable:
        return None


def _checked(connection: Any, reference: Reference, data: Mapping[str, str]) -> Mapping[str, str]:
    missing = [key for key in (connection.username_key, connection.password_key) if key not in data]
    if missing:
        keys = ", ".join(f'"{key}"' for key in missing)
        raise InvalidArgumentsError([f"database.credentials: {reference.describe()} has no key {keys}"])
    return data


def _credentials(platform: PlatformArgs, reader: ReferenceReader) -> tuple[Mapping[str, str] | None, Generated | None]:
    """The credentials' ``data`` when it can be read; else, for a managed database's Secret not
    generated yet, what the ``up`` waits for."""
    connection, _ = database(platform_of(platform))
    if connection.secret is None:
        return None, None
    reference = Reference("secret", connection.secret, platform.namespace)
    try:
        data = reader.read(reference)
    except NotReadable:
        return None, None
    if data is None and database_managed(platform):
        pulumi.log.info(f"{reference.describe()} is not there yet: up waits for CloudNativePG to make it")
        source = f'Cluster "{cluster_name(platform_of(platform))}"'
        return None, Generated(reference, (connection.host,), "CloudNativePG", source)
    if data is None:
        raise InvalidArgumentsError([f"database.credentials.secretRef: {reference.describe()} not found"])
    return _checked(connection, reference, data), None


def _broker_pending(platform: PlatformArgs, reader: ReferenceReader) -> Generated | None:
    """A managed broker's client Service and core's user's Secret, when they are not both there yet."""
    if not messaging_managed(platform):
        return None
    resolved = platform_of(platform)
    connection, _ = messaging(resolved)
    wanted = Generated(
        Reference("secret", connection.secret or "", platform.namespace),
        (connection.host,),
        "the RabbitMQ operators",
        f'RabbitmqCluster "{broker_name(resolved)}"',
    )
    try:
        there = reader.read(wanted.secret) is not None
        if isinstance(reader, ServiceReader):
            there = there and reader.service_exists(platform.namespace, connection.host)
    except NotReadable:
        return None
    if there:
        return None
    pulumi.log.info(f"{wanted.secret.describe()} is not there yet: up waits for the RabbitMQ operators to make it")
    return wanted


def _awaiting(
    platform: PlatformArgs, reader: ReferenceReader, credentials: Mapping[str, str] | None, pending: list[Generated]
) -> Callable[[], Mapping[str, str]]:
    connection = database(platform_of(platform))[0]

    def awaited() -> Mapping[str, str]:
        found = credentials
        deadline = 0 if pulumi.runtime.is_dry_run() else DEADLINE_SECONDS  # a preview never waits
        for wanted in pending:
            data = wait_for(reader, wanted, deadline)
            if wanted.secret.name == connection.secret:
                found = _checked(connection, wanted.secret, data)
        assert found is not None, "waited for the credentials when they were not read"
        return found

    return awaited


def _held(platform: PlatformArgs, reader: ReferenceReader, engine: str) -> str | None:
    """The running version of a managed ``engine`` (``database``, ``messaging``) to keep, said at
    preview; None to apply the one asked for."""
    managed = platform.database.managed if engine == "database" else platform.messaging.managed
    if managed is None or getattr(platform, engine).mode != "managed" or not isinstance(reader, CustomObjectReader):
        return None
    resolved = platform_of(platform)
    if engine == "database":
        where, name, what = (CNPG_API_VERSION, "clusters"), cluster_name(resolved), "PostgreSQL"
        notes = "CloudNativePG's major upgrade notes"
    else:
        where, name, what = (RABBITMQ_API_VERSION, "rabbitmqclusters"), broker_name(resolved), "RabbitMQ"
        notes = "RabbitMQ's upgrade prerequisites"
    try:
        stored = reader.custom_object(*where, platform.namespace, name)
    except NotReadable:
        return None
    if engine == "database":
        asked, held = managed.version, held_database_version(platform, stored_database_version(stored))
    else:
        asked = managed.version  # unset, the RabbitMQ operator's default image, which this library does not pin
        held = held_version(asked, stored_broker_version(stored), managed.upgrade_acknowledged)
    if held is not None:
        pulumi.log.warn(
            f"{engine}.managed.version: {asked} is a major upgrade of the running {what} {held}: kept at {held}"
            f" until {engine}.managed.upgradeAcknowledged is true (read {notes} and take a backup first;"
            " reset it afterwards)"
        )
    return held


def _migration_problems(platform: PlatformArgs, running: str | None, version: str) -> list[str]:
    broker = platform.messaging
    if broker.mode == "external" and (
        migration := external_migration_problem(running, version, broker.migration_acknowledged_for_version)
    ):
        return [f"messaging.migrationAcknowledgedForVersion: {migration}"]
    if (
        broker.mode == "managed"
        and broker.managed is not None
        and (
            migration := managed_migration_problem(
                running, version, broker.managed.force_cutover_for_version, pinned=bool(broker.virtual_host)
            )
        )
    ):
        return [f"messaging.managed.forceCutoverForVersion: {migration}"]
    return []


def prepare_platform(platform: PlatformArgs, reader: ReferenceReader) -> PlatformPrepared:
    """Every decision above; every problem named at preview, together."""
    problems = []
    try:
        running = running_version(platform, reader)
        version = decided_version(platform.version, running)
    except ValueError as error:
        problems.append(f"version: {error}")
    else:
        problems += missing_operators(render_platform(platform, version), reader)
        problems += _migration_problems(platform, running, version)
    if platform.keycloak is not None and platform.keycloak.mode == "managed":
        problems.append(f"keycloak.mode: {KEYCLOAK_NOT_YET}")
    credentials, generated = None, None
    try:
        credentials, generated = _credentials(platform, reader)
    except InvalidArgumentsError as error:
        problems += error.problems
    if problems:
        raise InvalidArgumentsError(problems)
    pending = [g for g in (generated, _broker_pending(platform, reader)) if g is not None]
    readable = credentials is not None or generated is not None
    awaited = _awaiting(platform, reader, credentials, pending) if pending and readable else None
    held = _held(platform, reader, "database"), _held(platform, reader, "messaging")
    return PlatformPrepared(version, credentials, held[0], awaited, held[1])
