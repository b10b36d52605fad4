"""Validation of rendered objects against the Kubernetes OpenAPI schema (offline)."""

from __future__ import annotations

from typing import Any

import jsonschema
import kubernetes_validate
from kubernetes_validate.utils import latest_version

from .crds import CrdsUnavailable, service_monitor_schema
from .skipping import unavailable

KUBERNETES_VERSION = latest_version()


def assert_valid(obj: dict[str, Any]) -> None:
    """Raises with the schema's own message when ``obj`` is not a valid object of its kind:
    the Kubernetes OpenAPI schema, or the prometheus-operator CRD for a ServiceMonitor."""
    if obj["apiVersion"] == "monitoring.coreos.com/v1":
        try:
            schema = service_monitor_schema()
        except CrdsUnavailable as error:
            unavailable("ServiceMonitor schema checks", error)
        jsonschema.validate(obj, schema)
        return
    kubernetes_validate.validate(obj, KUBERNETES_VERSION, strict=True)
