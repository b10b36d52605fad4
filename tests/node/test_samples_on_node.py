"""The samples' shapes on the real node: each sample stack as written (its probes and ports, its
variables, its referenced Secrets and ConfigMaps as variables and files, its volumes and claim,
replicas, disruption budget, node selector, init container and sidecar, registration) becomes
Ready through its real probes under the restricted profile.

What differs from the sample: the images, as no registry can be reached here. The main
container is the connector stand-in (numeric non-root user); the init container is the stand-in
as root, as busybox is, told to exit at once, so the pod's ``runAsUser`` (which the sample needs
with busybox, as the README says) is added; the sidecar is the stand-in told to wait. The
platform is the double on the host, calling the connector back at its Service address."""

from __future__ import annotations

import json
import pathlib
import time
import urllib.parse
from typing import Any

import pytest
from kubernetes import client

from components.args.proxy_spec import SIGNING_KEY_ENV, TOKEN_ENV
from components.render.proxy import HTTP_PORT

from ..support.cluster_objects import (
    CONFIG_MAP_VALUE,
    RESTRICTED_NAMESPACE,
    prepare_referenced_objects,
    secret_value,
    with_namespace,
)
from ..support.node_images import PROXY_STANDIN, STANDIN, STANDIN_ROOT, STANDIN_USER
from ..support.node_pods import get_json, image_of, namespaced, pods_of, proxy_image_of, ready_since, service_address
from ..support.platform_double import platform_double
from ..support.proxies import stack_proxies
from ..support.samples import stack_connectors

SAMPLES = ["full", "otpki", "timestamp-formatting", "proxy-full"]
CLAIMED = {"vendor-marker": "written on the node"}


def on_this_node(spec: dict[str, Any], proxy: bool) -> None:
    """The sample's images replaced by the stand-in's (see the module); all else as written."""
    if proxy:
        spec["image"] = proxy_image_of(PROXY_STANDIN)
    else:
        spec["image"] = {**spec["image"], **image_of(STANDIN)}
    for init in spec.get("initContainers", []):
        init.update(image=STANDIN_ROOT, imagePullPolicy="Never", command=["/entrypoint", "init"])
    for sidecar in spec.get("sidecars", []):
        sidecar.update(image=STANDIN, imagePullPolicy="Never", command=["/entrypoint", "idle"])
    if spec.get("initContainers"):
        spec["securityContext"] = {**spec.get("securityContext", {}), "runAsUser": STANDIN_USER}


def expected_env(spec: dict[str, Any]) -> dict[str, str]:
    """The sample's variables, and those its keyed references give (``prepare_referenced_objects``'
    values) and a proxy's token Secret gives."""
    env = {e["name"]: e["value"] for e in spec.get("env", [])}
    token = spec.get("configTokenSecretRef")
    if token:
        env[TOKEN_ENV] = secret_value(token["name"], token.get("tokenKey", "configToken"))
        env |= {SIGNING_KEY_ENV: secret_value(token["name"], token["signingKeyKey"])} if token.get("signingKeyKey") else {}
    for ref in spec.get("secretRefs", []):
        if ref["type"] == "env":
            env |= {key["envVar"]: secret_value(ref["name"], key["secretKey"]) for key in ref.get("keys", [])}
    for ref in spec.get("configMapRefs", []):
        if ref["type"] == "env":
            env |= {key["envVar"]: CONFIG_MAP_VALUE for key in ref.get("keys", [])}
    return env


def expected_files(spec: dict[str, Any], claimed: dict[str, str]) -> dict[str, str]:
    """The files the sample's volume references mount, by path, and ``claimed`` (a file's name and
    content written in the volume behind its claim) at the claim's mount path."""
    files = {}
    for volume in spec.get("volumes", []):
        if "persistentVolumeClaim" in volume:
            files |= {f"{volume['mountPath']}/{name}": content for name, content in claimed.items()}
    for kind, key_field in (("secretRefs", "secretKey"), ("configMapRefs", "configMapKey")):
        for ref in spec.get(kind, []):
            if ref["type"] != "volume":
                continue
            keys = [(k[key_field], k.get("path", k[key_field])) for k in ref.get("keys", [])] or [("value", "value")]
            for key, path in keys:
                content = secret_value(ref["name"], key) if kind == "secretRefs" else CONFIG_MAP_VALUE
                files[f"{ref['mountPath']}/{path}"] = content
    return files


def sample_entry(sample: str, ns: str, tmp_path: pathlib.Path, node: Any) -> tuple[dict[str, Any], bool]:
    """The sample's one entry in ``ns``, what it references made first (as a user would; the
    claim's volume holds ``CLAIMED``)."""
    proxy = sample.startswith("proxy-")
    (entry,) = with_namespace(stack_proxies(sample) if proxy else stack_connectors(sample), ns)
    spec = entry["spec"]
    core = client.CoreV1Api(node.cluster.api())
    core.create_namespace({"metadata": {"name": ns, "labels": RESTRICTED_NAMESPACE}})
    (tmp_path / "vendor-state").mkdir()
    for name, content in CLAIMED.items():
        (tmp_path / "vendor-state" / name).write_text(content)
    prepare_referenced_objects(node.cluster, ns, spec, str(tmp_path / "vendor-state"), node.name)
    token = spec.get("configTokenSecretRef")
    if token:
        keys = [token.get("tokenKey", "configToken"), token.get("signingKeyKey")]
        data = {key: secret_value(token["name"], key) for key in keys if key}
        core.create_namespaced_secret(ns, {"metadata": {"name": token["name"]}, "stringData": data})
    on_this_node(spec, proxy)
    return entry, proxy


@pytest.mark.parametrize("sample", SAMPLES)
def test_a_samples_workload_runs_through_its_real_probes_and_registers_once_ready(node, make_stack, tmp_path, sample):
    from pulumi import automation as auto

    ns = namespaced(sample[:12])
    entry, proxy = sample_entry(sample, ns, tmp_path, node)
    spec = entry["spec"]
    with platform_double() as double:
        double.callback, double.resolve = True, service_address(node)
        if "registration" in spec:
            spec["registration"]["platformUrl"] = double.url
        stack = make_stack([] if proxy else [entry], name=f"node-{sample}", kubeconfig=str(node.cluster.kubeconfig))
        if proxy:
            stack.stack.set_config("connectors:proxies", auto.ConfigValue(json.dumps([entry])))
        try:
            stack.up()
            registered, register_times = list(double.records.values()), list(double.register_times)
            all_ready_at = check_the_pods(node, ns, entry, HTTP_PORT if proxy else spec["service"]["port"])
        finally:
            stack.destroy()
            leave_the_node(node, ns, spec)
    if "registration" in spec:
        assert [r.name for r in registered] == [spec["registration"]["name"]]
        assert registered[0].interfaces == ["info", "health", "metrics", "compliance"], "the callback reached a pod"
        assert all_ready_at <= register_times[0], "posted once every pod was Ready"


def check_the_pods(node: Any, ns: str, entry: dict[str, Any], port: int) -> Any:
    """The probes as the sample wrote them; every replica Ready, every container ready, the init
    container done; what the pod was given, as variables and files; the budget counting them.
    When the last pod became Ready."""
    spec = entry["spec"]
    main = client.AppsV1Api(node.cluster.api()).read_namespaced_deployment(entry["name"], ns).spec.template.spec.containers[0]
    for kind, given in spec.get("probes", {}).items():
        probe = getattr(main, f"{kind}_probe")
        assert (probe.http_get.path, probe.http_get.port) == (given["path"], port), kind
    pods = pods_of(node, ns, entry["name"])
    assert len(pods) == spec.get("replicas", 1)
    for pod in pods:
        assert all(status.ready for status in pod.status.container_statuses), "the main container and the sidecar"
        assert all(s.state.terminated.exit_code == 0 for s in pod.status.init_container_statuses or [])
        seen = get_json(f"http://{pod.status.pod_ip}:{port}/test/env")
        assert {k: seen["env"].get(k) for k in expected_env(spec)} == expected_env(spec)
        for path, content in expected_files(spec, CLAIMED).items():
            query = urllib.parse.urlencode({"path": path})
            assert get_json(f"http://{pod.status.pod_ip}:{port}/test/file?{query}")["content"] == content, path
    budget = spec.get("lifecycle", spec).get("podDisruptionBudget")
    if budget:
        expected = (len(pods), len(pods) - budget["minAvailable"])
        assert budget_status(node, ns, entry["name"], expected) == expected
    return max(ready_since(pod) for pod in pods)


def leave_the_node(node: Any, ns: str, spec: dict[str, Any]) -> None:
    """The node's labels and the claim's volume, as before the test."""
    core = client.CoreV1Api(node.cluster.api())
    if spec.get("nodeSelector"):
        core.patch_node(node.name, {"metadata": {"labels": dict.fromkeys(spec["nodeSelector"])}})
    for volume in spec.get("volumes", []):
        if "persistentVolumeClaim" in volume:
            core.delete_persistent_volume(f"{ns}-{volume['persistentVolumeClaim']['claimName']}")


def budget_status(node: Any, ns: str, name: str, expected: tuple[int, int]) -> tuple[int, int]:
    """The budget's healthy pods and the disruptions it allows: ``expected`` once its controller
    has counted every pod, or what it says after half a minute."""
    policy = client.PolicyV1Api(node.cluster.api())
    for _ in range(60):
        status = policy.read_namespaced_pod_disruption_budget(name, ns).status
        if (status.current_healthy, status.disruptions_allowed) == expected:
            break
        time.sleep(0.5)
    return status.current_healthy, status.disruptions_allowed
