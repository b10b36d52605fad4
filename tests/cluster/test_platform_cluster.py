"""Platforms on the real API server, in namespaces under the restricted Pod Security level, with
cert-manager's, Gateway API's, the Prometheus operator's and CloudNativePG's CRDs installed from
their published sources, and stand-ins playing CloudNativePG's and an ingress controller's parts
(``upstream_controllers``): every variant the operator recorded (and Gateway API's edge) is
admitted (a managed database's Cluster and Pooler by CloudNativePG's schemas), its workloads roll
out in the first up (a managed database's once what CloudNativePG generates is there), a rerun
changes nothing; an edit of the database credentials rolls core, auth and the scheduler only;
destroy removes it all, or keeps a managed database when its policy says so; a major upgrade of a
managed database or broker is applied only once acknowledged."""

from __future__ import annotations

import base64
import json
import uuid
from typing import Any

import pytest
import yaml
from kubernetes import client
from pulumi import automation as auto

from components.kube.object_reader import ClusterReader
from tests.support.cluster_objects import install_crds, namespace
from tests.support.crds import cloudnative_pg_crds, platform_crds, rabbitmq_crds

from ..support.engine_stacks import changes
from ..support.operator_platform import EXTERNAL_VARIANTS, FOLDER, minimal_spec
from ..support.upstream_controllers import playing_upstream_controllers

READS = ("core-secret", "messaging-secret", "trusted-certificates", "provisioning-secret", "admin-certificate-secret")
"""The Secrets the variants reference (a managed database's, CloudNativePG's stand-in makes)."""
ROLLED = {"core", "auth", "scheduler"}


OWN_VARIANTS: dict[str, dict[str, Any]] = {
    "managed-broker": {
        "messaging": {
            "mode": "managed",
            "managed": {"version": "4.1", "storage": {"size": "1Gi"}},
            "management": {"expose": True},
        },
    },
    "gateway-api": {
        "edge": {"enabled": True, "type": "gatewayAPI", "host": "p.example.com", "gatewayAPI": {"gatewayClassName": "envoy"}},
    },
    "availability": {
        "highAvailability": {"enabled": True},
        "core": {"replicas": 1, "workloadType": "StatefulSet"},
        "scheduler": {"autoscaling": {"minReplicas": 1, "maxReplicas": 3, "targetCPUUtilization": 70}},
        "auth": {"metrics": {"enabled": True, "serviceMonitor": {"enabled": True, "interval": "30s"}}},
        "common": {
            "trustedCertificates": {"secretRef": "trusted-certificates"},
            "additionalPorts": [{"name": "debug", "containerPort": 5005}],
            "additionalEnvFrom": {"secrets": ["core-secret"]},
            "volumes": [{"name": "shared", "emptyDir": {}}],
            "volumeMounts": [{"name": "shared", "mountPath": "/shared"}],
        },
    },
}
"""Combinations the operator recorded no render of: its builders' other branches."""


@pytest.fixture(autouse=True)
def upstream_controllers(cluster):
    """CloudNativePG's and an ingress controller's parts, played while each test runs."""
    with playing_upstream_controllers(cluster.api()):
        yield


def spec_of(variant: str) -> dict[str, Any]:
    if variant in OWN_VARIANTS:
        return {**minimal_spec(), **OWN_VARIANTS[variant]}
    return yaml.safe_load((FOLDER / "variants" / f"{variant}.yaml").read_text())["spec"]


def secret(name: str, password: str = "first") -> dict[str, Any]:
    values = {"username": "ilm", "password": password, "ca.crt": "pem", "provisioningApiKey": "k", "tls.crt": "pem"}
    return {"metadata": {"name": name}, "data": {k: base64.b64encode(v.encode()).decode() for k, v in values.items()}}


def checksums(apps: client.AppsV1Api, ns: str) -> dict[str, str | None]:
    return {
        d.metadata.name: (d.spec.template.metadata.annotations or {}).get("otilm.com/config-checksum")
        for d in apps.list_namespaced_deployment(ns).items
    }


def deployed(cluster: Any, make_stack: Any, variant: str, **changes: Any) -> tuple[Any, str]:
    install_crds(cluster, platform_crds() + cloudnative_pg_crds() + rabbitmq_crds())
    ns = namespace(cluster, f"platform-{uuid.uuid4().hex[:6]}")
    core = client.CoreV1Api(cluster.api())
    for name in READS:
        core.create_namespaced_secret(ns, secret(name))
    stack = make_stack([], name=f"platform-{variant}", kubeconfig=str(cluster.kubeconfig))
    platforms = [{"name": "ilm", "namespace": ns, "spec": {**spec_of(variant), **changes}}]
    stack.stack.set_config("connectors:platforms", auto.ConfigValue(json.dumps(platforms)))
    stack.up()
    return stack, ns


@pytest.mark.parametrize("variant", [*EXTERNAL_VARIANTS, "managed-db", *OWN_VARIANTS])
def test_a_platform_of_each_variant_rolls_out_and_a_rerun_changes_nothing(cluster, make_stack, variant):
    stack, ns = deployed(cluster, make_stack, variant)
    apps = client.AppsV1Api(cluster.api())
    workloads = [*apps.list_namespaced_deployment(ns).items, *apps.list_namespaced_stateful_set(ns).items]
    assert len(workloads) >= 6
    for workload in workloads:
        assert workload.status.ready_replicas == workload.spec.replicas, workload.metadata.name
    connection = client.CoreV1Api(cluster.api()).read_namespaced_secret("auth-db", ns).data["connection-string"]
    assert changes(stack.up().summary.resource_changes) == {}
    host = "ilm-db-pooler" if variant == "managed-db" else "db.example.com"
    assert base64.b64decode(connection).decode().startswith(f"Host={host};Port=5432;Username=ilm;Password=first;")
    if variant == "managed-db":
        custom = client.CustomObjectsApi(cluster.api())
        stored = custom.get_namespaced_custom_object("postgresql.cnpg.io", "v1", ns, "clusters", "ilm-db")
        assert stored["spec"]["bootstrap"]["initdb"] == {"database": "ilm", "owner": "ilm"}
        pooler = custom.get_namespaced_custom_object("postgresql.cnpg.io", "v1", ns, "poolers", "ilm-db-pooler")
        assert pooler["spec"]["pgbouncer"]["poolMode"] == "transaction"
    if variant == "managed-broker":
        custom = client.CustomObjectsApi(cluster.api())
        kinds = ("rabbitmqclusters", "vhosts", "users", "permissions", "exchanges", "queues", "bindings")
        counts = [len(custom.list_namespaced_custom_object("rabbitmq.com", "v1beta1", ns, k)["items"]) for k in kinds]
        assert counts == [1, 1, 5, 5, 2, 11, 10]
        pod = apps.read_namespaced_deployment("core", ns).spec.template.spec
        core_env = {e.name: e for e in next(c for c in pod.containers if c.name == "core").env}
        assert core_env["BROKER_PASSWORD"].value_from.secret_key_ref.name == "ilm-messaging-core-user-credentials"
    if variant == "availability":
        assert [s.metadata.name for s in apps.list_namespaced_stateful_set(ns).items] == ["core"]
        budgets = client.PolicyV1Api(cluster.api()).list_namespaced_pod_disruption_budget(ns).items
        assert len(budgets) == 6 and all(b.spec.min_available == 1 for b in budgets)
        scalers = client.AutoscalingV2Api(cluster.api()).list_namespaced_horizontal_pod_autoscaler(ns).items
        assert [h.spec.scale_target_ref.name for h in scalers] == ["scheduler"]
        monitors = client.CustomObjectsApi(cluster.api()).list_namespaced_custom_object(
            "monitoring.coreos.com", "v1", ns, "servicemonitors"
        )
        assert [m["metadata"]["name"] for m in monitors["items"]] == ["auth"]


def test_an_edit_of_the_credentials_rolls_what_reads_them_and_destroy_removes_it_all(cluster, make_stack):
    stack, ns = deployed(cluster, make_stack, "minimal")
    apps, core = client.AppsV1Api(cluster.api()), client.CoreV1Api(cluster.api())
    before = checksums(apps, ns)
    core.replace_namespaced_secret("core-secret", ns, secret("core-secret", "second"))
    stack.up()
    after = checksums(apps, ns)
    assert {name for name in after if after[name] != before[name]} == ROLLED
    assert "second" not in json.dumps(stack.stack.export_stack().deployment)
    stack.destroy()
    assert apps.list_namespaced_deployment(ns).items == []
    assert [s.metadata.name for s in core.list_namespaced_secret(ns).items if s.metadata.name == "auth-db"] == []


def test_the_reader_tells_an_installed_definition_from_a_missing_one(cluster):
    install_crds(cluster, cloudnative_pg_crds())
    reader = ClusterReader(str(cluster.kubeconfig))
    assert reader.served("clusters.postgresql.cnpg.io") is True
    assert reader.served("nothings.example.com") is False


@pytest.mark.parametrize("policy", ["Retain", "Delete"])
def test_destroy_keeps_the_managed_database_unless_the_policy_is_delete(cluster, make_stack, policy):
    stack, ns = deployed(cluster, make_stack, "managed-db", deletionPolicy=policy)
    stack.destroy()
    custom = client.CustomObjectsApi(cluster.api())
    left = {
        kind: [o["metadata"]["name"] for o in custom.list_namespaced_custom_object("postgresql.cnpg.io", "v1", ns, kind)["items"]]
        for kind in ("clusters", "poolers")
    }
    assert left == (
        {"clusters": ["ilm-db"], "poolers": ["ilm-db-pooler"]} if policy == "Retain" else {"clusters": [], "poolers": []}
    )
    assert client.AppsV1Api(cluster.api()).list_namespaced_deployment(ns).items == []


def test_a_major_upgrade_of_the_managed_database_waits_for_its_acknowledgement(cluster, make_stack):
    def database(version: str, acknowledged: bool = False) -> dict[str, Any]:
        managed = {"instances": 1, "version": version, "storage": {"size": "1Gi"}, "upgradeAcknowledged": acknowledged}
        return {"mode": "managed", "managed": managed}

    def image_after_up(spec: dict[str, Any]) -> str:
        platforms = [{"name": "ilm", "namespace": ns, "spec": spec}]
        stack.stack.set_config("connectors:platforms", auto.ConfigValue(json.dumps(platforms)))
        stack.up()
        custom = client.CustomObjectsApi(cluster.api())
        return custom.get_namespaced_custom_object("postgresql.cnpg.io", "v1", ns, "clusters", "ilm-db")["spec"]["imageName"]

    stack, ns = deployed(cluster, make_stack, "managed-db", database=database("17"))
    spec = spec_of("managed-db")
    assert image_after_up({**spec, "database": database("18")}) == "ghcr.io/cloudnative-pg/postgresql:17"
    assert image_after_up({**spec, "database": database("18", acknowledged=True)}) == "ghcr.io/cloudnative-pg/postgresql:18"


def test_a_major_upgrade_of_the_managed_broker_waits_for_its_acknowledgement(cluster, make_stack):
    def messaging(version: str, acknowledged: bool = False) -> dict[str, Any]:
        managed = {"version": version, "storage": {"size": "1Gi"}, "upgradeAcknowledged": acknowledged}
        return {"mode": "managed", "managed": managed}

    def image_after_up(version: str, acknowledged: bool = False) -> str:
        platforms = [{"name": "ilm", "namespace": ns, "spec": {**minimal_spec(), "messaging": messaging(version, acknowledged)}}]
        stack.stack.set_config("connectors:platforms", auto.ConfigValue(json.dumps(platforms)))
        stack.up()
        custom = client.CustomObjectsApi(cluster.api())
        return custom.get_namespaced_custom_object("rabbitmq.com", "v1beta1", ns, "rabbitmqclusters", "ilm-messaging")["spec"][
            "image"
        ]

    stack, ns = deployed(cluster, make_stack, "minimal", messaging=messaging("3.13"))
    assert image_after_up("4.1") == "rabbitmq:3.13-management"
    assert image_after_up("4.1", acknowledged=True) == "rabbitmq:4.1-management"
