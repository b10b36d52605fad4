"""``render.workload``: containers, probes, the pod template, Deployment, Service, ServiceAccount."""

from __future__ import annotations

import pytest

from components.render.workload import (
    Probe,
    harden_container,
    render_deployment,
    render_probe,
    render_service,
    render_service_account,
)

from ..support.workloads import LABELS, RESTRICTED, SELECTOR, workload

AS_THE_OPERATOR = {k: v for k, v in RESTRICTED.items() if k != "privileged"}


@pytest.mark.parametrize(
    ("container", "as_operator", "expected"),
    [
        ({"name": "s"}, False, RESTRICTED),
        ({"name": "s"}, True, AS_THE_OPERATOR),
        ({"name": "s", "securityContext": {"runAsUser": 1000}}, True, {"runAsUser": 1000, **RESTRICTED}),
        (
            {"name": "s", "securityContext": {"privileged": True, "readOnlyRootFilesystem": True}},
            False,
            {**RESTRICTED, "readOnlyRootFilesystem": True},
        ),
    ],
)
def test_harden_container(container, as_operator, expected):
    given = {**container}
    assert harden_container(container, as_operator)["securityContext"] == expected
    assert container == given


@pytest.mark.parametrize(
    ("probe", "expected"),
    [
        (None, None),
        (Probe(""), None),
        (Probe("/h"), {"httpGet": {"path": "/h", "port": 8080}}),
        (
            Probe("/h", initial_delay_seconds=5, period_seconds=10, failure_threshold=3),
            {"httpGet": {"path": "/h", "port": 8080}, "initialDelaySeconds": 5, "periodSeconds": 10, "failureThreshold": 3},
        ),
        (Probe("/h", initial_delay_seconds=0), {"httpGet": {"path": "/h", "port": 8080}}),
    ],
)
def test_render_probe(probe, expected):
    assert render_probe(probe, 8080) == expected


@pytest.mark.parametrize(
    ("given", "expected_keys", "strategy"),
    [
        ({}, {"serviceAccountName", "securityContext", "containers"}, None),
        (
            {"pull_secrets": ["p"], "node_selector": {"a": "b"}},
            {"serviceAccountName", "securityContext", "containers", "imagePullSecrets", "nodeSelector"},
            None,
        ),
        (
            {"strategy": {"type": "Recreate"}, "termination_grace_period_seconds": 0},
            {"serviceAccountName", "securityContext", "containers", "terminationGracePeriodSeconds"},
            {"type": "Recreate"},
        ),
    ],
)
def test_render_deployment(given, expected_keys, strategy):
    deployment = render_deployment(workload(**given))
    assert deployment["metadata"] == {"name": "demo", "namespace": "ilm", "labels": LABELS}
    assert deployment["spec"]["selector"] == {"matchLabels": SELECTOR}
    assert set(deployment["spec"]["template"]["spec"]) == expected_keys
    assert deployment["spec"].get("strategy") == strategy


@pytest.mark.parametrize(
    ("given", "service_type", "node_port", "ports"),
    [
        ({}, "ClusterIP", None, [{"name": "http", "port": 8080, "targetPort": 8080, "protocol": "TCP"}]),
        ({}, "NodePort", 30080, [{"name": "http", "port": 8080, "targetPort": 8080, "protocol": "TCP", "nodePort": 30080}]),
        (
            {"extra_ports": [("api", 8081)]},
            "ClusterIP",
            None,
            [
                {"name": "http", "port": 8080, "targetPort": 8080, "protocol": "TCP"},
                {"name": "api", "port": 8081, "targetPort": 8081, "protocol": "TCP"},
            ],
        ),
    ],
)
def test_render_service(given, service_type, node_port, ports):
    service = render_service(workload(**given), service_type, node_port)
    assert service["spec"] == {"type": service_type, "selector": SELECTOR, "ports": ports}


@pytest.mark.parametrize(
    ("account", "annotations", "expected"),
    [
        (None, None, {"name": "demo", "namespace": "ilm", "labels": LABELS}),
        ("runner", {"iam": "role"}, {"name": "runner", "namespace": "ilm", "labels": LABELS, "annotations": {"iam": "role"}}),
    ],
)
def test_render_service_account(account, annotations, expected):
    assert render_service_account(workload(service_account_name=account), annotations)["metadata"] == expected
