"""The registration provider over the connector's whole life, against the stateful platform
stand-in on 127.0.0.1 (its OpenAPI checks on every request and answer)."""

from __future__ import annotations

from typing import Any

import pytest

from components.registration.errors import RegistrationError
from components.registration.provider import RegistrationProvider

from ..apiserver_standin import make_certificates
from ..platform_double import ADMIN_TOKEN, PlatformDouble, platform_double
from ..registration_props import registration_props

URL = "http://x509.ilm.svc.cluster.local:8080"
ADMIN = {"bearerToken": ADMIN_TOKEN}
REGISTER = ("POST", "/v2/connector/register")


def props(double: PlatformDouble, **extra: Any) -> dict[str, Any]:
    return registration_props(double.url, **{"url": URL, **extra})


def called(double: PlatformDouble) -> list[tuple[str, str]]:
    return [(method, path.split("/v2/connectors/")[0] if "{" in path else path) for method, path in double.calls]


def test_adopting_a_known_uuid_posts_nothing(double):
    record = double.add("X.509", URL)
    result = RegistrationProvider().create(props(double, adopt_uuid=record.uuid))
    assert result.id == record.uuid and result.outs["uuid"] == record.uuid
    assert double.calls == [], "without admin credentials nothing is called"

    result = RegistrationProvider().create(props(double, adopt_uuid=record.uuid, admin_credentials=ADMIN))
    assert result.outs["status"] == "waitingForApproval"
    assert double.calls == [("GET", f"/v2/connectors/{record.uuid}")]
    assert len(double.records) == 1


def test_adopting_a_uuid_the_platform_does_not_have_names_it(double):
    missing = "0b6a3f0e-1111-4222-8333-944445555666"
    with pytest.raises(RegistrationError) as caught:
        RegistrationProvider().create(props(double, adopt_uuid=missing, admin_credentials=ADMIN))
    assert str(caught.value) == "the uuid set in registration.uuid is not a connector on the platform (status 404)"
    assert double.count(*REGISTER) == 0


def test_409_without_admin_credentials_names_both_ways_out(double):
    double.add("X.509", "http://elsewhere:8080")
    with pytest.raises(RegistrationError) as caught:
        RegistrationProvider().create(props(double))
    message = str(caught.value)
    assert message.startswith("registration failed with status 409")
    assert "registration.uuid" in message and "registration.adminCredentials" in message
    assert len(double.records) == 1


def test_409_with_admin_credentials_adopts_the_same_connector(double):
    existing = double.add("X.509", URL)
    result = RegistrationProvider().create(props(double, admin_credentials=ADMIN))
    assert result.id == existing.uuid
    assert double.count(*REGISTER) == 1 and double.count("POST", "/v2/connectors/list") == 1
    assert len(double.records) == 1


@pytest.mark.parametrize(
    ("name", "url", "fragment"),
    [
        ("X.509", "http://elsewhere:8080", "a connector of the same name is registered with another url or version"),
        ("Other", URL, "is registered with this url and version"),
    ],
)
def test_409_with_admin_credentials_names_a_real_conflict(double, name, url, fragment):
    other = double.add(name, url)
    with pytest.raises(RegistrationError) as caught:
        RegistrationProvider().create(props(double, admin_credentials=ADMIN))
    assert fragment in str(caught.value)
    assert other.uuid not in str(caught.value), "a value from the platform's answer is never repeated"
    assert len(double.records) == 1


def test_a_change_the_platform_must_know_is_one_put_on_the_same_uuid(double):
    provider = RegistrationProvider()
    olds = provider.create(props(double, admin_credentials=ADMIN)).outs
    news = props(
        double,
        admin_credentials=ADMIN,
        url="http://x509.ilm.svc.cluster.local:9090",
        custom_attributes=[{"name": "d", "content": "x"}],
    )
    assert provider.diff(olds["uuid"], olds, news).changes
    assert provider.diff(olds["uuid"], olds, news).replaces == []
    double.records[olds["uuid"]].status = "connected"  # the platform edits approved records only
    outs = provider.update(olds["uuid"], olds, news).outs
    assert outs["uuid"] == olds["uuid"]
    record = double.records[olds["uuid"]]
    assert record.url == "http://x509.ilm.svc.cluster.local:9090" and record.custom_attributes == [
        {"name": "d", "content": [{"data": "x"}]}
    ]
    assert double.count(*REGISTER) == 1 and double.count("PUT", "/v2/connectors/{uuid}") == 1


@pytest.mark.parametrize("missing", ["auth_attributes", "custom_attributes"])
def test_an_old_state_without_an_input_announces_and_sends_no_edit_for_it(double, capsys, missing):
    """State written before an input existed holds no key for it: its default is what it held.
    diff and update compare alike (before, diff saw no change and update sent a PUT)."""
    provider = RegistrationProvider()
    outs = provider.create(props(double, admin_credentials=ADMIN)).outs
    olds = {k: v for k, v in outs.items() if k != missing}
    news = props(double, admin_credentials=ADMIN)
    assert not provider.diff(outs["uuid"], olds, news).changes
    assert "changed" not in capsys.readouterr().err
    provider.update(outs["uuid"], olds, news)
    assert double.count("PUT", "/v2/connectors/{uuid}") == 0


def test_a_change_without_admin_credentials_touches_nothing_and_warns(double, capsys):
    provider = RegistrationProvider()
    olds = provider.create(props(double)).outs
    news = props(double, url="http://x509.ilm.svc.cluster.local:9090")
    assert provider.diff(olds["uuid"], olds, news).changes
    assert "url changed; the platform keeps the old values" in capsys.readouterr().err
    provider.update(olds["uuid"], olds, news)
    assert double.calls == [REGISTER]


def test_approve_once_right_after_registering(double):
    provider = RegistrationProvider()
    outs = provider.create(props(double, admin_credentials=ADMIN, approve=True)).outs
    assert outs["status"] == "connected" and double.records[outs["uuid"]].status == "connected"
    assert double.count("PATCH", "/v2/connectors/{uuid}/approve") == 1
    provider.update(outs["uuid"], outs, {**outs, "custom_attributes": [{"name": "d", "content": "y"}]})
    assert double.count("PATCH", "/v2/connectors/{uuid}/approve") == 1, "an approved connector is left alone"


def test_approve_later_on_update(double):
    provider = RegistrationProvider()
    olds = provider.create(props(double, admin_credentials=ADMIN)).outs
    outs = provider.update(olds["uuid"], olds, {**olds, "approve": True}).outs
    assert outs["status"] == "connected" and double.count("PATCH", "/v2/connectors/{uuid}/approve") == 1
    assert double.count(*REGISTER) == 1


def test_deregister_only_when_asked_and_404_is_done(double):
    provider = RegistrationProvider()
    kept = provider.create(props(double, admin_credentials=ADMIN)).outs
    provider.delete(kept["uuid"], kept)
    assert kept["uuid"] in double.records, "never de-registers unless asked"
    gone = provider.create(props(double, name="Y", url="http://y:8080", admin_credentials=ADMIN, deregister_on_destroy=True)).outs
    provider.delete(gone["uuid"], gone)
    assert gone["uuid"] not in double.records
    provider.delete(gone["uuid"], gone)  # already gone: done
    assert double.count("DELETE", "/v2/connectors/{uuid}") == 2


def test_a_failed_deregistration_says_the_status_only(double):
    provider = RegistrationProvider()
    outs = provider.create(props(double, admin_credentials=ADMIN, deregister_on_destroy=True)).outs
    wrong = {**outs, "admin_credentials": {"bearerToken": "not-the-admin-token-5c9d"}}
    with pytest.raises(RegistrationError) as caught:
        provider.delete(outs["uuid"], wrong)
    assert str(caught.value) == "de-registering the connector failed with status 403"
    assert outs["uuid"] in double.records


def test_refresh_reads_the_status_and_a_deleted_record_is_gone(double):
    provider = RegistrationProvider()
    outs = provider.create(props(double, admin_credentials=ADMIN)).outs
    double.records[outs["uuid"]].status = "offline"
    assert provider.read(outs["uuid"], outs).outs["status"] == "offline"
    del double.records[outs["uuid"]]
    assert provider.read(outs["uuid"], outs).id == ""
    plain = {k: v for k, v in outs.items() if k != "admin_credentials"}
    assert provider.read(outs["uuid"], plain).outs == plain, "without admin credentials refresh keeps what it knows"


def test_admin_calls_retry_5xx_and_transport_failures_until_the_deadline(double):
    provider = RegistrationProvider()
    outs = provider.create(props(double, admin_credentials=ADMIN)).outs
    unreachable = {**outs, "platform_url": "http://127.0.0.1:9/api", "deadline_seconds": 2}
    with pytest.raises(
        RegistrationError, match=r"^reading the connector failed \(the platform could not be reached\) after \d+ attempts"
    ):
        provider.read(outs["uuid"], unreachable)


def test_admin_by_client_certificate_through_the_gateways_tls(tmp_path):
    certificates = make_certificates(tmp_path)
    admin = {"clientCertificate": certificates.client_cert.read_text(), "clientKey": certificates.client_key.read_text()}
    with platform_double(tls=certificates) as double:
        provider = RegistrationProvider()
        base = props(double, ca_bundle=str(certificates.ca), admin_credentials=admin, approve=True)
        outs = provider.create(base).outs
        assert outs["status"] == "connected"
        assert double.admin_cert_subjects and all(s == "standin-admin" for s in double.admin_cert_subjects)
        assert double.violations == []
    assert not any(p.name.startswith("platform-admin-") for p in tmp_path.iterdir())


# Where the administrator's credentials come from, under Pulumi mocks.
def registered_admin(
    secret_data: dict[str, str] | None, admin: dict[str, Any], route: str = "direct", platform_url: str = "http://127.0.0.1:9/api"
) -> Any:
    import base64

    from components.program import connectors_program

    from ..mocks import StaticReader, run

    entry = {
        "name": "x509",
        "namespace": "ilm",
        "spec": {
            "image": {"repository": "r", "tag": "1"},
            "registration": {
                "platformUrl": platform_url,
                "name": "X.509",
                "authType": "none",
                "route": route,
                "adminCredentials": admin,
                # in-cluster http is the mesh case: the proxy route is what is refused here
                "sendAdminCredentialsOverHttp": platform_url.startswith("http://core."),
            },
        },
    }
    objects = {}
    if secret_data is not None:
        objects[("secret", "ilm", "platform-admin")] = {k: base64.b64encode(v.encode()).decode() for k, v in secret_data.items()}
    mocks = run(lambda: connectors_program(StaticReader(objects)), {"connectors": [entry]})
    (found,) = mocks.of_type("pulumi-python:dynamic/connectors:Registration")
    return found


def test_admin_credentials_from_a_secret_are_read_and_kept_secret():
    found = registered_admin({"jwt": "token-from-the-secret"}, {"secretRef": {"name": "platform-admin", "bearerTokenKey": "jwt"}})
    assert found.inputs["admin_credentials"] == {"bearerToken": "token-from-the-secret"}
    assert "admin_credentials" in found.secret_paths


def test_admin_credentials_given_as_values_are_secret_too():
    found = registered_admin(None, {"clientCertificate": "PEM-CERT", "clientKey": "PEM-KEY"})
    assert found.inputs["admin_credentials"] == {"clientCertificate": "PEM-CERT", "clientKey": "PEM-KEY"}
    assert "admin_credentials" in found.secret_paths


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        (None, 'Secret "platform-admin" not found in namespace "ilm"'),
        ({"other": "x"}, 'Secret "platform-admin" in namespace "ilm" has no key "jwt"'),
    ],
)
def test_a_missing_admin_secret_or_key_stops_before_anything_exists(data, fragment):
    from components import InvalidArgumentsError

    with pytest.raises(InvalidArgumentsError) as caught:
        registered_admin(data, {"secretRef": {"name": "platform-admin", "bearerTokenKey": "jwt"}})
    assert fragment in str(caught.value) and "connectors[0] (x509)" in str(caught.value)


@pytest.mark.parametrize(
    ("admin", "fragment"),
    [
        (
            {"bearerToken": "t", "clientCertificate": "c", "clientKey": "k"},
            "set either bearerToken, or clientCertificate and clientKey",
        ),
        ({"clientCertificate": "c"}, "set bearerToken, or clientCertificate and clientKey, or secretRef"),
        ({"secretRef": {"name": "s"}}, "set either bearerTokenKey, or clientCertificateKey and clientKeyKey"),
        ({"bearerToken": "t", "secretRef": {"name": "s", "bearerTokenKey": "k"}}, "either secretRef or the credential values"),
    ],
)
def test_admin_credentials_take_one_clear_shape(admin, fragment):
    from components import InvalidArgumentsError
    from components.program import parse_connectors

    entry = {
        "name": "x",
        "namespace": "ilm",
        "spec": {
            "image": {"repository": "r", "tag": "1"},
            "registration": {"platformUrl": "http://p/api", "name": "n", "authType": "none", "adminCredentials": admin},
        },
    }
    with pytest.raises(InvalidArgumentsError) as caught:
        parse_connectors([entry])
    assert fragment in str(caught.value) and "t" not in [p.split(": ")[-1] for p in caught.value.problems]


@pytest.mark.parametrize("setting", ["approve", "deregisterOnDestroy"])
def test_approve_and_deregister_need_admin_credentials(setting):
    from components import InvalidArgumentsError
    from components.program import parse_connectors

    entry = {
        "name": "x",
        "namespace": "ilm",
        "spec": {
            "image": {"repository": "r", "tag": "1"},
            "registration": {"platformUrl": "http://p/api", "name": "n", "authType": "none", setting: True},
        },
    }
    with pytest.raises(InvalidArgumentsError, match=f"{setting}: true needs adminCredentials"):
        parse_connectors([entry])


@pytest.mark.parametrize("admin", [{"bearerToken": "t"}, {"clientCertificate": "c", "clientKey": "k"}])
def test_admin_credentials_on_the_api_server_proxy_route_are_refused(ambient_kubeconfig, admin):
    from components import InvalidArgumentsError

    with pytest.raises(InvalidArgumentsError, match=r"adminCredentials need registration\.route direct"):
        registered_admin(None, admin, "apiServerProxy", "http://core.ilm.svc.cluster.local:8080/api")
