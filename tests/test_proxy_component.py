"""The proxy: the operator's Proxy builder cases as a table, the samples against the schema, and
the config token (env only, reserved names, checksum, missing Secret or key) under mocks."""

from __future__ import annotations

import base64
import json
import time
from typing import Any

import pytest

from components import InvalidArgumentsError
from components.app.program import connectors_program, parse_proxies
from components.args.proxy_spec import ProxyArgs, ProxyEntry
from components.render.proxy import render_proxy
from tests.support.proxies import TOKEN_VALUE, operator_proxy_objects, stack_proxies, token_reader

from .support.mocks import StaticReader, run
from .support.schema import assert_valid

PROXY_STACKS = ["proxy-minimal", "proxy-full"]
DEPLOYMENT = "kubernetes:apps/v1:Deployment"


def proxy(**spec: Any) -> ProxyArgs:
    return ProxyArgs.model_validate(
        {"name": "dc-east", "namespace": "ilm", "configTokenSecretRef": {"name": "dc-east-config"}, **spec}
    )


def main_container(rendered) -> dict[str, Any]:
    return rendered.deployment["spec"]["template"]["spec"]["containers"][0]


def env_named(container: dict[str, Any], name: str) -> list[dict[str, Any]]:
    return [e for e in container.get("env", []) if e["name"] == name]


def pod(r) -> dict[str, Any]:
    return r.deployment["spec"]["template"]["spec"]


def security(r) -> dict[str, Any]:
    return main_container(r)["securityContext"]


def secret_key(r, name: str) -> list[dict[str, Any]]:
    return [e["valueFrom"]["secretKeyRef"] for e in env_named(main_container(r), name)]


# The operator's Proxy builder tests, one row each: (case, spec, what is picked from the
# rendered objects, what it must be): a failure shows both.
CASES = [
    (
        "token env wiring",
        {},
        lambda r: (secret_key(r, "PROXY_CONFIG_TOKEN"), secret_key(r, "PROXY_TOKEN_SIGNING_KEY")),
        (
            [{"name": "dc-east-config", "key": "configToken"}],
            [{"name": "dc-east-config", "key": "tokenSigningKey", "optional": True}],
        ),
    ),
    (
        "custom keys and user env",
        {
            "configTokenSecretRef": {"name": "dc-east-config", "tokenKey": "tok"},
            "env": [{"name": "HTTPS_PROXY", "value": "http://egress:3128"}],
        },
        lambda r: (secret_key(r, "PROXY_CONFIG_TOKEN")[0]["key"], env_named(main_container(r), "HTTPS_PROXY")),
        ("tok", [{"name": "HTTPS_PROXY", "value": "http://egress:3128"}]),
    ),
    ("image from the BOM", {}, lambda r: r.current_image, "hub.omnitrustregistry.com/ilm/proxy:1.0.0"),
    (
        "image override",
        {"image": {"registry": "example.com", "repository": "custom", "name": "proxy", "tag": "9.9.9"}},
        lambda r: main_container(r)["image"],
        "example.com/custom/proxy:9.9.9",
    ),
    (
        "probe defaults on port 8080",
        {},
        lambda r: [main_container(r)[p]["httpGet"] for p in ("livenessProbe", "readinessProbe", "startupProbe")],
        [{"path": "/health", "port": 8080}, {"path": "/ready", "port": 8080}, {"path": "/health", "port": 8080}],
    ),
    (
        "restricted container security context",
        {},
        lambda r: {k: v for k, v in security(r).items() if k != "readOnlyRootFilesystem"},
        {
            "runAsNonRoot": True,
            "allowPrivilegeEscalation": False,
            "privileged": False,
            "capabilities": {"drop": ["ALL"]},
            "seccompProfile": {"type": "RuntimeDefault"},
        },
    ),
    (
        "checksum and pod metadata, operator labels win",
        {"podAnnotations": {"vault.example/inject": "true"}, "podLabels": {"team": "edge", "app.kubernetes.io/name": "spoofed"}},
        lambda r: (
            r.deployment["spec"]["template"]["metadata"]["annotations"]["vault.example/inject"],
            r.deployment["spec"]["template"]["metadata"]["labels"]["team"],
            r.deployment["spec"]["template"]["metadata"]["labels"]["app.kubernetes.io/name"],
            pod(r)["serviceAccountName"],
        ),
        ("true", "edge", "dc-east", "dc-east"),
    ),
    (
        "reserved env cannot be overridden",
        {
            "env": [
                {"name": "PROXY_CONFIG_TOKEN", "value": "attacker"},
                {"name": "PROXY_TOKEN_SIGNING_KEY", "value": "attacker"},
                {"name": "HTTPS_PROXY", "value": "x"},
            ]
        },
        lambda r: [(e["name"], "value" in e) for e in main_container(r)["env"]],
        [("HTTPS_PROXY", True), ("PROXY_CONFIG_TOKEN", False), ("PROXY_TOKEN_SIGNING_KEY", False)],
    ),
    (
        "pod-level security context",
        {},
        lambda r: pod(r)["securityContext"],
        {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
    ),
    (
        "both ports",
        {},
        lambda r: main_container(r)["ports"],
        [{"name": "http", "containerPort": 8080}, {"name": "api", "containerPort": 8081}],
    ),
    (
        "secret ref env and volume",
        {
            "secretRefs": [
                {"name": "ca-bundle", "type": "volume", "mountPath": "/etc/ssl/corp"},
                {"name": "extra", "type": "env", "keys": [{"secretKey": "info", "envVar": "BROKER_CA_INFO"}]},
            ]
        },
        lambda r: (
            secret_key(r, "BROKER_CA_INFO")[0]["name"],
            pod(r)["volumes"],
            [m["mountPath"] for m in main_container(r)["volumeMounts"]],
        ),
        ("extra", [{"name": "secret-ca-bundle", "secret": {"secretName": "ca-bundle"}}], ["/etc/ssl/corp"]),
    ),
    (
        "a secret ref cannot remap the reserved token env",
        {"secretRefs": [{"name": "evil", "type": "env", "keys": [{"secretKey": "tok", "envVar": "PROXY_CONFIG_TOKEN"}]}]},
        lambda r: [ref["name"] for ref in secret_key(r, "PROXY_CONFIG_TOKEN")],
        ["dc-east-config"],
    ),
    (
        "config map ref and ephemeral volume",
        {
            "configMapRefs": [{"name": "extra-cm", "type": "volume", "mountPath": "/etc/proxy/extra"}],
            "volumes": [{"name": "scratch", "mountPath": "/tmp"}],
        },
        lambda r: (
            [v["name"] for v in pod(r)["volumes"]],
            pod(r)["volumes"][1]["emptyDir"],
            main_container(r)["volumeMounts"][1]["mountPath"],
        ),
        (["configmap-extra-cm", "scratch"], {}, "/tmp"),
    ),
    (
        "read-only root is honoured, the rest stays hardened",
        {"securityContext": {"readOnlyRootFilesystem": False}},
        lambda r: (security(r)["readOnlyRootFilesystem"], security(r)["runAsNonRoot"]),
        (False, True),
    ),
    (
        "scheduling and grace period",
        {
            "terminationGracePeriodSeconds": 120,
            "nodeSelector": {"network-zone": "egress"},
            "tolerations": [{"key": "egress", "operator": "Exists"}],
        },
        lambda r: (pod(r)["terminationGracePeriodSeconds"], pod(r)["nodeSelector"], pod(r)["tolerations"]),
        (120, {"network-zone": "egress"}, [{"key": "egress", "operator": "Exists"}]),
    ),
    (
        "sidecars, init containers, affinity and service account",
        {
            "affinity": {"podAntiAffinity": {}},
            "initContainers": [{"name": "wait-broker-dns", "image": "busybox"}],
            "sidecars": [{"name": "log-shipper", "image": "fluent-bit:3", "securityContext": {"privileged": True}}],
            "serviceAccount": {
                "name": "egress-identity",
                "annotations": {"eks.amazonaws.com/role-arn": "arn:aws:iam::1:role/egress"},
            },
        },
        lambda r: (
            pod(r)["affinity"],
            pod(r)["serviceAccountName"],
            pod(r)["initContainers"][0]["securityContext"]["runAsNonRoot"],
            pod(r)["containers"][1]["securityContext"]["privileged"],
            r.service_account["metadata"]["name"],
            r.service_account["metadata"]["annotations"],
        ),
        (
            {"podAntiAffinity": {}},
            "egress-identity",
            True,
            False,
            "egress-identity",
            {"eks.amazonaws.com/role-arn": "arn:aws:iam::1:role/egress"},
        ),
    ),
    (
        "fixed two-port Service, ClusterIP",
        {},
        lambda r: (r.service["spec"]["type"], r.service["spec"]["ports"]),
        (
            "ClusterIP",
            [
                {"name": "http", "port": 8080, "targetPort": 8080, "protocol": "TCP"},
                {"name": "api", "port": 8081, "targetPort": 8081, "protocol": "TCP"},
            ],
        ),
    ),
    (
        "network policy on both ports, no operator peer",
        {},
        lambda r: r.network_policy["spec"]["ingress"],
        [{"from": [{"podSelector": {}}], "ports": [{"protocol": "TCP", "port": 8080}, {"protocol": "TCP", "port": 8081}]}],
    ),
    (
        "service monitor at /metrics, user labels win",
        {
            "metrics": {
                "enabled": True,
                "serviceMonitor": {"enabled": True, "labels": {"release": "prometheus", "app.kubernetes.io/managed-by": "prom"}},
            }
        },
        lambda r: (
            r.service_monitor["spec"]["endpoints"],
            r.service_monitor["metadata"]["labels"]["app.kubernetes.io/managed-by"],
        ),
        ([{"port": "http", "path": "/metrics"}], "prom"),
    ),
    (
        "no strategy, no default anti-affinity",
        {"replicas": 3},
        lambda r: ("strategy" in r.deployment["spec"], "affinity" in pod(r)),
        (False, False),
    ),
    (
        "proxy labels and selector",
        {},
        lambda r: r.deployment["spec"]["selector"]["matchLabels"],
        {"app.kubernetes.io/name": "dc-east", "app.kubernetes.io/component": "proxy", "otilm.com/proxy": "dc-east"},
    ),
    (
        "pdb top level",
        {"podDisruptionBudget": {"enabled": True}},
        lambda r: r.pod_disruption_budget["spec"]["minAvailable"],
        1,
    ),
]


@pytest.mark.parametrize(("case", "spec", "pick", "expected"), CASES, ids=[c[0] for c in CASES])
def test_the_operators_proxy_builder_cases(case, spec, pick, expected):
    rendered = render_proxy(proxy(**spec), "deadbeef")
    assert pick(rendered) == expected
    assert rendered.deployment["spec"]["template"]["metadata"]["annotations"]["otilm.com/config-checksum"] == "deadbeef"


@pytest.mark.parametrize("stack", PROXY_STACKS)
def test_every_object_of_the_proxy_samples_is_schema_valid(stack):
    (entry,) = parse_proxies(stack_proxies(stack))
    for obj in render_proxy(entry.to_args()).objects():
        assert_valid(obj)


def test_the_full_sample_renders_every_kind():
    (entry,) = parse_proxies(stack_proxies("proxy-full"))
    kinds = sorted(o["kind"] for o in render_proxy(entry.to_args()).objects())
    assert kinds == ["Deployment", "NetworkPolicy", "PodDisruptionBudget", "Service", "ServiceAccount", "ServiceMonitor"]


def proxies_config(**spec: Any) -> dict[str, Any]:
    return {
        "proxies": [{"name": "dc-east", "namespace": "ilm", "spec": {"configTokenSecretRef": {"name": "dc-east-config"}, **spec}}]
    }


def test_the_token_is_referenced_never_copied_and_its_secret_is_in_the_checksum():
    first = run(lambda: connectors_program(token_reader()), proxies_config())
    second = run(lambda: connectors_program(token_reader("another-token")), proxies_config())
    everything = json.dumps([r.inputs for r in first.resources])
    assert TOKEN_VALUE not in everything
    annotation = lambda m: m.one(DEPLOYMENT).inputs["spec"]["template"]["metadata"]["annotations"]["otilm.com/config-checksum"]  # noqa: E731
    assert annotation(first) != annotation(second), "a new token rolls the pods"
    assert "spec" in first.one(DEPLOYMENT).secret_paths, "the checksum of a Secret is secret"
    assert first.one("connectors:index:Proxy").name == "dc-east"


@pytest.mark.parametrize(
    ("reader", "fragment"),
    [
        (StaticReader(), 'Secret "dc-east-config" not found in namespace "ilm"'),
        (
            token_reader(key="other"),
            'Secret "dc-east-config" in namespace "ilm" has no key "configToken" (configTokenSecretRef.tokenKey)',
        ),
    ],
)
def test_a_missing_token_secret_or_key_stops_before_anything_exists(reader, fragment):
    with pytest.raises(InvalidArgumentsError) as caught:
        run(lambda: connectors_program(reader), proxies_config())
    assert fragment in str(caught.value) and "proxies[0] (dc-east)" in str(caught.value)


def test_a_missing_signing_key_is_fine():
    mocks = run(lambda: connectors_program(token_reader()), proxies_config())
    assert mocks.one(DEPLOYMENT)


def test_an_expired_token_is_a_warning_never_an_error(caplog):
    header, claims = (
        base64.urlsafe_b64encode(json.dumps(v).encode()).decode().rstrip("=")
        for v in ({"alg": "none"}, {"exp": int(time.time()) - 60})
    )
    expired = f"{header}.{claims}.sig"
    mocks = run(lambda: connectors_program(token_reader(expired)), proxies_config())
    assert mocks.one(DEPLOYMENT)
    said = caplog.text
    assert "config token of proxy 'dc-east' expired at" in said and expired not in said


def test_proxies_of_the_wrong_type_and_names_taken_by_a_connector_are_errors():
    with pytest.raises(InvalidArgumentsError, match=r"proxies: must be a list of proxies \(got a map of 0 keys\)"):
        run(lambda: connectors_program(token_reader()), {"proxies": {}})
    connector = {"name": "dc-east", "namespace": "ilm", "spec": {"image": {"repository": "r", "tag": "1"}}}
    with pytest.raises(
        InvalidArgumentsError, match=r"proxies\[0\] \(dc-east\): the name is taken in its namespace by connectors\[0\]"
    ):
        run(lambda: connectors_program(token_reader()), {**proxies_config(), "connectors": [connector]})


def test_bad_proxy_input_names_the_field():
    with pytest.raises(InvalidArgumentsError) as caught:
        parse_proxies([{"name": "dc-east", "namespace": "ilm", "spec": {"configTokenSecretRef": {}, "service": {"port": 1}}}])
    assert caught.value.problems == [
        "proxies[0].spec.configTokenSecretRef.name: required field is missing",
        "proxies[0].spec.service: unknown field (check its spelling)",
    ]


def test_from_operator_keeps_the_operators_pod_template():
    entry = ProxyEntry.model_validate(
        {"name": "dc-east", "namespace": "ilm", "fromOperator": True, "spec": {"configTokenSecretRef": {"name": "c"}}}
    )
    rendered = render_proxy(entry.to_args())
    assert rendered.deployment["spec"]["template"]["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "ilm-operator"
    assert "privileged" not in main_container(rendered)["securityContext"]
    assert rendered.deployment["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "pulumi-connector"


def test_from_operator_renders_the_operators_proxy_pod_template_exactly():
    (raw,) = stack_proxies("proxy-minimal")
    taken_over = render_proxy(ProxyEntry.model_validate({**raw, "fromOperator": True}).to_args(), "CHECKSUM")
    operator = operator_proxy_objects()
    assert taken_over.deployment["spec"] == operator["Deployment"]["spec"]
    assert taken_over.service["spec"] == operator["Service"]["spec"]
    assert taken_over.network_policy["spec"] == operator["NetworkPolicy"]["spec"]
    ours = render_proxy(ProxyEntry.model_validate(raw).to_args(), "CHECKSUM")
    assert ours.deployment["spec"]["template"] != operator["Deployment"]["spec"]["template"]
