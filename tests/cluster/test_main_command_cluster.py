"""The main command against the local cluster: ``status`` shows the ready replicas the cluster
reports, ``preview --refresh`` diffs against the live objects (a hand-scaled Deployment shows
as a change, which a plain preview, against the state, does not see)."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import time
import uuid as uuids
from typing import Any

import yaml
from kubernetes import client

from tests.support.cluster_objects import namespace, with_namespace
from tests.support.main_command_project import MAIN_COMMAND
from tests.support.samples import stack_connectors

from ..conftest import ROOT


def deploy(work: pathlib.Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PULUMI_BACKEND_URL", "PULUMI_CONFIG_PASSPHRASE")}
    command = [*MAIN_COMMAND, *args, "--stack", "live", "--work-dir", str(work)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


def live_project(tmp_path: pathlib.Path, cluster: Any, entry: dict[str, Any]) -> pathlib.Path:
    """A project folder whose stack ``live`` holds ``entry``, applied to the local cluster."""
    work = tmp_path / "project"
    (work / "stacks").mkdir(parents=True)
    (work / "Pulumi.yaml").write_text((ROOT / "Pulumi.yaml").read_text())
    config = {"connectors:kubeconfig": str(cluster.kubeconfig), "connectors:connectors": [entry]}
    (work / "stacks" / "Pulumi.live.yaml").write_text(yaml.safe_dump({"config": config}))
    return work


def test_status_reads_the_cluster_and_preview_refresh_sees_drift(cluster, tmp_path):
    ns = namespace(cluster, f"live-{uuids.uuid4().hex[:6]}")
    (entry,) = with_namespace(stack_connectors("minimal"), ns)
    work = live_project(tmp_path, cluster, entry)
    deploy(work, "up")

    table = deploy(work, "status").stdout.splitlines()
    (row,) = [line.split() for line in table if line.startswith("connector ")]
    assert row[1:3] == [entry["name"], ns] and row[4] == "1/1", table

    apps = client.AppsV1Api(cluster.api())
    apps.patch_namespaced_deployment_scale(entry["name"], ns, {"spec": {"replicas": 3}})
    time.sleep(1)
    plain, live = tmp_path / "plain.json", tmp_path / "live.json"
    deploy(work, "preview", "--report", str(plain))
    deploy(work, "preview", "--refresh", "--report", str(live))
    assert json.loads(plain.read_text())["changes"] == {}, "the state still says 1 replica"
    assert json.loads(live.read_text())["changes"].get("update") == 1, "the live Deployment has 3"
    deploy(work, "destroy")


def test_a_referenced_secrets_edit_alone_forces_a_run_and_its_pods_roll(cluster, tmp_path):
    """Change detection reads each Secret and ConfigMap the last run read: unchanged, the stack
    is not run; one value edited, it runs and the Deployment takes the new checksum."""
    ns = namespace(cluster, f"ref-{uuids.uuid4().hex[:6]}")
    core = client.CoreV1Api(cluster.api())
    core.create_namespaced_secret(ns, {"metadata": {"name": "creds"}, "stringData": {"TOKEN": "first"}})
    core.create_namespaced_config_map(ns, {"metadata": {"name": "tuning"}, "data": {"LEVEL": "info"}})
    (entry,) = with_namespace(stack_connectors("minimal"), ns)
    entry["spec"] |= {"secretRefs": [{"name": "creds", "type": "env"}], "configMapRefs": [{"name": "tuning", "type": "env"}]}
    work = live_project(tmp_path, cluster, entry)
    deploy(work, "up")
    apps = client.AppsV1Api(cluster.api())

    def checksum() -> str:
        template = apps.read_namespaced_deployment(entry["name"], ns).spec.template
        return next(v for k, v in template.metadata.annotations.items() if k.endswith("config-checksum"))

    first = checksum()
    assert "unchanged since its last good up" in deploy(work, "up").stdout
    core.patch_namespaced_config_map("tuning", ns, {"data": {"LEVEL": "info"}})  # written, same content
    assert "unchanged since its last good up" in deploy(work, "up").stdout
    core.patch_namespaced_secret("creds", ns, {"stringData": {"TOKEN": "second"}})
    ran = deploy(work, "up").stdout
    assert "runs: a referenced Secret or ConfigMap changed" in ran, ran[-2000:]
    assert checksum() != first
    assert "unchanged since its last good up" in deploy(work, "up").stdout
    deploy(work, "destroy")
