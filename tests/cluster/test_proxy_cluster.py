"""Proxies on the real API server, in a namespace that enforces the restricted Pod Security
level: Ready, rerun and refresh unchanged, a token Secret edit rolls the pods, destroy removes
everything."""

from __future__ import annotations

import base64
import json
import uuid

import pytest
from kubernetes import client
from kubernetes.client.exceptions import ApiException
from pulumi import automation as auto

from tests.support.cluster_objects import install_service_monitor_crd, namespace
from tests.support.proxies import stack_proxies

from ..support.engine_stacks import changes
from ..support.local_cluster import NODE


def token_secret(name: str, token: str) -> dict:
    return {"metadata": {"name": name}, "data": {"configToken": base64.b64encode(token.encode()).decode()}}


@pytest.mark.parametrize("sample", ["proxy-minimal", "proxy-full"])
def test_a_proxy_on_the_cluster_is_ready_stable_rolls_on_a_new_token_and_goes(cluster, make_stack, sample):
    ns = namespace(cluster, f"{sample}-{uuid.uuid4().hex[:6]}")
    core, apps = client.CoreV1Api(cluster.api()), client.AppsV1Api(cluster.api())
    proxies = stack_proxies(sample)
    for p in proxies:
        p["namespace"] = ns
    spec = proxies[0]["spec"]
    secret_name = spec["configTokenSecretRef"]["name"]
    for ref in spec.get("secretRefs", []):
        core.create_namespaced_secret(
            ns, {"metadata": {"name": ref["name"]}, "data": {"ca.crt": base64.b64encode(b"ca").decode()}}
        )
    for ref in spec.get("configMapRefs", []):
        core.create_namespaced_config_map(ns, {"metadata": {"name": ref["name"]}, "data": {"trust.pem": "pem"}})
    if spec.get("nodeSelector"):
        core.patch_node(NODE, {"metadata": {"labels": spec["nodeSelector"]}})
    if spec.get("metrics", {}).get("serviceMonitor", {}).get("enabled"):
        install_service_monitor_crd(cluster)

    stack = make_stack([], name=f"cluster-{sample}", kubeconfig=str(cluster.kubeconfig))
    stack.stack.set_config("connectors:proxies", auto.ConfigValue(json.dumps(proxies)))
    with pytest.raises(auto.CommandError):
        stack.preview()
    assert f'Secret "{secret_name}" not found in namespace "{ns}"' in "\n".join(stack.output)

    core.create_namespaced_secret(ns, token_secret(secret_name, "first-token"))
    stack.up()
    name = proxies[0]["name"]
    deployment = apps.read_namespaced_deployment(name, ns)
    assert deployment.status.ready_replicas == spec.get("replicas", 1)
    assert changes(stack.up().summary.resource_changes) == {}
    assert changes(stack.stack.refresh(on_output=stack.log).summary.resource_changes) == {}

    before = deployment.spec.template.metadata.annotations["otilm.com/config-checksum"]
    core.replace_namespaced_secret(secret_name, ns, token_secret(secret_name, "second-token"))
    stack.up()
    after = apps.read_namespaced_deployment(name, ns).spec.template.metadata.annotations["otilm.com/config-checksum"]
    assert after != before and len(apps.list_namespaced_replica_set(ns).items) == 2
    assert "first-token" not in stack.state_file() and "second-token" not in "\n".join(stack.output)

    stack.destroy()
    with pytest.raises(ApiException):
        apps.read_namespaced_deployment(name, ns)
    assert core.list_namespaced_service(ns).items == []
    assert [s.metadata.name for s in core.list_namespaced_secret(ns).items if s.metadata.name == secret_name] == [secret_name], (
        "the token Secret is never owned or deleted"
    )
