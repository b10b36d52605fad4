"""Bad input is refused before anything is created, with every offending field by its path."""

from __future__ import annotations

import pytest

from components import ConnectorArgs, InvalidArgumentsError, validate_args
from components.app.program import parse_connectors


def problems_of(raw) -> str:
    with pytest.raises(InvalidArgumentsError) as caught:
        parse_connectors(raw)
    return str(caught.value)


def entry(**spec):
    return {"name": "demo", "namespace": "ilm", "spec": {"image": {"repository": "r/x", "tag": "1"}, **spec}}


@pytest.mark.parametrize(
    ("spec", "path", "fragment"),
    [
        ({"image": {"repository": "r/x", "tag": "1", "digest": "sha256:abc"}}, "connectors[0].spec.image.digest", "64"),
        (
            {"image": {"repository": "r/x", "tag": "1", "pullPolicy": "Sometimes"}},
            "connectors[0].spec.image.pullPolicy",
            "Always",
        ),
        ({"image": {"repository": "r/x"}}, "connectors[0].spec.image.tag", "required"),
        ({"service": {"port": 70000}}, "connectors[0].spec.service.port", "65535"),
        ({"service": {"type": "ClusterIP", "nodePort": 30001}}, "connectors[0].spec.service", "NodePort"),
        ({"replicas": -1}, "connectors[0].spec.replicas", "greater than or equal to 0"),
        ({"strategy": {"type": "Recreate", "rollingUpdate": {"maxSurge": 1}}}, "connectors[0].spec.strategy", "RollingUpdate"),
        (
            {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": "0%"}}},
            "connectors[0].spec.strategy",
            "both be zero",
        ),
        (
            {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "ten"}}},
            "connectors[0].spec.strategy.rollingUpdate.maxSurge",
            "percentage",
        ),
        ({"securityContext": {"runAsNonRoot": False}}, "connectors[0].spec.securityContext", "runAsNonRoot"),
        ({"securityContext": {"fsGroup": -5}}, "connectors[0].spec.securityContext.fsGroup", "greater than"),
        ({"securityContext": {"runAsUser": 0}}, "connectors[0].spec.securityContext.runAsUser", "greater than"),
        ({"securityContext": {"runAsGroup": 0}}, "connectors[0].spec.securityContext.runAsGroup", "greater than"),
        ({"securityContext": {"runAsUser": "app"}}, "connectors[0].spec.securityContext.runAsUser", "integer"),
        ({"secretRefs": [{"name": "s", "type": "volume"}]}, "connectors[0].spec.secretRefs[0]", "mountPath is required"),
        ({"configMapRefs": [{"name": "s", "type": "file"}]}, "connectors[0].spec.configMapRefs[0].type", "env"),
        (
            {"volumes": [{"name": "v", "mountPath": "/v", "emptyDir": {}, "persistentVolumeClaim": {"claimName": "c"}}]},
            "connectors[0].spec.volumes[0]",
            "not both",
        ),
        (
            {"registration": {"platformUrl": "https://p/api", "name": "n", "authType": "basic"}},
            "connectors[0].spec.registration",
            "authAttributes are required",
        ),
        (
            {"registration": {"platformUrl": "https://p/api", "name": "n", "authType": "oauth"}},
            "connectors[0].spec.registration.authType",
            "none",
        ),
        ({"imagee": {}}, "connectors[0].spec.imagee", "unknown field"),
        (
            {"probes": {"liveness": {"path": "/x", "periodSecond": 3}}},
            "connectors[0].spec.probes.liveness.periodSecond",
            "unknown field",
        ),
    ],
)
def test_each_rule_names_the_field(spec, path, fragment):
    message = problems_of([entry(**spec)])
    line = next((line for line in message.splitlines() if f"- {path}:" in line), None)
    assert line is not None, message
    assert fragment in line


def test_every_problem_in_one_message():
    message = problems_of(
        [
            entry(replicas=-1, service={"port": 0}),
            {"name": "Bad_Name", "namespace": "ilm", "spec": {"image": {"repository": "r", "tag": "1"}}},
        ]
    )
    assert "connectors[0].spec.replicas" in message
    assert "connectors[0].spec.service.port" in message
    assert "connectors[1].name: must be a DNS-1123 label" in message


def test_name_longer_than_63_is_refused():
    assert "at most 63 characters" in problems_of([{**entry(), "name": "a" * 64}])


def test_duplicate_connectors_are_refused():
    assert "connectors[1] (demo): the name is taken in its namespace by connectors[0]" in problems_of([entry(), entry()])


def test_python_callers_use_snake_case_and_get_the_same_rules():
    args = ConnectorArgs(name="demo", image={"repository": "r", "tag": "1", "pull_policy": "Always"}, service={"port": 9000})
    assert args.namespace == "default" and args.image.pull_policy == "Always"
    with pytest.raises(InvalidArgumentsError, match=r"image\.digest"):
        validate_args({"name": "demo", "image": {"repository": "r", "tag": "1", "digest": "nope"}})


def test_error_is_a_clean_pulumi_run_error():
    """The engine prints a RunError's message alone; the class is one wherever the SDK is loaded
    (the models themselves never load it: test_layout)."""
    import pulumi

    assert isinstance(InvalidArgumentsError(["x: y"]), pulumi.RunError)


def test_values_under_attributes_are_never_echoed():
    planted = 990011
    raw = entry(
        registration={
            "platformUrl": "https://p/api",
            "name": "n",
            "authType": "none",
            "authAttributes": [{"name": planted, "content": "x"}],
        }
    )
    message = problems_of([raw])
    assert "connectors[0].spec.registration.authAttributes[0].name: Input should be a valid string" in message
    assert str(planted) not in message
    message = problems_of([entry(image={"repository": "r", "tag": "1", "pullPolicy": "Sometimes"})])
    assert "(got a string of 9 characters)" in message and "Sometimes" not in message
