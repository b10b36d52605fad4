from __future__ import annotations

from components.args.blocks import ServiceMonitorArgs
from components.render.meta import object_meta
from components.render.objects import Obj, type_fields
from components.render.workload import Workload


def render_service_monitor(w: Workload, path: str, monitor: ServiceMonitorArgs | None, port: str = "http") -> Obj:
    """Scrapes the Service's ``port`` (by name) at ``path``."""
    endpoint: Obj = {"port": port, "path": path}
    if monitor is not None and monitor.interval:
        endpoint["interval"] = monitor.interval
    # The operator's rule: standard labels first, then the user's, which win a clash.
    extra_labels = monitor.labels if monitor is not None else {}
    return {
        **type_fields("service_monitor"),
        "metadata": object_meta(w.name, w.namespace, {**w.labels, **extra_labels}),
        "spec": {
            "selector": {"matchLabels": dict(w.selector_labels)},
            "namespaceSelector": {"matchNames": [w.namespace]},
            "endpoints": [endpoint],
        },
    }
