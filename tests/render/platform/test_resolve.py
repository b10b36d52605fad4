"""The layering every platform workload shares: its image per field, the platform's and the
component's settings on the operator's wiring, in the operator's order."""

from __future__ import annotations

import pytest

from components.args.platform_blocks import ComponentImageArgs
from components.render.platform import render_platform
from components.render.platform.resolve import image_of, platform_of

from ...support.operator_platform import args_with, container, env_of, find


@pytest.mark.parametrize(
    ("common", "own", "key", "expected"),
    [
        (None, None, "core", "hub.omnitrustregistry.com/ilm/core:2.19.0"),
        (None, None, "api-gateway", "hub.omnitrustregistry.com/ilm/kong:3.9.1"),
        (None, None, "time-quality-monitor", "hub.omnitrustregistry.com/ilm-private/time-quality-monitor:1.0.0"),
        ({"registry": "mirror.example"}, None, "core", "mirror.example/ilm/core:2.19.0"),
        ({"registry": "mirror.example"}, {"registry": "own.example"}, "core", "own.example/ilm/core:2.19.0"),
        ({"repository": "team"}, None, "core", "hub.omnitrustregistry.com/team/core:2.19.0"),
        ({"repository": "ilm"}, None, "time-quality-monitor", "hub.omnitrustregistry.com/ilm-private/time-quality-monitor:1.0.0"),
        ({"repository": "team"}, None, "time-quality-monitor", "hub.omnitrustregistry.com/team/time-quality-monitor:1.0.0"),
        ({"tag": "9.9.9"}, None, "core", "hub.omnitrustregistry.com/ilm/core:9.9.9"),
        (None, {"digest": "sha256:" + "a" * 64}, "core", "hub.omnitrustregistry.com/ilm/core@sha256:" + "a" * 64),
        (None, {"name": "my-core", "tag": "1"}, "core", "hub.omnitrustregistry.com/ilm/my-core:1"),
    ],
)
def test_an_image_takes_each_field_from_the_component_then_common_then_the_bundle(common, own, key, expected):
    spec = {"image": common} if common else {}
    args = args_with(common={"trustedCertificates": {"secretRef": "trusted-certificates"}, **spec})
    reference, policy = image_of(platform_of(args), key, ComponentImageArgs.model_validate(own) if own else None)
    assert reference == expected
    assert policy == "IfNotPresent"


def test_the_version_selects_the_bundle_and_its_names():
    objects = render_platform(args_with(version="2.18.0"))
    core = find(objects, "Deployment", "core")
    assert container(core, "core")["image"].endswith("/core:2.18.0")
    env = env_of(container(core, "core"))
    assert env["LOGGING_LEVEL_COM_CZERTAINLY"] == "INFO" and "LOGGING_LEVEL_COM_OTILM" not in env
    assert "MESSAGING_TIME_QUALITY_ENABLED" not in env
    assert core["spec"]["template"]["metadata"]["annotations"]["otilm.com/platform-version"] == "2.18.0"
    assert env_of(container(find(objects, "Deployment", "scheduler"), "scheduler"))["LOGGING_LEVEL_COM_CZERTAINLY"] == "INFO"


def test_a_decided_version_wins_over_the_spec():
    objects = render_platform(args_with(), version="2.20.0")
    assert container(find(objects, "Deployment", "core"), "core")["image"].endswith("/core:2.20.0")


def test_platform_env_comes_first_and_a_components_own_env_last():
    objects = render_platform(
        args_with(
            additionalEnv=[{"name": "SHARED", "value": "1"}, {"name": "LOGGING_LEVEL_COM_OTILM", "value": "WARN"}],
            core={"env": [{"name": "HEADER_NAME", "value": "x-cert"}, {"name": "EMPTY"}]},
        )
    )
    env = container(find(objects, "Deployment", "core"), "core")["env"]
    names = [e["name"] for e in env]
    assert names[:2] == ["SHARED", "LOGGING_LEVEL_COM_OTILM"]
    # the component's own variables follow the plain ones, before the references (the last of a name wins)
    own = names.index("EMPTY")
    assert env[own - 1 : own + 2] == [{"name": "HEADER_NAME", "value": "x-cert"}, {"name": "EMPTY"}, env[own + 1]]
    assert names[own + 1] == "JDBC_USERNAME" and names[-1] == "BROKER_PORT"
    auth_env = env_of(container(find(objects, "Deployment", "auth"), "auth"))
    assert auth_env["SHARED"] == "1"


def test_a_components_settings_layer_on_its_base_and_on_common():
    objects = render_platform(
        args_with(
            common={
                "podLabels": {"team": "a", "tier": "x"},
                "tolerations": [{"key": "shared", "operator": "Exists"}],
                "nodeSelector": {"zone": "a"},
                "image": {"pullSecrets": ["shared-pull"]},
            },
            scheduler={
                "replicas": 3,
                "resources": {"limits": {"memory": "1Gi"}},
                "podLabels": {"tier": "y"},
                "tolerations": [{"key": "own", "operator": "Exists"}],
                "nodeSelector": {"disk": "ssd"},
                "image": {"pullSecrets": ["own-pull", "shared-pull"]},
                "probes": {"readiness": {"path": ""}, "liveness": {"path": "/alive", "periodSeconds": 7}},
                "service": {"port": 9090, "type": "NodePort"},
                "serviceAccount": {"name": "sched-sa", "annotations": {"iam": "role"}},
                "volumes": [{"name": "scratch", "mountPath": "/scratch", "emptyDir": {"medium": "Memory"}}],
            },
        )
    )
    deployment = find(objects, "Deployment", "scheduler")
    pod = deployment["spec"]["template"]
    main = container(deployment, "scheduler")
    assert deployment["spec"]["replicas"] == 3
    assert main["resources"] == {"limits": {"memory": "1Gi"}}
    assert pod["metadata"]["labels"]["tier"] == "y" and pod["metadata"]["labels"]["team"] == "a"
    assert pod["metadata"]["labels"]["app.kubernetes.io/name"] == "scheduler"
    assert [t["key"] for t in pod["spec"]["tolerations"]] == ["shared", "own"]
    assert pod["spec"]["nodeSelector"] == {"zone": "a", "disk": "ssd"}
    assert [s["name"] for s in pod["spec"]["imagePullSecrets"]] == ["shared-pull", "own-pull"]
    assert "readinessProbe" not in main
    assert main["livenessProbe"] == {"httpGet": {"path": "/alive", "port": 9090}, "periodSeconds": 7}
    assert main["ports"] == [{"name": "http", "containerPort": 9090}]
    service = find(objects, "Service", "scheduler")
    assert service["spec"]["type"] == "NodePort"
    assert service["spec"]["ports"] == [{"name": "http", "port": 9090, "targetPort": "http"}]
    assert pod["spec"]["serviceAccountName"] == "sched-sa"
    assert find(objects, "ServiceAccount", "sched-sa")["metadata"]["annotations"] == {"iam": "role"}
    assert {"name": "scratch", "emptyDir": {"medium": "Memory"}} in pod["spec"]["volumes"]
    assert {"name": "scratch", "mountPath": "/scratch"} in main["volumeMounts"]
    untouched = find(objects, "Deployment", "auth")
    assert untouched["spec"]["replicas"] == 1 and "tolerations" in untouched["spec"]["template"]["spec"]


SHARED_COMMON = {
    "initContainers": [{"name": "shared-init", "image": "busybox"}],
    "sidecars": [{"name": "shared-sidecar", "image": "busybox"}],
    "volumes": [{"name": "shared", "emptyDir": {}}],
    "volumeMounts": [{"name": "shared", "mountPath": "/shared"}],
    "additionalPorts": [{"name": "debug", "containerPort": 5005, "protocol": "TCP"}],
    "additionalEnvFrom": {"secrets": ["shared-secret"], "configMaps": ["shared-settings"]},
}


def test_commons_containers_volumes_ports_and_whole_objects_come_before_each_components_own():
    objects = render_platform(
        args_with(
            common={**SHARED_COMMON, "trustedCertificates": {"secretRef": "trusted-certificates"}},
            core={
                "replicas": 1,
                "sidecars": [{"name": "own-sidecar", "image": "busybox"}],
                "secretRefs": [{"name": "own", "type": "env"}],
            },
        )
    )
    pod = find(objects, "Deployment", "core")["spec"]["template"]["spec"]
    assert [c["name"] for c in pod["initContainers"]] == ["shared-init", "wait-for-auth"]
    assert [c["name"] for c in pod["containers"]] == ["shared-sidecar", "auth-opa", "own-sidecar", "core"]
    assert all(c["securityContext"]["allowPrivilegeEscalation"] is False for c in pod["initContainers"] + pod["containers"])
    assert pod["volumes"][0] == {"name": "shared", "emptyDir": {}}
    core = container(find(objects, "Deployment", "core"), "core")
    assert core["volumeMounts"][0] == {"name": "shared", "mountPath": "/shared"}
    assert core["envFrom"] == [
        {"secretRef": {"name": "shared-secret"}},
        {"configMapRef": {"name": "shared-settings"}},
        {"secretRef": {"name": "own"}},
    ]
    assert core["ports"] == [{"name": "http", "containerPort": 8080}, {"name": "debug", "containerPort": 5005, "protocol": "TCP"}]
    gateway = container(find(objects, "Deployment", "api-gateway"), "api-gateway")
    assert [p["name"] for p in gateway["ports"]] == ["consumer-http", "debug", "admin-http"]
    service_ports = find(objects, "Service", "api-gateway")["spec"]["ports"]
    assert "debug" not in [p["name"] for p in service_ports], "a container's further port is not the Service's"


def test_without_common_customisation_nothing_is_added():
    objects = render_platform(args_with())
    core = container(find(objects, "Deployment", "core"), "core")
    assert "envFrom" not in core and [p["name"] for p in core["ports"]] == ["http"]
