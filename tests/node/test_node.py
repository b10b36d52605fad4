"""On a real node (``conftest.node``): the rendered pods start under the restricted profile, pass
their real probes, and the registration is posted only once they are Ready; the platform double
calls the connector back at its Service address before it answers, as the Core does."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import urllib.request

import pytest
import yaml
from kubernetes import client

from tests.support.main_command_project import MAIN_COMMAND

from ..conftest import ROOT
from ..support.engine_stacks import changes
from ..support.node_images import PROXY_STANDIN, STANDIN_NAMED, STANDIN_ROOT, STANDIN_USER
from ..support.node_pods import (
    get_json,
    image_of,
    namespaced,
    pods_of,
    proxy_image_of,
    ready_since,
    service_address,
    standin_connector,
)
from ..support.platform_double import platform_double
from ..support.real_node import node_bin


def test_a_connector_runs_passes_its_probes_and_registers_once_ready(node, make_stack):
    from pulumi import automation as auto

    ns = namespaced("ready")
    with platform_double() as double:
        double.callback, double.resolve = True, service_address(node)
        entry = standin_connector("x509", ns, double.url, env=[{"name": "GREETING", "value": "from-the-stack"}])
        stack = make_stack([entry], name="node-ready", kubeconfig=str(node.cluster.kubeconfig))
        stack.stack.set_config("connectors:createNamespaces", auto.ConfigValue("true"))
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
    networking = client.NetworkingV1Api(node.cluster.api())
    assert networking.read_namespaced_network_policy("x509", ns), "admitted (the bridge network does not enforce it)"


def test_pods_that_cannot_start_are_never_registered_and_the_run_names_the_kubelets_reason(node, make_stack):
    """Within the rollout's wait: an image whose user is root or a name (refused under
    runAsNonRoot), one that exits at start, one whose readiness never passes. runAsUser fixes the
    first two."""
    from pulumi import automation as auto

    ns = namespaced("refused")
    with platform_double() as double:
        entries = [
            standin_connector("as-root", ns, double.url, image=image_of(STANDIN_ROOT), rolloutTimeoutSeconds=30),
            standin_connector("as-name", ns, double.url, image=image_of(STANDIN_NAMED), rolloutTimeoutSeconds=30),
            standin_connector(
                "crashing", ns, double.url, env=[{"name": "STANDIN_EXIT_AT_START", "value": "1"}], rolloutTimeoutSeconds=30
            ),
            standin_connector(
                "unready", ns, double.url, env=[{"name": "STANDIN_NEVER_READY", "value": "1"}], rolloutTimeoutSeconds=30
            ),
        ]
        stack = make_stack(entries, name="node-refused", kubeconfig=str(node.cluster.kubeconfig))
        stack.stack.set_config("connectors:createNamespaces", auto.ConfigValue("true"))
        with pytest.raises(auto.CommandError):
            stack.up()
        said = "\n".join(stack.output)
        assert double.requests == [], "no pod was Ready: nothing was registered"
        for reason in (
            "container has runAsNonRoot and image will run as root",
            "image has non-numeric user (nonroot), cannot verify user is non-root",
            "CrashLoopBackOff",
            "containers with unready status: [connector]",
        ):
            assert reason in said, reason
        for name in ("as-root", "as-name", "crashing", "unready"):
            assert f"kubernetes:apps/v1:Deployment ({name})" in said

        fixed = entries[:2]
        for entry in fixed:
            entry["spec"]["securityContext"] = {"runAsUser": STANDIN_USER, "runAsGroup": STANDIN_USER}
        stack.set_connectors(fixed)
        stack.up()
        assert sorted(r.name for r in double.records.values()) == ["as-name", "as-root"]
    for name in ("as-root", "as-name"):
        (pod,) = pods_of(node, ns, name)
        assert get_json(f"http://{pod.status.pod_ip}:8080/test/env")["uid"] == STANDIN_USER


def test_a_referenced_secrets_edit_replaces_the_pods_and_a_no_op_keeps_them(node, make_stack):
    ns = namespaced("secret")
    core = client.CoreV1Api(node.cluster.api())
    core.create_namespace({"metadata": {"name": ns, "labels": {"pod-security.kubernetes.io/enforce": "restricted"}}})
    core.create_namespaced_secret(ns, {"metadata": {"name": "creds"}, "stringData": {"TOKEN": "first"}})
    entry = standin_connector("x509", ns, secretRefs=[{"name": "creds", "type": "env"}])
    stack = make_stack([entry], name="node-secret", kubeconfig=str(node.cluster.kubeconfig))
    stack.up()

    def pod_and_token() -> tuple[str, str]:
        (pod,) = [p for p in pods_of(node, ns, "x509") if not p.metadata.deletion_timestamp]
        return pod.metadata.uid, get_json(f"http://{pod.status.pod_ip}:8080/test/env")["env"]["TOKEN"]

    first_uid, token = pod_and_token()
    assert token == "first"
    core.patch_namespaced_secret("creds", ns, {"stringData": {"TOKEN": "second"}})
    stack.up()
    second_uid, token = pod_and_token()
    assert second_uid != first_uid and token == "second"
    assert changes(stack.up().summary.resource_changes) == {}
    assert pod_and_token() == (second_uid, "second"), "a no-op up keeps the pods"


def deploy(work: pathlib.Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PULUMI_BACKEND_URL", "PULUMI_CONFIG_PASSPHRASE")}
    command = [*MAIN_COMMAND, *args, "--stack", "live", "--work-dir", str(work)]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)


def test_status_reads_a_real_pods_health_and_check_names_a_crash_loop(node, tmp_path):
    ns = namespaced("health")
    work = tmp_path / "project"
    (work / "stacks").mkdir(parents=True)
    shutil.copy(ROOT / "Pulumi.yaml", work)
    crashing = [{"name": "STANDIN_EXIT_AT_START", "value": "1"}]
    entries = [standin_connector("healthy", ns), standin_connector("crashing", ns, env=crashing, rolloutTimeoutSeconds=20)]
    config = {
        "connectors:kubeconfig": str(node.cluster.kubeconfig),
        "connectors:createNamespaces": True,
        "connectors:connectors": entries,
    }
    (work / "stacks" / "Pulumi.live.yaml").write_text(yaml.safe_dump({"config": config}))
    up = deploy(work, "up")
    assert up.returncode != 0 and "failed: crashing" in up.stdout, up.stdout[-3000:]

    def health(name: str) -> str:
        table = deploy(work, "status").stdout.splitlines()
        header = next(i for i, line in enumerate(table) if line.startswith("KIND"))
        return next(line.split()[5] for line in table[header + 1 :] if line.split()[1:2] == [name])

    assert health("healthy") == "Up"
    (pod,) = pods_of(node, ns, "healthy")
    urllib.request.build_opener(urllib.request.ProxyHandler({})).open(
        urllib.request.Request(f"http://{pod.status.pod_ip}:8080/test/fail", method="POST"), timeout=10
    )
    assert health("healthy") == "Down"
    # Between two of its restarts the kubelet says the container runs or has terminated, for a moment
    # that the back-off makes rarer each time; `kubectl get pods` shows the same: look again then.
    expected = "connector crashing: not Ready (0 of 1 replicas ready: CrashLoopBackOff)"
    for _ in range(3):
        check = deploy(work, "status", "--check")
        assert check.returncode == 1
        if expected in check.stdout:
            break
    assert expected in check.stdout, check.stdout
    assert "connector healthy: not Healthy" in check.stdout


def test_the_disruption_budget_refuses_a_drain_that_would_break_it(node, make_stack):
    from pulumi import automation as auto

    ns = namespaced("budget")
    budget = {"podDisruptionBudget": {"enabled": True, "minAvailable": 2}}
    entry = standin_connector("guarded", ns, replicas=2, lifecycle=budget)
    stack = make_stack([entry], name="node-budget", kubeconfig=str(node.cluster.kubeconfig))
    stack.stack.set_config("connectors:createNamespaces", auto.ConfigValue("true"))
    stack.up()
    before = sorted(p.metadata.uid for p in pods_of(node, ns, "guarded"))
    kubectl = node_bin() / "kubectl"
    drain = subprocess.run(
        [str(kubectl), "--kubeconfig", str(node.cluster.kubeconfig), "drain", node.name, "--pod-selector",
         "app.kubernetes.io/name=guarded", "--timeout=15s", "--delete-emptydir-data"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    subprocess.run(
        [str(kubectl), "--kubeconfig", str(node.cluster.kubeconfig), "uncordon", node.name], check=True, capture_output=True
    )
    assert drain.returncode != 0 and "disruption budget" in drain.stderr, drain.stderr[-2000:]
    assert sorted(p.metadata.uid for p in pods_of(node, ns, "guarded")) == before, "no pod was evicted"


def test_a_proxy_runs_under_the_restricted_profile_and_passes_its_probes(node, make_stack):
    from pulumi import automation as auto

    ns = namespaced("proxy")
    core = client.CoreV1Api(node.cluster.api())
    core.create_namespace({"metadata": {"name": ns, "labels": {"pod-security.kubernetes.io/enforce": "restricted"}}})
    core.create_namespaced_secret(ns, {"metadata": {"name": "dc-east-config"}, "stringData": {"configToken": "a-config-token"}})
    spec = {
        "image": proxy_image_of(PROXY_STANDIN),
        "configTokenSecretRef": {"name": "dc-east-config"},
        "rolloutTimeoutSeconds": 120,
    }
    proxy = {"name": "dc-east", "namespace": ns, "spec": spec}
    stack = make_stack([], name="node-proxy", kubeconfig=str(node.cluster.kubeconfig))
    stack.stack.set_config("connectors:proxies", auto.ConfigValue(json.dumps([proxy])))
    stack.up()
    (pod,) = pods_of(node, ns, "dc-east")
    assert ready_since(pod) is not None
    assert get_json(f"http://{pod.status.pod_ip}:8080/test/env")["env"]["PROXY_CONFIG_TOKEN"] == "a-config-token"


def test_moving_a_proxy_from_the_operator_keeps_every_pod(node, make_stack):
    """The operator's rendering of the minimal Proxy applied first (its field manager, its
    image the stand-in), running on the node; the stack takes it over: every pod keeps its UID."""
    import base64

    from pulumi import automation as auto

    from components.render.checksum import ReferencedData, config_checksum
    from tests.support.operator_objects import apply_as_the_operator, pods_and_replica_sets, wait_available
    from tests.support.proxies import operator_proxy_objects, stack_proxies

    ns = namespaced("from-op")
    core = client.CoreV1Api(node.cluster.api())
    core.create_namespace({"metadata": {"name": ns, "labels": {"pod-security.kubernetes.io/enforce": "restricted"}}})
    token = {"configToken": base64.b64encode(b"a-config-token").decode()}
    core.create_namespaced_secret(ns, {"metadata": {"name": "dc-east-config"}, "data": token})
    checksum = config_checksum([ReferencedData("secret", "dc-east-config", token)])
    operators = operator_proxy_objects(ns, checksum)
    (container,) = operators["Deployment"]["spec"]["template"]["spec"]["containers"]
    container.update(image=PROXY_STANDIN, imagePullPolicy="Never")
    for obj in operators.values():
        apply_as_the_operator(node.cluster, obj)
    wait_available(node.cluster, ns, "dc-east", 1)
    before = pods_and_replica_sets(node.cluster, ns)

    (entry,) = stack_proxies("proxy-minimal")
    entry["spec"]["image"] = proxy_image_of(PROXY_STANDIN)
    taken = {**entry, "namespace": ns, "fromOperator": True}
    stack = make_stack([], name="node-from-operator", kubeconfig=str(node.cluster.kubeconfig))
    stack.stack.set_config("connectors:proxies", auto.ConfigValue(json.dumps([taken])))
    stack.up()
    assert pods_and_replica_sets(node.cluster, ns) == before, "every pod kept its UID, the same ReplicaSet"
    assert changes(stack.up().summary.resource_changes) == {}


def test_the_ingress_service_monitor_and_network_policy_are_admitted_beside_running_pods(node, make_stack):
    """The optional kinds on the real node: the ServiceMonitor (its CRD installed as the
    Prometheus operator installs it) and the NetworkPolicy are admitted; the Ingress is admitted
    and its wait ends once a controller (played by the test) gives it an address, as ingress-nginx
    would. The bridge network does not enforce the NetworkPolicy: none is required."""
    import threading
    import time

    from pulumi import automation as auto

    from tests.support.cluster_objects import install_service_monitor_crd

    install_service_monitor_crd(node.cluster)
    ns = namespaced("kinds")
    entry = standin_connector(
        "kinds", ns, ingress={"host": "kinds.example.com"}, metrics={"enabled": True, "serviceMonitor": {"enabled": True}}
    )
    stack = make_stack([entry], name="node-kinds", kubeconfig=str(node.cluster.kubeconfig))
    stack.stack.set_config("connectors:createNamespaces", auto.ConfigValue("true"))
    networking = client.NetworkingV1Api(node.cluster.api())
    stop = threading.Event()

    def ingress_controller() -> None:
        while not stop.is_set():
            try:
                networking.patch_namespaced_ingress_status(
                    "kinds", ns, {"status": {"loadBalancer": {"ingress": [{"ip": "127.0.0.1"}]}}}
                )
                return
            except client.ApiException:
                time.sleep(0.5)

    controller = threading.Thread(target=ingress_controller, daemon=True)
    controller.start()
    try:
        stack.up()
    finally:
        stop.set()
        controller.join(timeout=10)
    (pod,) = pods_of(node, ns, "kinds")
    assert get_json(f"http://{pod.status.pod_ip}:8080/test/env")["uid"] == STANDIN_USER
    assert networking.read_namespaced_ingress("kinds", ns).spec.rules[0].host == "kinds.example.com"
    assert networking.read_namespaced_network_policy("kinds", ns)
    monitors = client.CustomObjectsApi(node.cluster.api()).list_namespaced_custom_object(
        "monitoring.coreos.com", "v1", ns, "servicemonitors"
    )
    assert [m["metadata"]["name"] for m in monitors["items"]] == ["kinds"]
