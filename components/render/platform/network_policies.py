"""The platform's default-deny NetworkPolicies: ingress from its own namespace only, the edge's
namespace to the gateway's consumer port, every egress. On unless ``networkPolicy.enabled`` is false.
"""

from __future__ import annotations

from components.render.objects import Obj
from components.render.platform.resolve import INSTANCE_LABEL, PART_OF, PART_OF_LABEL, Platform, metadata, platform_selector

ROLE = "network-policy"
DEFAULT_INGRESS_NAMESPACE = "ingress-nginx"
GATEWAY_CONSUMER_PORT = 8000


def _policy(platform: Platform, name: str, spec: Obj) -> Obj:
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": metadata(platform, name, ROLE),
        "spec": spec,
    }


def network_policies(platform: Platform) -> list[Obj]:
    block = platform.args.network_policy
    if block is not None and not block.enabled:
        return []
    every_pod = {"matchLabels": {PART_OF_LABEL: PART_OF, INSTANCE_LABEL: platform.name}}
    edge_namespace = (block.ingress_namespace if block else None) or DEFAULT_INGRESS_NAMESPACE
    return [
        _policy(
            platform,
            "ilm-default-deny-ingress",
            {"podSelector": every_pod, "policyTypes": ["Ingress"], "ingress": [{"from": [{"podSelector": {}}]}]},
        ),
        _policy(
            platform,
            "ilm-allow-edge-to-gateway",
            {
                "podSelector": {"matchLabels": platform_selector(platform.name, "api-gateway")},
                "policyTypes": ["Ingress"],
                "ingress": [
                    {
                        "ports": [{"protocol": "TCP", "port": GATEWAY_CONSUMER_PORT}],
                        "from": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": edge_namespace}}}],
                    }
                ],
            },
        ),
        _policy(platform, "ilm-allow-egress", {"podSelector": every_pod, "policyTypes": ["Egress"], "egress": [{}]}),
    ]
