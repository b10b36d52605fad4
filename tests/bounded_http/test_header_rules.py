"""``bounded_http.header_rules``: the values a header can carry, loopback hosts."""

from __future__ import annotations

import pytest

from components.bounded_http.header_rules import header_value_problem, is_loopback


@pytest.mark.parametrize(
    ("value", "problem"),
    [("abc.DEF-123_~", False), ("a b", True), ("a\nb", True), ("é", True), ("", True), (None, True)],
)
def test_header_value_problem(value, problem):
    assert (header_value_problem(value) is not None) is problem


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("localhost", True),
        ("x.localhost", True),
        ("127.0.0.1", True),
        ("::1", True),
        ("127.1.2.3", True),
        ("10.0.0.1", False),
        ("core", False),
    ],
)
def test_is_loopback(host, expected):
    assert is_loopback(host) is expected
