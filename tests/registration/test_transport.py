"""``registration.transport``: every socket operation bound by the deadline, the name lookup
too, and the environment's proxies honoured as httpx honours them."""

from __future__ import annotations

import ssl

import httpx
import pytest

from components.registration.settings import Deadline, Expired
from components.registration.transport import DeadlineTransport, proxy_for, resolve

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
