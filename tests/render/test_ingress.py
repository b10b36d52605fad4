"""``render.ingress``: a host (and path) routed to the Service's http port."""

from __future__ import annotations

import pytest

from components.args.connector_spec import IngressArgs
from components.render.ingress import render_ingress

from ..support.workloads import LABELS, workload

BACKEND = {"service": {"name": "demo", "port": {"name": "http"}}}


@pytest.mark.parametrize(
    ("given", "spec", "annotations"),
    [
        (
            {"host": "c.example.com"},
            {"rules": [{"host": "c.example.com", "http": {"paths": [{"path": "/", "pathType": "Prefix", "backend": BACKEND}]}}]},
            None,
        ),
        (
            {"host": "*.example.com", "path": "/api", "pathType": "Exact", "className": "nginx", "tlsSecretName": "tls"},
            {
                "rules": [
                    {"host": "*.example.com", "http": {"paths": [{"path": "/api", "pathType": "Exact", "backend": BACKEND}]}}
                ],
                "ingressClassName": "nginx",
                "tls": [{"hosts": ["*.example.com"], "secretName": "tls"}],
            },
            None,
        ),
        (
            {"host": "c.example.com", "annotations": {"nginx.ingress.kubernetes.io/ssl-redirect": "true"}},
            {"rules": [{"host": "c.example.com", "http": {"paths": [{"path": "/", "pathType": "Prefix", "backend": BACKEND}]}}]},
            {"nginx.ingress.kubernetes.io/ssl-redirect": "true"},
        ),
    ],
)
def test_render_ingress(given, spec, annotations):
    ingress = render_ingress(workload(), IngressArgs.model_validate(given))
    assert ingress["apiVersion"] == "networking.k8s.io/v1" and ingress["kind"] == "Ingress"
    assert ingress["metadata"] == {"name": "demo", "namespace": "ilm", "labels": LABELS} | (
        {"annotations": annotations} if annotations else {}
    )
    assert ingress["spec"] == spec
