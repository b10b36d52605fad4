"""Validation of rendered objects against the Kubernetes OpenAPI schema (offline)."""

from __future__ import annotations

from typing import Any

import kubernetes_validate
from kubernetes_validate.utils import latest_version

KUBERNETES_VERSION = latest_version()


def assert_valid(obj: dict[str, Any]) -> None:
    """Raises with the schema's own message when ``obj`` is not a valid object of its kind.

    The ServiceMonitor is a custom resource with no schema here; only its shape is checked."""
    if obj["apiVersion"] == "monitoring.coreos.com/v1":
        assert set(obj) == {"apiVersion", "kind", "metadata", "spec"}
        assert all(isinstance(e["port"], str) for e in obj["spec"]["endpoints"])
        return
    kubernetes_validate.validate(obj, KUBERNETES_VERSION, strict=True)
