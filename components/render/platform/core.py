"""Core: its env by value and by reference, its OPA sidecar (started first), and its pod (the
init containers and the administrator's registration of ``core_init`` in it)."""

from __future__ import annotations

import json

from components.render.objects import Obj
from components.render.platform.connections import messaging
from components.render.platform.core_init import (
    ADMIN_SCRIPT,
    OPA_PORT,
    POD_INDEX,
    SCRIPTS_PATH,
    admin_certificate,
    instance_id_from_pod_index,
    instance_queue,
    provisioning_api,
    scripts_config_map_name,
    verify_instance_id,
    wait_for_auth,
)
from components.render.platform.resolve import (
    SERVICE_PORT,
    Base,
    Platform,
    ephemeral_volume,
    image_of,
    plain_env,
    secret_env,
)
from components.render.platform.services import (
    broker_address_env,
    database_and_broker_env,
    log_level,
    tmp_mount,
    trusted_certificates,
)
from components.render.workload import Probe


def _plain_env(platform: Platform) -> list[Obj]:
    args, wiring = platform.args, platform.bundle.wiring
    shared, _ = database_and_broker_env(platform)
    proxy = args.common.proxy
    head = plain_env([("HEADER_ENABLED", "true"), ("HEADER_NAME", args.core.client_cert_header or "ssl-client-cert")])
    tail: list[tuple[str, str | None]] = [
        ("OPA_BASE_URL", f"http://localhost:{OPA_PORT}"),
        ("AUTH_SERVICE_BASE_URL", f"http://auth:{SERVICE_PORT}"),
        ("SCHEDULER_BASE_URL", f"http://scheduler:{SERVICE_PORT}"),
        (wiring.logging_level_env, log_level(platform)),
        ("PROVISIONING_API_URL", provisioning_api(platform)[0]),
        ("PROXY_ENABLED", json.dumps(proxy.enabled)),
    ]
    if wiring.time_quality_env:
        tail.append((wiring.time_quality_env, json.dumps(args.messaging.time_quality.enabled)))
    tail += [
        (name, value)
        for name, value in (("HTTP_PROXY", proxy.http), ("HTTPS_PROXY", proxy.https), ("NO_PROXY", proxy.no_proxy))
        if value
    ]
    if args.core.instance_id is not None and wiring.instance_id_env:
        tail.append((wiring.instance_id_env, str(args.core.instance_id)))
    return [*head, *shared, *plain_env(tail)]


def _referenced_env(platform: Platform) -> list[Obj]:
    _, credentials = database_and_broker_env(platform)
    env = list(credentials)
    trusted, key = trusted_certificates(platform)
    if trusted:
        env.append(secret_env("TRUSTED_CERTIFICATES", trusted, key, optional=True))
    _, api_key_secret, api_key = provisioning_api(platform)
    if api_key_secret:
        env.append(secret_env("PROVISIONING_API_KEY", api_key_secret, api_key))
    if (admin := admin_certificate(platform)) is not None:
        env.append(secret_env("ADMIN_CERT", *admin, optional=True))
    return env


def opa_sidecar(platform: Platform) -> Obj:
    """OPA, serving core's policy decisions from the bundle server's bundle."""
    image, policy = image_of(platform, "opa")
    probe = {
        "httpGet": {"path": "/health?bundle=true", "port": OPA_PORT, "scheme": "HTTP"},
        "initialDelaySeconds": 5,
        "timeoutSeconds": 5,
        "periodSeconds": 10,
        "successThreshold": 1,
        "failureThreshold": 3,
    }
    return {
        "name": "auth-opa",
        "image": image,
        "imagePullPolicy": policy,
        "ports": [{"containerPort": OPA_PORT}],
        "args": [
            "run",
            "--server",
            f"--addr=0.0.0.0:{OPA_PORT}",
            f"--set=services.nginx.url=http://auth-opa-policies:{SERVICE_PORT}",
            "--set=bundles.nginx.service=nginx",
            "--set=bundles.nginx.resource=bundles/bundle.tar.gz",
        ],
        "readinessProbe": probe,
        "startupProbe": dict(probe),
        "securityContext": {"readOnlyRootFilesystem": True},
    }


MONITOR = "time-quality-monitor"
MONITOR_PORT = 8082


def time_quality_monitor(platform: Platform) -> Obj | None:
    """The time-quality monitor beside core, when asked and the version has it (2.19.0 on): the
    broker's coordinates as core reads them, its own broker user by reference, probed on /health."""
    monitor = platform.args.core.time_quality_monitor
    if monitor is None or not monitor.enabled or MONITOR not in platform.bundle.images:
        return None
    image, policy = image_of(platform, MONITOR, monitor.image)
    _, virtual_host = messaging(platform)
    credentials = monitor.credentials
    env = [
        *plain_env([("LISTEN_PORT", str(MONITOR_PORT)), ("LOG_LEVEL", log_level(platform))]),
        *broker_address_env(),
        *plain_env([("BROKER_VIRTUAL_HOST", virtual_host)]),
    ]
    if credentials is not None and credentials.secret_ref:
        env += [
            secret_env("BROKER_USERNAME", credentials.secret_ref, credentials.username_key or "username"),
            secret_env("BROKER_PASSWORD", credentials.secret_ref, credentials.password_key or "password"),
        ]
    health = json.dumps(
        {
            "httpGet": {"path": "/health", "port": MONITOR_PORT, "scheme": "HTTP"},
            "initialDelaySeconds": 5,
            "timeoutSeconds": 5,
            "periodSeconds": 10,
            "successThreshold": 1,
            "failureThreshold": 3,
        }
    )
    container: Obj = {"name": MONITOR, "image": image, "imagePullPolicy": policy}
    shared, own = platform.args.common.image, monitor.image
    command = (own.command if own else None) or (shared.command if shared else None)
    arguments = (own.args if own else None) or (shared.args if shared else None)
    container |= {"command": command} if command else {}
    container |= {"args": arguments} if arguments else {}
    container |= {"ports": [{"containerPort": MONITOR_PORT}], "env": env}
    container |= {"livenessProbe": json.loads(health), "readinessProbe": json.loads(health)}
    container |= {"resources": monitor.resources} if monitor.resources else {}
    return container | {"securityContext": {"readOnlyRootFilesystem": True}}


def core(platform: Platform) -> Base:
    args = platform.args
    pod_env = (
        [{"name": "PROXY_INSTANCE_ID", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}]
        if args.common.proxy.enabled
        else []
    )
    monitor = time_quality_monitor(platform)
    monitor_image = args.core.time_quality_monitor.image if args.core.time_quality_monitor else None
    inits = [wait_for_auth(platform)]
    if (variable := instance_id_from_pod_index(platform)) is not None:
        pod_env.append({"name": variable, "valueFrom": {"fieldRef": {"fieldPath": POD_INDEX}}})
        inits.insert(0, verify_instance_id(platform, variable))
    if args.common.proxy.enabled and provisioning_api(platform)[0]:
        inits.append(instance_queue(platform))
    volumes, mounts = [ephemeral_volume()], [tmp_mount()]
    lifecycle = None
    if admin_certificate(platform) is not None:
        volumes.append(
            {
                "name": "core-scripts",
                "configMap": {
                    "name": scripts_config_map_name(platform),
                    "items": [{"key": ADMIN_SCRIPT, "path": ADMIN_SCRIPT}],
                    "defaultMode": 0o755,
                },
            }
        )
        mounts.append({"name": "core-scripts", "mountPath": SCRIPTS_PATH, "readOnly": True})
        lifecycle = {"postStart": {"exec": {"command": ["sh", "-c", f"{SCRIPTS_PATH}/{ADMIN_SCRIPT}"]}}}
    return Base(
        "core",
        "core",
        args.core,
        env=_plain_env(platform),
        referenced_env=[*_referenced_env(platform), *broker_address_env()],
        pod_env=pod_env,
        readiness=Probe("/api/v1/health/readiness", initial_delay_seconds=15),
        startup=Probe("/api/v1/health/liveness", initial_delay_seconds=15, period_seconds=10, failure_threshold=45),
        init_containers=inits,
        sidecars=[opa_sidecar(platform), *([monitor] if monitor else [])],
        pull_secrets=list(monitor_image.pull_secrets) if monitor and monitor_image else [],
        sidecars_first=True,
        recreate=True,
        lifecycle=lifecycle,
        volumes=volumes,
        volume_mounts=mounts,
    )
