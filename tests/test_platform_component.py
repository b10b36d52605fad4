"""``PlatformComponent`` under mocks: a child per rendered object, auth's connection string as a
secret composed from the database credentials (read, or waited for once a managed database's
Cluster is created), their hash on the pods that read them."""

from __future__ import annotations

import base64

import pytest

from components.args.problems import InvalidArgumentsError
from components.kube.object_reader import NoCluster
from components.platform_component import PlatformComponent
from components.platform_preparation import prepare_platform
from components.render.platform import render_platform

from .support.mocks import RecordingMocks, StaticReader, run
from .support.operator_platform import MANAGED_DATABASE, SECRET_DATA, args_with


def reader(data=SECRET_DATA):
    return StaticReader({("secret", "ilm", "core-secret"): data})


def deployed(data=SECRET_DATA) -> RecordingMocks:
    args = args_with()
    return run(lambda: PlatformComponent("ilm", args, prepared=prepare_platform(args, reader(data))))


def test_every_rendered_object_is_a_child_and_auth_reads_a_composed_secret():
    mocks = deployed()
    platform = mocks.one("connectors:index:Platform")
    assert platform.name == "ilm"
    children = [r for r in mocks.resources if r.type_.startswith("kubernetes:")]
    assert len(children) == len(render_platform(args_with())) + 1
    secret = mocks.one("kubernetes:core/v1:Secret")
    assert secret.inputs["metadata"]["name"] == "auth-db"
    assert secret.inputs["stringData"] == {
        "connection-string": 'Host=db.example.com;Port=5432;Username=ilm;Password="s3cr3t;pw";Database=ilm;Pooling=true'
    }
    assert "stringData" in secret.secret_paths
    # no other child holds the password, in the clear or otherwise
    assert not [r.name for r in children if r is not secret and "s3cr3t" in str(r.inputs)]


def test_the_credentials_hash_is_on_the_pods_that_read_them_and_changes_with_them():
    def stamps(mocks):
        return {
            d.inputs["metadata"]["name"]: d.inputs["spec"]["template"]["metadata"]["annotations"].get("otilm.com/config-checksum")
            for d in mocks.of_type("kubernetes:apps/v1:Deployment")
        }

    before = stamps(deployed())
    after = stamps(deployed({**SECRET_DATA, "password": base64.b64encode(b"other").decode()}))
    rolled = {name for name in before if before[name] != after[name]}
    assert rolled == {"core", "auth", "scheduler"}
    assert before["api-gateway"] is None


def test_without_a_cluster_the_composed_secret_is_left_out_and_said(caplog):
    args = args_with()
    mocks = run(lambda: PlatformComponent("ilm", args, prepared=prepare_platform(args, NoCluster())))
    assert mocks.of_type("kubernetes:core/v1:Secret") == []
    assert "the auth-db Secret is left out" in caplog.text


def test_the_outputs_are_cores_in_cluster_api_and_the_version():
    args = args_with(version="2.18.0")
    mocks = run(lambda: PlatformComponent("ilm", args).api_endpoint.apply(lambda a: a))
    assert mocks.result == "http://core.ilm.svc.cluster.local:8080/api"
    assert run(lambda: PlatformComponent("ilm", args).version).result == "2.18.0"


def test_cert_manager_and_gateway_objects_are_custom_resources_of_their_own_type():
    args = args_with(edge={"enabled": True, "host": "p.example.com"})
    mocks = run(lambda: PlatformComponent("ilm", args))
    issuers = mocks.of_type("kubernetes:cert-manager.io/v1:Issuer")
    assert sorted(r.inputs["metadata"]["name"] for r in issuers) == ["ca-issuer", "selfsigned-issuer"]
    assert (
        mocks.one("kubernetes:networking.k8s.io/v1:Ingress").inputs["metadata"]["annotations"]["pulumi.com/patchForce"] == "true"
    )


def test_the_decided_version_is_what_renders():
    args = args_with(version=None)
    prepared = prepare_platform(args, StaticReader({("secret", "ilm", "core-secret"): SECRET_DATA}, versions={"ilm": "2.18.0"}))
    mocks = run(lambda: PlatformComponent("ilm", args, prepared=prepared))
    core = next(d for d in mocks.of_type("kubernetes:apps/v1:Deployment") if d.inputs["metadata"]["name"] == "core")
    assert core.inputs["spec"]["template"]["spec"]["containers"][1]["image"].endswith("/core:2.18.0")


def test_a_managed_database_composes_auth_from_the_secret_cloudnativepg_generated():
    args = args_with(database=MANAGED_DATABASE)
    prepared = prepare_platform(args, StaticReader({("secret", "ilm", "ilm-db-app"): SECRET_DATA}))
    mocks = run(lambda: PlatformComponent("ilm", args, prepared=prepared))
    secret = mocks.one("kubernetes:core/v1:Secret")
    assert secret.inputs["stringData"]["connection-string"].startswith("Host=ilm-db-pooler;Port=5432;Username=ilm;")
    assert secret.inputs["stringData"]["connection-string"].endswith(";Database=ilm;Pooling=true")
    cluster = [r for r in mocks.resources if r.type_ == "kubernetes:postgresql.cnpg.io/v1:Cluster"]
    assert [r.inputs["metadata"]["name"] for r in cluster] == ["ilm-db"]


class MadeByCloudNativePG(StaticReader):
    """The generated Secret, once the stack has created the Cluster it is made from."""

    def __init__(self, mocks: RecordingMocks) -> None:
        super().__init__({})
        self.mocks = mocks

    def read(self, ref):
        if any(r.type_ == "kubernetes:postgresql.cnpg.io/v1:Cluster" for r in self.mocks.resources):
            self.objects[("secret", "ilm", "ilm-db-app")] = SECRET_DATA
        return super().read(ref)


def test_a_managed_databases_secret_not_generated_yet_is_waited_for_once_its_cluster_is_created(said):
    args, mocks = args_with(database=MANAGED_DATABASE), RecordingMocks()
    prepared = prepare_platform(args, MadeByCloudNativePG(mocks))
    assert prepared.credentials is None
    assert 'Secret "ilm-db-app" in namespace "ilm" is not there yet: up waits for CloudNativePG to make it' in said.text
    run(lambda: PlatformComponent("ilm", args, prepared=prepared), mocks=mocks)
    secret = mocks.one("kubernetes:core/v1:Secret")
    assert secret.inputs["stringData"]["connection-string"].startswith("Host=ilm-db-pooler;Port=5432;Username=ilm;")
    # the same children as a run that read the Secret before it started: a rerun changes nothing
    read_at_once = prepare_platform(args, StaticReader({("secret", "ilm", "ilm-db-app"): SECRET_DATA}))
    again = run(lambda: PlatformComponent("ilm", args, prepared=read_at_once))
    assert {(r.type_, r.name): r.inputs for r in mocks.resources} == {(r.type_, r.name): r.inputs for r in again.resources}
    with pytest.raises(InvalidArgumentsError, match='has no key "password"'):
        prepare_platform(args, StaticReader({("secret", "ilm", "ilm-db-app"): {"username": "aWxt"}}))


def test_preview_says_a_major_upgrade_of_a_managed_database_is_held_and_up_keeps_the_running_one(said):
    database = {"mode": "managed", "managed": {"version": "18", "storage": {"size": "1Gi"}}}
    args = args_with(database=database)
    stored = {
        ("postgresql.cnpg.io/v1", "clusters", "ilm", "ilm-db"): {"spec": {"imageName": "ghcr.io/cloudnative-pg/postgresql:17"}}
    }
    prepared = prepare_platform(args, StaticReader({("secret", "ilm", "ilm-db-app"): SECRET_DATA}, custom=stored))
    assert prepared.held_database == "17"
    assert "database.managed.version: 18 is a major upgrade of the running PostgreSQL 17: kept at 17" in said.text
    mocks = run(lambda: PlatformComponent("ilm", args, prepared=prepared))
    (cluster,) = [r for r in mocks.resources if r.type_ == "kubernetes:postgresql.cnpg.io/v1:Cluster"]
    assert cluster.inputs["spec"]["imageName"] == "ghcr.io/cloudnative-pg/postgresql:17"


class BrokerMadeByItsOperators(StaticReader):
    """The database credentials from the start; core's broker user's Secret once the stack has
    created the RabbitmqCluster."""

    def __init__(self, mocks: RecordingMocks) -> None:
        super().__init__({("secret", "ilm", "core-secret"): SECRET_DATA})
        self.mocks = mocks

    def read(self, ref):
        if any(r.type_ == "kubernetes:rabbitmq.com/v1beta1:RabbitmqCluster" for r in self.mocks.resources):
            self.objects[("secret", "ilm", "ilm-messaging-core-user-credentials")] = {"username": "dQ=="}
        return super().read(ref)


def test_a_managed_brokers_secret_is_waited_for_even_when_the_database_credentials_were_read(said):
    args, mocks = args_with(messaging={"mode": "managed", "managed": {"storage": {"size": "1Gi"}}}), RecordingMocks()
    reader = BrokerMadeByItsOperators(mocks)
    prepared = prepare_platform(args, reader)
    assert prepared.credentials == SECRET_DATA and prepared.awaited_credentials is not None
    run(lambda: PlatformComponent("ilm", args, prepared=prepared), mocks=mocks)
    broker_reads = [key for key in reader.reads if key[2] == "ilm-messaging-core-user-credentials"]
    assert len(broker_reads) == 2  # once before the run (not there), once inside it (there)
    assert mocks.one("kubernetes:core/v1:Secret").inputs["stringData"]["connection-string"].startswith("Host=db.example.com;")
