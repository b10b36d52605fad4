"""The database and broker connections every consumer reads, and the broker's ConfigMap."""

from __future__ import annotations

from components.render.platform import render_platform

from ...support.operator_platform import args_with, container, env_of, find


def test_credentials_keys_default_to_username_and_password_and_can_be_named():
    database = {
        "host": "db",
        "port": 5433,
        "name": "ilm2",
        "credentials": {"secretRef": "db", "usernameKey": "user", "passwordKey": "pass"},
    }
    objects = render_platform(args_with(database=database))
    env = env_of(container(find(objects, "Deployment", "core"), "core"))
    assert env["JDBC_URL"] == "jdbc:postgresql://db:5433/ilm2?characterEncoding=UTF-8"
    assert env["JDBC_USERNAME"] == {"secretKeyRef": {"name": "db", "key": "user"}}
    assert env["JDBC_PASSWORD"] == {"secretKeyRef": {"name": "db", "key": "pass"}}
    assert env["BROKER_USERNAME"] == {"secretKeyRef": {"name": "messaging-secret", "key": "username"}}


def test_the_brokers_address_is_in_a_config_map_and_no_credential_is():
    objects = render_platform(
        args_with(messaging={"host": "mq.example", "port": 5671, "virtualHost": "v", "credentials": {"secretRef": "mq"}})
    )
    config_map = find(objects, "ConfigMap", "messaging-configmap")
    assert config_map["data"] == {"messaging.host": "mq.example", "messaging.amqp.port": "5671"}
    assert config_map["metadata"]["labels"]["app.kubernetes.io/component"] == "messaging"
