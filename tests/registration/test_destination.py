"""``registration.destination``: where the requests go, with which trust and whose credentials."""

from __future__ import annotations

import pytest

from components.registration.cluster_access import ApiServerAccess
from components.registration.destination import AdminCredentials, Destination, TlsSettings, direct, through_api_server
from components.registration.errors import RegistrationError


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, None),
        ({}, None),
        ({"bearerToken": ""}, None),
        ({"bearerToken": "t"}, AdminCredentials("t")),
        ({"clientCertificate": "c", "clientKey": "k"}, AdminCredentials(None, "c", "k")),
    ],
)
def test_admin_credentials_from_the_input(value, expected):
    assert AdminCredentials.from_props(value) == expected


def test_admin_credentials_never_print():
    assert repr(AdminCredentials("secret-token")) == "AdminCredentials(<hidden>)"


@pytest.mark.parametrize(
    ("tls", "verify"),
    [(TlsSettings(), True), (TlsSettings("/ca.pem"), "/ca.pem"), (TlsSettings("/ca.pem", True), False)],
)
def test_one_trust_rule(tls, verify):
    assert tls.verify() == verify
    assert direct("https://p/api/", tls) == Destination("https://p/api", verify=verify)


@pytest.mark.parametrize(
    ("base", "path", "url"),
    [
        ("https://h/api", "/v2/x", "https://h/api/v2/x"),
        ("https://h/api/", "/v2/x", "https://h/api/v2/x"),
        ("https://h", "/v2/x", "https://h/v2/x"),
    ],
)
def test_join_never_rewrite(base, path, url):
    assert Destination(base).at(path) == url


def test_through_the_api_servers_service_proxy():
    access = ApiServerAccess("https://k:6443", "Bearer t", None, "/ca")
    destination = through_api_server("http://core.ilm.svc.cluster.local:8080/api", access)
    assert destination.base == "https://k:6443/api/v1/namespaces/ilm/services/http:core:8080/proxy/api"
    assert destination.headers == (("Authorization", "Bearer t"),) and destination.verify == "/ca"
    assert destination.through_proxy and destination.refusal_suffix == " from the Kubernetes API server"
    with pytest.raises(RegistrationError, match="not an in-cluster Service address"):
        through_api_server("https://p.example/api", access)
