"""The bundled provisioning service (``provisioning.mode: deploy``), as the operator's
``provisioning.go`` renders it: its env by value and by reference, and where it sits."""

from __future__ import annotations

import pytest

from components.render.platform import render_platform

from ...support.operator_platform import args_with, container, env_of, find

DEPLOY = {"mode": "deploy", "deploy": {"bootstrapSecretRef": "provisioning-bootstrap"}}


def deployed(version: str | None = None, **deploy):
    changes = {"provisioning": {**DEPLOY, "deploy": {**DEPLOY["deploy"], **deploy}}}
    if version:
        changes["version"] = version
    return render_platform(args_with(**changes))


def ref(secret: str, key: str) -> dict:
    return {"valueFrom": {"secretKeyRef": {"name": secret, "key": key}}}


def test_external_provisioning_renders_no_service():
    assert [o for o in render_platform(args_with()) if o["metadata"]["name"] == "provisioning-rabbitmq"] == []


@pytest.mark.parametrize(
    ("version", "logging", "exchange"),
    [(None, "LOGGING_LEVEL_COM_OTILM", "ilm-proxy"), ("2.18.0", "LOGGING_LEVEL_COM_CZERTAINLY", "czertainly-proxy")],
)
def test_the_service_takes_the_brokers_coordinates_and_every_credential_by_reference(version, logging, exchange):
    objects = deployed(version)
    deployment = find(objects, "Deployment", "provisioning-rabbitmq")
    main = container(deployment, "provisioning-rabbitmq")
    assert main["image"] == "hub.omnitrustregistry.com/ilm/provisioning-rabbitmq:1.0.0"
    assert main["ports"] == [{"name": "http", "containerPort": 8077}]
    env = main["env"]
    assert [e["name"] for e in env] == [
        "PORT", logging, "RABBITMQ_VIRTUAL_HOST", "PROXY_AMQP_URL", "PROXY_EXCHANGE", "PROXY_RESPONSE_QUEUE",
        "SECURITY_API_KEY_ENABLED", "RABBITMQ_USERNAME", "RABBITMQ_PASSWORD", "PROXY_RABBITMQ_USERNAME",
        "PROXY_RABBITMQ_PASSWORD", "SECURITY_API_KEY", "TOKEN_SIGNING_KEY", "RABBITMQ_HOST", "RABBITMQ_PORT",
    ]  # fmt: skip
    values = env_of(main)
    assert values["PORT"] == "8077" and values["PROXY_AMQP_URL"] == "amqp://messaging-service:5672"
    assert values["PROXY_EXCHANGE"] == exchange and values["PROXY_RESPONSE_QUEUE"] == "core"
    assert values["RABBITMQ_VIRTUAL_HOST"] == "ilm" and values["SECURITY_API_KEY_ENABLED"] == "true"
    by_name = {e["name"]: e for e in env}
    assert by_name["RABBITMQ_PASSWORD"] == {"name": "RABBITMQ_PASSWORD", **ref("messaging-secret", "password")}
    assert by_name["PROXY_RABBITMQ_USERNAME"] == {"name": "PROXY_RABBITMQ_USERNAME", **ref("messaging-secret", "username")}
    assert by_name["TOKEN_SIGNING_KEY"] == {"name": "TOKEN_SIGNING_KEY", **ref("provisioning-bootstrap", "tokenSigningKey")}
    assert by_name["RABBITMQ_HOST"]["valueFrom"]["configMapKeyRef"]["key"]
    pod = deployment["spec"]["template"]["spec"]
    assert [c["name"] for c in pod["initContainers"]] == ["wait-for-messaging-service"]
    assert main["readinessProbe"]["httpGet"] == {"path": "/actuator/health", "port": 8077}
    assert find(objects, "Service", "provisioning-rabbitmq")["spec"]["ports"][0]["port"] == 8077
    core = env_of(container(find(objects, "Deployment", "core"), "core"))
    assert core["PROVISIONING_API_URL"] == "http://provisioning-rabbitmq:8077"


def test_given_credentials_keys_and_names_win():
    main = container(
        find(
            deployed(
                provisionerCredentials={"secretRef": "admin-user", "usernameKey": "u"},
                proxyCredentials={"secretRef": "proxy-user", "passwordKey": "p"},
                apiKeyKey="key",
                tokenSigningKeyKey="signing",
                exchange="own-exchange",
                responseQueue="own-queue",
            ),
            "Deployment",
            "provisioning-rabbitmq",
        ),
        "provisioning-rabbitmq",
    )
    by_name = {e["name"]: e for e in main["env"]}
    assert by_name["RABBITMQ_USERNAME"]["valueFrom"]["secretKeyRef"] == {"name": "admin-user", "key": "u"}
    assert by_name["RABBITMQ_PASSWORD"]["valueFrom"]["secretKeyRef"] == {"name": "admin-user", "key": "password"}
    assert by_name["PROXY_RABBITMQ_PASSWORD"]["valueFrom"]["secretKeyRef"] == {"name": "proxy-user", "key": "p"}
    assert by_name["SECURITY_API_KEY"]["valueFrom"]["secretKeyRef"] == {"name": "provisioning-bootstrap", "key": "key"}
    assert by_name["TOKEN_SIGNING_KEY"]["valueFrom"]["secretKeyRef"]["key"] == "signing"
    assert env_of(main)["PROXY_EXCHANGE"] == "own-exchange" and env_of(main)["PROXY_RESPONSE_QUEUE"] == "own-queue"


def test_it_follows_the_gateway_gets_no_budget_and_its_monitor_comes_last():
    objects = render_platform(
        args_with(
            highAvailability={"enabled": True},
            provisioning={
                **DEPLOY,
                "deploy": {
                    **DEPLOY["deploy"],
                    "podDisruptionBudget": {"enabled": True},
                    "metrics": {"enabled": True, "serviceMonitor": {"enabled": True}},
                },
            },
            auth={"metrics": {"enabled": True, "serviceMonitor": {"enabled": True}}},
        )
    )
    names = [(o["kind"], o["metadata"]["name"]) for o in objects]
    gateway = names.index(("Service", "api-gateway"))
    assert names[gateway + 1 : gateway + 4] == [
        ("ServiceAccount", "provisioning-rabbitmq"),
        ("Deployment", "provisioning-rabbitmq"),
        ("Service", "provisioning-rabbitmq"),
    ]
    assert ("PodDisruptionBudget", "provisioning-rabbitmq") not in names, "the operator gives it none, asked or not"
    assert find(objects, "Deployment", "provisioning-rabbitmq")["spec"]["replicas"] == 1, "the profile does not cover it"
    assert names[-2:] == [("ServiceMonitor", "auth"), ("ServiceMonitor", "provisioning-rabbitmq")]
