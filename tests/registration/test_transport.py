"""``registration.transport``: every socket operation bound by the deadline, the name lookup
too, the environment's proxies honoured as httpx honours them; headers checked, credentials
only where they may go, the client certificate in private files for the call's lifetime only."""

from __future__ import annotations

import os
import ssl
import stat

import httpx
import pytest

from components.registration.destination import AdminCredentials, Destination
from components.registration.errors import RegistrationError
from components.registration.settings import Deadline, Expired
from components.registration.transport import (
    PROXY_ADMIN_REFUSED,
    PROXY_IN_CLEAR,
    DeadlineTransport,
    client_certificate_files,
    headers_for,
    open_client,
    proxy_for,
    resolve,
)

from ..support.hostile_platform import black_hole, hostile_platform, json_answer


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


def test_resolve_within_the_deadline():
    assert "127.0.0.1" in resolve("localhost", 80, Deadline(10))


def test_resolve_with_no_time_left_is_expired_before_sending():
    with pytest.raises(Expired) as caught:
        resolve("localhost", 80, Deadline(-1))
    assert caught.value.sent is False


def client(deadline: Deadline) -> httpx.Client:
    return httpx.Client(transport=DeadlineTransport(deadline, ssl.create_default_context(), None), trust_env=False)


def test_an_answer_through_the_transport():
    with hostile_platform(json_answer(200, '{"ok": true}')) as platform, client(Deadline(10)) as http:
        response = http.get(f"{platform.url}/x")
    assert (response.status_code, response.json()) == (200, {"ok": True})


def test_an_answer_that_never_comes_ends_at_the_deadline():
    """The deadline here must be lost: a black hole never answers, whatever the machine's load."""
    with hostile_platform(black_hole) as platform, client(Deadline(0.5)) as http, pytest.raises(Expired) as caught:
        http.get(f"{platform.url}/x")
    assert caught.value.sent is True


ENCODING = {"Accept-Encoding": "gzip, deflate"}


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
    with pytest.raises(RegistrationError, match=phrase) as caught:
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
    with pytest.raises(RegistrationError) as caught, open_client(destination, Deadline(5)):
        pass
    assert str(caught.value) == message
