"""The platform as a trust boundary: a server on 127.0.0.1 answering badly on purpose
(``hostile_platform``), one test per way. No answer redirects an administrator's call, hangs
the run past its deadline, fills memory, ends in a traceback or a fragment of the answer, or
loses a record the platform holds. httpx and httpcore log at DEBUG throughout; no credential
ever appears in those logs (``conftest.debug_logs``). Credentials and TLS:
``test_hostile_credentials.py``."""

from __future__ import annotations

import gzip
import json
import socket
import threading
import tracemalloc
import uuid as uuids
from typing import Any

import pytest

from components.app.program import parse_connectors
from components.registration.provider import RegistrationProvider

from ..support.hostile_cases import BAD_UUIDS, FRAGMENT, GOOD_UUID, fails, props, registered
from ..support.hostile_platform import answer, black_hole, drip, hostile_platform, json_answer, reset, sequence


@pytest.mark.parametrize("bad", BAD_UUIDS)
def test_a_bad_uuid_in_the_register_answer_is_never_used_and_says_how_to_adopt(bad):
    with hostile_platform(json_answer(200, json.dumps({"uuid": bad, "status": "waitingForApproval"}))) as platform:
        message, _ = fails(RegistrationProvider().create, props(platform.url, admin=True, approve=True))
    assert [r.path for r in platform.requests] == ["/api/v2/connector/register"]
    assert "is not a UUID" in message and "registration.uuid" in message and "may hold a record" in message
    assert bad not in message or not bad


@pytest.mark.parametrize("bad", BAD_UUIDS[:4])
def test_a_bad_uuid_in_a_list_answer_is_never_used(bad):
    page = json.dumps({"items": [{"uuid": bad, "name": "X.509", "url": "u", "version": "v2"}], "totalPages": 1})
    with hostile_platform(sequence(answer(409), json_answer(200, page))) as platform:
        message, _ = fails(RegistrationProvider().create, props(platform.url, admin=True))
    assert [r.path for r in platform.requests] == ["/api/v2/connector/register", "/api/v2/connectors/list"]
    assert "a uuid in the platform's list answer is not a UUID" in message


@pytest.mark.parametrize("bad", ["../../v1/connectors/victim", "a/b?c", "x\r\ny"])
def test_a_bad_uuid_in_state_makes_no_request(bad):
    provider = RegistrationProvider()
    with hostile_platform(answer(204)) as platform:
        state = props(platform.url, admin=True, deregister_on_destroy=True, approve=True, status="waitingForApproval")
        for operation, arguments in (
            (provider.delete, (bad, state)),
            (provider.read, (bad, state)),
            (provider.update, (bad, state, {**state, "url": "http://other:8080"})),
        ):
            message, _ = fails(operation, *arguments)
            assert "the uuid in the stack's state is not a UUID" in message
    assert platform.requests == []


@pytest.mark.parametrize("bad", [b for b in BAD_UUIDS if b])
def test_a_bad_uuid_in_config_is_refused_at_preview_and_by_the_provider(bad):
    entry = {"name": "c", "namespace": "ilm", "spec": {"image": {"repository": "r", "tag": "1"}}}
    entry["spec"]["registration"] = {"platformUrl": "https://p/api", "name": "n", "authType": "none", "uuid": bad}
    with pytest.raises(Exception, match=r"registration\.uuid: must be a UUID") as caught:
        parse_connectors([entry])
    assert bad not in str(caught.value)
    with hostile_platform(answer(200)) as platform:
        message, _ = fails(RegistrationProvider().create, props(platform.url, adopt_uuid=bad))
    assert "uuid must be a UUID" in message and bad not in message and platform.requests == []


@pytest.mark.parametrize(
    "behaviour",
    [
        drip(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n{"),
        drip(b"HTTP/1.1 200 OK\r\n", byte=b"X"),
        black_hole,
    ],
    ids=["body-drips", "headers-drip", "black-hole"],
)
def test_one_deadline_bounds_the_whole_operation(behaviour):
    with hostile_platform(behaviour) as platform:
        message, took = fails(RegistrationProvider().create, props(platform.url, deadline=1.5))
    assert "no complete answer within 1.5 s" in message
    assert "may have registered the connector" in message and "registration.adminCredentials" in message
    assert took < 4.5, took
    assert len(platform.requests) == 1


def test_a_name_lookup_that_never_ends_is_bounded_by_the_deadline(monkeypatch):
    """The system's resolver can wait many seconds on a silent name server; the deadline holds."""
    released = threading.Event()
    real = socket.getaddrinfo

    def silent_name_server(host: str, *args: Any, **kwargs: Any) -> Any:
        if host == "platform.example":
            released.wait(30)
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", silent_name_server)
    try:
        message, took = fails(RegistrationProvider().create, props("https://platform.example/api", deadline=1))
    finally:
        released.set()
    assert "no complete answer within 1 s" in message and "may have registered" not in message
    assert took < 3, took


def test_a_huge_answer_is_refused_unread():
    body = b'{"uuid": "' + b"x" * (50 * 1024 * 1024) + b'"}'
    with hostile_platform(answer(200, body)) as platform:
        message, _ = fails(RegistrationProvider().create, props(platform.url))
    assert "larger than 1024 KiB" in message


def test_a_compressed_bomb_is_refused_without_inflating_it():
    bomb = gzip.compress(b"0" * (64 * 1024 * 1024), compresslevel=9)
    assert len(bomb) < 100_000
    with hostile_platform(answer(200, bomb, Content_Encoding="gzip")) as platform:
        tracemalloc.start()
        message, _ = fails(RegistrationProvider().create, props(platform.url))
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert "larger than 1024 KiB" in message
    assert peak < 16 * 1024 * 1024, peak


@pytest.mark.parametrize(
    ("body", "headers", "phrase"),
    [
        ("[" * 100_000 + "]" * 100_000, {}, "nested more than 64 levels"),
        (FRAGMENT, {"Content_Encoding": "gzip"}, "could not be decoded"),
        (f"not json {FRAGMENT}", {}, "was not JSON"),
        ("{}", {"Content_Encoding": "br"}, "encoding this program does not read"),
    ],
    ids=["nested", "broken-gzip", "not-json", "unknown-encoding"],
)
def test_odd_answers_end_in_the_projects_error(body, headers, phrase):
    with hostile_platform(answer(200, body.encode(), **headers)) as platform:
        message, _ = fails(RegistrationProvider().create, props(platform.url))
    assert phrase in message and message.startswith("registration failed")


@pytest.mark.parametrize("pages", ['"x"', '"1e9"', "true", "-1", f'"{FRAGMENT}"'])
def test_a_page_count_that_is_no_number_is_refused_without_quoting_it(pages):
    page = '{"items": [], "totalPages": ' + pages + "}"
    with hostile_platform(sequence(answer(409), json_answer(200, page))) as platform:
        message, _ = fails(RegistrationProvider().create, props(platform.url, admin=True))
    assert "the platform's answer was not a page of connectors" in message


def test_endless_paging_stops_when_a_page_adds_nothing():
    page = json.dumps({"items": [{"uuid": GOOD_UUID, "name": "other", "url": "u", "version": "v2"}], "totalPages": 10**9})
    with hostile_platform(sequence(answer(409), json_answer(200, page))) as platform:
        message, _ = fails(RegistrationProvider().create, props(platform.url, admin=True))
    assert [r.path for r in platform.requests].count("/api/v2/connectors/list") == 2
    assert "status 409" in message


def test_paging_stops_at_its_page_limit(monkeypatch):
    """A platform that always has one more page of new records: the listing ends at the limit."""
    from components.registration import platform_api

    monkeypatch.setattr(platform_api, "MAX_PAGES", 5)

    def ever_more(request: Any, conn: Any, stop: Any) -> None:
        if request.path.endswith("/register"):
            return answer(409)(request, conn, stop)
        item = {"uuid": str(uuids.uuid4()), "name": "other", "url": "u", "version": "v2"}
        json_answer(200, json.dumps({"items": [item], "totalPages": 10**9}))(request, conn, stop)

    with hostile_platform(ever_more) as platform:
        message, _ = fails(RegistrationProvider().create, props(platform.url, admin=True))
    assert "listing connectors stopped after 5 pages without reaching the last" in message
    assert [r.path for r in platform.requests].count("/api/v2/connectors/list") == 5


def test_an_unknown_status_with_a_valid_uuid_keeps_the_record(capfd):
    with hostile_platform(json_answer(200, registered(GOOD_UUID, "sparkling").decode())) as platform:
        result = RegistrationProvider().create(props(platform.url))
    assert result.id == GOOD_UUID and result.outs["status"] == "unknown"
    warning = capfd.readouterr().err
    assert 'connector "x509"' in warning and "status" in warning and "sparkling" not in warning
    assert "X.509" not in warning


def test_retry_after_is_honoured_within_the_deadline_and_never_beyond():
    waits: list[float] = []
    from components.bounded_http.destination import direct
    from components.bounded_http.settings import RetryPolicy
    from components.registration.platform_api import PlatformApi

    body = registered(GOOD_UUID).decode()
    with hostile_platform(sequence(answer(429, Retry_After="1"), answer(503, Retry_After="2"), json_answer(200, body))) as p:
        result = PlatformApi(direct(p.url), RetryPolicy(0.05, 0.1, 10), sleep=waits.append).register({"name": "n"})
    assert result.uuid == GOOD_UUID and waits == [1.0, 2.0]
    waits.clear()
    with hostile_platform(answer(503, Retry_After="3600")) as p:
        message, took = fails(PlatformApi(direct(p.url), RetryPolicy(0.05, 0.1, 2), sleep=waits.append).register, {"name": "n"})
    assert waits == [] and "status 503 after 1 attempts" in message and took < 1


def test_a_redirect_is_never_followed():
    with hostile_platform(answer(200)) as elsewhere:
        target = elsewhere.url + "/v2/connectors/list"
        with hostile_platform(answer(307, Location=target)) as platform:
            message, _ = fails(RegistrationProvider().create, props(platform.url, admin=True))
    assert "status 307" in message and elsewhere.requests == []


def test_409_after_an_unanswered_attempt_says_the_first_one_may_have_registered():
    with hostile_platform(sequence(reset, answer(409))) as platform:
        message, _ = fails(RegistrationProvider().create, props(platform.url, deadline=3))
    assert len(platform.requests) == 2
    assert "status 409" in message and "an earlier attempt of this run got no answer and may have registered it" in message


def test_a_reset_then_an_answer_recovers():
    with hostile_platform(sequence(reset, json_answer(200, registered(str(uuids.uuid4())).decode()))) as platform:
        result = RegistrationProvider().create(props(platform.url, deadline=3))
    assert len(platform.requests) == 2 and result.outs["status"] == "waitingForApproval"


def test_a_retry_after_that_is_no_number_is_ignored():
    body = registered(GOOD_UUID)
    odd = b"HTTP/1.1 503 X\r\nContent-Length: 0\r\nRetry-After: \xb2\r\nConnection: close\r\n\r\n"

    def superscript(_request, conn, _stop):
        conn.sendall(odd)

    with hostile_platform(sequence(superscript, answer(200, body))) as platform:
        result = RegistrationProvider().create(props(platform.url))
    assert result.id == GOOD_UUID and len(platform.requests) == 2


def test_one_deadline_bounds_a_whole_operation_of_many_calls():
    """A 409, then list pages that each take a while and always add a record: the listing
    ends with the create's one deadline, not one deadline per page."""
    counter = iter(range(10_000))

    def slow_page(_request, conn, stop):
        stop.wait(0.4)
        item = {"uuid": str(uuids.UUID(int=next(counter))), "name": "other", "url": "u", "version": "v2"}
        conn.sendall(b"HTTP/1.1 200 X\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: ")
        page = json.dumps({"items": [item], "totalPages": 100}).encode()
        conn.sendall(f"{len(page)}\r\n\r\n".encode() + page)

    with hostile_platform(sequence(answer(409), slow_page)) as platform:
        message, took = fails(RegistrationProvider().create, props(platform.url, deadline=2, admin=True))
    assert took < 4, took
    assert len(platform.requests) < 10 and "within" in message
