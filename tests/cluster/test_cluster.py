"""The program against a real API server (kwok nodes): admitted, Ready, registered, rolled."""

from __future__ import annotations

import base64
import copy
import json
import pathlib
import sys
import time
import uuid
from typing import Any

import httpx
import pytest
from kubernetes import client
from kubernetes.client.exceptions import ApiException
from pulumi import automation as auto

from components.bounded_http.destination import tls_context
from components.kube.kube_access import load_access
from components.registration.route import through_api_server
from tests.support.cluster_objects import namespace, prepare_referenced_objects, with_namespace
from tests.support.samples import SAMPLE_STACKS, stack_connectors

from ..support.engine_stacks import changes
from ..support.netns import POD_GATEWAY, servers_in_a_network_namespace
from ..support.platform_double import platform_double


def minimal_stack_up(cluster, make_stack, prefix: str) -> tuple[str, Any]:
    """The minimal sample applied in a restricted namespace of its own."""
    ns = namespace(cluster, f"{prefix}-{uuid.uuid4().hex[:6]}")
    stack = make_stack(
        with_namespace(stack_connectors("minimal"), ns), name=f"cluster-{prefix}", kubeconfig=str(cluster.kubeconfig)
    )
    stack.up()
    return ns, stack


def test_minimal_stack_applied_ready_stable_and_destroyed(cluster, make_stack):
    ns, stack = minimal_stack_up(cluster, make_stack, "minimal")
    apps = client.AppsV1Api(cluster.api())
    deployment = apps.read_namespaced_deployment("x509-compliance-provider", ns)
    assert deployment.status.ready_replicas == 1
    assert changes(stack.up().summary.resource_changes) == {}
    refreshed = stack.stack.refresh(on_output=stack.log)
    assert changes(refreshed.summary.resource_changes) == {}
    stack.destroy()
    with pytest.raises(ApiException) as gone:
        apps.read_namespaced_deployment("x509-compliance-provider", ns)
    assert gone.value.status == 404


def test_restricted_level_is_really_enforced(cluster):
    ns = namespace(cluster, f"weak-{uuid.uuid4().hex[:6]}")
    baseline_only = {"metadata": {"name": "weak"}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}}
    with pytest.raises(ApiException) as refused:
        client.CoreV1Api(cluster.api()).create_namespaced_pod(ns, baseline_only)
    assert refused.value.status == 403 and "PodSecurity" in refused.value.body


def test_registration_after_ready_exactly_once(cluster, make_stack):
    ns = namespace(cluster, f"reg-{uuid.uuid4().hex[:6]}")
    connectors = with_namespace(stack_connectors("with-registration"), ns)
    with platform_double() as double:
        times = double.register_times
        connectors[0]["spec"]["registration"]["platformUrl"] = double.url
        stack = make_stack(connectors, name="cluster-registration", kubeconfig=str(cluster.kubeconfig))
        stack.up()
        assert len(double.requests) == 1
        deployment = client.AppsV1Api(cluster.api()).read_namespaced_deployment(connectors[0]["name"], ns)
        available = next(c for c in deployment.status.conditions if c.type == "Available" and c.status == "True")
        assert times[0] >= available.last_transition_time
        assert double.requests[0]["url"] == f"http://{connectors[0]['name']}.{ns}.svc.cluster.local:8080"
        stack.up()
        changed = copy.deepcopy(connectors)
        changed[0]["spec"]["replicas"] = 2
        stack.set_connectors(changed)
        stack.up()
        stack.stack.refresh(on_output=stack.log)
        assert len(double.requests) == 1
        stack.destroy()


def test_editing_a_referenced_secret_rolls_the_pods(cluster, make_stack):
    ns = namespace(cluster, f"ck-{uuid.uuid4().hex[:6]}")
    core, apps = client.CoreV1Api(cluster.api()), client.AppsV1Api(cluster.api())
    connectors = with_namespace(stack_connectors("otpki"), ns)
    connectors[0]["spec"].pop("registration")
    stack = make_stack(connectors, name="cluster-checksum", kubeconfig=str(cluster.kubeconfig))
    with pytest.raises(auto.CommandError):
        stack.preview()
    assert 'Secret "otpki-connector-secret" not found in namespace' in "\n".join(stack.output)

    def secret(value: str) -> dict[str, Any]:
        return {
            "metadata": {"name": "otpki-connector-secret"},
            "data": {"login_password_key": base64.b64encode(value.encode()).decode()},
        }

    core.create_namespaced_secret(ns, secret("first"))
    stack.up()
    name = connectors[0]["name"]
    before = apps.read_namespaced_deployment(name, ns).spec.template.metadata.annotations["otilm.com/config-checksum"]
    assert changes(stack.up().summary.resource_changes) == {}
    core.replace_namespaced_secret("otpki-connector-secret", ns, secret("second"))
    stack.up()
    after = apps.read_namespaced_deployment(name, ns).spec.template.metadata.annotations["otilm.com/config-checksum"]
    assert after != before
    replica_sets = apps.list_namespaced_replica_set(ns).items
    assert len(replica_sets) == 2
    assert "first" not in stack.state_file() and "second" not in "\n".join(stack.output)
    stack.destroy()


def test_drift_is_restored(cluster, make_stack):
    ns, stack = minimal_stack_up(cluster, make_stack, "drift")
    apps = client.AppsV1Api(cluster.api())
    apps.patch_namespaced_deployment_scale("x509-compliance-provider", ns, {"spec": {"replicas": 3}})
    stack.stack.refresh(on_output=stack.log)
    stack.up()
    assert apps.read_namespaced_deployment("x509-compliance-provider", ns).spec.replicas == 1
    stack.destroy()


@pytest.mark.parametrize("sample", SAMPLE_STACKS)
def test_every_sample_stack_on_the_cluster(cluster, make_stack, sample):
    ns = namespace(cluster, f"{sample[:12]}-{uuid.uuid4().hex[:6]}")
    connectors = with_namespace(stack_connectors(sample), ns)
    spec = connectors[0]["spec"]
    prepare_referenced_objects(cluster, ns, spec)
    with platform_double() as double:
        if "registration" in spec:
            spec["registration"]["platformUrl"] = double.url
        stack = make_stack(connectors, name=f"cluster-{sample}", kubeconfig=str(cluster.kubeconfig))
        stack.up()
        apps = client.AppsV1Api(cluster.api())
        deployment = apps.read_namespaced_deployment(connectors[0]["name"], ns)
        assert deployment.status.ready_replicas == spec.get("replicas", 1)
        assert changes(stack.up().summary.resource_changes) == {}
        assert changes(stack.stack.refresh(on_output=stack.log).summary.resource_changes) == {}
        assert len(double.requests) == (1 if "registration" in spec else 0)
        stack.destroy()
    with pytest.raises(ApiException):
        apps.read_namespaced_deployment(connectors[0]["name"], ns)
    assert client.CoreV1Api(cluster.api()).list_namespaced_service(ns).items == []


def platform_in_a_network_namespace(pod_ip: str, log: pathlib.Path) -> Any:
    """The platform double listening on the address kwok gave the platform's Pod (``netns``)."""
    script = pathlib.Path(__file__).parents[1] / "support" / "netns_double.py"
    return servers_in_a_network_namespace({pod_ip: [sys.executable, str(script), pod_ip, "8080", str(log)]})


ADMIN_JWT = "platform-admin-jwt-through-the-proxy"


@pytest.mark.parametrize("credential", ["token", "client-certificate", "client-certificate-with-platform-admin"])
def test_registration_through_the_real_api_server_proxy(cluster, make_stack, tmp_path, credential):
    ns = namespace(cluster, f"route-{uuid.uuid4().hex[:6]}")
    core = client.CoreV1Api(cluster.api())
    restricted = {
        "runAsNonRoot": True,
        "allowPrivilegeEscalation": False,
        "capabilities": {"drop": ["ALL"]},
        "seccompProfile": {"type": "RuntimeDefault"},
    }
    core.create_namespaced_pod(
        ns,
        {
            "metadata": {"name": "core", "labels": {"app": "core"}},
            "spec": {
                "containers": [
                    {"name": "core", "image": "core", "ports": [{"containerPort": 8080}], "securityContext": restricted}
                ]
            },
        },
    )
    core.create_namespaced_service(
        ns, {"metadata": {"name": "core"}, "spec": {"selector": {"app": "core"}, "ports": [{"port": 8080, "targetPort": 8080}]}}
    )
    pod_ip = ""
    for _ in range(120):
        pod = core.read_namespaced_pod("core", ns)
        ready = any(c.type == "Ready" and c.status == "True" for c in pod.status.conditions or [])
        if ready and pod.status.pod_ip:
            pod_ip = pod.status.pod_ip
            break
        time.sleep(0.5)
    assert pod_ip.startswith("10.244.0.") and pod_ip != POD_GATEWAY
    log = tmp_path / "requests.jsonl"
    connectors = with_namespace(stack_connectors("otpki"), ns)
    spec = connectors[0]["spec"]
    prepare_referenced_objects(cluster, ns, spec)
    spec["registration"].update(
        platformUrl=f"http://core.{ns}.svc.cluster.local:8080/api", route="apiServerProxy", deadlineSeconds=60
    )
    admin = credential.endswith("with-platform-admin")
    with platform_in_a_network_namespace(pod_ip, log):
        if admin:
            # Why admin credentials need the direct route: the API server's proxy drops a
            # platform bearer token (the caller is authenticated by client certificate here).
            access = load_access(str(cluster.client_cert_kubeconfig))
            through = through_api_server(f"http://core.{ns}.svc.cluster.local:8080/api", access)
            verify = tls_context(through.verify, through.cert)
            headers = {"Authorization": f"Bearer {ADMIN_JWT}"}
            for _ in range(60):  # the Service's endpoints may not be ready yet (503 from the proxy)
                answer = httpx.patch(through.at("/v2/connectors/some-uuid/approve"), headers=headers, verify=verify)
                if answer.status_code != 503:
                    break
                time.sleep(0.5)
            assert answer.status_code == 204
            (seen,) = [json.loads(line) for line in log.read_text().splitlines()]
            assert seen["method"] == "PATCH" and seen["authorization"] is None
            log.unlink()
            refused = copy.deepcopy(connectors)
            refused[0]["spec"]["registration"]["adminCredentials"] = {"bearerToken": ADMIN_JWT}
            refused[0]["spec"]["registration"]["sendAdminCredentialsOverHttp"] = True  # the mesh case: the route is refused
            stack = make_stack(refused, name="cluster-route-admin", kubeconfig=str(cluster.client_cert_kubeconfig))
            with pytest.raises(auto.CommandError):
                stack.preview()
            assert "adminCredentials need registration.route direct" in "\n".join(stack.output)
            return
        kubeconfig = cluster.kubeconfig if credential == "token" else cluster.client_cert_kubeconfig
        stack = make_stack(connectors, name=f"cluster-route-{credential}", kubeconfig=str(kubeconfig))
        stack.up()
        stack.up()
    requests = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r["path"] for r in requests] == ["/api/v2/connector/register"]
    assert requests[0]["body"]["url"] == f"http://otpki-connector.{ns}.svc.cluster.local:8080"
    sent = [{"name": a["name"], "content": [{"data": a["content"]}]} for a in spec["registration"]["customAttributes"]]
    assert requests[0]["body"]["customAttributes"] == sent, "the sample's attributes, as the Core reads them"
    stack.destroy()
