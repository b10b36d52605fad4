"""The upstream operators a platform's objects are for: before anything is created, each custom
kind the platform renders has its CustomResourceDefinition installed, or preview names the
field that asks for it and what to install (the reference operator's ``CloudNativePGNotInstalled``,
``CertManagerNotInstalled`` and their siblings, there as conditions, here before the run)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from components.kube.object_reader import DefinitionReader, NotReadable

WHAT_TO_INSTALL = {
    "postgresql.cnpg.io": ("database.mode", "managed needs the CloudNativePG operator", "or set database.mode external"),
    "cert-manager.io": ("edge.tls", "needs cert-manager", "or give the certificate as a Secret (edge.tls.source secret)"),
    "gateway.networking.k8s.io": ("edge.gatewayAPI", "needs the Gateway API CRDs", "or publish through an Ingress"),
    "monitoring.coreos.com": (
        "<component>.metrics.serviceMonitor",
        "needs the Prometheus operator's CRDs",
        "or turn the ServiceMonitors off",
    ),
}
"""By API group: the field that renders its kinds, what it needs, and the way round it."""


def definition_name(obj: Mapping[str, Any]) -> str:
    """``<plural>.<group>``: every kind a platform renders has its plural as ``<kind>s``."""
    return f"{obj['kind'].lower()}s.{obj['apiVersion'].split('/')[0]}"


def missing_operators(objects: Iterable[Mapping[str, Any]], reader: object) -> list[str]:
    """A problem per upstream operator whose definitions are not installed; none when the reader
    cannot tell (no cluster, or no right to read definitions)."""
    if not isinstance(reader, DefinitionReader):
        return []
    needed = {definition_name(obj): obj["apiVersion"].split("/")[0] for obj in objects}
    missing: dict[str, list[str]] = {}
    for name, group in needed.items():
        try:
            if group in WHAT_TO_INSTALL and reader.served(name) is False:
                missing.setdefault(group, []).append(name)
        except NotReadable:
            return []
    problems = []
    for group, names in missing.items():
        field, needs, otherwise = WHAT_TO_INSTALL[group]
        problems.append(f"{field}: {needs}: {', '.join(names)} not installed (install it, {otherwise})")
    return problems
