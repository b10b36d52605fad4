from __future__ import annotations

from typing import Any

from ..args import ServiceMonitorArgs
from .meta import object_meta


def render_service_monitor(
    name: str, namespace: str, labels: dict[str, str], selector: dict[str, str], path: str, monitor: ServiceMonitorArgs | None
) -> dict[str, Any]:
    """Scrapes the Service's ``http`` port at ``path``."""
    endpoint: dict[str, Any] = {"port": "http", "path": path}
    if monitor is not None and monitor.interval:
        endpoint["interval"] = monitor.interval
    # The operator's rule: standard labels first, then the user's, which win a clash.
    extra_labels = monitor.labels if monitor is not None else {}
    return {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "ServiceMonitor",
        "metadata": object_meta(name, namespace, {**labels, **extra_labels}),
        "spec": {
            "selector": {"matchLabels": dict(selector)},
            "namespaceSelector": {"matchNames": [namespace]},
            "endpoints": [endpoint],
        },
    }
