from __future__ import annotations

from components.args.connector_spec import IngressArgs
from components.render.meta import object_meta
from components.render.objects import Obj, type_fields
from components.render.workload import Workload


def render_ingress(w: Workload, ingress: IngressArgs) -> Obj:
    """An Ingress to the Service's ``http`` port (beyond the operator, from the HA guide)."""
    backend = {"service": {"name": w.name, "port": {"name": "http"}}}
    path = {"path": ingress.path, "pathType": ingress.path_type, "backend": backend}
    spec: Obj = {"rules": [{"host": ingress.host, "http": {"paths": [path]}}]}
    if ingress.class_name:
        spec["ingressClassName"] = ingress.class_name
    if ingress.tls_secret_name:
        spec["tls"] = [{"hosts": [ingress.host], "secretName": ingress.tls_secret_name}]
    return {
        **type_fields("ingress"),
        "metadata": object_meta(w.name, w.namespace, w.labels, ingress.annotations),
        "spec": spec,
    }
