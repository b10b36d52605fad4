"""``registration.rules``: identifiers, header values and administrator credentials over http;
attributes in the operator's form and the platform's, and what the platform reads."""

from __future__ import annotations

import pytest

from components.registration.rules import (
    CONTENT_RULE,
    IdentifierError,
    admin_over_http_problem,
    checked_uuid,
    content_problem,
    header_value_problem,
    is_loopback,
    is_uuid,
    platform_attributes,
    platform_content,
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


@pytest.mark.parametrize(
    ("content", "sent"),
    [
        ("X.509 certificate compliance provider", [{"data": "X.509 certificate compliance provider"}]),
        (42, [{"data": 42}]),
        (False, [{"data": False}]),
        ({"maxItems": 3}, [{"data": {"maxItems": 3}}]),
        ({"data": "x", "reference": "X"}, [{"data": "x", "reference": "X"}]),
        ([{"data": "a"}, {"data": {"b": 1}, "reference": "B"}], [{"data": "a"}, {"data": {"b": 1}, "reference": "B"}]),
        ([], []),
        (None, []),
    ],
)
def test_what_the_platform_reads(content, sent):
    assert content_problem(content) is None
    assert platform_content(content) == sent


@pytest.mark.parametrize("content", [["a"], [{"reference": "r"}], [{"data": 1}, 2], ({"x"},)])
def test_anything_else_is_refused(content):
    assert content_problem(content) == CONTENT_RULE


def test_attributes_keep_their_names_and_order():
    given = [{"name": "description", "content": "d"}, {"name": "connectorType", "content": [{"data": "c"}]}]
    assert platform_attributes(given) == [
        {"name": "description", "content": [{"data": "d"}]},
        {"name": "connectorType", "content": [{"data": "c"}]},
    ]
    assert platform_attributes(None) == []
