"""``render.proxy``: the proxy's env (the token wiring always wins), ports and shared blocks."""

from __future__ import annotations

import pytest

from components.args.proxy_spec import ProxyArgs
from components.render.proxy import endpoints, proxy_env, proxy_optional_kinds, shared_blocks

TOKEN = [
    {"name": "PROXY_CONFIG_TOKEN", "valueFrom": {"secretKeyRef": {"name": "t", "key": "configToken"}}},
    {"name": "PROXY_TOKEN_SIGNING_KEY", "valueFrom": {"secretKeyRef": {"name": "t", "key": "tokenSigningKey", "optional": True}}},
]


def proxy(**spec) -> ProxyArgs:
    return ProxyArgs.model_validate({"name": "p", "namespace": "zone", "configTokenSecretRef": {"name": "t"}, **spec})


@pytest.mark.parametrize(
    ("env", "keyed", "expected"),
    [
        ([], [], TOKEN),
        ([{"name": "A", "value": "1"}, {"name": "B"}], [], [{"name": "A", "value": "1"}, {"name": "B"}, *TOKEN]),
        (
            [{"name": "PROXY_CONFIG_TOKEN", "value": "x"}],
            [{"name": "PROXY_TOKEN_SIGNING_KEY"}, {"name": "K"}],
            [*TOKEN, {"name": "K"}],
        ),
    ],
)
def test_proxy_env(env, keyed, expected):
    assert proxy_env(proxy(env=env), keyed) == expected


def test_endpoints():
    assert endpoints("p", "zone") == ("http://p.zone.svc.cluster.local:8080", "http://p.zone.svc.cluster.local:8081")


@pytest.mark.parametrize(
    ("spec", "path", "kinds"),
    [
        ({}, "/metrics", ("network_policy",)),
        (
            {"metrics": {"enabled": True, "path": "/m", "serviceMonitor": {"enabled": True}}},
            "/m",
            ("service_monitor", "network_policy"),
        ),
        ({"metrics": {"enabled": False, "serviceMonitor": {"enabled": True}}}, "/metrics", ("network_policy",)),
        ({"podDisruptionBudget": {"enabled": True}, "networkPolicy": {"enabled": False}}, "/metrics", ("pod_disruption_budget",)),
    ],
)
def test_the_proxys_own_blocks(spec, path, kinds):
    args = proxy(**spec)
    assert shared_blocks(args).metrics_path == path
    assert proxy_optional_kinds(args) == kinds
