"""Where the platform's database and broker are, and the broker's ConfigMap.

Both are resolved once, whatever the mode, so every consumer (core's and the scheduler's env,
the wait loops, the ConfigMap) reads the same facts. External mode: the spec's own coordinates
and credentials Secret; a managed database or broker: what their operators make of them.
"""

from __future__ import annotations

from dataclasses import dataclass

from components.args.platform_blocks import CredentialsRefArgs
from components.render.objects import Obj
from components.render.platform.managed_database import (
    APPLICATION_DATABASE,
    PORT,
    application_secret,
    database_host,
    database_managed,
)
from components.render.platform.managed_messaging import (
    AMQP_PORT,
    broker_name,
    credentials_secret,
    messaging_managed,
    virtual_host,
)
from components.render.platform.resolve import Platform, metadata

MESSAGING_CONFIG_MAP = "messaging-configmap"
MESSAGING_HOST_KEY = "messaging.host"
MESSAGING_PORT_KEY = "messaging.amqp.port"


@dataclass(frozen=True)
class Connection:
    """A server's address and the Secret (and keys) holding its credentials."""

    host: str
    port: int
    secret: str | None
    username_key: str
    password_key: str


def _connection(host: str | None, port: int, credentials: CredentialsRefArgs | None) -> Connection:
    given = credentials or CredentialsRefArgs()
    return Connection(host or "", port, given.secret_ref, given.username_key or "username", given.password_key or "password")


def database(platform: Platform) -> tuple[Connection, str]:
    """The database's connection and the database's name."""
    block = platform.args.database
    if database_managed(platform.args):
        generated = CredentialsRefArgs(secret_ref=application_secret(platform))
        return _connection(database_host(platform), PORT, generated), APPLICATION_DATABASE
    return _connection(block.host, block.port, block.credentials), block.name or ""


def messaging(platform: Platform) -> tuple[Connection, str]:
    """The broker's connection (a managed broker's: its client Service and core's user's generated
    Secret) and its virtual host (an external broker's, as given)."""
    block = platform.args.messaging
    if messaging_managed(platform.args):
        generated = CredentialsRefArgs(secret_ref=credentials_secret(platform, "core"))
        return _connection(broker_name(platform), AMQP_PORT, generated), virtual_host(platform)
    return _connection(block.host, block.port, block.credentials), block.virtual_host or ""


def messaging_config_map(platform: Platform) -> Obj:
    """The broker's host and AMQP port, read by core and the scheduler (not a secret)."""
    broker, _ = messaging(platform)
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": metadata(platform, MESSAGING_CONFIG_MAP, "messaging"),
        "data": {MESSAGING_HOST_KEY: broker.host, MESSAGING_PORT_KEY: str(broker.port)},
    }
