"""``registration.deadline``: the time left cut into every wait, ``Expired`` once none is left."""

from __future__ import annotations

import pytest

from components.registration.deadline import Deadline, Expired


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
