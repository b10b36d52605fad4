"""``bounded_http.sender``: sending with retries, answers read within bounds."""

from __future__ import annotations

import gzip
import zlib

import pytest

from components.bounded_http.destination import Destination
from components.bounded_http.failures import RequestError
from components.bounded_http.sender import BadAnswer, Operation, Sender, nesting_depth, parse_json, read_body, retry_after
from components.bounded_http.settings import RetryPolicy

from ..support.hostile_platform import answer, hostile_platform, json_answer, reset, sequence

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
    with hostile_platform(sequence(*behaviours)) as platform, pytest.raises(RequestError) as caught:
        send(platform.url, Operation("GET", "/x", what="reading"), RetryPolicy(1, 2, 3))
    assert str(caught.value) == message
    assert "leak" not in str(caught.value)


def test_a_cancel_while_waiting_is_a_message():
    def interrupted(_seconds: float) -> None:
        raise KeyboardInterrupt

    with hostile_platform(answer(503)) as platform, pytest.raises(RequestError, match="cancelled while waiting to retry"):
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
