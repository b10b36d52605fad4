"""``args.platform_spec``: the operator's ``Platform`` as argument models. Every variant of its
golden tests validates, the CRD's defaults fill what a spec leaves out, and every rule names the
field by its path and never repeats a value."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from components.args.base import validated
from components.args.platform_spec import PlatformArgs, PlatformEntry
from components.args.problems import InvalidArgumentsError
from components.render.platform import render_platform
from tests.support.junk import CANARY_NUMBER, CANARY_TEXT, canary_variants, junk, paths_of, planted
from tests.support.samples import DATA

VARIANTS = DATA / "operator-platform" / "variants"
PLANTED = "zq7-planted"
"""Put in every bad spec (as a name, a host, a key): no message may repeat it."""
PLANTED_NUMBER = 4242
STORAGE = {"size": "1Gi"}


def variant(name: str) -> dict[str, Any]:
    """A variant's Platform as a stack entry: its metadata and its spec."""
    manifest = yaml.safe_load((VARIANTS / f"{name}.yaml").read_text())
    return {**manifest["metadata"], "spec": manifest["spec"]}


def merged(base: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """``base`` with ``changes`` merged in, maps into maps; a ``None`` removes the key."""
    result = copy.deepcopy(base)
    for key, value in changes.items():
        if value is None:
            result.pop(key, None)
        elif isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = merged(result[key], value)
        else:
            result[key] = value
    return result


def minimal(**changes: Any) -> dict[str, Any]:
    """The minimal variant, its spec changed by ``changes``, a planted name in its database's."""
    entry = variant("minimal")
    entry["spec"] = merged(entry["spec"], {"database": {"name": PLANTED}, **changes})
    return entry


def problems_of(raw: dict[str, Any]) -> list[str]:
    with pytest.raises(InvalidArgumentsError) as caught:
        validated(PlatformEntry, raw, "platforms[0]", "invalid platform arguments")
    return caught.value.problems


EXTERNAL_ADMIN = {"enabled": True, "certificate": {"enabled": False}}
PASSWORD = {"enabled": True, "secretRef": PLANTED}
DEPLOY = {"mode": "deploy", "deploy": {"bootstrapSecretRef": PLANTED}}
QUEUE_ARGUMENTS = [{"name": PLANTED, "value": 1}, {"name": PLANTED, "value": 2}]
TLS = {"enabled": True, "host": PLANTED}


@pytest.mark.parametrize(
    ("spec", "path", "fragment"),
    [
        ({"database": {"host": None}}, "spec.database", "host: required when mode is external"),
        ({"database": {"credentials": None}}, "spec.database", "credentials.secretRef: required when mode is external"),
        ({"database": {"mode": "managed"}}, "spec.database", "managed: required when mode is managed"),
        ({"database": {"host": f"{PLANTED} !"}}, "spec.database.host", "must be a host name or IP address"),
        ({"database": {"port": "5432"}}, "spec.database.port", "valid integer"),
        ({"database": {"managed": {"storage": {"size": PLANTED}}}}, "spec.database.managed.storage.size", "quantity"),
        ({"messaging": {"host": None}}, "spec.messaging", "host: required when mode is external"),
        ({"messaging": {"mode": "managed", "host": PLANTED}}, "spec.messaging", "managed: required when mode is managed"),
        (
            {"messaging": {"mode": "managed", "managed": {"storage": STORAGE, "drainTimeout": PLANTED}}},
            "spec.messaging.managed",
            "drainTimeout: must be a Go duration",
        ),
        ({"messaging": {"migrationAcknowledgedForVersion": PLANTED}}, "spec.messaging.migrationAcknowledgedForVersion", "2.19.0"),
        ({"keycloak": {"mode": "managed", "realm": PLANTED}}, "spec.keycloak", "managed: required when mode is managed"),
        ({"keycloak": {"realm": f"{PLANTED}/x"}}, "spec.keycloak.realm", "must be a realm name"),
        ({"provisioning": {"mode": "deploy"}}, "spec.provisioning", "deploy: required when mode is deploy"),
        ({"provisioning": DEPLOY, "messaging": {"brokerType": "servicebus"}}, "spec", "messaging.brokerType: provisioning.mode"),
        (
            {"provisioning": merged(DEPLOY, {"deploy": {"queueArguments": QUEUE_ARGUMENTS}})},
            "spec.provisioning.deploy.queueArguments",
            "item 1 repeats the name of item 0",
        ),
        (
            {"provisioning": merged(DEPLOY, {"deploy": {"queueArguments": [{"name": PLANTED, "value": None}]}})},
            "spec.provisioning.deploy.queueArguments[0].value",
            "other than null",
        ),
        (
            {"provisioning": merged(DEPLOY, {"deploy": {"routingKey": f"{PLANTED} x"}})},
            "spec.provisioning.deploy.routingKey",
            "routing key",
        ),
        ({"edge": {"enabled": True, "className": PLANTED}}, "spec", "edge.host: an enabled edge needs a public host"),
        ({"edge": {"type": "gatewayAPI", "host": PLANTED}}, "spec.edge", "gatewayAPI.gatewayClassName or gatewayAPI.parentRef"),
        ({"edge": {**TLS, "tls": {"source": "letsEncrypt"}}}, "spec.edge.tls", "letsEncrypt.email: required"),
        ({"edge": {**TLS, "tls": {"source": "issuerRef"}}}, "spec.edge.tls", "issuerRef: required when source is issuerRef"),
        ({"edge": {**TLS, "tls": {"source": "secret"}}}, "spec.edge.tls", "secretRef: required when source is secret"),
        (
            {"edge": {**TLS, "tls": {"source": "issuerRef", "issuerRef": {"name": "ca", "kind": PLANTED}}}},
            "spec.edge.tls.issuerRef",
            "kind: must be Issuer or ClusterIssuer",
        ),
        ({"edge": {**TLS, "tls": {"source": "vault"}}}, "spec.edge.tls.source", "'letsEncrypt'"),
        ({"core": {"replicas": 2, "instanceId": PLANTED_NUMBER}}, "spec.core", "instanceId: needs a single-replica core"),
        (
            {"core": {"instanceId": PLANTED_NUMBER, "autoscaling": {"maxReplicas": 3}}},
            "spec.core",
            "instanceId: cannot be combined with autoscaling",
        ),
        ({"core": {"instanceId": 70000}}, "spec.core.instanceId", "less than or equal to 65535"),
        (
            {"core": {"replicas": None, "instanceId": PLANTED_NUMBER}, "highAvailability": {"enabled": True}},
            "spec",
            "core.replicas: core.instanceId with highAvailability.enabled",
        ),
        (
            {"core": {"timeQualityMonitor": {"enabled": True, "credentials": {"usernameKey": PLANTED}}}},
            "spec",
            "core.timeQualityMonitor.credentials.secretRef: required when messaging.mode is external",
        ),
        ({"core": {"securityContext": {"runAsNonRoot": False}}}, "spec.core.securityContext", "runAsNonRoot: false is refused"),
        ({"gateway": {"autoscaling": {"minReplicas": 5, "maxReplicas": 2}}}, "spec.gateway.autoscaling", "must not be below"),
        ({"registerAdmin": {"password": {"enabled": True}}}, "spec.registerAdmin", "password.secretRef: required"),
        ({"registerAdmin": EXTERNAL_ADMIN}, "spec.registerAdmin", "certificate.enabled: the bootstrap needs a method"),
        ({"registerAdmin": {"password": PASSWORD}}, "spec", "registerAdmin.password: needs keycloak.mode managed"),
        (
            {"registerAdmin": {"certificate": {"secretRef": None, "certKey": PLANTED}}},
            "spec.registerAdmin.certificate",
            "secretRef: required when source is provided",
        ),
        ({"deletionPolicy": PLANTED}, "spec.deletionPolicy", "'Retain' or 'Delete'"),
        ({"version": PLANTED}, "spec.version", "'2.19.0'"),
        ({"databse": {"name": PLANTED}}, "spec.databse", "unknown field"),
        ({"common": {"sidecars": [{"name": PLANTED}]}}, "spec.common", "sidecars[0].image is required"),
    ],
)
def test_each_rule_names_the_field_and_never_the_value(spec, path, fragment):
    problems = problems_of(minimal(**spec))
    line = next((p for p in problems if p.startswith(f"platforms[0].{path}: ")), None)
    assert line is not None, problems
    assert fragment in line
    message = "\n".join(problems)
    assert PLANTED not in message and str(PLANTED_NUMBER) not in message and "70000" not in message


@pytest.mark.parametrize("name", sorted(path.stem for path in VARIANTS.glob("*.yaml")))
def test_every_variant_of_the_operator_validates(name):
    entry = validated(PlatformEntry, variant(name), "platforms[0]")
    args = entry.to_args()
    assert isinstance(args, PlatformArgs)
    assert (args.name, args.namespace) == ("ilm", "ilm")
    assert args.database == entry.spec.database


def test_the_crd_defaults_fill_the_minimal_variant():
    spec = validated(PlatformEntry, variant("minimal")).spec
    assert spec.version is None  # the operator resolves it: the running version, or 2.19.0 for a new platform
    assert (spec.database.port, spec.messaging.port, spec.messaging.broker_type) == (5432, 5672, "rabbitmq")
    assert (spec.messaging.management.expose, spec.messaging.time_quality.enabled) == (False, False)
    assert spec.common.logging.level == "INFO" and spec.common.image is None and not spec.common.proxy.enabled
    assert (spec.keycloak, spec.edge, spec.high_availability, spec.network_policy) == (None, None, None, None)
    assert spec.provisioning is not None and spec.provisioning.mode == "external"
    assert spec.core.workload_type == "Deployment" and spec.core.instance_id is None and spec.core.service is None
    assert spec.auth.sync_policy == "create-only" and not spec.auth.create.create_unknown_users
    url = spec.fe_administrator.url
    assert (url.api, url.login, url.logout) == ("/api", "/login", "/logout")
    assert not spec.utils.enabled and not spec.gateway.cors.enabled and spec.gateway.trusted_ips == []
    admin = spec.register_admin
    assert admin is not None and admin.certificate is not None and admin.password is None
    assert (admin.certificate.enabled, admin.certificate.source) == (True, "provided")
    assert spec.deletion_policy == "Retain"


def test_defaults_inside_a_given_block():
    raw = minimal(
        keycloak={"mode": "managed", "managed": {}},
        messaging={"mode": "managed", "managed": {"storage": {**STORAGE, "storageClass": ""}}},
        edge={"enabled": True, "host": "ilm.example.com", "tls": {"issuerRef": {"name": "ca"}}},
        core={"image": {"tag": "2.19.0"}, "service": {}, "metrics": {"enabled": True}},
    )
    spec = validated(PlatformEntry, raw).spec
    assert spec.keycloak is not None and spec.keycloak.realm == "ilm"
    assert spec.keycloak.managed is not None and spec.keycloak.managed.instances == 1
    assert spec.messaging.managed is not None and spec.messaging.managed.drain_timeout == "15m"
    assert spec.messaging.managed.storage.storage_class == ""  # the CRD's *string: no class, a pre-provisioned volume
    assert spec.edge is not None and spec.edge.type == "ingress" and spec.edge.tls is not None
    assert spec.edge.tls.source == "internal" and spec.edge.tls.issuer_ref is not None
    assert (spec.edge.tls.issuer_ref.kind, spec.edge.tls.issuer_ref.group) == ("Issuer", "cert-manager.io")
    assert spec.core.image is not None and spec.core.image.pull_policy == "IfNotPresent"
    assert spec.core.service is not None and (spec.core.service.port, spec.core.service.type) == (8080, "ClusterIP")
    assert spec.core.metrics is not None and (spec.core.metrics.path, spec.core.metrics.port) == ("/v1/metrics", 8080)


def test_the_operators_spellings_and_an_external_issuer():
    raw = minimal(
        provisioning={"apiURL": "https://prov.example.com"},
        gateway={"autoscaling": {"maxReplicas": 3, "targetCPUUtilization": 70}},
        edge={"type": "gatewayAPI", "gatewayAPI": {"parentRef": {"name": "edge"}}, "host": "ilm.example.com"},
        registerAdmin={
            "certificate": {
                "source": "generated",
                "issuerRef": {"name": "pca", "kind": "AWSPCAClusterIssuer", "group": "awspca.cert-manager.io"},
            }
        },
    )
    spec = validated(PlatformEntry, raw).spec
    assert spec.provisioning is not None and spec.provisioning.api_url == "https://prov.example.com"
    assert spec.gateway.autoscaling is not None and spec.gateway.autoscaling.target_cpu_utilization == 70
    assert spec.edge is not None and spec.edge.gateway_api is not None


def test_python_callers_use_snake_case_and_get_the_same_rules():
    database = {"host": "db", "name": "ilm", "credentials": {"secret_ref": "db"}}
    messaging = {"host": "mq", "credentials": {"secret_ref": "mq"}}
    args = PlatformArgs(name="ilm", database=database, messaging=messaging, core={"instance_id": 7})
    assert args.namespace == "default" and args.core.instance_id == 7
    with pytest.raises(InvalidArgumentsError, match=r"database: host, name and credentials\.secretRef: required"):
        PlatformArgs(name="ilm", database={}, messaging=messaging)


def rich() -> dict[str, Any]:
    """A platform that sets most of what a spec can: the edge-internal variant with the
    high-availability profile, autoscaling, metrics, probes and common's customisation."""
    entry = variant("edge-internal")
    entry["spec"] = merged(
        entry["spec"],
        {
            "highAvailability": {"enabled": True},
            "additionalEnv": [{"name": "OTEL_SDK_DISABLED", "value": "true"}],
            "core": {
                "workloadType": "StatefulSet",
                "metrics": {"enabled": True, "serviceMonitor": {"enabled": True, "interval": "30s"}},
            },
            "scheduler": {"autoscaling": {"maxReplicas": 3, "targetCPUUtilization": 70}, "env": [{"name": "A", "value": "b"}]},
            "auth": {"podDisruptionBudget": {"enabled": True, "maxUnavailable": "25%"}, "probes": {"readiness": {"path": "/r"}}},
            "gateway": {"cors": {"enabled": True, "origins": ["https://a.example"]}, "trustedIps": ["10.0.0.0/8"]},
            "common": {
                "additionalPorts": [{"name": "debug", "containerPort": 5005}],
                "additionalEnvFrom": {"secrets": ["s"], "configMaps": ["c"]},
                "volumes": [{"name": "v", "emptyDir": {}}],
                "volumeMounts": [{"name": "v", "mountPath": "/v"}],
                "podLabels": {"team": "pki"},
            },
        },
    )
    return entry


def parsed_or_refused(raw: Any) -> str:
    """What a user is told of ``raw``: nothing when it validates (its objects then render), else
    the problems; any other exception fails the test."""
    try:
        args = validated(PlatformEntry, raw, "platforms[0]", "invalid platform arguments").to_args()
    except InvalidArgumentsError as error:
        assert all(len(p) < 400 for p in error.problems), error.problems
        return str(error)
    assert render_platform(args)
    return ""


def test_the_rich_platform_validates_and_renders():
    assert parsed_or_refused(rich()) == ""


def test_a_canary_in_any_field_of_a_platform_never_appears_in_a_message():
    checked = 0
    for path, canary in canary_variants(rich()):
        said = parsed_or_refused(planted(rich(), path, canary))
        assert CANARY_TEXT not in said and str(CANARY_NUMBER) not in said, f"{'.'.join(map(str, path))}: {said[:500]}"
        checked += 1
    assert checked > 300


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_junk_anywhere_in_a_platform_is_refused_cleanly_or_rendered(data):
    entry = rich()
    path = data.draw(st.sampled_from(list(paths_of(entry))))
    parsed_or_refused(planted(entry, path, data.draw(junk)))
