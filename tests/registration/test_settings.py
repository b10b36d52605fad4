"""``registration.settings``: the waits between attempts, the waits a platform asks for, and the
one deadline: the time left cut into every wait, ``Expired`` once none is left."""

from __future__ import annotations

import pytest

from components.registration.settings import DEFAULT, Deadline, Expired, RetryPolicy, retry_after


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        (RetryPolicy(1, 4, 10), [1, 2, 4]),
        (RetryPolicy(1, 2, 10), [1, 2, 2, 2, 2]),
        (RetryPolicy(5, 300, 4), []),
        (RetryPolicy(5, 300, 600), [5, 10, 20, 40, 80, 160]),
        (RetryPolicy(5, 300, 1000), [5, 10, 20, 40, 80, 160, 300, 300]),
    ],
)
def test_delays_double_to_the_ceiling_within_the_deadline(policy, expected):
    assert policy.delays() == expected


def test_the_registrations_defaults():
    assert (DEFAULT.initial_seconds, DEFAULT.max_seconds, DEFAULT.deadline_seconds) == (5, 300, 600)


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
