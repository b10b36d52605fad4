"""``bounded_http.destination``: where requests go: trust, headers, credentials, proxies."""

from __future__ import annotations

import os
import stat

import pytest

from components.bounded_http.destination import (
    PROXY_ADMIN_REFUSED,
    PROXY_IN_CLEAR,
    AdminCredentials,
    Destination,
    TlsSettings,
    client_certificate_files,
    direct,
    headers_for,
    proxy_for,
)
from components.bounded_http.failures import RequestError
from components.bounded_http.transport import Deadline, open_client

ENCODING = {"Accept-Encoding": "gzip, deflate"}


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


@pytest.mark.parametrize(
    ("url", "environment", "expected"),
    [
        ("https://core.example/api", {}, None),
        ("https://core.example/api", {"https_proxy": "http://p:3128"}, "http://p:3128"),
        ("https://core.example/api", {"https_proxy": "p:3128"}, "http://p:3128"),
        ("http://127.0.0.1:8080/api", {"http_proxy": "http://p:3128"}, None),
        ("https://core.example/api", {"https_proxy": "http://p:3128", "no_proxy": "core.example"}, None),
    ],
)
def test_proxy_for(url, environment, expected, monkeypatch):
    for variable in ("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(variable, raising=False)
    for key, value in environment.items():
        monkeypatch.setenv(key, value)
    found = proxy_for(url)
    assert (None if found is None else str(found)) == expected


@pytest.mark.parametrize(
    ("destination", "expected"),
    [
        (Destination("https://p/api"), ENCODING),
        (Destination("https://p/api", admin=AdminCredentials("tok")), {"Authorization": "Bearer tok", **ENCODING}),
        (Destination("https://k", headers=(("Authorization", "Bearer kube"),)), {"Authorization": "Bearer kube", **ENCODING}),
        (Destination("https://p/api", admin=AdminCredentials(None, "c", "k")), ENCODING),
    ],
)
def test_headers_for(destination, expected):
    assert headers_for(destination) == expected


@pytest.mark.parametrize(
    ("destination", "phrase"),
    [
        (Destination("https://p", admin=AdminCredentials("a b")), "registration.adminCredentials.bearerToken must be printable"),
        (Destination("https://k", headers=(("Authorization", "Bearer a\nb"),)), "the kubeconfig's credentials"),
    ],
)
def test_a_header_no_header_can_carry(destination, phrase):
    with pytest.raises(RequestError, match=phrase) as caught:
        headers_for(destination)
    assert "a b" not in str(caught.value) and "a\nb" not in str(caught.value)


def test_the_client_certificate_lives_as_long_as_the_call():
    with client_certificate_files(AdminCredentials(None, "CERT", "KEY")) as paths:
        assert paths is not None
        assert [open(p).read() for p in paths] == ["CERT", "KEY"]
        assert all(stat.S_IMODE(os.stat(p).st_mode) == 0o600 for p in paths)
    assert not any(os.path.exists(p) for p in paths)
    with client_certificate_files(AdminCredentials("tok")) as none:
        assert none is None


@pytest.mark.parametrize(
    ("destination", "proxy", "message"),
    [
        (
            Destination("https://k/proxy", admin=AdminCredentials("t"), refusal_suffix=" from the API server"),
            None,
            PROXY_ADMIN_REFUSED,
        ),
        (Destination("http://core.example/api", admin=AdminCredentials("t")), "http://proxy.example:3128", PROXY_IN_CLEAR),
    ],
)
def test_credentials_never_where_they_would_leak(destination, proxy, message, monkeypatch):
    for variable in ("HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(variable, raising=False)
    if proxy:
        monkeypatch.setenv("http_proxy", proxy)
    with pytest.raises(RequestError) as caught, open_client(destination, Deadline(5)):
        pass
    assert str(caught.value) == message


def test_tls_verified_by_default(tmp_path):
    from components.bounded_http.destination import TlsSettings

    assert TlsSettings().verify() is True
    assert TlsSettings(ca_bundle=str(tmp_path / "ca.pem")).verify() == str(tmp_path / "ca.pem")
    assert TlsSettings(ca_bundle="x", insecure_skip_verify=True).verify() is False
