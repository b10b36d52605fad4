"""Auth, the scheduler, the bundle server, the front end and utils: what each reads and mounts."""

from __future__ import annotations

import json

from components.render.platform import render_platform

from ...support.operator_platform import args_with, container, env_of, find


def test_auth_reads_its_connection_string_and_its_creation_rules():
    objects = render_platform(args_with(auth={"create": {"createUnknownUsers": True}, "syncPolicy": "sync-data"}))
    auth = find(objects, "Deployment", "auth")
    env = env_of(container(auth, "auth"))
    assert (env["AUTH_CREATE_UNKNOWN_USERS"], env["AUTH_CREATE_UNKNOWN_ROLES"], env["SYNC_POLICY"]) == (
        "true",
        "false",
        "sync-data",
    )
    assert env["AUTH_DB_CONNECTION_STRING"] == {"secretKeyRef": {"name": "auth-db", "key": "connection-string"}}
    assert auth["spec"]["strategy"] == {"type": "Recreate"}


def test_without_trusted_certificates_auth_mounts_none_and_core_reads_none():
    objects = render_platform(args_with(common={}))
    auth = find(objects, "Deployment", "auth")
    assert [v["name"] for v in auth["spec"]["template"]["spec"]["volumes"]] == ["ephemeral"]
    assert "TRUSTED_CERTIFICATES" not in env_of(container(find(objects, "Deployment", "core"), "core"))


def test_a_trusted_bundle_under_its_own_key():
    common = {"trustedCertificates": {"secretRef": "corp-ca", "caKey": "bundle.pem"}}
    env = env_of(container(find(render_platform(args_with(common=common)), "Deployment", "core"), "core"))
    assert env["TRUSTED_CERTIFICATES"] == {"secretKeyRef": {"name": "corp-ca", "key": "bundle.pem", "optional": True}}


def test_the_scheduler_waits_for_the_broker_it_reads_from_the_config_map():
    objects = render_platform(args_with(messaging={"host": "mq.example", "port": 5671, "credentials": {"secretRef": "mq"}}))
    scheduler = find(objects, "Deployment", "scheduler")
    wait = container(scheduler, "wait-for-messaging-service")
    assert env_of(wait) == {"MQ_WAIT_HOST": "mq.example", "MQ_WAIT_PORT": "5671"}
    assert "mq.example" not in wait["command"][2]
    env = env_of(container(scheduler, "scheduler"))
    assert env["BROKER_HOST"] == {"configMapKeyRef": {"name": "messaging-configmap", "key": "messaging.host"}}
    assert env["BROKER_VIRTUAL_HOST"] is None


def test_the_front_ends_config_says_whether_proxies_are_on():
    objects = render_platform(args_with(common={"proxy": {"enabled": True}}, feAdministrator={"url": {"api": "/core-api"}}))
    config = find(objects, "ConfigMap", "fe-administrator-configmap")["data"]["config.js"]
    assert config.startswith("window.__ENV__ =\n")
    assert json.loads(config.split("=", 1)[1]) == {
        "API_URL": "/core-api",
        "LOGIN_URL": "/login",
        "LOGOUT_URL": "/logout",
        "ENABLE_PROXIES": True,
    }


def test_utils_only_when_enabled():
    assert not [o for o in render_platform(args_with()) if o["metadata"]["name"] == "utils"]
    utils = find(
        render_platform(args_with(utils={"enabled": True}, common={"logging": {"level": "DEBUG"}})), "Deployment", "utils"
    )
    assert env_of(container(utils, "utils")) == {"PORT": "8080", "LOG_LEVEL": "DEBUG"}
