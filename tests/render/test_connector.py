"""Each contract rule, asserted on the objects the pure renderers return.

Property-based: any valid arguments render schema-valid objects; invalid ones name the field.

Every sample stack renders schema-valid objects, equal in substance to the operator sample."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from components import InvalidArgumentsError, validate_args
from components.args.connector_spec import ConnectorArgs, ConnectorEntry
from components.render.checksum import EMPTY_CHECKSUM
from components.render.connector import render_connector
from components.render.meta import labels as labels_of
from tests.support.samples import DATA, SAMPLE_STACKS, stack_connectors

from ..support.operator_objects import operator_objects
from ..support.schema import assert_valid
from ..support.workloads import RESTRICTED, SELECTOR


def render(base: dict[str, Any], **spec: Any):
    return render_connector(ConnectorArgs.model_validate({**base, **spec}))


def pod(r) -> dict[str, Any]:
    return r.deployment["spec"]["template"]["spec"]


def main(r) -> dict[str, Any]:
    return pod(r)["containers"][0]


def test_names_labels_and_selectors(minimal):
    r = render(minimal)
    for obj in r.objects():
        assert obj["metadata"]["name"] == "demo"
        assert obj["metadata"]["namespace"] == "ilm"
        assert obj["metadata"]["labels"] == {**SELECTOR, "app.kubernetes.io/managed-by": "pulumi-connector"}
    assert r.deployment["spec"]["selector"] == {"matchLabels": SELECTOR}
    assert r.service["spec"]["selector"] == SELECTOR
    assert r.network_policy["spec"]["podSelector"] == {"matchLabels": SELECTOR}
    assert r.endpoint == "http://demo.ilm.svc.cluster.local:8080"


def test_service_port_named_http_everywhere(minimal):
    r = render(minimal, service={"port": 9443, "type": "NodePort", "nodePort": 30443})
    assert main(r)["ports"] == [{"name": "http", "containerPort": 9443}]
    assert r.service["spec"] == {
        "type": "NodePort",
        "selector": SELECTOR,
        "ports": [{"name": "http", "port": 9443, "targetPort": 9443, "protocol": "TCP", "nodePort": 30443}],
    }


@pytest.mark.parametrize(
    ("probe", "path", "delay", "period", "threshold"),
    [
        ("livenessProbe", "/v2/health/liveness", 15, 10, 3),
        ("readinessProbe", "/v2/health/readiness", 5, 10, 3),
        ("startupProbe", "/v2/health/liveness", None, 10, 45),
    ],
)
def test_probe_defaults(minimal, probe, path, delay, period, threshold):
    rendered = main(render(minimal))[probe]
    expected = {"httpGet": {"path": path, "port": 8080}, "periodSeconds": period, "failureThreshold": threshold}
    if delay:
        expected["initialDelaySeconds"] = delay
    assert rendered == expected


def test_given_probe_used_as_given_and_empty_path_removes_it(minimal):
    r = render(minimal, probes={"liveness": {"path": "/hc", "periodSeconds": 7}, "startup": {"path": ""}})
    assert main(r)["livenessProbe"] == {"httpGet": {"path": "/hc", "port": 8080}, "periodSeconds": 7}
    assert "startupProbe" not in main(r)
    assert main(r)["readinessProbe"]["httpGet"]["path"] == "/v2/health/readiness"


def test_security_hardening_of_every_container(minimal):
    r = render(
        minimal,
        initContainers=[
            {
                "name": "init",
                "image": "busybox",
                "securityContext": {"runAsNonRoot": False, "runAsUser": 1000, "capabilities": {"add": ["NET_ADMIN"]}},
            }
        ],
        sidecars=[{"name": "side", "image": "vault", "args": ["agent"], "securityContext": {"privileged": True}}],
        securityContext={"readOnlyRootFilesystem": False, "fsGroup": 10001},
    )
    assert main(r)["securityContext"] == {**RESTRICTED, "readOnlyRootFilesystem": False}
    init = pod(r)["initContainers"][0]
    assert init["securityContext"] == {**RESTRICTED, "runAsUser": 1000}
    side = pod(r)["containers"][1]
    assert side["name"] == "side" and side["args"] == ["agent"]
    assert side["securityContext"] == RESTRICTED
    assert pod(r)["securityContext"] == {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}, "fsGroup": 10001}
    assert main(render(minimal))["securityContext"]["readOnlyRootFilesystem"] is True
    assert "runAsUser" not in pod(render(minimal))["securityContext"], "the image's user, unless given"


def test_run_as_user_and_group_for_an_image_whose_user_is_root_or_a_name(minimal):
    r = render(minimal, securityContext={"runAsUser": 10001, "runAsGroup": 10002})
    assert pod(r)["securityContext"] == {
        "runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}, "runAsUser": 10001, "runAsGroup": 10002,
    }  # fmt: skip
    assert main(r)["securityContext"] == {**RESTRICTED, "readOnlyRootFilesystem": True}, "the pod's ids reach every container"


def test_image_digest_wins_over_tag(minimal):
    digest = "sha256:" + "ab" * 32
    r = render({**minimal, "image": {"registry": "reg.io", "repository": "ilm", "name": "c", "tag": "1", "digest": digest}})
    assert r.current_image == f"reg.io/ilm/c@{digest}"
    assert main(r)["image"] == r.current_image
    assert render(minimal).current_image == "r.example/demo:1.0"


def test_env_then_keyed_refs_and_env_from(minimal):
    r = render(
        minimal,
        env=[{"name": "A", "value": "1"}],
        secretRefs=[
            {"name": "creds", "type": "env", "keys": [{"secretKey": "user", "envVar": "DB_USER"}, {"secretKey": "pw"}]},
            {"name": "all", "type": "env"},
        ],
        configMapRefs=[{"name": "cfg", "type": "env", "keys": [{"configMapKey": "url"}]}, {"name": "cm-all", "type": "env"}],
    )
    assert main(r)["env"] == [
        {"name": "A", "value": "1"},
        {"name": "DB_USER", "valueFrom": {"secretKeyRef": {"name": "creds", "key": "user"}}},
        {"name": "pw", "valueFrom": {"secretKeyRef": {"name": "creds", "key": "pw"}}},
        {"name": "url", "valueFrom": {"configMapKeyRef": {"name": "cfg", "key": "url"}}},
    ]
    assert main(r)["envFrom"] == [{"secretRef": {"name": "all"}}, {"configMapRef": {"name": "cm-all"}}]


def test_volume_naming_and_order(minimal):
    r = render(
        minimal,
        volumes=[
            {"name": "scratch", "mountPath": "/tmp"},
            {"name": "state", "mountPath": "/s", "persistentVolumeClaim": {"claimName": "pvc", "readOnly": True}},
        ],
        configMapRefs=[{"name": "settings", "type": "volume", "mountPath": "/etc/s"}],
        secretRefs=[
            {
                "name": "tls",
                "type": "volume",
                "mountPath": "/etc/tls",
                "keys": [{"secretKey": "tls.crt", "path": "cert.pem"}, {"secretKey": "ca"}],
            }
        ],
    )
    assert pod(r)["volumes"] == [
        {
            "name": "secret-tls",
            "secret": {"secretName": "tls", "items": [{"key": "tls.crt", "path": "cert.pem"}, {"key": "ca", "path": "ca"}]},
        },
        {"name": "configmap-settings", "configMap": {"name": "settings"}},
        {"name": "scratch", "emptyDir": {}},
        {"name": "state", "persistentVolumeClaim": {"claimName": "pvc", "readOnly": True}},
    ]
    assert main(r)["volumeMounts"] == [
        {"name": "secret-tls", "mountPath": "/etc/tls", "readOnly": True},
        {"name": "configmap-settings", "mountPath": "/etc/s", "readOnly": True},
        {"name": "scratch", "mountPath": "/tmp"},
        {"name": "state", "mountPath": "/s", "readOnly": True},
    ]


def rolling(surge: object = None, unavailable: object = None) -> dict:
    bounds = {k: v for k, v in (("maxSurge", surge), ("maxUnavailable", unavailable)) if v is not None}
    return {"type": "RollingUpdate", **({"rollingUpdate": bounds} if bounds else {})}


# The operator's own table (its strategy builder's test cases), one row each.
@pytest.mark.parametrize(
    ("strategy", "expected"),
    [
        pytest.param(None, None, id="unset spec renders no strategy"),
        pytest.param({"type": "Recreate"}, {"type": "Recreate"}, id="Recreate carries no rolling-update bounds"),
        pytest.param(rolling(), rolling("25%", "25%"), id="RollingUpdate without bounds materializes the apps/v1 defaults"),
        pytest.param(rolling(0, 2), rolling(0, 2), id="explicit bounds are rendered verbatim"),
        pytest.param(rolling(0), rolling(0, 1), id="zero surge alone gains maxUnavailable 1"),
        pytest.param(rolling("0%"), rolling("0%", 1), id="zero surge as a percentage gains maxUnavailable 1"),
        pytest.param(rolling("00%"), rolling("00%", 1), id="a leading-zero percentage counts as zero surge"),
        pytest.param(rolling("000%"), rolling("000%", 1), id="a zero percentage of any width counts as zero surge"),
        pytest.param(rolling("025%"), rolling("025%", "25%"), id="a leading zero on a non-zero percentage is not zero surge"),
        pytest.param(rolling("25%"), rolling("25%", "25%"), id="a non-zero surge gains the default maxUnavailable"),
        pytest.param(rolling(None, 2), rolling("25%", 2), id="an explicit maxUnavailable gains the default maxSurge"),
        pytest.param(rolling(None, "50%"), rolling("25%", "50%"), id="a percentage maxUnavailable gains the default maxSurge"),
    ],
)
def test_strategy(minimal, strategy, expected):
    spec = render(minimal, **({"strategy": strategy} if strategy else {})).deployment["spec"]
    assert spec.get("strategy") == expected


def test_soft_anti_affinity_only_for_several_replicas_without_affinity(minimal):
    assert "affinity" not in pod(render(minimal))
    spread = pod(render(minimal, replicas=3))["affinity"]["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"]
    assert spread == [
        {"weight": 100, "podAffinityTerm": {"labelSelector": {"matchLabels": SELECTOR}, "topologyKey": "kubernetes.io/hostname"}}
    ]
    given = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]
            }
        }
    }
    assert pod(render(minimal, replicas=3, affinity=given))["affinity"] == given


def test_pod_labels_and_annotations_merge_with_ours_winning(minimal):
    r = render(
        minimal,
        podLabels={"team": "x", "app.kubernetes.io/name": "evil"},
        podAnnotations={"a": "b", "otilm.com/config-checksum": "mine"},
    )
    meta = r.deployment["spec"]["template"]["metadata"]
    assert meta["labels"]["team"] == "x" and meta["labels"]["app.kubernetes.io/name"] == "demo"
    assert meta["annotations"] == {"a": "b", "otilm.com/config-checksum": EMPTY_CHECKSUM}


@pytest.mark.parametrize(
    ("pdb", "budget"),
    [
        ({"enabled": True}, {"minAvailable": 1}),
        ({"enabled": True, "maxUnavailable": "10%"}, {"maxUnavailable": "10%"}),
        ({"enabled": True, "minAvailable": 2, "maxUnavailable": 1}, {"minAvailable": 2}),
    ],
)
def test_pod_disruption_budget_fallback(minimal, pdb, budget):
    r = render(minimal, lifecycle={"podDisruptionBudget": pdb})
    assert r.pod_disruption_budget["spec"] == {**budget, "selector": {"matchLabels": SELECTOR}}
    assert render(minimal).pod_disruption_budget is None


def test_service_monitor_only_when_both_enabled(minimal):
    assert render(minimal, metrics={"enabled": True}).service_monitor is None
    assert render(minimal, metrics={"serviceMonitor": {"enabled": True}}).service_monitor is None
    monitor = render(
        minimal, metrics={"enabled": True, "serviceMonitor": {"enabled": True, "interval": "30s", "labels": {"release": "prom"}}}
    ).service_monitor
    assert monitor["apiVersion"] == "monitoring.coreos.com/v1"
    assert monitor["metadata"]["labels"]["release"] == "prom"
    assert monitor["spec"] == {
        "selector": {"matchLabels": SELECTOR},
        "namespaceSelector": {"matchNames": ["ilm"]},
        "endpoints": [{"port": "http", "path": "/v1/metrics", "interval": "30s"}],
    }


@pytest.mark.parametrize(("surge", "unavailable"), [(0, 0), ("0%", 0), ("00%", "0%"), (0, "000%")])
def test_surge_and_unavailable_both_zero_in_any_spelling_are_refused(minimal, surge, unavailable):
    with pytest.raises(InvalidArgumentsError, match="must not both be zero"):
        validate_args({**minimal, "strategy": rolling(surge, unavailable)})


def test_service_monitor_labels_the_users_win_a_clash_as_in_the_operator(minimal):
    """The operator's rule: its standard labels first, then serviceMonitor.labels over them."""
    user = {"release": "prom", "app.kubernetes.io/managed-by": "team-prometheus"}
    monitor = render(minimal, metrics={"enabled": True, "serviceMonitor": {"enabled": True, "labels": user}}).service_monitor
    assert monitor["metadata"]["labels"] == {**labels_of("demo"), **user}
    assert monitor["spec"]["selector"] == {"matchLabels": SELECTOR}


def test_network_policy_on_by_default(minimal):
    policy = render(minimal, service={"port": 8443}).network_policy
    assert policy["spec"]["ingress"] == [{"from": [{"podSelector": {}}], "ports": [{"protocol": "TCP", "port": 8443}]}]
    assert policy["spec"]["policyTypes"] == ["Ingress"]
    assert render(minimal, networkPolicy={"enabled": False}).network_policy is None


def test_service_account_rename_and_annotations(minimal):
    r = render(minimal, serviceAccount={"name": "kms-identity", "annotations": {"iam": "x"}})
    assert r.service_account["metadata"]["name"] == "kms-identity"
    assert r.service_account["metadata"]["annotations"] == {"iam": "x"}
    assert pod(r)["serviceAccountName"] == "kms-identity"
    assert pod(render(minimal))["serviceAccountName"] == "demo"


def test_ingress_optional(minimal):
    assert render(minimal).ingress is None
    ingress = render(minimal, ingress={"host": "c.example.com", "className": "nginx", "tlsSecretName": "c-tls"}).ingress
    assert ingress["spec"]["ingressClassName"] == "nginx"
    assert ingress["spec"]["tls"] == [{"hosts": ["c.example.com"], "secretName": "c-tls"}]
    path = ingress["spec"]["rules"][0]["http"]["paths"][0]
    assert path == {"path": "/", "pathType": "Prefix", "backend": {"service": {"name": "demo", "port": {"name": "http"}}}}


def test_scheduling_and_image_fields_pass_through(minimal):
    r = render(
        {
            **minimal,
            "image": {
                "repository": "r/x",
                "tag": "1",
                "pullPolicy": "Always",
                "pullSecrets": ["a", "b"],
                "command": ["/bin/c"],
                "args": ["--x"],
            },
        },
        nodeSelector={"zone": "a"},
        tolerations=[{"key": "hsm", "operator": "Exists"}],
        lifecycle={"terminationGracePeriodSeconds": 60},
        resources={"limits": {"cpu": "1"}},
    )
    assert pod(r)["imagePullSecrets"] == [{"name": "a"}, {"name": "b"}]
    assert pod(r)["nodeSelector"] == {"zone": "a"} and pod(r)["tolerations"] == [{"key": "hsm", "operator": "Exists"}]
    assert pod(r)["terminationGracePeriodSeconds"] == 60
    assert main(r)["command"] == ["/bin/c"] and main(r)["args"] == ["--x"] and main(r)["imagePullPolicy"] == "Always"
    assert main(r)["resources"] == {"limits": {"cpu": "1"}}


def test_from_operator_renders_the_operators_pod_template_exactly():
    from components.args.connector_spec import ConnectorEntry
    from tests.support.samples import stack_connectors

    (raw,) = stack_connectors("full")
    taken_over = render_connector(ConnectorEntry.model_validate({**raw, "fromOperator": True}).to_args())
    assert taken_over.deployment["spec"]["template"] == operator_objects()["Deployment"]["spec"]["template"]
    ours = render_connector(ConnectorEntry.model_validate(raw).to_args())
    assert ours.deployment["spec"]["template"] != operator_objects()["Deployment"]["spec"]["template"]
    for kind in ("Service", "PodDisruptionBudget", "NetworkPolicy"):
        obj = next(o for o in taken_over.objects() if o["kind"] == kind)
        assert obj["spec"] == operator_objects()[kind]["spec"], kind
    assert taken_over.deployment["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "pulumi-connector"


label = st.from_regex(r"[a-z]([a-z0-9-]{0,20}[a-z0-9])?", fullmatch=True)
env_name = st.from_regex(r"[A-Z_][A-Z0-9_]{0,15}", fullmatch=True)
probe = st.none() | st.fixed_dictionaries(
    {"path": st.sampled_from(["", "/health", "/v1/health"])},
    optional={
        "initialDelaySeconds": st.integers(0, 100),
        "periodSeconds": st.integers(1, 60),
        "failureThreshold": st.integers(1, 50),
    },
)


@st.composite
def connector_args(draw: st.DrawFn) -> dict:
    refs = draw(st.lists(st.tuples(label, st.sampled_from(["env", "volume"])), max_size=3, unique_by=lambda t: t[0]))
    args = {
        "name": draw(label),
        "namespace": draw(label),
        "image": {"repository": draw(label), "tag": draw(st.from_regex(r"[0-9]\.[0-9]{1,2}", fullmatch=True))},
        "replicas": draw(st.integers(0, 5)),
        "service": {
            "port": draw(st.integers(1, 65535)),
            "type": draw(st.sampled_from(["ClusterIP", "NodePort", "LoadBalancer"])),
        },
        "env": [{"name": n, "value": "v"} for n in draw(st.lists(env_name, max_size=3, unique=True))],
        "secretRefs": [{"name": n, "type": t, **({"mountPath": f"/m/{n}"} if t == "volume" else {})} for n, t in refs],
        "probes": {k: v for k, v in (("liveness", draw(probe)), ("startup", draw(probe))) if v is not None},
        "lifecycle": {"podDisruptionBudget": {"enabled": draw(st.booleans())}},
        "networkPolicy": {"enabled": draw(st.booleans())},
    }
    return args


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(connector_args())
def test_valid_arguments_render_schema_valid_objects(args):
    for obj in render_connector(validate_args(args)).objects():
        assert_valid(obj)


MUTATIONS = [
    (lambda a: a["service"].__setitem__("port", 0), "service.port"),
    (lambda a: a.__setitem__("replicas", -3), "replicas"),
    (lambda a: a["image"].__setitem__("digest", "md5:00"), "image.digest"),
    (lambda a: a.__setitem__("name", "Upper_Case"), "name"),
    (lambda a: a["image"].__setitem__("pullPolicy", "Maybe"), "image.pullPolicy"),
    (lambda a: a.__setitem__("unknownField", 1), "unknownField"),
]


@pytest.mark.parametrize(("mutate", "path"), MUTATIONS)
@settings(max_examples=15, deadline=None)
@given(args=connector_args())
def test_mutations_into_invalid_arguments_are_refused_with_the_field_path(args, mutate, path):
    mutate(args)
    with pytest.raises(InvalidArgumentsError) as caught:
        validate_args(args)
    assert any(p.startswith(f"{path}:") for p in caught.value.problems), caught.value.problems


SAMPLE_FILES = {
    "minimal": "connector_minimal.yaml",
    "full": "connector_full.yaml",
    "with-registration": "connector_with_registration.yaml",
    "otpki": "connector_otpki.yaml",
    "timestamp-formatting": "connector_timestamp_formatting.yaml",
}


@pytest.mark.parametrize("stack", [*SAMPLE_STACKS, "dev"])
def test_every_object_of_every_stack_is_schema_valid(stack):
    for raw in stack_connectors(stack):
        rendered = render_connector(ConnectorEntry.model_validate(raw).to_args())
        for obj in rendered.objects():
            assert_valid(obj)


@pytest.mark.parametrize("stack", SAMPLE_STACKS)
def test_stack_holds_the_operator_sample_unchanged(stack):
    sample = yaml.safe_load((DATA / "operator-samples" / SAMPLE_FILES[stack]).read_text())
    (entry,) = stack_connectors(stack)
    assert entry["spec"] == sample["spec"]
    assert entry["name"] == sample["metadata"]["name"]
    assert entry["namespace"] == sample["metadata"]["namespace"]


def test_full_sample_renders_every_kind():
    (raw,) = stack_connectors("full")
    rendered = render_connector(ConnectorEntry.model_validate(raw).to_args())
    kinds = sorted(o["kind"] for o in rendered.objects())
    assert kinds == ["Deployment", "NetworkPolicy", "PodDisruptionBudget", "Service", "ServiceAccount", "ServiceMonitor"]
    assert rendered.pod_disruption_budget["spec"]["minAvailable"] == 2
    assert rendered.deployment["spec"]["strategy"] == {"type": "Recreate"}
    assert rendered.endpoint == "http://ejbca-ng-connector.ilm-system.svc.cluster.local:8443"


def test_the_service_monitor_schema_is_real():
    """The CRD check refuses what prometheus-operator refuses."""
    import jsonschema

    (raw,) = stack_connectors("full")
    monitor = render_connector(ConnectorEntry.model_validate(raw).to_args()).service_monitor
    assert_valid(monitor)
    monitor["spec"]["endpoints"][0]["interval"] = "every thirty seconds"
    with pytest.raises(jsonschema.ValidationError):
        assert_valid(monitor)
