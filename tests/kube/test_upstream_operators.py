"""Each custom kind a platform renders needs its upstream operator's definition: a missing one is
a problem naming the field that asks for it, what to install and the way round; a reader that
cannot tell (no cluster, no right to read definitions) stops nothing."""

from __future__ import annotations

import pytest

from components.kube.object_reader import NoCluster
from components.kube.upstream_operators import definition_name, missing_operators
from components.render.platform import render_platform

from ..support.operator_platform import args_with

CLUSTER = {"apiVersion": "postgresql.cnpg.io/v1", "kind": "Cluster"}
POOLER = {"apiVersion": "postgresql.cnpg.io/v1", "kind": "Pooler"}
MONITOR = {"apiVersion": "monitoring.coreos.com/v1", "kind": "ServiceMonitor"}
ROUTE = {"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute"}
DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment"}


class Definitions:
    def __init__(self, installed: set[str], answer: bool | None = False) -> None:
        self.installed, self.answer, self.asked = installed, answer, []

    def served(self, crd: str) -> bool | None:
        self.asked.append(crd)
        return True if crd in self.installed else self.answer


@pytest.mark.parametrize(
    ("obj", "name"),
    [
        (CLUSTER, "clusters.postgresql.cnpg.io"),
        (MONITOR, "servicemonitors.monitoring.coreos.com"),
        (ROUTE, "httproutes.gateway.networking.k8s.io"),
    ],
)
def test_a_definitions_name_is_its_plural_and_group(obj, name):
    assert definition_name(obj) == name


def test_each_operator_missing_is_one_problem_listing_its_definitions_once():
    reader = Definitions(set())
    problems = missing_operators([CLUSTER, POOLER, CLUSTER, MONITOR, MONITOR, DEPLOYMENT], reader)
    assert problems == [
        "database.mode: managed needs the CloudNativePG operator: clusters.postgresql.cnpg.io, poolers.postgresql.cnpg.io"
        " not installed (install it, or set database.mode external)",
        "<component>.metrics.serviceMonitor: needs the Prometheus operator's CRDs: servicemonitors.monitoring.coreos.com"
        " not installed (install it, or turn the ServiceMonitors off)",
    ]
    assert reader.asked == ["clusters.postgresql.cnpg.io", "poolers.postgresql.cnpg.io", "servicemonitors.monitoring.coreos.com"]


@pytest.mark.parametrize(
    "reader",
    [Definitions({"clusters.postgresql.cnpg.io", "poolers.postgresql.cnpg.io"}), Definitions(set(), None), NoCluster(), object()],
)
def test_installed_or_unknowable_is_no_problem(reader):
    assert missing_operators([CLUSTER, POOLER, DEPLOYMENT], reader) == []


def test_a_managed_brokers_two_operators_are_named_apart():
    objects = render_platform(args_with(messaging={"mode": "managed", "managed": {"storage": {"size": "1Gi"}}}))
    assert missing_operators(objects, Definitions({"rabbitmqclusters.rabbitmq.com"})) == [
        "messaging.mode: managed needs the RabbitMQ Messaging Topology Operator: vhosts.rabbitmq.com, users.rabbitmq.com,"
        " permissions.rabbitmq.com, exchanges.rabbitmq.com, queues.rabbitmq.com, bindings.rabbitmq.com not installed"
        " (install it, or set messaging.mode external)",
    ]
    assert missing_operators(objects, Definitions({"vhosts.rabbitmq.com"}))[0].startswith(
        "messaging.mode: managed needs the RabbitMQ Cluster Operator: rabbitmqclusters.rabbitmq.com not installed"
    )
