"""The reference operator's rendering of its `full` sample, as the tests compare with it."""

from __future__ import annotations

import json
import ssl
import time
from typing import Any

import httpx
import yaml
from kubernetes import client

from components.render.checksum import EMPTY_CHECKSUM, ReferencedData, config_checksum
from tests.support.samples import DATA

from .local_cluster import TOKEN

PATHS = {
    "ServiceAccount": "/api/v1/namespaces/{ns}/serviceaccounts/{name}",
    "Service": "/api/v1/namespaces/{ns}/services/{name}",
    "Deployment": "/apis/apps/v1/namespaces/{ns}/deployments/{name}",
    "PodDisruptionBudget": "/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets/{name}",
    "NetworkPolicy": "/apis/networking.k8s.io/v1/namespaces/{ns}/networkpolicies/{name}",
    "ServiceMonitor": "/apis/monitoring.coreos.com/v1/namespaces/{ns}/servicemonitors/{name}",
}


def operator_objects(namespace: str = "ilm-system", checksum: str = EMPTY_CHECKSUM) -> dict[str, dict[str, Any]]:
    """The reference operator's rendering of its `full` sample (tests/data), by kind."""
    text = (DATA / "operator-full-objects.yaml").read_text().replace("NAMESPACE", namespace).replace("CHECKSUM", checksum)
    return {o["kind"]: o for o in yaml.safe_load_all(text)}


def apply_as_the_operator(cluster, obj: dict[str, Any]) -> None:
    """Server-side apply with the operator's field manager, as its controller does."""
    path = PATHS[obj["kind"]].format(ns=obj["metadata"]["namespace"], name=obj["metadata"]["name"])
    answer = httpx.patch(
        f"{cluster.server}{path}?fieldManager=ilm-operator&force=true",
        content=json.dumps(obj),
        headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/apply-patch+yaml"},
        verify=ssl.create_default_context(cafile=str(cluster.ca)),
    )
    assert answer.status_code in (200, 201), answer.text


def checksum_of(cluster, ns: str, spec: dict[str, Any]) -> str:
    core = client.CoreV1Api(cluster.api())
    data = [ReferencedData("secret", r["name"], core.read_namespaced_secret(r["name"], ns).data) for r in spec["secretRefs"]]
    data += [
        ReferencedData("configmap", r["name"], core.read_namespaced_config_map(r["name"], ns).data) for r in spec["configMapRefs"]
    ]
    return config_checksum(data)


def pods_and_replica_sets(cluster, ns: str) -> tuple[set[str], set[str]]:
    core, apps = client.CoreV1Api(cluster.api()), client.AppsV1Api(cluster.api())
    pods = {p.metadata.uid for p in core.list_namespaced_pod(ns).items}
    sets = {r.metadata.uid for r in apps.list_namespaced_replica_set(ns).items}
    return pods, sets


def wait_available(cluster, ns: str, name: str, replicas: int) -> None:

    apps = client.AppsV1Api(cluster.api())
    for _ in range(120):
        status = apps.read_namespaced_deployment(name, ns).status
        if status.ready_replicas == replicas and status.updated_replicas == replicas and not status.unavailable_replicas:
            return
        time.sleep(0.5)
    raise AssertionError("the operator's Deployment did not become available")
