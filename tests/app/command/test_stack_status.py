"""A platform's row of ``connectors status``: its version, its workloads ready, its phase (Running
once core and auth are, as the operator's ``Available``), from the state and the cluster."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from components.app.command import stack_status
from components.app.command.stack_status import Row, observe_platform

from ...support.http_answer import answer_json, serving
from ...support.samples import kubeconfig_text

URN = "urn:pulumi:s::connectors::connectors:index:Platform::ilm"
NAMES = ("core", "auth", "scheduler", "auth-opa-policies", "fe-administrator", "api-gateway")


def state() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    component = {"urn": URN, "type": "connectors:index:Platform", "outputs": {"version": "2.19.0"}}
    kinds = {"core": "StatefulSet"}  # as workloadType StatefulSet makes it; every other one a Deployment
    children = [
        {
            "urn": f"{URN}$kubernetes:apps/v1:{kinds.get(name, 'Deployment')}::ilm-{name}",
            "type": f"kubernetes:apps/v1:{kinds.get(name, 'Deployment')}",
            "parent": URN,
            "inputs": {"metadata": {"name": name, "namespace": "ilm"}},
        }
        for name in NAMES
    ]
    return component, [component, *children]


@pytest.mark.parametrize(
    ("replicas", "ready", "health", "phase"),
    [
        ({}, "6/6", "-", "Running"),
        ({"scheduler": "0/1"}, "5/6", "scheduler 0/1", "Running"),
        ({"auth": "0/1:CrashLoopBackOff", "core": "missing"}, "4/6", "auth 0/1:CrashLoopBackOff, core missing", "Progressing"),
    ],
)
def test_a_platforms_row(monkeypatch, replicas, ready, health, phase):
    component, resources = state()

    def read(workloads: dict[str, Any], *cluster: Any) -> dict[str, str]:
        return {urn: replicas.get(w["inputs"]["metadata"]["name"], "1/1") for urn, w in workloads.items()}

    monkeypatch.setattr(stack_status, "ready_replicas", read)
    row = Row("platform", "ilm")
    observe_platform(row, component, resources, (None, None), live=True)
    assert (row.image, row.namespace, row.ready, row.health, row.status) == ("version 2.19.0", "ilm", ready, health, phase)


def test_without_a_cluster_the_row_says_only_what_the_state_says(monkeypatch):
    component, resources = state()
    monkeypatch.setattr(stack_status, "ready_replicas", lambda *a: {})
    row = Row("platform", "ilm")
    observe_platform(row, component, resources, (None, None), live=True)
    assert (row.image, row.ready, row.status) == ("version 2.19.0", "-", "-")


def test_the_ready_replicas_of_a_stateful_set_are_read_as_a_deployments(monkeypatch):
    """A platform's core may run as a StatefulSet: read through its own API path, with the
    kubelet's reasons when its pods are not ready (real client, API stand-in on 127.0.0.1)."""
    objects = {
        "/apis/apps/v1/namespaces/ilm/statefulsets/core": {
            "kind": "StatefulSet",
            "spec": {"replicas": 2, "serviceName": "core", "selector": {"matchLabels": {"app": "core"}}, "template": {}},
            "metadata": {"name": "core", "namespace": "ilm"},
            "status": {"replicas": 2, "readyReplicas": 1},
        },
        "/apis/apps/v1/namespaces/ilm/deployments/auth": {
            "kind": "Deployment",
            "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "auth"}}, "template": {}},
            "metadata": {"name": "auth", "namespace": "ilm"},
            "status": {"readyReplicas": 1},
        },
        "/api/v1/namespaces/ilm/pods": {
            "kind": "PodList",
            "items": [{"metadata": {"name": "core-1"}, "status": {"containerStatuses": [waiting("CrashLoopBackOff")]}}],
        },
    }

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            found = objects.get(self.path.split("?")[0])
            answer_json(self, 200 if found else 404, json.dumps(found or {"kind": "Status", "code": 404}).encode())

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    workloads = {
        f"{URN}$kubernetes:apps/v1:{kind}::ilm-{name}": {
            "type": f"kubernetes:apps/v1:{kind}",
            "inputs": {"metadata": {"name": name, "namespace": "ilm"}},
        }
        for kind, name in (("StatefulSet", "core"), ("Deployment", "auth"), ("Deployment", "gone"))
    }
    with serving(server):
        found = stack_status.ready_replicas(workloads, kubeconfig_text(f"http://127.0.0.1:{server.server_address[1]}", "t"), None)
    assert [found[urn] for urn in workloads] == ["1/2:CrashLoopBackOff", "1/1", "missing"]


def waiting(reason: str) -> dict[str, Any]:
    return {
        "name": "core",
        "ready": False,
        "restartCount": 3,
        "image": "i",
        "imageID": "",
        "state": {"waiting": {"reason": reason}},
    }
