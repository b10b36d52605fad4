"""The README's YAML example on the local cluster, through the real CLI and the component package."""

from __future__ import annotations

import uuid

import pytest
from kubernetes import client
from kubernetes.client.exceptions import ApiException

from tests.support.cluster_objects import namespace

from ..support.engine_stacks import changes
from ..support.platform_double import platform_double
from ..support.yaml_stacks import example_program


def test_yaml_example_applied_ready_registered_once_and_destroyed(cluster, yaml_stack):
    ns = namespace(cluster, f"yaml-{uuid.uuid4().hex[:6]}")
    apps = client.AppsV1Api(cluster.api())
    with platform_double() as double:
        stack = yaml_stack(
            example_program(), name="yaml-cluster", platformUrl=double.url, namespace=ns, kubeconfig=str(cluster.kubeconfig)
        )
        stack.up()
        for name, replicas in (("payments", 1), ("timestamps", 2)):
            deployment = apps.read_namespaced_deployment(name, ns)
            assert deployment.status.ready_replicas == replicas
            available = next(c for c in deployment.status.conditions if c.type == "Available" and c.status == "True")
            registered = double.register_times[[r["name"] for r in double.requests].index(name.capitalize())]
            assert registered >= available.last_transition_time, "registered once the Deployment is Available"
        assert client.PolicyV1Api(cluster.api()).read_namespaced_pod_disruption_budget("timestamps", ns).spec.min_available == 1
        assert changes(stack.up().summary.resource_changes) == {}
        stack.set("imageTag", "v1.5.0")
        assert changes(stack.up().summary.resource_changes) == {"update": 1}
        assert apps.read_namespaced_deployment("payments", ns).spec.template.spec.containers[0].image.endswith(":v1.5.0")
        assert len(double.requests) == 2
        stack.destroy()
        with pytest.raises(ApiException) as gone:
            apps.read_namespaced_deployment("payments", ns)
        assert gone.value.status == 404
        assert double.violations == []
