from __future__ import annotations

from typing import Any

from .meta import object_meta


def render_network_policy(
    name: str, namespace: str, labels: dict[str, str], selector: dict[str, str], ports: list[int]
) -> dict[str, Any]:
    """Ingress to the service's ports from pods of the same namespace; egress not restricted."""
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": object_meta(name, namespace, labels),
        "spec": {
            "podSelector": {"matchLabels": dict(selector)},
            "policyTypes": ["Ingress"],
            "ingress": [{"from": [{"podSelector": {}}], "ports": [{"protocol": "TCP", "port": port} for port in ports]}],
        },
    }
