"""``bounded_http.settings``: the defaults, and the waits between attempts they make."""

from __future__ import annotations

import pytest

from components.bounded_http.settings import DEFAULT, RetryPolicy


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
