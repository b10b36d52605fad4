"""Between runs (#32), on the local cluster: connectors whose health endpoints (servers in a
network namespace at their Pods' addresses, reached through the API server's service proxy)
answer 200, 500 or never, and one with health checks off; ``status`` shows each, ``status
--check`` exits 1 with one line per problem (and the scheduled workflow's step fails), then a
hand-scaled Deployment and a deleted Service are reported as drift. Nothing is changed by it."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import time
import uuid as uuids
from typing import Any

import yaml
from kubernetes import client

from tests.support.cluster_objects import namespace, with_namespace
from tests.support.main_command_project import MAIN_COMMAND
from tests.support.samples import stack_connectors

from ..conftest import ROOT
from ..support.netns import servers_in_a_network_namespace

BEHAVIOURS = {"healthy": "ok", "failing": "fail", "silent": "silent", "unwatched": "fail"}
HEALTH = pathlib.Path(__file__).parents[1] / "support" / "netns_health.py"


def deploy(work: pathlib.Path, *args: str, code: int = 0) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PULUMI_BACKEND_URL", "PULUMI_CONFIG_PASSPHRASE")}
    command = [*MAIN_COMMAND, *args, "--stack", "live", "--work-dir", str(work)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == code, done.stdout[-3000:] + done.stderr[-3000:]
    return done


def entries(ns: str) -> list[dict[str, Any]]:
    (minimal,) = with_namespace(stack_connectors("minimal"), ns)
    made = []
    for name in BEHAVIOURS:
        spec = json.loads(json.dumps(minimal["spec"]))
        spec["healthCheck"] = {"timeoutSeconds": 2, "periodSeconds": 10} if name != "unwatched" else {"enabled": False}
        made.append({"name": name, "namespace": ns, "spec": spec})
    return made


def pod_addresses(cluster: Any, ns: str) -> dict[str, str]:
    core = client.CoreV1Api(cluster.api())
    for _ in range(120):
        found = {}
        for pod in core.list_namespaced_pod(ns).items:
            ready = any(c.type == "Ready" and c.status == "True" for c in pod.status.conditions or [])
            if ready and pod.status.pod_ip:
                found[pod.metadata.labels["otilm.com/connector"]] = pod.status.pod_ip
        if set(found) == set(BEHAVIOURS):
            return found
        time.sleep(0.5)
    raise AssertionError(f"pods not ready: {found}")


def test_status_and_the_check_show_health_and_drift(cluster, tmp_path):
    ns = namespace(cluster, f"health-{uuids.uuid4().hex[:6]}")
    work = tmp_path / "project"
    (work / "stacks").mkdir(parents=True)
    (work / "Pulumi.yaml").write_text((ROOT / "Pulumi.yaml").read_text())
    config = {"connectors:kubeconfig": str(cluster.kubeconfig), "connectors:connectors": entries(ns)}
    (work / "stacks" / "Pulumi.live.yaml").write_text(yaml.safe_dump({"config": config}))
    deploy(work, "up")
    addresses = pod_addresses(cluster, ns)
    servers = {ip: [sys.executable, str(HEALTH), ip, "8080", BEHAVIOURS[name]] for name, ip in addresses.items()}
    with servers_in_a_network_namespace(servers):
        table = deploy(work, "status").stdout
        health = {line.split()[1]: line for line in table.splitlines() if line.startswith("connector ")}
        assert "Up (status 200)" in health["healthy"]
        assert "Down (status 500)" in health["failing"]
        assert "Down (no answer within 2 s)" in health["silent"]
        assert "Unknown (health check disabled)" in health["unwatched"]
        assert "HEALTH-DETAIL" not in table

        (state_file,) = (work / ".pulumi-state" / ".pulumi" / "stacks").rglob("live.json")
        state_before = state_file.read_bytes()
        checked = deploy(work, "status", "--check", code=1).stdout.splitlines()
        assert "connector failing: not Healthy (status 500)" in checked
        assert "connector silent: not Healthy (no answer within 2 s)" in checked
        assert not [line for line in checked if line.startswith(("connector healthy", "connector unwatched"))], checked
        assert checked[-1] == "stack live: 2 problems"
        as_json = json.loads(deploy(work, "status", "--check", "--json", code=1).stdout.splitlines()[-1])
        assert {(p["entry"], p["problem"]) for p in as_json["problems"]} == {
            ("connector failing", "not Healthy"),
            ("connector silent", "not Healthy"),
        }

        apps, core = client.AppsV1Api(cluster.api()), client.CoreV1Api(cluster.api())
        apps.patch_namespaced_deployment_scale("healthy", ns, {"spec": {"replicas": 3}})
        core.delete_namespaced_service("unwatched", ns)
        time.sleep(1)
        drifted = deploy(work, "status", "--check", code=1).stdout.splitlines()
        lines = [line for line in drifted if "drift" in line]
        assert "connector healthy: drift (Deployment healthy would be updated: spec.replicas)" in lines, lines
        assert "connector unwatched: drift (Service unwatched is not in the cluster: it would be created)" in lines, lines
        assert apps.read_namespaced_deployment("healthy", ns).spec.replicas == 3, "the check changes nothing"
        assert "unwatched" not in [s.metadata.name for s in core.list_namespaced_service(ns).items]
        assert state_file.read_bytes() == state_before, "nor the state"

        env = {k: v for k, v in os.environ.items() if k not in ("PULUMI_BACKEND_URL", "PULUMI_CONFIG_PASSPHRASE")}
        step = yaml.safe_load((ROOT / "docs" / "ci" / "connectors-check.yml").read_text())["jobs"]["check"]["steps"]
        (script,) = [s["run"] for s in step if s.get("name") == "check"]
        script = script.replace(".venv/bin/connectors", f"{' '.join(MAIN_COMMAND)} --work-dir {work}")
        job = subprocess.run(
            ["bash", "-e", "-c", script],
            cwd=work,
            env={**env, "STACKS": "live", "RUNNER_TEMP": str(tmp_path)},
            capture_output=True,
            text=True,
        )
        assert job.returncode != 0 and "connector failing: not Healthy (status 500)" in job.stdout
    deploy(work, "up")
    deploy(work, "destroy")
