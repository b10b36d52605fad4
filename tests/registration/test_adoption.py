"""The admin API as the Core answers it (``adoption`` and the provider's edit and approve): the
Core edits only approved records and approves only waiting ones (422 with an array of strings
otherwise), lists only the records the caller may see, and its gateway ends the TLS session
with an alert for a client certificate it does not trust."""

from __future__ import annotations

import time
from typing import Any

import pytest

from components.registration.errors import RegistrationError
from components.registration.provider import RegistrationProvider

from ..support.apiserver_standin import make_certificates
from ..support.platform_double import ADMIN_TOKEN, PlatformDouble, platform_double
from ..support.registration_props import registration_props

URL = "http://x509.ilm.svc.cluster.local:8080"
MOVED = "http://x509.ilm.svc.cluster.local:9090"
ADMIN = {"bearerToken": ADMIN_TOKEN}
EDIT, APPROVE, READ = (
    ("PUT", "/v2/connectors/{uuid}"),
    ("PATCH", "/v2/connectors/{uuid}/approve"),
    ("GET", "/v2/connectors/{uuid}"),
)


def props(double: PlatformDouble, **extra: Any) -> dict[str, Any]:
    return registration_props(double.url, **{"url": URL, "admin_credentials": ADMIN, **extra})


def admin_calls(double: PlatformDouble) -> list[tuple[str, str]]:
    """The admin calls in the order the platform saw them, under their OpenAPI templates."""
    templates = {f"/v2/connectors/{r}": "/v2/connectors/{uuid}" for r in double.records}
    named = [
        (m, templates.get(p.removesuffix("/approve"), p) + ("/approve" if p.endswith("/approve") else ""))
        for m, p in double.calls
    ]
    return [call for call in named if call in (EDIT, APPROVE, READ)]


def test_approve_and_a_url_change_in_one_up_approve_first_then_edit(double):
    provider = RegistrationProvider()
    olds = provider.create(props(double)).outs
    outs = provider.update(olds["uuid"], olds, props(double, url=MOVED, approve=True)).outs
    assert admin_calls(double) == [READ, APPROVE, EDIT]
    record = double.records[olds["uuid"]]
    assert (record.url, record.status, outs["status"]) == (MOVED, "connected", "connected")
    assert double.violations == []


def test_an_edit_of_a_record_waiting_for_approval_says_what_the_platform_allows(double):
    provider = RegistrationProvider()
    olds = provider.create(props(double)).outs
    with pytest.raises(RegistrationError) as raised:
        provider.update(olds["uuid"], olds, props(double, url=MOVED))
    message = str(raised.value)
    assert message.startswith("updating the connector failed with status 422: the platform edits only approved connectors")
    assert "registration.approve: true" in message and "--replace" in message
    assert "Waiting for approval" not in message and MOVED not in message and raised.value.status == 422
    assert double.records[olds["uuid"]].url == URL


@pytest.mark.parametrize("where", ["update", "create"])
def test_a_record_approved_meanwhile_is_read_not_approved_again(double, where):
    """The state says waitingForApproval; the platform's UI (or another stack) approved it."""
    provider = RegistrationProvider()
    olds = provider.create(props(double)).outs
    double.records[olds["uuid"]].status = "connected"
    if where == "update":
        outs = provider.update(
            olds["uuid"], olds, props(double, approve=True, custom_attributes=[{"name": "d", "content": "y"}])
        ).outs
        assert APPROVE not in admin_calls(double)
    else:
        outs = provider.create(props(double, approve=True, adopt_uuid=olds["uuid"])).outs
    assert outs["status"] == "connected" and double.violations == []


def test_an_approve_the_platform_refuses_is_read_back(double, monkeypatch):
    """Between a read and the approve, the record left waitingForApproval: the 422 is not an error."""
    from components.registration import platform_api, provider, route

    olds = RegistrationProvider().create(props(double)).outs
    double.records[olds["uuid"]].status = "connected"
    reader = platform_api.PlatformApi(route.destination(props(double), None))
    assert provider.approved_if_asked(reader, props(double, approve=True), olds["uuid"], "waitingForApproval") == "connected"
    assert admin_calls(double) == [APPROVE, READ] and isinstance(reader, platform_api.PlatformApi)


def test_adoption_when_the_record_is_not_visible_to_the_credentials(double):
    record = double.add("X.509", URL)
    double.hidden.add(record.uuid)
    with pytest.raises(RegistrationError) as raised:
        RegistrationProvider().create(props(double, connector_version="v2"))
    message = str(raised.value)
    assert "no record visible to the admin credentials" in message and "may not see every connector" in message
    assert "another connector is registered" not in message


def test_adoption_still_names_another_connector_holding_the_url_and_version(double):
    double.add("Other", URL)
    with pytest.raises(RegistrationError, match="another connector is registered with this url and version"):
        RegistrationProvider().create(props(double, connector_version="v2"))


def test_a_client_certificate_the_gateway_does_not_trust_fails_at_once(tmp_path):
    for folder in ("platform", "stranger"):
        (tmp_path / folder).mkdir()
    trusted, stranger = make_certificates(tmp_path / "platform"), make_certificates(tmp_path / "stranger")
    admin = {"clientCertificate": stranger.client_cert.read_text(), "clientKey": stranger.client_key.read_text()}
    with platform_double(tls=trusted) as double:
        base = props(double, ca_bundle=str(trusted.ca), admin_credentials=admin, deadline_seconds=30, retry_initial_seconds=5)
        started = time.monotonic()
        with pytest.raises(RegistrationError) as raised:
            RegistrationProvider().read(str(double.add("X.509", URL).uuid), base)
        elapsed = time.monotonic() - started
    message = str(raised.value)
    assert message == (
        "reading the connector failed: the platform refused the client certificate (TLS alert unknown_ca): check that "
        "registration.adminCredentials holds a certificate the platform's gateway trusts, unexpired, with its key"
    )
    assert elapsed < 5, "not retried"
    assert "BEGIN" not in message and "standin" not in message


def test_the_calls_of_one_operation_share_their_connections(double):
    """An adoption over many pages: the register call on one connection (without admin
    credentials), every page of the listing and the approve on another; nothing reconnects."""
    for i in range(250):
        double.add(f"Other-{i}", f"http://other-{i}.ilm.svc:8080")
    double.add("X.509", URL)
    # A deadline a loaded machine meets for the whole listing (the shared default of 0.5 s is for
    # the retry tests): what is measured here is the connections, not the time.
    result = RegistrationProvider().create(props(double, connector_version="v2", approve=True, deadline_seconds=30))
    assert result.outs["status"] == "connected"
    pages = [c for c in double.calls if c[0] == "POST" and c[1] != "/v2/connector/register"]
    assert len(pages) >= 3, double.calls
    register, *admin = double.peers
    assert len(set(admin)) == 1 and register not in admin, (double.calls, double.peers)
