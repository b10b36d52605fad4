"""A managed database (``database.mode: managed``), as the operator's ``managed_database.go``
renders it: CloudNativePG's Cluster, its pooler on by default, and the platform wired to what
CloudNativePG generates for them."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from components.args.base import validated
from components.args.platform_spec import PlatformEntry
from components.args.problems import InvalidArgumentsError
from components.render.platform import render_platform
from components.render.platform.managed_database import held_version, holding, running_version

from ...support.operator_platform import FOLDER, args_with, by_identity, container, env_of, find, golden_objects

MANAGED: dict[str, Any] = {"mode": "managed", "managed": {"instances": 3, "version": "18", "storage": {"size": "10Gi"}}}


def managed(*, keycloak: dict[str, Any] | None = None, **database: Any) -> list[dict[str, Any]]:
    changes: dict[str, Any] = {"database": {**MANAGED, **database}}
    if keycloak is not None:
        changes["keycloak"] = keycloak
    return render_platform(args_with(**changes))


def managed_db_entry() -> dict[str, Any]:
    document = yaml.safe_load((FOLDER / "variants" / "managed-db.yaml").read_text())
    return {"name": document["metadata"]["name"], "namespace": document["metadata"]["namespace"], "spec": document["spec"]}


def test_without_its_pooler_the_render_is_the_operators_with_the_platform_on_the_clusters_rw_service():
    entry = managed_db_entry()
    entry["spec"]["database"]["pgBouncer"] = {"managed": False}
    ours = by_identity(render_platform(PlatformEntry.model_validate(entry).to_args()))
    expected = [obj for obj in golden_objects("managed-db") if obj["kind"] != "Pooler"]
    for obj in expected:
        for main in obj.get("spec", {}).get("template", {}).get("spec", {}).get("containers", []):
            for env in main.get("env", []):
                if env["name"] == "JDBC_URL":
                    env["value"] = env["value"].replace("//ilm-db-pooler:", "//ilm-db-rw:")
    theirs = by_identity(expected)
    assert sorted(ours) == sorted(theirs)
    for key, value in theirs.items():
        assert ours[key] == value, key


@pytest.mark.parametrize("workload", ["core", "scheduler"])
def test_the_platform_connects_through_the_pooler_with_the_credentials_cloudnativepg_generates(workload):
    env = env_of(container(find(managed(), "Deployment", workload), workload))
    assert env["JDBC_URL"] == "jdbc:postgresql://ilm-db-pooler:5432/ilm?characterEncoding=UTF-8"
    assert env["JDBC_USERNAME"] == {"secretKeyRef": {"name": "ilm-db-app", "key": "username"}}
    assert env["JDBC_PASSWORD"] == {"secretKeyRef": {"name": "ilm-db-app", "key": "password"}}


def test_the_cluster_takes_its_sizing_and_leaves_unset_what_cloudnativepg_defaults():
    resources = {"requests": {"cpu": "1", "memory": "2Gi"}}
    storage = {"size": "20Gi", "storageClass": "fast"}
    cluster = find(managed(managed={"instances": 2, "storage": storage, "resources": resources}), "Cluster", "ilm-db")
    assert cluster["spec"] == {
        "instances": 2,
        "storage": storage,
        "resources": resources,
        "bootstrap": {"initdb": {"database": "ilm", "owner": "ilm"}},
    }
    no_class = find(managed(managed={"storage": {"size": "1Gi", "storageClass": ""}}), "Cluster", "ilm-db")
    assert no_class["spec"]["storage"] == {"size": "1Gi"} and no_class["spec"]["instances"] == 1


def test_a_managed_keycloak_gets_its_schema_made_at_bootstrap():
    keycloak = {"mode": "managed", "managed": {"instances": 1}}
    initdb = find(managed(keycloak=keycloak), "Cluster", "ilm-db")["spec"]["bootstrap"]["initdb"]
    assert initdb["postInitApplicationSQL"] == ["CREATE SCHEMA IF NOT EXISTS keycloak AUTHORIZATION ilm"]


def test_the_poolers_parameters_are_the_operators_defaults_under_the_users():
    pooler = find(
        managed(pgBouncer={"managed": True, "instances": 2, "parameters": {"default_pool_size": "20", "a": "b"}}),
        "Pooler",
        "ilm-db-pooler",
    )
    assert pooler["spec"]["instances"] == 2
    parameters = pooler["spec"]["pgbouncer"]["parameters"]
    assert parameters["default_pool_size"] == "20" and parameters["a"] == "b"
    assert parameters["server_reset_query_always"] == "1" and parameters["max_client_conn"] == "1000"


def test_a_pgbouncer_block_without_managed_turns_the_pooler_off():
    objects = managed(pgBouncer={"instances": 2})
    assert [o for o in objects if o["kind"] == "Pooler"] == []
    assert env_of(container(find(objects, "Deployment", "core"), "core"))["JDBC_URL"].startswith(
        "jdbc:postgresql://ilm-db-rw:5432/"
    )


def test_overrides_are_a_merge_patch_onto_the_cluster():
    overrides = {
        "spec": {"postgresql": {"parameters": {"max_connections": "300"}}, "storage": None},
        "metadata": {"annotations": {"a": "b"}},
    }
    cluster = find(managed(managed={**MANAGED["managed"], "overrides": overrides}), "Cluster", "ilm-db")
    assert cluster["spec"]["postgresql"] == {"parameters": {"max_connections": "300"}}
    assert "storage" not in cluster["spec"] and cluster["spec"]["instances"] == 3
    assert cluster["metadata"]["annotations"] == {"a": "b"} and cluster["metadata"]["name"] == "ilm-db"


@pytest.mark.parametrize(
    ("overrides", "named"),
    [
        ({"metadata": {"name": "planted-value"}}, "metadata.name"),
        ({"metadata": {"namespace": None}}, "metadata.namespace"),
        (
            {"spec": {"bootstrap": {"initdb": {"owner": "planted-value", "database": "planted-value"}}}},
            "spec.bootstrap.initdb.database and spec.bootstrap.initdb.owner",
        ),
    ],
)
def test_an_override_of_what_the_platform_connects_to_is_refused_naming_it(overrides, named):
    entry = managed_db_entry()
    entry["spec"]["database"]["managed"]["overrides"] = overrides
    with pytest.raises(InvalidArgumentsError) as caught:
        validated(PlatformEntry, entry, "platforms[0]", "invalid platform arguments")
    assert caught.value.problems == [
        f"platforms[0].spec.database.managed.overrides: may not change {named} (the platform connects to them) (got a map of 1 key)"
    ]
    assert "planted-value" not in str(caught.value)


def test_an_external_database_renders_no_cloudnativepg_object():
    assert [o for o in render_platform(args_with()) if o["apiVersion"].startswith("postgresql.cnpg.io")] == []


@pytest.mark.parametrize(
    ("asked", "running", "acknowledged", "held"),
    [
        ("18", "17", False, "17"),
        ("18", "17", True, None),
        ("18", None, False, None),  # a first deploy
        ("17.4", "17", False, None),  # a minor change
        ("16", "17", False, None),  # not an upgrade: not this guard's
        ("18", "latest", False, None),  # a version it cannot order
    ],
)
def test_a_major_upgrade_of_the_running_cluster_is_held_until_acknowledged(asked, running, acknowledged, held):
    block = {**MANAGED, "managed": {**MANAGED["managed"], "version": asked, "upgradeAcknowledged": acknowledged}}
    assert held_version(args_with(database=block), running) == held


def test_the_running_version_is_read_off_the_image_this_library_set():
    assert running_version({"spec": {"imageName": "ghcr.io/cloudnative-pg/postgresql:17.2"}}) == "17.2"
    assert running_version({"spec": {"imageName": "mirror.example/postgresql:17"}}) is None
    assert running_version({"spec": {}}) is None and running_version(None) is None


def test_a_held_version_renders_the_running_image():
    args = holding(args_with(database=MANAGED), "17")
    assert find(render_platform(args), "Cluster", "ilm-db")["spec"]["imageName"] == "ghcr.io/cloudnative-pg/postgresql:17"
    assert holding(args_with(database=MANAGED), None) == args_with(database=MANAGED)
