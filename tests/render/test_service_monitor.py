"""``render.service_monitor``: the Service's http port scraped at the metrics path."""

from __future__ import annotations

import pytest

from components.args.blocks import ServiceMonitorArgs
from components.render.service_monitor import render_service_monitor

from ..support.workloads import LABELS, SELECTOR, workload


@pytest.mark.parametrize(
    ("path", "given", "endpoint", "labels"),
    [
        ("/v1/metrics", None, {"port": "http", "path": "/v1/metrics"}, LABELS),
        ("/metrics", {"enabled": True, "interval": "30s"}, {"port": "http", "path": "/metrics", "interval": "30s"}, LABELS),
        (
            "/m",
            {"enabled": True, "labels": {"release": "prom", "app.kubernetes.io/name": "theirs"}},
            {"port": "http", "path": "/m"},
            {**LABELS, "release": "prom", "app.kubernetes.io/name": "theirs"},
        ),
    ],
)
def test_render_service_monitor(path, given, endpoint, labels):
    monitor = render_service_monitor(workload(), path, None if given is None else ServiceMonitorArgs.model_validate(given))
    assert monitor["apiVersion"] == "monitoring.coreos.com/v1" and monitor["kind"] == "ServiceMonitor"
    assert monitor["metadata"] == {"name": "demo", "namespace": "ilm", "labels": labels}
    assert monitor["spec"] == {
        "selector": {"matchLabels": SELECTOR},
        "namespaceSelector": {"matchNames": ["ilm"]},
        "endpoints": [endpoint],
    }
