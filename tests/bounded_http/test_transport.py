"""``bounded_http.transport``: one deadline across every wait of a request."""

from __future__ import annotations

import ssl

import httpx
import pytest

from components.bounded_http.transport import Deadline, DeadlineTransport, Expired, resolve

from ..support.hostile_platform import black_hole, hostile_platform, json_answer


def client(deadline: Deadline) -> httpx.Client:
    return httpx.Client(transport=DeadlineTransport(deadline, ssl.create_default_context(), None), trust_env=False)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_resolve_within_the_deadline():
    assert "127.0.0.1" in resolve("localhost", 80, Deadline(10))


def test_resolve_with_no_time_left_is_expired_before_sending():
    with pytest.raises(Expired) as caught:
        resolve("localhost", 80, Deadline(-1))
    assert caught.value.sent is False


def test_an_answer_through_the_transport():
    with hostile_platform(json_answer(200, '{"ok": true}')) as platform, client(Deadline(10)) as http:
        response = http.get(f"{platform.url}/x")
    assert (response.status_code, response.json()) == (200, {"ok": True})


def test_an_answer_that_never_comes_ends_at_the_deadline():
    """The deadline here must be lost: a black hole never answers, whatever the machine's load."""
    with hostile_platform(black_hole) as platform, client(Deadline(0.5)) as http, pytest.raises(Expired) as caught:
        http.get(f"{platform.url}/x")
    assert caught.value.sent is True


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
