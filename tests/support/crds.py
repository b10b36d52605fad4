"""Upstream CRDs at pinned releases, fetched from the Go module proxy (cached): the
prometheus-operator's, cert-manager's, Gateway API's and CloudNativePG's."""

from __future__ import annotations

import functools
import json
import pathlib
import shutil
import subprocess
from typing import Any

import yaml

PROMETHEUS_OPERATOR = "github.com/prometheus-operator/prometheus-operator@v0.85.0"
CERT_MANAGER = "github.com/cert-manager/cert-manager@v1.16.2"
GATEWAY_API = "sigs.k8s.io/gateway-api@v1.2.1"
CLOUDNATIVE_PG = "github.com/cloudnative-pg/cloudnative-pg@v1.29.1"
RABBITMQ_CLUSTER_OPERATOR = "github.com/rabbitmq/cluster-operator/v2@v2.19.0"
RABBITMQ_TOPOLOGY_OPERATOR = "github.com/rabbitmq/messaging-topology-operator@v1.16.0"


class CrdsUnavailable(RuntimeError):
    pass


@functools.cache
def module_dir(module: str) -> pathlib.Path:
    if shutil.which("go") is None:
        raise CrdsUnavailable(f"Go is not installed: the CRDs of {module} cannot be fetched")
    out = subprocess.run(["go", "mod", "download", "-json", module], capture_output=True, text=True)
    if out.returncode != 0:
        raise CrdsUnavailable(f"go mod download {module} failed: {out.stdout[-500:]}{out.stderr[-500:]}")
    return pathlib.Path(json.loads(out.stdout)["Dir"])


def prometheus_operator_dir() -> pathlib.Path:
    return module_dir(PROMETHEUS_OPERATOR)


def platform_crds() -> list[dict[str, Any]]:
    """What a platform's edge and monitoring need: cert-manager's Issuer, ClusterIssuer and
    Certificate, Gateway API's standard channel, the ServiceMonitor. cert-manager's files are its
    Helm chart's: plain YAML once the chart's labels and annotations (template text) are dropped."""
    cert_manager = module_dir(CERT_MANAGER) / "deploy" / "crds"
    crds = [
        yaml.safe_load((cert_manager / f"crd-{kind}.yaml").read_text()) for kind in ("issuers", "clusterissuers", "certificates")
    ]
    for crd in crds:
        crd["metadata"] = {"name": crd["metadata"]["name"]}
    gateway = module_dir(GATEWAY_API) / "config" / "crd" / "standard"
    crds += [yaml.safe_load(path.read_text()) for path in sorted(gateway.glob("*.yaml"))]
    return [*crds, yaml.safe_load(service_monitor_crd_path().read_text())]


def cloudnative_pg_crds() -> list[dict[str, Any]]:
    """What a managed database needs: CloudNativePG's Cluster and Pooler."""
    bases = module_dir(CLOUDNATIVE_PG) / "config" / "crd" / "bases"
    return [yaml.safe_load((bases / f"postgresql.cnpg.io_{plural}.yaml").read_text()) for plural in ("clusters", "poolers")]


def rabbitmq_crds() -> list[dict[str, Any]]:
    """What a managed broker needs: the Cluster Operator's RabbitmqCluster and the Messaging
    Topology Operator's kinds the platform declares."""
    cluster = module_dir(RABBITMQ_CLUSTER_OPERATOR) / "config" / "crd" / "bases" / "rabbitmq.com_rabbitmqclusters.yaml"
    topology = module_dir(RABBITMQ_TOPOLOGY_OPERATOR) / "config" / "crd" / "bases"
    plurals = ("vhosts", "users", "permissions", "exchanges", "queues", "bindings")
    return [yaml.safe_load(cluster.read_text())] + [
        yaml.safe_load((topology / f"rabbitmq.com_{p}.yaml").read_text()) for p in plurals
    ]


def service_monitor_crd_path() -> pathlib.Path:
    return prometheus_operator_dir() / "example" / "prometheus-operator-crd" / "monitoring.coreos.com_servicemonitors.yaml"


@functools.cache
def service_monitor_schema() -> dict[str, Any]:
    crd = yaml.safe_load(service_monitor_crd_path().read_text())
    (version,) = [v for v in crd["spec"]["versions"] if v["name"] == "v1"]
    return version["schema"]["openAPIV3Schema"]
