"""Objects the cluster tests make and read: restricted namespaces, the entries moved into them,
the Secrets and ConfigMaps they reference, the ServiceMonitor CRD."""

from __future__ import annotations

import base64
import copy
import time
from typing import Any

import yaml
from kubernetes import client
from kubernetes.client.exceptions import ApiException

from .local_cluster import NODE

RESTRICTED_NAMESPACE = {"pod-security.kubernetes.io/enforce": "restricted"}
"""The label of a namespace under the restricted Pod Security level."""


def namespace(cluster, name: str) -> str:
    core = client.CoreV1Api(cluster.api())
    core.create_namespace({"metadata": {"name": name, "labels": RESTRICTED_NAMESPACE}})
    return name


def with_namespace(connectors: list[dict[str, Any]], ns: str) -> list[dict[str, Any]]:
    moved = copy.deepcopy(connectors)
    for c in moved:
        c["namespace"] = ns
    return moved


def secret_value(secret: str, key: str) -> str:
    """The value ``prepare_referenced_objects`` gives a Secret's key."""
    return f"{secret}-{key}"


CONFIG_MAP_VALUE = "v"
"""The value ``prepare_referenced_objects`` gives every ConfigMap key."""


def prepare_referenced_objects(cluster, ns: str, spec: dict[str, Any], host_path: str = "/tmp/unused", node: str = NODE) -> None:
    """What a user creates before applying a sample: its Secrets, ConfigMaps, claims (bound to a
    volume at ``host_path`` on the node), CRDs, the labels of the ``node`` it is to run on."""
    api = cluster.api()
    core = client.CoreV1Api(api)
    for ref in spec.get("secretRefs", []):
        keys = [k["secretKey"] for k in ref.get("keys", [])] or ["value"]
        data = {k: base64.b64encode(secret_value(ref["name"], k).encode()).decode() for k in keys}
        core.create_namespaced_secret(ns, {"metadata": {"name": ref["name"]}, "data": data})
    for ref in spec.get("configMapRefs", []):
        keys = [k["configMapKey"] for k in ref.get("keys", [])] or ["value"]
        core.create_namespaced_config_map(ns, {"metadata": {"name": ref["name"]}, "data": dict.fromkeys(keys, CONFIG_MAP_VALUE)})
    for volume in spec.get("volumes", []):
        claim = volume.get("persistentVolumeClaim")
        if claim:
            core.create_persistent_volume(
                {
                    "metadata": {"name": f"{ns}-{claim['claimName']}"},
                    "spec": {
                        "capacity": {"storage": "1Gi"},
                        "accessModes": ["ReadWriteMany"],
                        "hostPath": {"path": host_path},
                        "claimRef": {"namespace": ns, "name": claim["claimName"]},
                        "storageClassName": "",
                    },
                }
            )
            core.create_namespaced_persistent_volume_claim(
                ns,
                {
                    "metadata": {"name": claim["claimName"]},
                    "spec": {
                        "accessModes": ["ReadWriteMany"],
                        "resources": {"requests": {"storage": "1Gi"}},
                        "storageClassName": "",
                    },
                },
            )
    if spec.get("nodeSelector"):
        core.patch_node(node, {"metadata": {"labels": spec["nodeSelector"]}})
    if spec.get("metrics", {}).get("serviceMonitor", {}).get("enabled"):
        install_service_monitor_crd(cluster)


def install_service_monitor_crd(cluster) -> None:
    from .crds import service_monitor_crd_path

    install_crds(cluster, [yaml.safe_load(service_monitor_crd_path().read_text())])


def install_crds(cluster, crds: list[dict[str, Any]]) -> None:
    """Each CRD created (kept when there already) and established."""
    extensions = client.ApiextensionsV1Api(cluster.api())
    for crd in crds:
        try:
            extensions.create_custom_resource_definition(crd)
        except ApiException as error:
            if error.status != 409:
                raise
    for crd in crds:
        for _ in range(60):
            conditions = extensions.read_custom_resource_definition(crd["metadata"]["name"]).status.conditions or []
            if any(c.type == "Established" and c.status == "True" for c in conditions):
                break
            time.sleep(0.5)
        else:
            raise AssertionError(f"the CRD {crd['metadata']['name']} was not established")
