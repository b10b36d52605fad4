"""The platform's stateless services beside core: auth, the scheduler, the OPA bundle server, the
administrator's front end (and its ``config.js``) and, when enabled, utils."""

from __future__ import annotations

import json

from components.render.objects import Obj
from components.render.platform.connections import (
    MESSAGING_CONFIG_MAP,
    MESSAGING_HOST_KEY,
    MESSAGING_PORT_KEY,
    database,
    messaging,
)
from components.render.platform.resolve import (
    EPHEMERAL,
    SERVICE_PORT,
    Base,
    Platform,
    config_map_env,
    ephemeral_volume,
    helper_container,
    http_probes,
    metadata,
    mount,
    plain_env,
    secret_env,
)

AUTH_DB_SECRET = "auth-db"
"""The Secret holding auth's connection string, composed from the database's credentials."""
AUTH_DB_KEY = "connection-string"
FE_CONFIG_MAP = "fe-administrator-configmap"
TRUSTED_CERTIFICATES_VOLUME = "trusted-certificates-volume"
BROKER_WAIT = 'while ! nc -z "$MQ_WAIT_HOST" "$MQ_WAIT_PORT"; do sleep 1; done'
"""The broker's coordinates reach the wait loops as values of the environment, never as script text."""


def log_level(platform: Platform) -> str:
    return platform.args.common.logging.level


def trusted_certificates(platform: Platform) -> tuple[str | None, str]:
    """The trusted CA bundle's Secret (if any) and its key."""
    block = platform.args.common.trusted_certificates
    return block.secret_ref, block.ca_key or "ca.crt"


def broker_wait_env(platform: Platform) -> list[Obj]:
    broker, _ = messaging(platform)
    return plain_env([("MQ_WAIT_HOST", broker.host), ("MQ_WAIT_PORT", str(broker.port))])


def database_and_broker_env(platform: Platform) -> tuple[list[Obj], list[Obj]]:
    """What core and the scheduler share: the JDBC URL and the virtual host (plain), and the
    credentials and the broker's address (by reference)."""
    db, db_name = database(platform)
    broker, virtual_host = messaging(platform)
    plain = plain_env(
        [
            ("JDBC_URL", f"jdbc:postgresql://{db.host}:{db.port}/{db_name}?characterEncoding=UTF-8"),
            ("BROKER_VIRTUAL_HOST", virtual_host),
        ]
    )
    referenced = []
    for connection, prefix in ((db, "JDBC"), (broker, "BROKER")):
        if connection.secret:
            referenced.append(secret_env(f"{prefix}_USERNAME", connection.secret, connection.username_key))
            referenced.append(secret_env(f"{prefix}_PASSWORD", connection.secret, connection.password_key))
    return plain, referenced


def broker_address_env() -> list[Obj]:
    return [
        config_map_env("BROKER_HOST", MESSAGING_CONFIG_MAP, MESSAGING_HOST_KEY),
        config_map_env("BROKER_PORT", MESSAGING_CONFIG_MAP, MESSAGING_PORT_KEY),
    ]


def tmp_mount() -> Obj:
    return mount(EPHEMERAL, "/tmp")


def auth(platform: Platform) -> Base:
    spec = platform.args.auth
    env = plain_env(
        [
            ("TMPDIR", "/tmp"),
            ("AUTH_CREATE_UNKNOWN_USERS", json.dumps(spec.create.create_unknown_users)),
            ("AUTH_CREATE_UNKNOWN_ROLES", json.dumps(spec.create.create_unknown_roles)),
            ("SYNC_POLICY", spec.sync_policy),
            ("ASPNETCORE_URLS", f"http://+:{SERVICE_PORT}"),
        ]
    )
    volumes, mounts = [ephemeral_volume()], [mount(EPHEMERAL, "/tmp")]
    secret, _ = trusted_certificates(platform)
    if secret:
        volumes.append({"name": TRUSTED_CERTIFICATES_VOLUME, "secret": {"secretName": secret, "defaultMode": 0o644}})
        mounts.append(mount(TRUSTED_CERTIFICATES_VOLUME, "/etc/ssl/certs", readOnly=True))
    readiness, startup = http_probes("/health", 5, "/health")
    return Base(
        "auth",
        "auth",
        spec,
        env=env,
        referenced_env=[secret_env("AUTH_DB_CONNECTION_STRING", AUTH_DB_SECRET, AUTH_DB_KEY)],
        readiness=readiness,
        startup=startup,
        volumes=volumes,
        volume_mounts=mounts,
        recreate=True,
    )


def scheduler(platform: Platform) -> Base:
    shared, credentials = database_and_broker_env(platform)
    env = [*plain_env([("PORT", str(SERVICE_PORT)), (platform.bundle.wiring.logging_level_env, log_level(platform))]), *shared]
    readiness, startup = http_probes("/health/readiness", 15, "/health/liveness")
    script = f'{BROKER_WAIT} &&\necho "messaging service seems to be started"\n'
    wait = helper_container(platform, "wait-for-messaging-service", script, broker_wait_env(platform))
    return Base(
        "scheduler",
        "scheduler",
        platform.args.scheduler,
        env=env,
        referenced_env=[*credentials, *broker_address_env()],
        readiness=readiness,
        startup=startup,
        init_containers=[wait],
        volumes=[ephemeral_volume()],
        volume_mounts=[tmp_mount()],
    )


def auth_opa_policies(platform: Platform) -> Base:
    readiness, startup = http_probes("/index.html", 5, "/index.html")
    return Base(
        "auth-opa-policies",
        "auth-opa-policies",
        platform.args.auth_opa_policies,
        readiness=readiness,
        startup=startup,
        volumes=[ephemeral_volume()],
        volume_mounts=[mount(EPHEMERAL, "/var/cache/nginx"), mount(EPHEMERAL, "/tmp")],
    )


def fe_administrator(platform: Platform) -> Base:
    readiness, startup = http_probes("/", 5, "/")
    config_volume = "fe-administrator-config-volume"
    return Base(
        "fe-administrator",
        "fe-administrator",
        platform.args.fe_administrator,
        readiness=readiness,
        startup=startup,
        volumes=[
            {"name": config_volume, "configMap": {"name": FE_CONFIG_MAP, "items": [{"key": "config.js", "path": "config.js"}]}},
            ephemeral_volume(),
        ],
        volume_mounts=[
            mount(config_volume, "/usr/share/nginx/html/config.js", subPath="config.js"),
            mount(EPHEMERAL, "/var/cache/nginx"),
            mount(EPHEMERAL, "/tmp"),
        ],
    )


def fe_administrator_config_map(platform: Platform) -> Obj:
    """The front end's ``config.js``: its URLs and whether proxies are on (no secret)."""
    url = platform.args.fe_administrator.url
    body = ",\n".join(
        [
            f'    "API_URL": {json.dumps(url.api, ensure_ascii=False)}',
            f'    "LOGIN_URL": {json.dumps(url.login, ensure_ascii=False)}',
            f'    "LOGOUT_URL": {json.dumps(url.logout, ensure_ascii=False)}',
            f'    "ENABLE_PROXIES": {json.dumps(platform.args.common.proxy.enabled)}',
        ]
    )
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": metadata(platform, FE_CONFIG_MAP, "fe-administrator"),
        "data": {"config.js": f"window.__ENV__ =\n{{\n{body}\n}}"},
    }


def utils(platform: Platform) -> Base:
    readiness, startup = http_probes("/health/readiness", 15, "/health/liveness")
    env = plain_env([("PORT", str(SERVICE_PORT)), ("LOG_LEVEL", log_level(platform))])
    return Base(
        "utils",
        "utils",
        platform.args.utils,
        env=env,
        readiness=readiness,
        startup=startup,
        volumes=[ephemeral_volume()],
        volume_mounts=[tmp_mount()],
    )
