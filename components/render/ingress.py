from __future__ import annotations

from typing import Any

from ..args import IngressArgs
from .meta import object_meta


def render_ingress(name: str, namespace: str, labels: dict[str, str], ingress: IngressArgs) -> dict[str, Any]:
    """An Ingress to the Service's ``http`` port (beyond the operator, from the HA guide)."""
    spec: dict[str, Any] = {
        "rules": [
            {
                "host": ingress.host,
                "http": {
                    "paths": [
                        {
                            "path": ingress.path,
                            "pathType": ingress.path_type,
                            "backend": {"service": {"name": name, "port": {"name": "http"}}},
                        }
                    ]
                },
            }
        ]
    }
    if ingress.class_name:
        spec["ingressClassName"] = ingress.class_name
    if ingress.tls_secret_name:
        spec["tls"] = [{"hosts": [ingress.host], "secretName": ingress.tls_secret_name}]
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": object_meta(name, namespace, labels, ingress.annotations),
        "spec": spec,
    }
