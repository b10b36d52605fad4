"""Moving from the operator, all of it, on the local cluster: the Connector CRD installed, a
Connector with its finalizer and its children owned by it (ownerReferences), the operator
running; then the README's steps run exactly as written (its "migration-steps" block). The
Connector goes away, its children stay, the stack takes them over with no pod restart and no
request to the platform."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import time
import uuid as uuids
from typing import Any

import yaml
from kubernetes import client
from kubernetes.client.exceptions import ApiException

from tests.support.cluster_objects import namespace, prepare_referenced_objects, with_namespace
from tests.support.operator_objects import apply_as_the_operator, checksum_of, pods_and_replica_sets, wait_available
from tests.support.samples import DATA, readme_block, stack_connectors

from ..conftest import ROOT
from ..support.local_cluster import cluster_bin
from ..support.operator_objects import operator_objects
from ..support.platform_double import platform_double

GROUP, VERSION, PLURAL = "otilm.com", "v1alpha1", "connectors"


def install_crd(cluster: Any) -> None:
    extensions = client.ApiextensionsV1Api(cluster.api())
    try:
        extensions.create_custom_resource_definition(yaml.safe_load((DATA / "connector-crd.yaml").read_text()))
    except ApiException as error:
        assert error.status == 409
    for _ in range(60):
        crd = extensions.read_custom_resource_definition(f"{PLURAL}.{GROUP}")
        if any(c.type == "Established" and c.status == "True" for c in crd.status.conditions or []):
            return
        time.sleep(0.5)
    raise AssertionError("the Connector CRD was not established")


def the_operators_connector(cluster: Any, ns: str, entry: dict[str, Any], known_uuid: str) -> dict[str, Any]:
    """The Connector as the operator leaves it: its finalizer, its registration in status."""
    objects = client.CustomObjectsApi(cluster.api())
    body = {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": "Connector",
        "metadata": {"name": entry["name"], "namespace": ns, "finalizers": ["otilm.com/finalizer"]},
        "spec": entry["spec"],
    }
    created = objects.create_namespaced_custom_object(GROUP, VERSION, ns, PLURAL, body)
    status = {"status": {"phase": "Running", "registration": {"uuid": known_uuid, "status": "connected"}}}
    objects.patch_namespaced_custom_object_status(GROUP, VERSION, ns, PLURAL, entry["name"], status)
    return created


def owned(obj: dict[str, Any], owner: dict[str, Any]) -> dict[str, Any]:
    reference = {
        "apiVersion": f"{GROUP}/{VERSION}",
        "kind": "Connector",
        "name": owner["metadata"]["name"],
        "uid": owner["metadata"]["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }
    return {**obj, "metadata": {**obj["metadata"], "ownerReferences": [reference]}}


def checkout(tmp_path: pathlib.Path, stack: str, entry: dict[str, Any], kubeconfig: str) -> pathlib.Path:
    repo = tmp_path / "repo"
    for name in ("components", "scripts"):
        shutil.copytree(ROOT / name, repo / name, ignore=shutil.ignore_patterns("__pycache__", "node_modules", "bin"))
    for name in ("Pulumi.yaml", "Makefile", "requirements.txt", "requirements-dev.txt", "pyproject.toml"):
        shutil.copy2(ROOT / name, repo / name)
    (repo / ".venv").symlink_to(ROOT / ".venv")
    (repo / "stacks").mkdir()
    config = {"connectors:kubeconfig": kubeconfig, "connectors:connectors": [entry]}
    (repo / "stacks" / f"Pulumi.{stack}.yaml").write_text(yaml.safe_dump({"config": config}))
    return repo


def test_the_readme_steps_move_a_connector_from_the_operator(cluster, tmp_path):
    ns = namespace(cluster, f"migrate-{uuids.uuid4().hex[:6]}")
    operator_ns = namespace(cluster, f"operator-{uuids.uuid4().hex[:6]}")
    install_crd(cluster)
    apps = client.AppsV1Api(cluster.api())
    operator = {"metadata": {"name": "ilm-operator"}, "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "op"}},
                "template": {"metadata": {"labels": {"app": "op"}}, "spec": {"containers": [{"name": "manager", "image": "r.example/operator:2.19.0"}]}}}}  # fmt: skip
    apps.create_namespaced_deployment(operator_ns, operator)
    (entry,) = with_namespace(stack_connectors("full"), ns)
    prepare_referenced_objects(cluster, ns, entry["spec"])

    with platform_double() as double:
        known = double.add("EJBCA NG", f"http://{entry['name']}.{ns}.svc.cluster.local:8443")
        connector = the_operators_connector(cluster, ns, entry, known.uuid)
        for obj in operator_objects(ns, checksum_of(cluster, ns, entry["spec"])).values():
            apply_as_the_operator(cluster, owned(obj, connector))
        wait_available(cluster, ns, entry["name"], entry["spec"]["replicas"])
        before = pods_and_replica_sets(cluster, ns)

        registration = {"platformUrl": double.url, "name": "EJBCA NG", "authType": "none", "uuid": known.uuid}
        taken = {**entry, "fromOperator": True, "spec": {**entry["spec"], "registration": registration}}
        stack = "migrated"
        repo = checkout(tmp_path, stack, taken, str(cluster.kubeconfig))
        (tmp_path / "state").mkdir()
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("PULUMI_")},
            "PATH": f"{cluster_bin()}:{os.environ['PATH']}",
            "KUBECONFIG": str(cluster.kubeconfig),
            "PULUMI_BACKEND_URL": f"file://{tmp_path / 'state'}",
            "NAME": entry["name"], "NS": ns, "OPERATOR": "ilm-operator", "OPERATOR_NS": operator_ns, "STACK": stack,
        }  # fmt: skip
        done = subprocess.run(
            ["bash", "-e", "-c", readme_block("migration-steps", "docs/operator-migration.md")],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
        assert known.uuid in done.stdout, "the first step shows the uuid"

        objects = client.CustomObjectsApi(cluster.api())
        try:
            objects.get_namespaced_custom_object(GROUP, VERSION, ns, PLURAL, entry["name"])
            raise AssertionError("the Connector is still there")
        except ApiException as error:
            assert error.status == 404
        deployment = apps.read_namespaced_deployment(entry["name"], ns)
        assert not deployment.metadata.owner_references, "orphaned: the stack owns it now"
        assert deployment.metadata.labels["app.kubernetes.io/managed-by"] == "pulumi-connector"
        assert pods_and_replica_sets(cluster, ns) == before, "no pod restarted"
        assert double.calls == [], "nothing was posted to the platform"

        report = tmp_path / "rerun.json"
        command = [
            str(ROOT / ".venv" / "bin" / "python"),
            "-m",
            "components.app.command",
            "up",
            "--stack",
            stack,
            "--report",
            str(report),
        ]
        subprocess.run(command, cwd=repo, env=env, check=True, capture_output=True)
        assert json.loads(report.read_text())["changes"] == {}
        assert apps.read_namespaced_deployment("ilm-operator", operator_ns).spec.replicas == 0
