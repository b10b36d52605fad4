"""On a real node (``conftest.node``): the rendered pods start under the restricted profile, pass
their real probes, and the registration is posted only once they are Ready; the platform double
calls the connector back at its Service address before it answers, as the Core does."""

from __future__ import annotations

import json
import urllib.request
import uuid as uuids
from typing import Any

from kubernetes import client

from ..platform_double import platform_double
from .node_images import STANDIN, STANDIN_USER
from .real_node import RealNode


def namespaced(name: str) -> str:
    return f"{name}-{uuids.uuid4().hex[:6]}"


def standin_connector(name: str, namespace: str, platform_url: str | None = None, **spec: Any) -> dict[str, Any]:
    repository, tag = STANDIN.rsplit(":", 1)
    entry: dict[str, Any] = {
        "name": name,
        "namespace": namespace,
        "spec": {"image": {"repository": repository, "tag": tag, "pullPolicy": "Never"}, "service": {"port": 8080}, **spec},
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


def test_a_connector_runs_passes_its_probes_and_registers_once_ready(node, make_stack):
    ns = namespaced("ready")
    with platform_double() as double:
        double.callback, double.resolve = True, service_address(node)
        entry = standin_connector("x509", ns, double.url, env=[{"name": "GREETING", "value": "from-the-stack"}])
        stack = make_stack([entry], name="node-ready", kubeconfig=str(node.cluster.kubeconfig))
        stack.stack.set_config("connectors:createNamespaces", __import__("pulumi").automation.ConfigValue("true"))
        stack.up()
        (record,) = double.records.values()
        (registered_at,) = double.register_times
    (pod,) = pods_of(node, ns, "x509")
    assert ready_since(pod) <= registered_at, "the registration was posted only after the pod was Ready"
    assert record.interfaces == ["info", "health", "metrics", "compliance"], "the Core's call back reached the pod"
    seen = get_json(f"http://{pod.status.pod_ip}:8080/test/env")
    assert seen["uid"] == STANDIN_USER and seen["env"]["GREETING"] == "from-the-stack"
    security = pod.spec.security_context
    assert security.run_as_non_root and security.seccomp_profile.type == "RuntimeDefault"
