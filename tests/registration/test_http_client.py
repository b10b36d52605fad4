"""``registration.http_client``: headers checked, credentials only where they may go, the
client certificate in private files for the call's lifetime only."""

from __future__ import annotations

import os
import stat

import pytest

from components.registration.destination import AdminCredentials, Destination
from components.registration.errors import RegistrationError
from components.registration.http_client import (
    PROXY_ADMIN_REFUSED,
    PROXY_IN_CLEAR,
    client_certificate_files,
    headers_for,
    open_client,
)
from components.registration.settings import Deadline

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
