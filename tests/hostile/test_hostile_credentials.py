"""Credentials and TLS against the hostile platform (``hostile_platform``): admin credentials
only where needed and only over TLS or loopback, tokens a header can carry, one trust rule
whatever the credential, TLS failures named, the provider's own checks of its inputs."""

from __future__ import annotations

import json
import ssl
from typing import Any

import pytest

from components.app.program import parse_connectors
from components.registration.provider import RegistrationProvider

from ..support.apiserver_standin import make_certificates
from ..support.hostile_cases import GOOD_UUID, TOKEN, fails, props, registered
from ..support.hostile_platform import answer, hostile_platform, json_answer, sequence


def test_the_register_call_carries_no_admin_credentials():
    with hostile_platform(sequence(json_answer(200, registered(GOOD_UUID).decode()), answer(204))) as platform:
        RegistrationProvider().create(props(platform.url, admin=True, approve=True))
    register, approve = platform.requests
    assert "authorization" not in register.headers
    assert approve.path == f"/api/v2/connectors/{GOOD_UUID}/approve" and approve.headers["authorization"] == f"Bearer {TOKEN}"


def test_admin_credentials_over_plain_http_are_refused_unless_loopback_or_allowed():
    entry = {"name": "c", "namespace": "ilm", "spec": {"image": {"repository": "r", "tag": "1"}}}
    registration = {"platformUrl": "http://platform.example/api", "name": "n", "authType": "none"}
    entry["spec"]["registration"] = {**registration, "adminCredentials": {"bearerToken": TOKEN}}
    with pytest.raises(Exception, match="would travel in clear over http://") as caught:
        parse_connectors([entry])
    assert TOKEN not in str(caught.value)
    entry["spec"]["registration"]["sendAdminCredentialsOverHttp"] = True
    assert parse_connectors([entry])
    message, took = fails(RegistrationProvider().create, props("http://platform.example/api", admin=True))
    assert "would travel in clear" in message and took < 1
    checked = RegistrationProvider().check({}, props("http://platform.example/api", admin=True))
    assert [(f.property, "would travel in clear" in f.reason) for f in checked.failures] == [("adminCredentials", True)]
    allowed = props("http://platform.example/api", admin=True, send_admin_credentials_over_http=True)
    assert RegistrationProvider().check({}, allowed).failures == []
    with hostile_platform(json_answer(200, registered(GOOD_UUID).decode())) as platform:
        assert RegistrationProvider().create(props(platform.url, admin=True)).id == GOOD_UUID


@pytest.mark.parametrize("token", [f"{TOKEN}\r\nX-Injected: 1", f"{TOKEN}\u00e9", f"{TOKEN} space"])
def test_a_token_no_header_can_carry_fails_at_once_naming_the_field(token):
    entry = {"name": "c", "namespace": "ilm", "spec": {"image": {"repository": "r", "tag": "1"}}}
    entry["spec"]["registration"] = {
        "platformUrl": "https://p/api", "name": "n", "authType": "none", "adminCredentials": {"bearerToken": token}
    }  # fmt: skip
    with pytest.raises(Exception, match=r"adminCredentials\.bearerToken: must be printable ASCII") as caught:
        parse_connectors([entry])
    assert TOKEN not in str(caught.value)
    with hostile_platform(json_answer(200, registered(GOOD_UUID).decode())) as platform:
        state = {**props(platform.url, admin=True), "admin_credentials": {"bearerToken": token}}
        message, took = fails(RegistrationProvider().create, state)
    assert "bearerToken must be printable ASCII" in message and took < 1
    assert platform.requests == []
    failures = RegistrationProvider().check({}, state).failures
    assert [f.property for f in failures] == ["adminCredentials"]


@pytest.fixture(scope="module")
def certificates(tmp_path_factory):
    return make_certificates(tmp_path_factory.mktemp("tls"))


def tls_server(certificates: Any) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificates.server_cert, certificates.server_key)
    return context


@pytest.mark.parametrize("given_as", ["text", "path"])
def test_the_ca_bundle_is_pem_text_or_a_path(certificates, given_as):
    bundle = certificates.ca.read_text() if given_as == "text" else str(certificates.ca)
    with hostile_platform(json_answer(200, registered(GOOD_UUID).decode()), tls=tls_server(certificates)) as platform:
        result = RegistrationProvider().create(props(platform.url, ca_bundle=bundle))
    assert result.id == GOOD_UUID


def test_a_tls_failure_is_named_and_not_retried(certificates):
    with hostile_platform(json_answer(200, registered(GOOD_UUID).decode()), tls=tls_server(certificates)) as platform:
        message, _ = fails(RegistrationProvider().create, props(platform.url, deadline=5))
    assert "TLS verification failed" in message and "could not be reached" not in message
    assert platform.requests == []


def test_a_client_certificate_keeps_the_one_trust_rule(certificates):
    """With a client certificate as with a token: the default trust refuses a private CA, the
    bundle given is trusted; a certificate that does not load fails the first administrator's
    call at once (the register call carries no credentials)."""
    client = {"clientCertificate": certificates.client_cert.read_text(), "clientKey": certificates.client_key.read_text()}

    def registering() -> Any:
        return sequence(answer(409), json_answer(200, json.dumps({"items": [], "totalPages": 1})))

    with hostile_platform(registering(), tls=tls_server(certificates)) as platform:
        message, took = fails(RegistrationProvider().create, props(platform.url, deadline=5, admin_credentials=client))
        assert "TLS verification failed" in message and took < 2
        assert platform.requests == []
        trusted = props(platform.url, deadline=5, admin_credentials=client, ca_bundle=certificates.ca.read_text())
        message, _ = fails(RegistrationProvider().create, trusted)
        assert "status 409" in message and len(platform.requests) == 2
    broken = {**client, "clientKey": certificates.ca.read_text()}
    with hostile_platform(registering(), tls=tls_server(certificates)) as platform:
        given = props(platform.url, deadline=5, admin_credentials=broken, ca_bundle=certificates.ca.read_text())
        message, took = fails(RegistrationProvider().create, given)
    assert "the client certificate and key could not be loaded" in message and took < 1
    assert [r.path for r in platform.requests] == ["/api/v2/connector/register"], "the register call needs no certificate"


def test_values_not_known_at_preview_are_not_checked():
    """At preview the engine sends what it does not know yet as its placeholder; the host (and
    the package's server) deserialize it as the SDK does, and ``check`` skips such values."""
    from google.protobuf import struct_pb2
    from pulumi.runtime import rpc

    later = {
        "platform_url": "http://platform.example/api",
        "send_admin_credentials_over_http": rpc.UNKNOWN,
        "admin_credentials": {"bearerToken": rpc.UNKNOWN},
        "approve": rpc.UNKNOWN,
        "insecure_skip_tls_verify": rpc.UNKNOWN,
        "deadline_seconds": rpc.UNKNOWN,
    }
    wire = struct_pb2.Struct()
    wire.update(props("https://p/api", **later))
    news = rpc.deserialize_properties(wire, True)
    assert RegistrationProvider().check({}, news).failures == []
    wire.update({"platform_url": rpc.UNKNOWN, "send_admin_credentials_over_http": False, "approve": "yes"})
    news = rpc.deserialize_properties(wire, True)
    assert [f.property for f in RegistrationProvider().check({}, news).failures] == ["approve"]


@pytest.mark.parametrize("setting", ["insecure_skip_tls_verify", "approve", "deregister_on_destroy"])
def test_booleans_must_be_booleans(setting):
    state = props("https://p/api", **{setting: "false"})
    camel = {"insecure_skip_tls_verify": "insecureSkipTlsVerify", "deregister_on_destroy": "deregisterOnDestroy"}
    name = camel.get(setting, setting)
    assert [(f.property, f.reason) for f in RegistrationProvider().check({}, state).failures] == [(name, "must be true or false")]
    message, _ = fails(RegistrationProvider().create, state)
    assert f"{name} must be true or false" in message


def test_credentials_never_go_through_an_http_proxy(monkeypatch):
    with hostile_platform(json_answer(200, registered(GOOD_UUID).decode())) as platform:
        monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # nothing listens there
        monkeypatch.setenv("http_proxy", "http://127.0.0.1:9")
        assert RegistrationProvider().create(props(platform.url, admin=True)).id == GOOD_UUID, "loopback: never proxied"
    message, took = fails(
        RegistrationProvider().create,
        {**props("http://platform.example/api", admin=True, adopt_uuid=GOOD_UUID), "send_admin_credentials_over_http": True},
    )
    assert "would pass through the HTTP proxy" in message and took < 1, "an administrator's call (reading the record)"


@pytest.mark.parametrize(
    ("setting", "value", "named"),
    [
        ("platform_url", "ftp://p/api", "platformUrl"),
        ("admin_credentials", {"clientCertificate": "pem"}, "adminCredentials"),
        ("admin_credentials", {"bearerToken": "t", "extra": "x"}, "adminCredentials"),
    ],
)
def test_the_provider_refuses_inputs_that_cannot_work(setting, value, named):
    state = {**props("https://p/api"), setting: value}
    assert [f.property for f in RegistrationProvider().check({}, state).failures] == [named]
    message, _ = fails(RegistrationProvider().create, state)
    assert named in message
