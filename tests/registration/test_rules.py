"""``registration.rules``: identifiers, header values and administrator credentials over http."""

from __future__ import annotations

import pytest

from components.registration.rules import (
    IdentifierError,
    admin_over_http_problem,
    checked_uuid,
    header_value_problem,
    is_loopback,
    is_uuid,
    segment,
)

GOOD = "6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b"


@pytest.mark.parametrize(
    ("value", "expected"),
    [(GOOD, True), (GOOD.upper(), True), (f"{GOOD}\n", False), ("../x", False), (None, False), (7, False), ("", False)],
)
def test_is_uuid(value, expected):
    assert is_uuid(value) is expected


@pytest.mark.parametrize("bad", ["../../admin", f"{GOOD}/x", "x\r\ny"])
def test_a_bad_uuid_names_its_source_never_the_value(bad):
    with pytest.raises(IdentifierError) as caught:
        checked_uuid(bad, "the uuid in the stack's state")
    assert str(caught.value) == (
        "the uuid in the stack's state is not a UUID (8-4-4-4-12 hexadecimal digits); no request was made with it"
    )
    with pytest.raises(IdentifierError):
        segment(bad)


def test_a_segment_is_the_uuid():
    assert segment(GOOD) == GOOD


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


@pytest.mark.parametrize(
    ("url", "allowed", "refused"),
    [
        ("https://core.example/api", False, False),
        ("http://127.0.0.1:8080/api", False, False),
        ("http://core.ilm.svc:8080/api", False, True),
        ("http://core.ilm.svc:8080/api", True, False),
    ],
)
def test_admin_over_http(url, allowed, refused):
    problem = admin_over_http_problem(url, allowed)
    assert (problem is not None) is refused
    if refused:
        assert "sendAdminCredentialsOverHttp" in problem
