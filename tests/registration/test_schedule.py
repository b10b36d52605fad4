"""``registration.schedule``: the waits between attempts, and the waits a platform asks for."""

from __future__ import annotations

import pytest

from components.registration.schedule import DEFAULT, RetryPolicy, retry_after


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
