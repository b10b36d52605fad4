"""``render.network_policy``: only the workload's ports, from its own namespace."""

from __future__ import annotations

import pytest

from components.render.network_policy import render_network_policy

from ..support.workloads import LABELS, SELECTOR, workload


@pytest.mark.parametrize(
    ("given", "ports"),
    [
        ({}, [{"protocol": "TCP", "port": 8080}]),
        ({"port": 8443}, [{"protocol": "TCP", "port": 8443}]),
        ({"extra_ports": [("api", 8081)]}, [{"protocol": "TCP", "port": 8080}, {"protocol": "TCP", "port": 8081}]),
    ],
)
def test_render_network_policy(given, ports):
    assert render_network_policy(workload(**given)) == {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": "demo", "namespace": "ilm", "labels": LABELS},
        "spec": {
            "podSelector": {"matchLabels": SELECTOR},
            "policyTypes": ["Ingress"],
            "ingress": [{"from": [{"podSelector": {}}], "ports": ports}],
        },
    }
