"""Core: what it reads and from where, and what its pod runs (the scripts themselves: ``test_core_init``)."""

from __future__ import annotations

import pytest

from components.render.platform import render_platform

from ...support.operator_platform import args_with, container, env_of, find


def test_a_generated_administrators_certificate_is_read_from_the_issued_secret():
    objects = render_platform(args_with(registerAdmin={"enabled": True, "certificate": {"source": "generated"}}))
    env = env_of(container(find(objects, "Deployment", "core"), "core"))
    assert env["ADMIN_CERT"] == {"secretKeyRef": {"name": "admin-certificate-secret", "key": "tls.crt", "optional": True}}


def test_without_an_administrator_core_has_no_script_and_no_hook():
    objects = render_platform(args_with(registerAdmin=None))
    core = find(objects, "Deployment", "core")
    assert not [o for o in objects if o["metadata"]["name"].endswith("-core-scripts")]
    assert "lifecycle" not in container(core, "core") and "ADMIN_CERT" not in env_of(container(core, "core"))
    assert [v["name"] for v in core["spec"]["template"]["spec"]["volumes"]] == ["ephemeral"]


def test_the_outbound_proxy_and_the_header_reach_core():
    common = {"proxy": {"enabled": True, "http": "http://proxy:3128", "noProxy": "10.0.0.0/8"}}
    objects = render_platform(args_with(common=common, core={"clientCertHeader": "x-client-cert"}, provisioning=None))
    core = find(objects, "Deployment", "core")
    env = env_of(container(core, "core"))
    assert (env["HTTP_PROXY"], env["NO_PROXY"], env["HEADER_NAME"]) == ("http://proxy:3128", "10.0.0.0/8", "x-client-cert")
    assert "HTTPS_PROXY" not in env and env["PROVISIONING_API_URL"] is None
    # no provisioning API: no queue to register, even with proxies on
    assert [c["name"] for c in core["spec"]["template"]["spec"]["initContainers"]] == ["wait-for-auth"]


def test_deployed_provisioning_points_core_at_the_service_and_its_bootstrap_secret():
    provisioning = {"mode": "deploy", "deploy": {"bootstrapSecretRef": "bootstrap", "exchange": "own-exchange"}}
    objects = render_platform(args_with(provisioning=provisioning, common={"proxy": {"enabled": True}}))
    core = find(objects, "Deployment", "core")
    env = env_of(container(core, "core"))
    assert env["PROVISIONING_API_URL"] == "http://provisioning-rabbitmq:8077"
    assert env["PROVISIONING_API_KEY"] == {"secretKeyRef": {"name": "bootstrap", "key": "securityApiKey"}}
    assert '"exchange":"own-exchange"' in container(core, "provision-instance-queue")["command"][2]


@pytest.mark.parametrize(("version", "derived"), [("2.19.0", True), ("2.18.0", False)])
def test_a_stateful_set_core_takes_its_instance_id_from_its_pods_index_behind_a_guard(version, derived):
    objects = render_platform(args_with(version=version, core={"workloadType": "StatefulSet", "replicas": 3}))
    pod = find(objects, "StatefulSet", "core")["spec"]["template"]["spec"]
    inits = [c["name"] for c in pod["initContainers"]]
    core = env_of(container(find(objects, "StatefulSet", "core"), "core"))
    if derived:
        assert inits == ["verify-instance-id", "wait-for-auth"]
        index = {"fieldRef": {"fieldPath": "metadata.labels['apps.kubernetes.io/pod-index']"}}
        assert core["PLATFORM_INSTANCE_ID"] == index and env_of(pod["initContainers"][0])["PLATFORM_INSTANCE_ID"] == index
    else:
        assert inits == ["wait-for-auth"] and "PLATFORM_INSTANCE_ID" not in core


def test_an_explicit_instance_id_or_a_deployment_takes_no_index():
    for core in ({"workloadType": "StatefulSet", "replicas": 1, "instanceId": 7}, {"replicas": 1}):
        objects = render_platform(args_with(core=core))
        workload = next(o for o in objects if o["kind"] in ("Deployment", "StatefulSet") and o["metadata"]["name"] == "core")
        assert [c["name"] for c in workload["spec"]["template"]["spec"]["initContainers"]] == ["wait-for-auth"]
        assert env_of(container(workload, "core")).get("PLATFORM_INSTANCE_ID") in ("7", None)


MONITOR = {
    "enabled": True,
    "credentials": {"secretRef": "monitor-user", "passwordKey": "pw"},
    "image": {"pullSecrets": ["private"]},
}


@pytest.mark.parametrize(
    ("version", "monitor", "runs"), [("2.19.0", MONITOR, True), ("2.18.0", MONITOR, False), ("2.19.0", {"enabled": False}, False)]
)
def test_the_time_quality_monitor_runs_beside_core_after_opa_when_asked_and_the_version_has_it(version, monitor, runs):
    objects = render_platform(args_with(version=version, core={"replicas": 1, "timeQualityMonitor": monitor}))
    pod = find(objects, "Deployment", "core")["spec"]["template"]["spec"]
    names = [c["name"] for c in pod["containers"]]
    if not runs:
        assert names == ["auth-opa", "core"] and "imagePullSecrets" not in pod
        return
    assert names == ["auth-opa", "time-quality-monitor", "core"] and pod["imagePullSecrets"] == [{"name": "private"}]
    sidecar = container(find(objects, "Deployment", "core"), "time-quality-monitor")
    assert sidecar["image"] == "hub.omnitrustregistry.com/ilm-private/time-quality-monitor:1.0.0"
    assert sidecar["ports"] == [{"containerPort": 8082}]
    assert (
        sidecar["readinessProbe"]["httpGet"]
        == {"path": "/health", "port": 8082, "scheme": "HTTP"}
        == sidecar["livenessProbe"]["httpGet"]
    )
    env = env_of(sidecar)
    assert env["LISTEN_PORT"] == "8082" and env["BROKER_VIRTUAL_HOST"] == "ilm"
    assert env["BROKER_HOST"] == {"configMapKeyRef": {"name": "messaging-configmap", "key": "messaging.host"}}
    assert env["BROKER_PASSWORD"] == {"secretKeyRef": {"name": "monitor-user", "key": "pw"}}
    assert env["BROKER_USERNAME"] == {"secretKeyRef": {"name": "monitor-user", "key": "username"}}
