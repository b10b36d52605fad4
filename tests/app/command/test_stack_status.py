"""A platform's row of ``connectors status``: its version, its workloads ready, its phase (Running
once core and auth are, as the operator's ``Available``), from the state and the cluster."""

from __future__ import annotations

from typing import Any

import pytest

from components.app.command import stack_status
from components.app.command.stack_status import Row, observe_platform

URN = "urn:pulumi:s::connectors::connectors:index:Platform::ilm"
NAMES = ("core", "auth", "scheduler", "auth-opa-policies", "fe-administrator", "api-gateway")


def state() -> tuple[dict[str, Any], list[dict[str, Any]]]:
    component = {"urn": URN, "type": "connectors:index:Platform", "outputs": {"version": "2.19.0"}}
    children = [
        {
            "urn": f"{URN}$kubernetes:apps/v1:Deployment::ilm-{name}",
            "type": "kubernetes:apps/v1:Deployment",
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
