"""The upstream operators a platform's objects are for: before anything is created, each custom
kind the platform renders has its CustomResourceDefinition installed, or preview names the
field that asks for it and what to install (the reference operator's ``CloudNativePGNotInstalled``,
``CertManagerNotInstalled`` and their siblings, there as conditions, here before the run)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from components.kube.object_reader import DefinitionReader, NotReadable

BROKER_OF_YOUR_OWN = "or set messaging.mode external"
WHAT_TO_INSTALL = {
    "postgresql.cnpg.io": ("database.mode", "managed needs the CloudNativePG operator", "or set database.mode external"),
    "rabbitmq.com/RabbitmqCluster": ("messaging.mode", "managed needs the RabbitMQ Cluster Operator", BROKER_OF_YOUR_OWN),
    "rabbitmq.com": ("messaging.mode", "managed needs the RabbitMQ Messaging Topology Operator", BROKER_OF_YOUR_OWN),
    "cert-manager.io": ("edge.tls", "needs cert-manager", "or give the certificate as a Secret (edge.tls.source secret)"),
    "gateway.networking.k8s.io": ("edge.gatewayAPI", "needs the Gateway API CRDs", "or publish through an Ingress"),
    "monitoring.coreos.com": (
        "<component>.metrics.serviceMonitor",
        "needs the Prometheus operator's CRDs",
        "or turn the ServiceMonitors off",
    ),
}
"""By API group (or ``<group>/<kind>``, where one group's kinds are two operators'): the field
that renders its kinds, what it needs, and the way round it."""


def definition_name(obj: Mapping[str, Any]) -> str:
    """``<plural>.<group>``: every kind a platform renders has its plural as ``<kind>s``."""
    return f"{obj['kind'].lower()}s.{obj['apiVersion'].split('/')[0]}"


def _operator(obj: Mapping[str, Any]) -> str:
    group = obj["apiVersion"].split("/")[0]
    return f"{group}/{obj['kind']}" if f"{group}/{obj['kind']}" in WHAT_TO_INSTALL else group


def missing_operators(objects: Iterable[Mapping[str, Any]], reader: object) -> list[str]:
    """A problem per upstream operator whose definitions are not installed; none when the reader
    cannot tell (no cluster, or no right to read definitions)."""
    if not isinstance(reader, DefinitionReader):
        return []
    needed = {definition_name(obj): _operator(obj) for obj in objects}
    missing: dict[str, list[str]] = {}
    for name, operator in needed.items():
        try:
            if operator in WHAT_TO_INSTALL and reader.served(name) is False:
                missing.setdefault(operator, []).append(name)
        except NotReadable:
            return []
    problems = []
    for operator, names in missing.items():
        field, needs, otherwise = WHAT_TO_INSTALL[operator]
        problems.append(f"{field}: {needs}: {', '.join(names)} not installed (install it, {otherwise})")
    return problems
