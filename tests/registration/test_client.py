"""``registration.client``: destinations, the deadline, the transport, sending with retries, bounded answers and the API."""

from __future__ import annotations

import gzip
import os
import pickle
import socket
import ssl
import stat
import zlib
from typing import Any

import httpx
import pytest

from components.registration.client import (
    PROXY_ADMIN_REFUSED,
    PROXY_IN_CLEAR,
    REGISTER_PATH,
    AdminCredentials,
    BadAnswer,
    ConnectorRecord,
    Deadline,
    DeadlineTransport,
    Destination,
    Expired,
    Operation,
    PlatformApi,
    Registered,
    Sender,
    TlsSettings,
    _page,
    client_certificate_files,
    direct,
    headers_for,
    nesting_depth,
    open_client,
    parse_json,
    proxy_for,
    read_body,
    registered,
    resolve,
    retry_after,
)
from components.registration.contract import IdentifierError, register_body
from components.registration.errors import RegistrationError
from components.registration.provider import RegistrationProvider
from components.registration.settings import RetryPolicy

from ..support.hostile_platform import answer, black_hole, hostile_platform, json_answer, reset, sequence
from ..support.platform_double import Answer, platform_double
from ..support.registration_props import registration_props


# ---- test_destination.py
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


# ---- test_sending.py
SCHEDULE = RetryPolicy(1, 4, 30)


def send(platform_url: str, operation: Operation, retry: RetryPolicy = SCHEDULE) -> tuple[object, list[float]]:
    waits: list[float] = []
    answer = Sender(Destination(platform_url), retry, sleep=waits.append).send(operation)
    return answer, waits


@pytest.mark.parametrize(
    ("behaviours", "operation", "status", "payload", "waits"),
    [
        ([json_answer(200, '{"a": 1}')], Operation("GET", "/x"), 200, {"a": 1}, []),
        ([answer(204)], Operation("DELETE", "/x", ok=(200, 204)), 204, None, []),
        ([answer(409, b"secret")], Operation("POST", "/x", passed_through=(409,)), 409, None, []),
        ([answer(503), answer(500), json_answer(200, "[]")], Operation("GET", "/x"), 200, [], [1, 2]),
        ([answer(429, Retry_After="3"), json_answer(200, "1")], Operation("GET", "/x"), 200, 1, [3.0]),
        ([reset, json_answer(200, "2")], Operation("GET", "/x"), 200, 2, [1]),
    ],
)
def test_answers_taken(behaviours, operation, status, payload, waits):
    with hostile_platform(sequence(*behaviours)) as platform:
        got, slept = send(platform.url, operation)
    assert (got.status, got.payload, slept) == (status, payload, waits)


@pytest.mark.parametrize(
    ("behaviours", "message"),
    [
        ([answer(400, b"leak")], "reading failed with status 400"),
        ([answer(403)], "reading failed with status 403"),
        ([json_answer(200, "{oops")], "reading failed: the platform's answer was not JSON"),
        ([answer(500)], "reading failed with status 500 after 3 attempts within the 3 s deadline"),
    ],
)
def test_answers_refused_with_the_status_only(behaviours, message):
    with hostile_platform(sequence(*behaviours)) as platform, pytest.raises(RegistrationError) as caught:
        send(platform.url, Operation("GET", "/x", what="reading"), RetryPolicy(1, 2, 3))
    assert str(caught.value) == message
    assert "leak" not in str(caught.value)


def test_a_cancel_while_waiting_is_a_message():
    def interrupted(_seconds: float) -> None:
        raise KeyboardInterrupt

    with hostile_platform(answer(503)) as platform, pytest.raises(RegistrationError, match="cancelled while waiting to retry"):
        Sender(Destination(platform.url), RetryPolicy(1, 2, 30), sleep=interrupted).send(Operation("GET", "/x"))


@pytest.mark.parametrize(
    ("chunks", "encoding", "expected"),
    [
        ([b'{"a":', b"1}"], "", b'{"a":1}'),
        ([gzip.compress(b"hello")], "gzip", b"hello"),
        ([zlib.compress(b"hello")], "deflate", b"hello"),
        ([b"x"], "identity", b"x"),
        ([], "gzip", b""),
    ],
)
def test_read_body(chunks, encoding, expected):
    assert read_body(chunks, encoding) == expected


@pytest.mark.parametrize(
    ("chunks", "encoding", "limit", "phrase"),
    [
        ([b"x" * 11], "", 10, "larger than 0 KiB"),
        ([gzip.compress(b"x" * 5000)], "gzip", 4096, "larger than 4 KiB"),
        ([b"not gzip"], "gzip", 100, "could not be decoded"),
        ([gzip.compress(b"hello")[:-4]], "gzip", 100, "could not be decoded"),
        ([b"x"], "br", 100, "an encoding this program does not read"),
        ([b"x"], "gzip, deflate", 100, "an encoding this program does not read"),
    ],
)
def test_a_body_that_cannot_be_used(chunks, encoding, limit, phrase):
    with pytest.raises(BadAnswer, match=phrase):
        read_body(chunks, encoding, limit)


@pytest.mark.parametrize(
    ("text", "depth"),
    [(b"1", 0), (b"[]", 1), (b'{"a": [[{}]]}', 4), (b'"[[[["', 0), (b'["\\"[", []]', 2)],
)
def test_nesting_depth(text, depth):
    assert nesting_depth(text) == depth


@pytest.mark.parametrize(
    ("body", "expected"),
    [(b"", None), (b"  ", None), (b'{"uuid": "u"}', {"uuid": "u"}), (b"[1, 2]", [1, 2])],
)
def test_parse_json(body, expected):
    assert parse_json(body) == expected


@pytest.mark.parametrize(
    ("body", "phrase"),
    [(b"[" * 65 + b"]" * 65, "nested more than 64 levels"), (b"{nope", "not JSON"), (b"\xff", "not JSON")],
)
def test_parse_json_refuses(body, phrase):
    with pytest.raises(BadAnswer, match=phrase):
        parse_json(body)


# ---- test_api.py
GOOD = "6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b"


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        ({"uuid": GOOD, "status": "waitingForApproval"}, Registered(GOOD, "waitingForApproval")),
        ({"uuid": GOOD, "status": "connected"}, Registered(GOOD, "connected")),
        ({"uuid": GOOD, "status": "sleeping"}, Registered(GOOD, "unknown", odd=("status",))),
        ({"uuid": GOOD}, Registered(GOOD, "unknown", odd=("status",))),
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


BODY = register_body({"name": "n", "url": "http://n.ilm.svc.cluster.local:8080", "auth_type": "none"})

SECRET = "s3cr3t-attribute-value"
LEAK = "ECHOED-IDENTITY-MATERIAL"


def props(platform_url: str, **extra: Any) -> dict[str, Any]:
    own = {"name": "X.509 Compliance Provider", "url": "http://x509.default.svc.cluster.local:8080", "auth_type": "basic"}
    schedule = {"retry_max_seconds": 0.04, "deadline_seconds": 1}
    return registration_props(
        platform_url, **{**own, **schedule, "auth_attributes": [{"name": "password", "content": SECRET}], **extra}
    )


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


def test_tls_verified_by_default(tmp_path):
    from components.registration.client import TlsSettings

    assert TlsSettings().verify() is True
    assert TlsSettings(ca_bundle=str(tmp_path / "ca.pem")).verify() == str(tmp_path / "ca.pem")
    assert TlsSettings(ca_bundle="x", insecure_skip_verify=True).verify() is False


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


# ---- the deadline and the waits a platform asks for
@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, None),
        ("", None),
        ("7", 7.0),
        (" 30 ", 30.0),
        ("soon", None),
        ("٣", None),
        ("9" * 70, None),
        ("Wed, 21 Oct 2015 07:28:10 GMT", 10.0),
        ("Wed, 21 Oct 2015 07:28:00 GMT", 0.0),
    ],
)
def test_retry_after(header, expected):
    now = 1445412480.0  # Wed, 21 Oct 2015 07:28:00 GMT
    assert retry_after(header, now) == expected


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(
    ("seconds", "elapsed", "timeout", "bound"),
    [
        (10, 0, None, 10),
        (10, 4, None, 6),
        (10, 4, 30, 6),
        (10, 4, 2, 2),
    ],
)
def test_a_wait_is_bound_by_the_time_left(seconds, elapsed, timeout, bound):
    clock = Clock()
    deadline = Deadline(seconds, clock)
    clock.now += elapsed
    assert deadline.bound(timeout) == bound
    assert deadline.remaining() == seconds - elapsed


@pytest.mark.parametrize(("elapsed", "sent"), [(10, True), (11, False)])
def test_no_time_left_is_expired_saying_whether_the_request_went_out(elapsed, sent):
    clock = Clock()
    deadline = Deadline(10, clock)
    clock.now += elapsed
    with pytest.raises(Expired) as caught:
        deadline.bound(5, sent=sent)
    assert caught.value.sent is sent
