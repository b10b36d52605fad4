"""Moving from the operator: its objects for the `full` sample are running; the stack takes
them over with no registration and no pod restart, and manages them from then on."""

from __future__ import annotations

import base64
import copy
import json
import uuid as uuids

from kubernetes import client

from components.render.checksum import ReferencedData, config_checksum
from tests.support.cluster_objects import namespace, prepare_referenced_objects, with_namespace
from tests.support.operator_objects import apply_as_the_operator, checksum_of, pods_and_replica_sets, wait_available
from tests.support.samples import stack_connectors

from ..support.engine_stacks import changes
from ..support.operator_objects import operator_objects
from ..support.platform_double import platform_double


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

    from tests.support.proxies import operator_proxy_objects, stack_proxies

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
