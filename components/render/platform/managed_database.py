"""The managed database: CloudNativePG's ``Cluster`` and, unless turned off, its PgBouncer ``Pooler``.

The operator does not run PostgreSQL itself: it renders these objects for CloudNativePG and
connects the platform to what CloudNativePG makes of them, at names fixed by the Cluster's:
its read-write Service ``<cluster>-rw`` and its application Secret ``<cluster>-app``
(``username``, ``password``). The pooler is on by default (the platform's services open more
connections than PostgreSQL's default limit); the platform then connects through its Service.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from components.args.platform_spec import PlatformArgs
from components.render.objects import Obj, merge_patch
from components.render.platform.managed_upgrade import held_version as major_upgrade_held
from components.render.platform.resolve import Platform, metadata

CNPG_API_VERSION = "postgresql.cnpg.io/v1"
APPLICATION_DATABASE = "ilm"
"""The database CloudNativePG bootstraps and its owner, the role the platform connects as."""
PORT = 5432
POSTGRES_IMAGE = "ghcr.io/cloudnative-pg/postgresql"
POOLER_PARAMETERS = {
    "max_prepared_statements": "10",
    "ignore_startup_parameters": "extra_float_digits",
    "server_reset_query": "DISCARD ALL",
    "server_reset_query_always": "1",
    "default_pool_size": "100",
    "max_client_conn": "1000",
}
"""PgBouncer's settings before the user's: the JDBC and .NET drivers' needs in transaction mode,
and a reset after every transaction, so one service's ``search_path`` never reaches another's."""
KEYCLOAK_SCHEMA = "keycloak"


def database_managed(args: PlatformArgs) -> bool:
    return args.database.mode == "managed" and args.database.managed is not None


def pooler_managed(args: PlatformArgs) -> bool:
    """On for a managed database unless a ``pgBouncer`` block leaves ``managed`` false."""
    return database_managed(args) and (args.database.pg_bouncer is None or args.database.pg_bouncer.managed)


def cluster_name(platform: Platform) -> str:
    return f"{platform.name}-db"


def pooler_name(platform: Platform) -> str:
    return f"{cluster_name(platform)}-pooler"


def application_secret(platform: Platform) -> str:
    """The Secret CloudNativePG generates with the application owner's credentials."""
    return f"{cluster_name(platform)}-app"


def database_host(platform: Platform) -> str:
    """The pooler's Service, else the cluster's read-write Service."""
    return pooler_name(platform) if pooler_managed(platform.args) else f"{cluster_name(platform)}-rw"


def _cluster(platform: Platform) -> Obj:
    managed = platform.args.database.managed
    assert managed is not None
    storage: Obj = {"size": managed.storage.size}
    if managed.storage.storage_class:
        storage["storageClass"] = managed.storage.storage_class
    initdb: Obj = {"database": APPLICATION_DATABASE, "owner": APPLICATION_DATABASE}
    keycloak = platform.args.keycloak
    if keycloak is not None and keycloak.mode == "managed":
        initdb["postInitApplicationSQL"] = [f"CREATE SCHEMA IF NOT EXISTS {KEYCLOAK_SCHEMA} AUTHORIZATION {APPLICATION_DATABASE}"]
    spec: Obj = {"instances": managed.instances, "storage": storage, "bootstrap": {"initdb": initdb}}
    if managed.version:
        spec["imageName"] = f"{POSTGRES_IMAGE}:{managed.version}"
    if managed.resources is not None:
        spec["resources"] = managed.resources
    cluster = {
        "apiVersion": CNPG_API_VERSION,
        "kind": "Cluster",
        "metadata": metadata(platform, cluster_name(platform), "database"),
        "spec": spec,
    }
    return merge_patch(cluster, managed.overrides or {})  # what the platform reads is kept: see DATABASE_KEPT


def _pooler(platform: Platform) -> Obj:
    given = platform.args.database.pg_bouncer
    return {
        "apiVersion": CNPG_API_VERSION,
        "kind": "Pooler",
        "metadata": metadata(platform, pooler_name(platform), "database-pooler"),
        "spec": {
            "cluster": {"name": cluster_name(platform)},
            "instances": given.instances if given is not None else 1,
            "type": "rw",
            "pgbouncer": {
                "poolMode": "transaction",
                "parameters": {**POOLER_PARAMETERS, **(given.parameters if given is not None else {})},
            },
        },
    }


def managed_database_objects(platform: Platform) -> list[Obj]:
    """The Cluster and its Pooler for a managed database; nothing for an external one."""
    if not database_managed(platform.args):
        return []
    return [_cluster(platform)] + ([_pooler(platform)] if pooler_managed(platform.args) else [])


def running_version(stored: Mapping[str, Any] | None) -> str | None:
    """The PostgreSQL version a stored Cluster runs, read off the image this library set on it;
    None when there is no Cluster or its image is not one it set (CloudNativePG's default, an override)."""
    image = ((stored or {}).get("spec") or {}).get("imageName")
    prefix = f"{POSTGRES_IMAGE}:"
    return image[len(prefix) :] if isinstance(image, str) and image.startswith(prefix) else None


def held_version(args: PlatformArgs, running: str | None) -> str | None:
    """The running version to keep when the one asked for is a major upgrade of it that
    ``upgradeAcknowledged`` does not allow; else None."""
    managed = args.database.managed
    return None if managed is None else major_upgrade_held(managed.version, running, managed.upgrade_acknowledged)


def holding(args: PlatformArgs, version: str | None) -> PlatformArgs:
    """``args`` with the managed database kept at ``version`` (None: as asked)."""
    managed = args.database.managed
    if version is None or managed is None:
        return args
    database = args.database.model_copy(update={"managed": managed.model_copy(update={"version": version})})
    return args.model_copy(update={"database": database})
