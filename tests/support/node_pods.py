"""The node tier's pods: connectors of the stand-in image, and reading their pods and what the
stand-in says from inside them (its ``/test`` endpoints, reached at the pod's address)."""

from __future__ import annotations

import json
import urllib.request
import uuid as uuids
from typing import Any

from kubernetes import client

from .node_images import STANDIN
from .real_node import RealNode


def namespaced(name: str) -> str:
    return f"{name}-{uuids.uuid4().hex[:6]}"


def image_of(reference: str) -> dict[str, str]:
    repository, tag = reference.rsplit(":", 1)
    return {"repository": repository, "tag": tag, "pullPolicy": "Never"}


def proxy_image_of(reference: str) -> dict[str, str]:
    """A proxy's image fields (``registry/repository/name:tag``) for ``reference``."""
    path, tag = reference.rsplit(":", 1)
    registry, repository, name = path.split("/")
    return {"registry": registry, "repository": repository, "name": name, "tag": tag, "pullPolicy": "Never"}


def standin_connector(name: str, namespace: str, platform_url: str | None = None, **spec: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "name": name,
        "namespace": namespace,
        "spec": {"image": image_of(STANDIN), "service": {"port": 8080}, **spec},
    }
    if platform_url:
        entry["spec"]["registration"] = {"platformUrl": platform_url, "name": name, "authType": "none", "deadlineSeconds": 120}
    return entry


def service_address(node: RealNode):  # type: ignore[no-untyped-def]
    """The cluster's DNS for a host process: ``<service>.<namespace>.svc.cluster.local`` to its ClusterIP."""
    core = client.CoreV1Api(node.cluster.api())

    def resolve(host: str) -> str:
        service, namespace = host.split(".")[:2]
        return str(core.read_namespaced_service(service, namespace).spec.cluster_ip)

    return resolve


def pods_of(node: RealNode, namespace: str, name: str) -> list[Any]:
    core = client.CoreV1Api(node.cluster.api())
    return list(core.list_namespaced_pod(namespace, label_selector=f"app.kubernetes.io/name={name}").items)


def ready_since(pod: Any) -> Any:
    return next(c.last_transition_time for c in pod.status.conditions if c.type == "Ready" and c.status == "True")


def get_json(url: str) -> Any:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(url, timeout=10) as answer:
        return json.loads(answer.read())
