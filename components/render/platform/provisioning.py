"""The bundled provisioning service (``provisioning.mode: deploy``): it creates the broker's
queues and exchanges of remote proxies and issues their tokens; core calls it in the cluster.

Every credential reaches it by reference: the broker user it manages the topology as, the
user it writes into proxies' tokens (unless given, a managed broker's provisioner and proxy
users, an external broker's platform messaging credentials),
and the API key and token signing key of its bootstrap Secret.
"""

from __future__ import annotations

from components.args.platform_blocks import CredentialsRefArgs
from components.render.objects import Obj
from components.render.platform.connections import MESSAGING_CONFIG_MAP, MESSAGING_HOST_KEY, MESSAGING_PORT_KEY, messaging
from components.render.platform.managed_messaging import credentials_secret, messaging_managed
from components.render.platform.resolve import (
    Base,
    Platform,
    config_map_env,
    ephemeral_volume,
    helper_container,
    http_probes,
    plain_env,
    secret_env,
)
from components.render.platform.services import BROKER_WAIT, broker_wait_env, log_level, tmp_mount

ROLE = "provisioning-rabbitmq"
PORT = 8077
DEFAULT_RESPONSE_QUEUE = "core"
API_KEY_KEY = "securityApiKey"
TOKEN_SIGNING_KEY_KEY = "tokenSigningKey"


def deploys_provisioning(platform: Platform) -> bool:
    """Whether the platform runs the bundled service (a RabbitMQ broker, as the CRD requires)."""
    block = platform.args.provisioning
    return block is not None and block.mode == "deploy" and block.deploy is not None and "provisioning" in platform.bundle.images


def provisioning(platform: Platform) -> Base:
    deploy = platform.args.provisioning.deploy if platform.args.provisioning else None
    assert deploy is not None, "rendered only when deploys_provisioning"
    broker, virtual_host = messaging(platform)
    env = plain_env(
        [
            ("PORT", str(PORT)),
            (platform.bundle.wiring.logging_level_env, log_level(platform)),
            ("RABBITMQ_VIRTUAL_HOST", virtual_host),
            ("PROXY_AMQP_URL", f"amqp://{broker.host}:{broker.port}"),
            ("PROXY_EXCHANGE", deploy.exchange or platform.bundle.wiring.proxy_exchange),
            ("PROXY_RESPONSE_QUEUE", deploy.response_queue or DEFAULT_RESPONSE_QUEUE),
            ("SECURITY_API_KEY_ENABLED", "true"),
        ]
    )
    referenced = [
        *_credentials("RABBITMQ", deploy.provisioner_credentials, _users_secret(platform, "provisioner", broker.secret)),
        *_credentials("PROXY_RABBITMQ", deploy.proxy_credentials, _users_secret(platform, "proxy", broker.secret)),
        secret_env("SECURITY_API_KEY", deploy.bootstrap_secret_ref, deploy.api_key_key or API_KEY_KEY),
        secret_env("TOKEN_SIGNING_KEY", deploy.bootstrap_secret_ref, deploy.token_signing_key_key or TOKEN_SIGNING_KEY_KEY),
        config_map_env("RABBITMQ_HOST", MESSAGING_CONFIG_MAP, MESSAGING_HOST_KEY),
        config_map_env("RABBITMQ_PORT", MESSAGING_CONFIG_MAP, MESSAGING_PORT_KEY),
    ]
    script = f'{BROKER_WAIT} &&\necho "messaging service seems to be started"\n'
    readiness, startup = http_probes("/actuator/health", 15, "/actuator/health")
    return Base(
        ROLE,
        "provisioning",
        deploy,
        env=env,
        referenced_env=referenced,
        readiness=readiness,
        startup=startup,
        init_containers=[helper_container(platform, "wait-for-messaging-service", script, broker_wait_env(platform))],
        volumes=[ephemeral_volume()],
        volume_mounts=[tmp_mount()],
        port=PORT,
    )


def _users_secret(platform: Platform, role: str, shared: str | None) -> str | None:
    """A managed broker's generated Secret of the user of ``role``; an external broker's shared one."""
    return credentials_secret(platform, role) if messaging_managed(platform.args) else shared


def _credentials(prefix: str, given: CredentialsRefArgs | None, fallback: str | None) -> list[Obj]:
    """A broker user's name and password by reference: the Secret given, else the platform's
    messaging credentials; the keys given, else ``username`` and ``password`` (the operator's
    defaults here, whatever keys the messaging credentials name)."""
    secret = (given.secret_ref if given else None) or fallback
    if not secret:
        return []
    username_key = (given.username_key if given else None) or "username"
    password_key = (given.password_key if given else None) or "password"
    return [secret_env(f"{prefix}_USERNAME", secret, username_key), secret_env(f"{prefix}_PASSWORD", secret, password_key)]
