"""``bounded_http.failures``: the fixed phrases of the client's messages."""

from __future__ import annotations

import pytest

from components.bounded_http.failures import RequestError, gave_up, no_answer


@pytest.mark.parametrize(
    ("what", "seconds", "hint", "expected"),
    [
        ("registration", 600, "", "registration failed: no complete answer within 600 s"),
        ("listing connectors", 0.5, "; x", "listing connectors failed: no complete answer within 0.5 s; x"),
    ],
)
def test_no_answer(what, seconds, hint, expected):
    assert no_answer(what, seconds, hint) == expected


@pytest.mark.parametrize(
    ("reason", "attempts", "expected"),
    [
        ("status 503", 4, "registration failed with status 503 after 4 attempts within the 600 s deadline"),
        (
            "the platform could not be reached",
            2,
            "registration failed (the platform could not be reached) after 2 attempts within the 600 s deadline",
        ),
    ],
)
def test_gave_up(reason, attempts, expected):
    assert gave_up("registration", reason, attempts, 600) == expected


def test_the_error_keeps_a_status():
    assert RequestError("x", 404).status == 404 and RequestError("x").status is None
