"""Names, labels and object metadata shared by every rendered object."""

from __future__ import annotations

from typing import Any

NAME_LABEL = "app.kubernetes.io/name"
COMPONENT_LABEL = "app.kubernetes.io/component"
MANAGED_BY_LABEL = "app.kubernetes.io/managed-by"
MANAGED_BY = "pulumi-connector"
OPERATOR_MANAGED_BY = "ilm-operator"
"""The reference operator's value, kept on the pod template of a connector taken over from it."""
CHECKSUM_ANNOTATION = "otilm.com/config-checksum"


def selector_labels(name: str, component: str = "connector") -> dict[str, str]:
    """The immutable selector: equal to the operator's, so its objects can be adopted
    (``otilm.com/connector=<name>`` for a connector, ``otilm.com/proxy=<name>`` for a proxy)."""
    return {NAME_LABEL: name, COMPONENT_LABEL: component, f"otilm.com/{component}": name}


def labels(name: str, component: str = "connector", managed_by: str = MANAGED_BY) -> dict[str, str]:
    return {**selector_labels(name, component), MANAGED_BY_LABEL: managed_by}


def object_meta(
    name: str,
    namespace: str,
    object_labels: dict[str, str],
    annotations: dict[str, str] | None = None,
) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": namespace, "labels": dict(object_labels)}
    if annotations:
        meta["annotations"] = dict(annotations)
    return meta


def merged(user: dict[str, Any], ours: dict[str, Any]) -> dict[str, Any]:
    """User entries overlaid by ours: our labels and annotations win on a clash."""
    return {**user, **ours}
