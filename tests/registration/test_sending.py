"""``registration.sending``: each answer sorted (taken, passed through, refused, retried), the
schedule kept with the test's own sleep, and the deadline ending the attempts."""

from __future__ import annotations

import pytest

from components.registration.destination import Destination
from components.registration.errors import RegistrationError
from components.registration.sending import Operation, Sender
from components.registration.settings import RetryPolicy

from ..support.hostile_platform import answer, hostile_platform, json_answer, reset, sequence

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
