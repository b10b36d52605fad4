"""Moving from the operator: its objects for the `full` sample are running; the stack takes
them over with no registration and no pod restart, and manages them from then on."""

from __future__ import annotations

import base64
import copy
import json
import ssl
import uuid as uuids
from typing import Any

import httpx
from kubernetes import client

from components.render.checksum import ReferencedData, config_checksum

from ..conftest import stack_connectors
from ..support.engine_stacks import changes
from ..support.local_cluster import TOKEN
from ..support.operator_objects import operator_objects
from ..support.platform_double import platform_double
from .test_cluster import namespace, prepare_referenced_objects, with_namespace

PATHS = {
    "ServiceAccount": "/api/v1/namespaces/{ns}/serviceaccounts/{name}",
    "Service": "/api/v1/namespaces/{ns}/services/{name}",
    "Deployment": "/apis/apps/v1/namespaces/{ns}/deployments/{name}",
    "PodDisruptionBudget": "/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets/{name}",
    "NetworkPolicy": "/apis/networking.k8s.io/v1/namespaces/{ns}/networkpolicies/{name}",
    "ServiceMonitor": "/apis/monitoring.coreos.com/v1/namespaces/{ns}/servicemonitors/{name}",
}


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
    import time

    apps = client.AppsV1Api(cluster.api())
    for _ in range(120):
        status = apps.read_namespaced_deployment(name, ns).status
        if status.ready_replicas == replicas and status.updated_replicas == replicas and not status.unavailable_replicas:
            return
        time.sleep(0.5)
    raise AssertionError("the operator's Deployment did not become available")


def test_a_connector_the_operator_runs_is_taken_over_without_a_pod_restart(cluster, make_stack):
    ns = namespace(cluster, f"from-op-{uuids.uuid4().hex[:6]}")
    (entry,) = with_namespace(stack_connectors("full"), ns)
    spec = entry["spec"]
    prepare_referenced_objects(cluster, ns, spec)
    for obj in operator_objects(ns, checksum_of(cluster, ns, spec)).values():
        apply_as_the_operator(cluster, obj)
    wait_available(cluster, ns, entry["name"], spec["replicas"])
    before = pods_and_replica_sets(cluster, ns)
    assert len(before[0]) == 3 and len(before[1]) == 1

    with platform_double() as double:
        known = double.add("EJBCA NG", f"http://{entry['name']}.{ns}.svc.cluster.local:8443")
        spec["registration"] = {
            "platformUrl": double.url,
            "name": "EJBCA NG",
            "authType": "none",
            "uuid": known.uuid,
            "route": "direct",
        }
        taken = {**entry, "fromOperator": True}
        stack = make_stack([taken], name="from-operator", kubeconfig=str(cluster.kubeconfig))
        up = stack.up()
        assert up.outputs[entry["name"]].value["registration"]["uuid"] == known.uuid
        assert double.count("POST", "/v2/connector/register") == 0 and double.calls == []

        assert pods_and_replica_sets(cluster, ns) == before, "no pod replaced, same ReplicaSet"
        apps = client.AppsV1Api(cluster.api())
        deployment = apps.read_namespaced_deployment(entry["name"], ns)
        assert deployment.metadata.labels["app.kubernetes.io/managed-by"] == "pulumi-connector"
        managers = {m.manager for m in deployment.metadata.managed_fields}
        assert any(m.startswith("pulumi") for m in managers), managers
        service = client.CoreV1Api(cluster.api()).read_namespaced_service(entry["name"], ns)
        assert service.metadata.labels["app.kubernetes.io/managed-by"] == "pulumi-connector"

        assert changes(stack.up().summary.resource_changes) == {}
        assert pods_and_replica_sets(cluster, ns) == before

        changed = copy.deepcopy(taken)
        changed["spec"]["env"].append({"name": "EXTRA", "value": "1"})
        stack.set_connectors([changed])
        stack.up()
        after_change = pods_and_replica_sets(cluster, ns)
        assert after_change[1] > before[1], "a later change rolls the pods normally (a new ReplicaSet)"
        assert double.calls == []
        stack.destroy()


def test_a_proxy_the_operator_runs_is_taken_over_without_a_pod_restart(cluster, make_stack):
    from pulumi import automation as auto

    from ..test_proxy_component import operator_proxy_objects, stack_proxies

    ns = namespace(cluster, f"from-op-px-{uuids.uuid4().hex[:6]}")
    core = client.CoreV1Api(cluster.api())
    token = {"configToken": base64.b64encode(b"a-config-token").decode()}
    core.create_namespaced_secret(ns, {"metadata": {"name": "dc-east-config"}, "data": token})
    checksum = config_checksum([ReferencedData("secret", "dc-east-config", token)])
    for obj in operator_proxy_objects(ns, checksum).values():
        apply_as_the_operator(cluster, obj)
    wait_available(cluster, ns, "dc-east", 1)
    before = pods_and_replica_sets(cluster, ns)

    (entry,) = stack_proxies("proxy-minimal")
    taken = {**entry, "namespace": ns, "fromOperator": True}
    stack = make_stack([], name="from-operator-proxy", kubeconfig=str(cluster.kubeconfig))
    stack.stack.set_config("connectors:proxies", auto.ConfigValue(json.dumps([taken])))
    stack.up()
    assert pods_and_replica_sets(cluster, ns) == before, "no pod replaced, same ReplicaSet"
    deployment = client.AppsV1Api(cluster.api()).read_namespaced_deployment("dc-east", ns)
    assert deployment.metadata.labels["app.kubernetes.io/managed-by"] == "pulumi-connector"
    assert changes(stack.up().summary.resource_changes) == {}
    stack.destroy()
