"""A managed broker (``messaging.mode: managed``), as the operator's ``managed_messaging.go`` and
``topology_naming.go`` render it: the RabbitmqCluster, the topology of the platform's version
(2.18.0's names frozen, 2.19.0's scoped to its virtual host), no password anywhere, and the
platform wired to what the RabbitMQ operators generate."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import yaml

from components.args.base import validated
from components.args.platform_spec import PlatformEntry
from components.args.problems import InvalidArgumentsError
from components.render.platform import render_platform
from components.render.platform.gateway import kong_config
from components.render.platform.managed_messaging import running_version, sanitized
from components.render.platform.resolve import platform_of

from ...support.operator_platform import args_with, container, env_of, find, minimal_spec

MANAGED: dict[str, Any] = {"mode": "managed", "managed": {"storage": {"size": "20Gi"}}}


def broker(version: str = "2.19.0", **messaging: Any) -> list[dict[str, Any]]:
    managed = {**MANAGED, **messaging}
    return [
        o for o in render_platform(args_with(version=version, messaging=managed)) if o["apiVersion"] == "rabbitmq.com/v1beta1"
    ]


def names(objects: list[dict[str, Any]], kind: str) -> list[str]:
    return [o["metadata"]["name"] for o in objects if o["kind"] == kind]


USERS = ["administrator", "provisioner", "proxy", "core", "monitor"]


def test_2180s_names_are_the_operators_frozen_ones_in_its_order():
    objects = broker("2.18.0")
    assert [o["kind"] for o in objects] == [
        "RabbitmqCluster",
        "Vhost",
        *["User"] * 5,
        *["Permission"] * 5,
        *["Exchange"] * 2,
        *["Queue"] * 10,
        *["Binding"] * 9,
    ]
    assert names(objects, "Vhost") == ["ilm-messaging-vhost"]
    assert names(objects, "User") == [f"ilm-messaging-{u}" for u in USERS]
    assert names(objects, "Permission") == [f"ilm-messaging-{u}-permission" for u in USERS]
    assert names(objects, "Exchange") == ["ilm-messaging-exchange-czertainly", "ilm-messaging-exchange-czertainly-proxy"]
    assert names(objects, "Queue")[-3:] == [
        "ilm-messaging-queue-time-quality-config",
        "ilm-messaging-queue-time-quality-config-request",
        "ilm-messaging-queue-time-quality-results",
    ]
    assert names(objects, "Binding")[0] == "ilm-messaging-binding-czertainly-core-audit-logs"
    assert find(objects, "Vhost", "ilm-messaging-vhost")["spec"] == {
        "name": "czertainly",
        "rabbitmqClusterReference": {"name": "ilm-messaging"},
    }


def test_2190s_topology_is_scoped_to_its_default_virtual_host_and_adds_the_status_poll_queue():
    objects = broker("2.19.0")
    assert len(objects) == 35
    assert names(objects, "Vhost") == ["ilm-messaging-default-vhost"]
    assert names(objects, "User") == [f"ilm-messaging-{u}" for u in USERS]  # users are not scoped
    scoped = [o["metadata"]["name"] for o in objects if o["kind"] not in ("RabbitmqCluster", "User")]
    assert all(n.startswith("ilm-messaging-default-") for n in scoped)
    assert names(objects, "Exchange") == ["ilm-messaging-default-exchange-ilm", "ilm-messaging-default-exchange-ilm-proxy"]
    queues = [o["spec"]["name"] for o in objects if o["kind"] == "Queue"]
    assert queues[7] == "provider.status-poll" and queues[6] == "core.events"
    poll = find(objects, "Binding", "ilm-messaging-default-binding-ilm-provider-status-poll")["spec"]
    assert poll == {
        "source": "ilm",
        "destination": "provider.status-poll",
        "destinationType": "queue",
        "routingKey": "provider.status-poll",
        "vhost": "/",
        "rabbitmqClusterReference": {"name": "ilm-messaging"},
    }
    # two versions' topologies can stand side by side: no scoped name is shared
    assert not set(scoped) & {o["metadata"]["name"] for o in broker("2.18.0") if o["kind"] not in ("RabbitmqCluster", "User")}


@pytest.mark.parametrize(
    ("version", "core_write", "core_read_has_status_poll", "proxy_write"),
    [("2.18.0", "^czertainly(-proxy)?$", False, "^czertainly-proxy$"), ("2.19.0", "^ilm(-proxy)?$", True, "^ilm-proxy$")],
)
def test_each_versions_users_have_its_permissions(version, core_write, core_read_has_status_poll, proxy_write):
    permissions = {o["spec"]["userReference"]["name"]: o["spec"] for o in broker(version) if o["kind"] == "Permission"}
    core = permissions["ilm-messaging-core"]["permissions"]
    assert core["configure"] == "" and core["write"] == core_write
    assert re.fullmatch(core["read"], "provider.status-poll") is not None if core_read_has_status_poll else True
    assert re.fullmatch(core["read"], "core.audit-logs") and not re.fullmatch(core["read"], "proxy.x")
    assert permissions["ilm-messaging-proxy"]["permissions"]["write"] == proxy_write
    assert permissions["ilm-messaging-administrator"]["permissions"] == {"configure": ".*", "write": ".*", "read": ".*"}
    users = {o["metadata"]["name"]: o["spec"] for o in broker(version) if o["kind"] == "User"}
    assert users["ilm-messaging-provisioner"]["tags"] == ["administrator"]
    assert "tags" not in users["ilm-messaging-core"]


def test_latest_only_queues_keep_one_message():
    queues = {o["spec"]["name"]: o["spec"] for o in broker() if o["kind"] == "Queue"}
    assert queues["time-quality.config"]["arguments"] == {"x-max-length": 1, "x-overflow": "drop-head"}
    assert "arguments" not in queues["time-quality.results"] and "arguments" not in queues["core"]


@pytest.mark.parametrize("pinned", ["myvhost", "/"])
def test_a_pinned_virtual_host_leaves_every_name_unscoped(pinned):
    objects = broker("2.19.0", virtualHost=pinned)
    assert names(objects, "Vhost") == ["ilm-messaging-vhost"]
    assert find(objects, "Vhost", "ilm-messaging-vhost")["spec"]["name"] == pinned
    assert all(o["spec"]["vhost"] == pinned for o in objects if o["kind"] in ("Exchange", "Queue", "Binding", "Permission"))


@pytest.mark.parametrize(
    ("name", "expected"),
    [("core.audit-logs", "core-audit-logs"), ("MyQueue_1", "myqueue-1"), ("a/b", "a-b"), ("é", "-")],
)
def test_names_are_sanitized_one_character_at_a_time(name, expected):
    assert sanitized(name) == expected


def test_the_cluster_takes_its_sizing_and_the_management_path_when_exposed():
    resources = {"requests": {"cpu": "1"}, "limits": {"memory": "2Gi"}}
    managed = {"replicas": 3, "version": "4.0", "storage": {"size": "20Gi", "storageClass": "fast"}, "resources": resources}
    cluster = broker(managed=managed, management={"expose": True})[0]
    assert cluster["metadata"]["labels"]["app.kubernetes.io/component"] == "messaging"
    assert cluster["spec"] == {
        "replicas": 3,
        "persistence": {"storage": "20Gi", "storageClassName": "fast"},
        "image": "rabbitmq:4.0-management",
        "resources": resources,
        "rabbitmq": {"additionalConfig": "management.path_prefix = /mq\n"},
    }
    assert broker()[0]["spec"] == {"replicas": 1, "persistence": {"storage": "20Gi"}}


def test_no_object_holds_a_password_or_imports_credentials():
    text = json.dumps(broker()) + json.dumps(broker("2.18.0"))
    for word in ("password", "Password", "secretKey", "stringData", "importCredentialsSecret"):
        assert word not in text


def test_overrides_merge_onto_the_cluster_but_not_onto_what_the_operator_owns():
    overrides = {"spec": {"rabbitmq": {"envConfig": "X=1"}, "replicas": 2}}
    cluster = broker(managed={"storage": {"size": "1Gi"}, "overrides": overrides})[0]
    assert cluster["spec"]["rabbitmq"] == {"envConfig": "X=1"} and cluster["spec"]["replicas"] == 2
    planted = {"metadata": {"name": "planted-value"}, "spec": {"rabbitmq": {"additionalConfig": "planted-value"}}}
    entry = {
        "name": "ilm",
        "namespace": "ilm",
        "spec": {**minimal_spec(), "messaging": {**MANAGED, "managed": {"storage": {"size": "1Gi"}, "overrides": planted}}},
    }
    with pytest.raises(InvalidArgumentsError) as caught:
        validated(PlatformEntry, entry, "platforms[0]", "invalid platform arguments")
    assert caught.value.problems == [
        "platforms[0].spec.messaging.managed.overrides: may not change metadata.name and spec.rabbitmq.additionalConfig"
        " (the operator owns them) (got a map of 2 keys)"
    ]
    assert "planted-value" not in str(caught.value)


@pytest.mark.parametrize("workload", ["core", "scheduler"])
def test_core_and_the_scheduler_use_the_core_users_generated_secret_and_the_versions_virtual_host(workload):
    objects = render_platform(args_with(version="2.18.0", messaging=MANAGED))
    env = env_of(container(find(objects, "Deployment", workload), workload))
    assert env["BROKER_VIRTUAL_HOST"] == "czertainly"
    assert env["BROKER_USERNAME"] == {"secretKeyRef": {"name": "ilm-messaging-core-user-credentials", "key": "username"}}
    assert env["BROKER_PASSWORD"] == {"secretKeyRef": {"name": "ilm-messaging-core-user-credentials", "key": "password"}}
    assert find(objects, "ConfigMap", "messaging-configmap")["data"] == {
        "messaging.host": "ilm-messaging",
        "messaging.amqp.port": "5672",
    }
    wait = env_of(container(find(objects, "Deployment", "scheduler"), "wait-for-messaging-service"))
    assert wait == {"MQ_WAIT_HOST": "ilm-messaging", "MQ_WAIT_PORT": "5672"}


def test_provisioning_uses_the_provisioner_and_proxy_users_unless_given():
    deploy = {"bootstrapSecretRef": "provisioning-secret"}
    objects = render_platform(args_with(messaging=MANAGED, provisioning={"mode": "deploy", "deploy": deploy}))
    env = env_of(container(find(objects, "Deployment", "provisioning-rabbitmq"), "provisioning-rabbitmq"))
    assert env["RABBITMQ_USERNAME"]["secretKeyRef"]["name"] == "ilm-messaging-provisioner-user-credentials"
    assert env["PROXY_RABBITMQ_PASSWORD"]["secretKeyRef"]["name"] == "ilm-messaging-proxy-user-credentials"
    assert env["RABBITMQ_VIRTUAL_HOST"] == "/"


@pytest.mark.parametrize(
    ("mode", "expose", "routed"), [("managed", True, True), ("managed", False, False), ("external", True, False)]
)
def test_the_management_ui_is_routed_on_mq_only_for_an_exposed_managed_broker(mode, expose, routed):
    messaging = {**MANAGED, "management": {"expose": expose}}
    if mode == "external":
        messaging = {"host": "mq", "credentials": {"secretRef": "messaging-secret"}, "management": {"expose": expose}}
    services = {s["name"]: s for s in kong_config(platform_of(args_with(messaging=messaging)))["services"]}
    assert ("messaging-service" in services) == routed
    if routed:
        assert services["messaging-service"]["host"] == "ilm-messaging" and services["messaging-service"]["port"] == 15672
        assert [r["paths"] for r in services["messaging-service"]["routes"]] == [["/mq/"], ["/mq"]]
        assert list(services)[-1] == "messaging-service"


@pytest.mark.parametrize(
    ("image", "version"),
    [("rabbitmq:4.0-management", "4.0"), ("my-mirror/rabbitmq:4.2.0", "4.2.0"), ("registry:5000/rabbitmq", None), (None, None)],
)
def test_the_running_version_is_read_off_the_clusters_image(image, version):
    stored = None if image is None else {"spec": {"image": image}}
    assert running_version(stored) == version


def test_the_render_reads_back_as_yaml():
    assert yaml.safe_load(yaml.safe_dump(broker())) == broker()


def test_the_time_quality_monitor_uses_the_monitor_users_generated_secret():
    core = {"timeQualityMonitor": {"enabled": True, "credentials": {"secretRef": "given-but-external-only"}}}
    objects = render_platform(args_with(version="2.19.0", messaging=MANAGED, core=core))
    env = env_of(container(find(objects, "Deployment", "core"), "time-quality-monitor"))
    assert env["BROKER_USERNAME"] == {"secretKeyRef": {"name": "ilm-messaging-monitor-user-credentials", "key": "username"}}
    assert env["BROKER_VIRTUAL_HOST"] == "/"
