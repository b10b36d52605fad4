"""The default-deny NetworkPolicies: on by default, off on request, the edge's namespace named."""

from __future__ import annotations

from components.render.platform import render_platform

from ...support.operator_platform import args_with, find


def policies(**spec):
    return [o for o in render_platform(args_with(**spec)) if o["kind"] == "NetworkPolicy"]


def test_three_policies_by_default_and_none_when_off():
    assert sorted(p["metadata"]["name"] for p in policies()) == [
        "ilm-allow-edge-to-gateway",
        "ilm-allow-egress",
        "ilm-default-deny-ingress",
    ]
    assert policies(networkPolicy={"enabled": False}) == []


def test_the_edges_namespace_reaches_the_gateway_only_and_a_platforms_pods_are_its_own():
    found = policies(networkPolicy={"ingressNamespace": "envoy-gateway"})
    edge = find(found, "NetworkPolicy", "ilm-allow-edge-to-gateway")["spec"]
    assert edge["ingress"][0]["from"] == [
        {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "envoy-gateway"}}}
    ]
    assert edge["podSelector"]["matchLabels"]["app.kubernetes.io/name"] == "api-gateway"
    other = [o for o in render_platform(args_with(name="other", namespace="ilm")) if o["kind"] == "NetworkPolicy"]
    assert (
        find(other, "NetworkPolicy", "ilm-allow-egress")["spec"]["podSelector"]["matchLabels"]["app.kubernetes.io/instance"]
        == "other"
    )
