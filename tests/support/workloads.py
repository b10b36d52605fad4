"""A small ``Workload`` for the renderers' table tests."""

from __future__ import annotations

from typing import Any

from components.render.meta import labels, selector_labels
from components.render.workload import Workload


def workload(**given: Any) -> Workload:
    values: dict[str, Any] = {
        "name": "demo",
        "namespace": "ilm",
        "labels": labels("demo"),
        "selector_labels": selector_labels("demo"),
        "image": "r.example/demo:1.0",
        "port": 8080,
        "container_name": "connector",
    }
    return Workload(**{**values, **given})


SELECTOR = {"app.kubernetes.io/name": "demo", "app.kubernetes.io/component": "connector", "otilm.com/connector": "demo"}
LABELS = {**SELECTOR, "app.kubernetes.io/managed-by": "pulumi-connector"}
RESTRICTED = {
    "runAsNonRoot": True,
    "allowPrivilegeEscalation": False,
    "privileged": False,
    "capabilities": {"drop": ["ALL"]},
    "seccompProfile": {"type": "RuntimeDefault"},
}
"""The restricted Pod Security Standard's fields of every container."""
