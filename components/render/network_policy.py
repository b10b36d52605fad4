from __future__ import annotations

from components.render.meta import object_meta
from components.render.objects import Obj, type_fields
from components.render.workload import Workload


def render_network_policy(w: Workload) -> Obj:
    """Ingress to the workload's ports from pods of the same namespace; egress not restricted."""
    return {
        **type_fields("network_policy"),
        "metadata": object_meta(w.name, w.namespace, w.labels),
        "spec": {
            "podSelector": {"matchLabels": dict(w.selector_labels)},
            "policyTypes": ["Ingress"],
            "ingress": [{"from": [{"podSelector": {}}], "ports": [{"protocol": "TCP", "port": port} for _, port in w.ports()]}],
        },
    }
