"""``registration.platform_api``: each call of the platform's API, its answer and its messages; the provider's calls through it."""

from __future__ import annotations

import pickle
import socket
import ssl
from typing import Any

import httpx
import pytest

from components.bounded_http.destination import Destination, direct
from components.bounded_http.sender import Operation, Sender
from components.bounded_http.settings import RetryPolicy
from components.bounded_http.transport import Deadline, DeadlineTransport
from components.registration.errors import RegistrationError
from components.registration.platform_api import (
    REGISTER_PATH,
    ConnectorRecord,
    PlatformApi,
    Registered,
    _page,
    edit_body,
    register_body,
    registered,
)
from components.registration.provider import RegistrationProvider
from components.registration.rules import IdentifierError

from ..support.platform_double import Answer, platform_double
from ..support.registration_props import registration_props


def client(deadline: Deadline) -> httpx.Client:
    return httpx.Client(transport=DeadlineTransport(deadline, ssl.create_default_context(), None), trust_env=False)


# ---- test_sending.py
SCHEDULE = RetryPolicy(1, 4, 30)


def send(platform_url: str, operation: Operation, retry: RetryPolicy = SCHEDULE) -> tuple[object, list[float]]:
    waits: list[float] = []
    answer = Sender(Destination(platform_url), retry, sleep=waits.append).send(operation)
    return answer, waits


# ---- test_api.py
GOOD = "6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b"


BODY = register_body({"name": "n", "url": "http://n.ilm.svc.cluster.local:8080", "auth_type": "none"})


SECRET = "s3cr3t-attribute-value"


LEAK = "ECHOED-IDENTITY-MATERIAL"


def props(platform_url: str, **extra: Any) -> dict[str, Any]:
    own = {"name": "X.509 Compliance Provider", "url": "http://x509.default.svc.cluster.local:8080", "auth_type": "basic"}
    schedule = {"retry_max_seconds": 0.04, "deadline_seconds": 1}
    return registration_props(
        platform_url, **{**own, **schedule, "auth_attributes": [{"name": "password", "content": SECRET}], **extra}
    )


# ---- test_destination.py
@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        ({"uuid": GOOD, "status": "waitingForApproval"}, Registered(GOOD, "waitingForApproval")),
        ({"uuid": GOOD, "status": "connected"}, Registered(GOOD, "connected")),
        ({"uuid": GOOD, "status": "sleeping"}, Registered(GOOD, "unknown", unexpected=("status",))),
        ({"uuid": GOOD}, Registered(GOOD, "unknown", unexpected=("status",))),
    ],
)
def test_registered_keeps_any_valid_uuid(payload, expected):
    assert registered(payload) == expected


@pytest.mark.parametrize(
    ("payload", "error", "phrase"),
    [
        (None, RegistrationError, "answered without a uuid"),
        ({"status": "connected"}, RegistrationError, "answered without a uuid"),
        ({"uuid": "../x"}, IdentifierError, "may hold a record for this connector now"),
    ],
)
def test_registered_refuses(payload, error, phrase):
    with pytest.raises(error, match=phrase):
        registered(payload)


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        (
            {"uuid": GOOD, "name": "n", "url": "u", "version": "v2", "status": "offline"},
            ConnectorRecord(GOOD, "n", "u", "v2", "offline"),
        ),
        ({"uuid": GOOD, "name": 7, "status": "odd"}, ConnectorRecord(GOOD, "", "", "", "unknown")),
    ],
)
def test_a_record_of_the_answer(payload, expected):
    assert ConnectorRecord.of(payload, "the uuid in the answer") == expected


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        ({"items": [1], "totalPages": 3}, ([1], 3)),
        ({"items": None}, ([], 1)),
        ({}, ([], 1)),
    ],
)
def test_a_page(payload, expected):
    assert _page(payload) == expected


@pytest.mark.parametrize("payload", [[], {"items": "x"}, {"totalPages": "2"}, {"totalPages": True}, {"totalPages": -1}])
def test_a_page_of_another_shape_is_refused(payload):
    with pytest.raises(RegistrationError, match="not a page of connectors"):
        _page(payload)


@pytest.mark.parametrize(
    ("base", "expected"),
    [
        ("https://h/api", "https://h/api/v2/connector/register"),
        ("https://h/api/", "https://h/api/v2/connector/register"),
        ("https://h", "https://h/v2/connector/register"),
        ("https://gw.example.com/ilm/api", "https://gw.example.com/ilm/api/v2/connector/register"),
    ],
)
def test_join_keeps_the_register_path_as_given(base, expected):
    assert Destination(base).at(REGISTER_PATH) == expected


def test_create_posts_once_and_keeps_uuid_status_time():
    with platform_double() as double:
        double.script.append(Answer(200, {"uuid": "3f0b6a52-0c1d-4e5f-8a9b-1c2d3e4f5a6b", "status": "connected"}))
        result = RegistrationProvider().create(props(double.url + "/"))
    assert double.paths == ["/api/v2/connector/register"]
    assert double.requests == [
        {
            "name": "X.509 Compliance Provider",
            "version": "v2",
            "url": "http://x509.default.svc.cluster.local:8080",
            "authType": "basic",
            "authAttributes": [{"name": "password", "content": [{"data": SECRET}]}],
            "customAttributes": [],
        }
    ]
    assert result.id == "3f0b6a52-0c1d-4e5f-8a9b-1c2d3e4f5a6b"
    assert result.outs["uuid"] == "3f0b6a52-0c1d-4e5f-8a9b-1c2d3e4f5a6b" and result.outs["status"] == "connected"
    assert result.outs["registered_at"].endswith("Z") and "T" in result.outs["registered_at"]


def test_retries_5xx_on_a_doubling_schedule_then_succeeds():
    waits: list[float] = []
    with platform_double() as double:
        double.script += [Answer(503), Answer(502)]
        registered = PlatformApi(direct(double.url), RetryPolicy(5, 300, 600), sleep=waits.append).register(BODY)
    assert len(double.requests) == 3
    assert waits == [5, 10]
    assert registered.status == "waitingForApproval"


def test_schedule_doubles_to_ceiling_within_deadline():
    assert RetryPolicy(5, 300, 600).delays() == [5, 10, 20, 40, 80, 160]
    delays = RetryPolicy(5, 300, 1000).delays()
    assert delays[:7] == [5, 10, 20, 40, 80, 160, 300]
    assert sum(delays) <= 1000


@pytest.mark.parametrize("status", [400, 404, 422])
def test_4xx_fails_at_once_without_reading_the_body(status):
    with platform_double() as double:
        double.script.append(Answer(status, {"message": LEAK}))
        with pytest.raises(RegistrationError) as caught:
            RegistrationProvider().create(props(double.url))
    assert len(double.requests) == 1
    assert str(caught.value).partition(":")[0] == f"registration failed with status {status}"
    assert str(caught.value) == f"registration failed with status {status}" or status == 404  # 404 says what it may have left
    assert caught.value.__cause__ is None
    assert LEAK not in repr(caught.value.__context__)


def test_5xx_until_deadline_says_status_attempts_and_deadline():
    with platform_double() as double:
        double.script += [Answer(500, {"message": LEAK})] * 1000
        with pytest.raises(RegistrationError) as caught:  # a deadline long enough for a loaded machine's first attempt
            RegistrationProvider().create(props(double.url, deadline_seconds=3))
    message = str(caught.value)
    assert message.startswith("registration failed with status 500 after")
    # The deadline may cut the last attempt after it left and before the platform read it (a kept
    # connection sends at once): the client counts it, the platform never saw it.
    attempts = int(message.split(" after ", 1)[1].split(" attempts", 1)[0])
    assert attempts in (len(double.requests), len(double.requests) + 1), (attempts, len(double.requests))
    if attempts == len(double.requests) + 1:
        assert "an attempt got no answer" in message
    assert LEAK not in message and SECRET not in message


def test_transport_failure_is_a_fixed_phrase_without_host():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/api"
    with pytest.raises(RegistrationError) as caught:
        # No wait fits in the deadline: one attempt, whatever the machine's load.
        RegistrationProvider().create(props(url, deadline_seconds=5, retry_initial_seconds=10))
    message = str(caught.value)
    assert "the platform could not be reached" in message
    assert "127.0.0.1" not in message and str(port) not in message
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


@pytest.mark.parametrize(
    "body",
    [{"status": "connected"}, {"uuid": "", "status": "connected"}, {"uuid": "u", "status": "approved"}, ["not", "an", "object"]],
)
def test_200_without_usable_uuid_or_status_is_an_error(body):
    with platform_double() as double:
        double.script.append(Answer(200, body))
        with pytest.raises(RegistrationError, match="registration failed"):
            RegistrationProvider().create(props(double.url))


def test_diff_never_replaces_and_ignores_the_serialized_provider():
    provider = RegistrationProvider()
    olds = {**props("https://p/api"), "uuid": "u", "status": "connected", "registered_at": "t", "__provider": "old-pickle"}
    same = provider.diff("u", olds, {**props("https://p/api"), "__provider": "new-pickle"})
    assert same.changes is False and not same.replaces
    changed = provider.diff("u", olds, {**props("https://p/api"), "name": "renamed", "__provider": "x"})
    assert changed.changes is True and not changed.replaces and changed.delete_before_replace is False


def test_update_carries_the_registration_forward_without_calling_the_platform():
    with platform_double() as double:
        olds = {**props(double.url), "uuid": "u-1", "status": "connected", "registered_at": "2026-01-01T00:00:00Z"}
        news = {**props(double.url), "name": "renamed", "uuid": None, "status": None, "registered_at": None}
        result = RegistrationProvider().update("u-1", olds, news)
        RegistrationProvider().delete("u-1", olds)
        read = RegistrationProvider().read("u-1", olds)
    assert double.requests == []
    assert result.outs["uuid"] == "u-1" and result.outs["status"] == "connected"
    assert result.outs["registered_at"] == "2026-01-01T00:00:00Z" and result.outs["name"] == "renamed"
    assert read.outs == olds and read.id == "u-1"


def test_provider_holds_no_client_or_credential():
    provider = RegistrationProvider()
    assert vars(provider) == {} or all(not hasattr(v, "send") for v in vars(provider).values())
    assert SECRET.encode() not in pickle.dumps(provider)


def test_ctrl_c_while_waiting_to_retry_stops_cleanly():
    def interrupted(_seconds: float) -> None:
        raise KeyboardInterrupt

    with platform_double() as double:
        double.script.append(Answer(503))
        with pytest.raises(RegistrationError, match="registration cancelled while waiting to retry") as caught:
            PlatformApi(direct(double.url), RetryPolicy(5, 300, 600), sleep=interrupted).register(BODY)
    assert len(double.requests) == 1
    assert caught.value.__suppress_context__


def test_the_provider_process_loads_the_registration_without_the_models_and_the_renderer():
    """The dynamic provider's process imports ``components.registration`` on the engine's first
    call, on the path from a Ready Deployment to its registration: the package must not load
    its models and renderer there (about a second)."""
    import subprocess
    import sys

    heavy = ["components.args", "components.connector_component", "components.render.connector", "pulumi_kubernetes", "pydantic"]
    probe = f"import sys, components.registration.provider; print([m for m in {heavy!r} if m in sys.modules])"
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "[]"


def test_the_register_body_has_the_platforms_fields_attributes_in_its_form():
    props = {"name": "n", "connector_version": "v1", "url": "http://c", "auth_type": "none"}
    given = {**props, "custom_attributes": [{"name": "a", "content": "x"}]}
    assert register_body(given) == {
        "name": "n",
        "version": "v1",
        "url": "http://c",
        "authType": "none",
        "authAttributes": [],
        "customAttributes": [{"name": "a", "content": [{"data": "x"}]}],
    }
    assert register_body({**props, "connector_version": None})["version"] == "v2"
    assert set(edit_body(props)) == {"url", "authType", "authAttributes", "customAttributes"}


def test_the_stand_in_drops_a_request_whose_client_went_away_while_sending_it():
    """A client killed mid-request (the kill-point tests) leaves a body short of its length: the
    stand-in, as any HTTP server, drops it unprocessed; the next request is served as usual."""
    with platform_double() as double:
        host, port = double.url.removeprefix("http://").removesuffix("/api").split(":")
        with socket.create_connection((host, int(port))) as s:
            head = b"POST /api/v2/connector/register HTTP/1.1\r\nHost: x\r\nContent-Length: 200\r\n\r\n"
            s.sendall(head + b'{"name": "cut')
            s.shutdown(socket.SHUT_WR)
            assert s.recv(100) == b"", "no answer to a request that never arrived whole"
        result = RegistrationProvider().create(props(double.url + "/"))
    assert double.cut_off == 1 and double.violations == []
    assert [r["name"] for r in double.requests] == ["X.509 Compliance Provider"]
    assert list(double.records) == [result.id]
