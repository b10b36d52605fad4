"""What is decided before a platform's objects are created: the version (kept, never down, never
onto a preview), the upstream operators installed, an external broker's migration acknowledged,
the database credentials read or waited for, a managed engine's major upgrade held; every
problem named at preview."""

from __future__ import annotations

import pytest

from components.args.problems import InvalidArgumentsError
from components.kube.generated_objects import GeneratedObjectsMissing
from components.platform_preparation import prepare_platform

from .support.mocks import StaticReader
from .support.operator_platform import MANAGED_DATABASE, SECRET_DATA, args_with


def reader(data=SECRET_DATA):
    return StaticReader({("secret", "ilm", "core-secret"): data})


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (None, 'database.credentials.secretRef: Secret "core-secret" in namespace "ilm" not found'),
        ({"username": "aWxt"}, 'database.credentials: Secret "core-secret" in namespace "ilm" has no key "password"'),
    ],
)
def test_a_missing_secret_or_key_is_named_before_anything_is_created(data, problem):
    objects = {} if data is None else {("secret", "ilm", "core-secret"): data}
    with pytest.raises(InvalidArgumentsError) as caught:
        prepare_platform(args_with(), StaticReader(objects))
    assert caught.value.problems == [problem]


def test_a_running_platform_keeps_its_version_and_is_never_downgraded():
    running = StaticReader({("secret", "ilm", "core-secret"): SECRET_DATA}, versions={"ilm": "2.18.0"})
    assert prepare_platform(args_with(version=None), running).version == "2.18.0"
    with pytest.raises(InvalidArgumentsError) as caught:
        prepare_platform(args_with(version="2.18.0"), StaticReader({}, versions={"ilm": "2.19.0"}))
    assert caught.value.problems == [
        "version: 2.18.0 is older than the running 2.19.0: a platform is never downgraded",
        'database.credentials.secretRef: Secret "core-secret" in namespace "ilm" not found',
    ]


def test_an_upstream_operator_not_installed_is_named_with_its_field_and_the_way_round():
    edge = {"enabled": True, "host": "ilm.example.com", "tls": {"source": "internal"}}
    args = args_with(database=MANAGED_DATABASE, edge=edge)
    data = {("secret", "ilm", "ilm-db-app"): SECRET_DATA}
    with pytest.raises(InvalidArgumentsError) as caught:
        prepare_platform(args, StaticReader(data, crds={"poolers.postgresql.cnpg.io"}))
    assert caught.value.problems == [
        "database.mode: managed needs the CloudNativePG operator: clusters.postgresql.cnpg.io not installed"
        " (install it, or set database.mode external)",
        "edge.tls: needs cert-manager: issuers.cert-manager.io, certificates.cert-manager.io not installed"
        " (install it, or give the certificate as a Secret (edge.tls.source secret))",
    ]
    installed = {
        "clusters.postgresql.cnpg.io",
        "poolers.postgresql.cnpg.io",
        "issuers.cert-manager.io",
        "certificates.cert-manager.io",
    }
    assert prepare_platform(args, StaticReader(data, crds=installed)).credentials == SECRET_DATA
    assert prepare_platform(args_with(), StaticReader({("secret", "ilm", "core-secret"): SECRET_DATA}, crds=set()))


def test_an_upgrade_renaming_an_external_brokers_exchanges_waits_for_its_acknowledgement():
    data = {("secret", "ilm", "core-secret"): SECRET_DATA}
    on_2180 = StaticReader(data, versions={"ilm": "2.18.0"})
    with pytest.raises(InvalidArgumentsError) as caught:
        prepare_platform(args_with(version="2.19.0"), on_2180)
    (problem,) = caught.value.problems
    assert problem.startswith(
        "messaging.migrationAcknowledgedForVersion: the upgrade from 2.18.0 to 2.19.0 moves the platform from the exchanges"
        " czertainly, czertainly-proxy to ilm, ilm-proxy on a broker this stack does not own:"
    )
    assert problem.endswith("then set migrationAcknowledgedForVersion to 2.19.0 (docs/platform.md, the messaging runbook)")
    stale = {"host": "mq", "credentials": {"secretRef": "messaging-secret"}, "migrationAcknowledgedForVersion": "2.18.0"}
    with pytest.raises(InvalidArgumentsError, match=r"migrationAcknowledgedForVersion: the upgrade from 2\.18\.0 to 2\.19\.0"):
        prepare_platform(args_with(version="2.19.0", messaging=stale), on_2180)
    acknowledged = {**stale, "migrationAcknowledgedForVersion": "2.19.0"}
    assert prepare_platform(args_with(version="2.19.0", messaging=acknowledged), on_2180).version == "2.19.0"
    # a first deploy, or a platform already on the version, needs nothing
    assert prepare_platform(args_with(version="2.19.0"), StaticReader(data, versions={"ilm": "2.19.0"})).version == "2.19.0"
    assert prepare_platform(args_with(version="2.18.0"), StaticReader(data)).version == "2.18.0"


MANAGED_BROKER = {"mode": "managed", "managed": {"version": "4.1", "storage": {"size": "1Gi"}}}
BROKER_SECRET = ("secret", "ilm", "ilm-messaging-core-user-credentials")


class Generating(StaticReader):
    """What the upstream operators generate, there from the ``reads``-th read on."""

    def __init__(self, objects, reads: int) -> None:
        super().__init__({}, services=set())
        self.later, self.reads_before = objects, reads

    def read(self, ref):
        if len(self.reads) >= self.reads_before:
            self.objects.update(self.later)
            self.services = None
        return super().read(ref)


def test_a_managed_brokers_generated_secret_and_service_are_waited_for_before_what_reads_them():
    args = args_with(messaging=MANAGED_BROKER)
    reader = Generating({("secret", "ilm", "core-secret"): SECRET_DATA, BROKER_SECRET: {"username": "dQ=="}}, reads=0)
    prepared = prepare_platform(args, reader)
    assert prepared.awaited_credentials is None  # all there already
    reader = Generating({BROKER_SECRET: {"username": "dQ=="}}, reads=3)
    reader.objects[("secret", "ilm", "core-secret")] = SECRET_DATA
    prepared = prepare_platform(args, reader)
    assert prepared.credentials == SECRET_DATA and prepared.awaited_credentials is not None
    assert prepared.awaited_credentials() == SECRET_DATA
    assert reader.reads[-1] == BROKER_SECRET


def test_a_major_upgrade_of_a_managed_broker_is_held_and_said(said):
    running = {
        ("rabbitmq.com/v1beta1", "rabbitmqclusters", "ilm", "ilm-messaging"): {"spec": {"image": "rabbitmq:3.13-management"}}
    }
    data = {("secret", "ilm", "core-secret"): SECRET_DATA, BROKER_SECRET: {"username": "dQ=="}}
    prepared = prepare_platform(args_with(messaging=MANAGED_BROKER), StaticReader(data, custom=running))
    assert prepared.held_broker == "3.13"
    assert (
        "messaging.managed.version: 4.1 is a major upgrade of the running RabbitMQ 3.13: kept at 3.13 until"
        " messaging.managed.upgradeAcknowledged is true" in said.text
    )
    acknowledged = {**MANAGED_BROKER, "managed": {**MANAGED_BROKER["managed"], "upgradeAcknowledged": True}}
    assert prepare_platform(args_with(messaging=acknowledged), StaticReader(data, custom=running)).held_broker is None
    unset = {**MANAGED_BROKER, "managed": {"storage": {"size": "1Gi"}}}  # the operator's default image: not pinned here
    assert prepare_platform(args_with(messaging=unset), StaticReader(data, custom=running)).held_broker is None


@pytest.mark.parametrize(
    ("messaging", "moved"),
    [
        (MANAGED_BROKER, "the exchanges czertainly, czertainly-proxy to ilm, ilm-proxy and the virtual host czertainly to /"),
        ({**MANAGED_BROKER, "virtualHost": "platform"}, "the exchanges czertainly, czertainly-proxy to ilm, ilm-proxy"),
    ],
)
def test_an_upgrade_replacing_a_managed_brokers_topology_waits_for_the_cut_over_to_be_asked(messaging, moved):
    data = {("secret", "ilm", "core-secret"): SECRET_DATA, BROKER_SECRET: {"username": "dQ=="}}
    on_2180 = StaticReader(data, versions={"ilm": "2.18.0"})
    with pytest.raises(InvalidArgumentsError) as caught:
        prepare_platform(args_with(version="2.19.0", messaging=messaging), on_2180)
    assert caught.value.problems == [
        f"messaging.managed.forceCutoverForVersion: the upgrade from 2.18.0 to 2.19.0 moves the managed broker's topology"
        f" ({moved}) at once: what is left in the old queues is not carried over. Drain them (docs/platform.md, the"
        " messaging runbook), then set forceCutoverForVersion to 2.19.0"
    ]
    asked = {**messaging, "managed": {**messaging["managed"], "forceCutoverForVersion": "2.19.0"}}
    assert prepare_platform(args_with(version="2.19.0", messaging=asked), on_2180).version == "2.19.0"
    assert prepare_platform(args_with(version="2.19.0", messaging=messaging), StaticReader(data, versions={"ilm": "2.19.0"}))


def test_a_managed_keycloak_is_refused_before_anything_is_created_not_left_out_unsaid():
    keycloak = {"mode": "managed", "managed": {}}
    with pytest.raises(InvalidArgumentsError) as caught:
        prepare_platform(args_with(keycloak=keycloak), reader())
    assert caught.value.problems == [
        "keycloak.mode: managed is not rendered by this library yet (the Keycloak operator's Keycloak, its realm import"
        " and the OIDC client's secret): run Keycloak yourself and set keycloak.mode external"
    ]


def test_a_preview_asks_once_and_never_waits(said):
    """``said`` runs under a preview's mocks: what is missing is named at once, not in ten minutes."""
    prepared = prepare_platform(args_with(database=MANAGED_DATABASE), StaticReader({}))
    assert prepared.awaited_credentials is not None
    with pytest.raises(GeneratedObjectsMissing, match='waited 0 s for what CloudNativePG makes of Cluster "ilm-db"'):
        prepared.awaited_credentials()
