"""A connector's live health (``components.app.live_health``, #32), against connectors on 127.0.0.1:
Up on 2xx, Down on anything else or no answer within ``timeoutSeconds``, Unknown while it
cannot be asked; no redirect followed, no body shown."""

from __future__ import annotations

import time

import pytest

from components.app.live_health import probe_health
from components.args.connector_spec import HealthCheckArgs

from ..support.hostile_platform import answer, black_hole, hostile_platform, json_answer, sequence

BODY = "HEALTH-DETAIL-CANARY"


def base(url: str) -> str:
    return url.removesuffix("/api")


@pytest.mark.parametrize(
    ("behaviour", "given", "expected", "paths"),
    [
        (json_answer(200, f'{{"status": "ok", "detail": "{BODY}"}}'), {}, "Up (status 200)", ["/v2/health"]),
        (answer(204), {"path": "/ready"}, "Up (status 204)", ["/ready"]),
        (json_answer(500, f'{{"detail": "{BODY}"}}'), {}, "Down (status 500)", ["/v2/health"]),
        (sequence(answer(404), answer(200)), {}, "Up (status 200)", ["/v2/health", "/v1/health"]),
        (answer(404), {}, "Down (status 404)", ["/v2/health", "/v1/health"]),
        (answer(404), {"path": "/healthz"}, "Down (status 404)", ["/healthz"]),
        (answer(302, Location="http://127.0.0.1:9/elsewhere"), {}, "Down (status 302)", ["/v2/health"]),
        (answer(200, b"<html>up</html>"), {}, "Up (status 200)", ["/v2/health"]),
    ],
)
def test_health_from_the_answers_status(behaviour, given, expected, paths):
    with hostile_platform(behaviour) as connector:
        health = probe_health(base(connector.url), HealthCheckArgs.model_validate(given))
    assert str(health) == expected
    assert [r.path for r in connector.requests] == paths
    assert BODY not in repr(health)


def test_one_that_never_answers_is_down_within_its_timeout():
    with hostile_platform(black_hole) as connector:
        started = time.monotonic()
        health = probe_health(base(connector.url), HealthCheckArgs(timeout_seconds=1, period_seconds=10))
    assert str(health) == "Down (no answer within 1 s)"
    assert time.monotonic() - started < 10


def test_disabled_is_unknown_and_asks_nothing():
    with hostile_platform(answer(200)) as connector:
        health = probe_health(base(connector.url), HealthCheckArgs(enabled=False))
    assert str(health) == "Unknown (health check disabled)" and connector.requests == []


def test_an_in_cluster_name_without_a_cluster_to_reach_it_through_is_unknown(tmp_path, monkeypatch):
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "none"))
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    health = probe_health("http://x509.ilm.svc.cluster.local:8080", HealthCheckArgs())
    assert str(health) == "Unknown (cluster unreachable)"


@pytest.mark.parametrize(
    ("given", "problem"),
    [
        ({"periodSeconds": 5}, "healthCheck.periodSeconds: Input should be greater than or equal to 10"),
        ({"timeoutSeconds": 31}, "healthCheck.timeoutSeconds: Input should be less than or equal to 30"),
        ({"periodSeconds": 10, "timeoutSeconds": 20}, "healthCheck: timeoutSeconds must not be above periodSeconds"),
        ({"path": "health"}, "healthCheck.path: must be an absolute path"),
        ({"enabled": "yes"}, "healthCheck.enabled: Input should be a valid boolean"),
    ],
)
def test_the_operators_rules_at_preview(given, problem):
    from components import InvalidArgumentsError, validate_args

    with pytest.raises(InvalidArgumentsError) as caught:
        validate_args({"name": "c", "image": {"repository": "r.example/c", "tag": "1"}, "healthCheck": given})
    assert any(p.startswith(problem) for p in caught.value.problems), caught.value.problems


def test_a_certificate_nobody_trusts_is_down_naming_tls(tmp_path):
    import ssl

    from ..support.apiserver_standin import make_certificates

    certificates = make_certificates(tmp_path)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificates.server_cert, certificates.server_key)
    with hostile_platform(answer(200), tls=context) as connector:
        health = probe_health(base(connector.url), HealthCheckArgs())
    assert str(health) == "Down (TLS verification failed)"
