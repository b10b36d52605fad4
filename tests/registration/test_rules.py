"""``registration.rules``: identifiers, administrator credentials over http, every input's problems."""

from __future__ import annotations

import pytest

from components.registration.rules import IdentifierError, admin_over_http_problem, checked_uuid, is_uuid, problems, segment

# ---- test_rules.py
GOOD = "6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b"


# ---- test_input_checks.py
ATTRIBUTES = (
    "must be a list of {name, content} attributes, each content a value or an object (the operator's form: sent as "
    "one content item's data), or a list of content items, each an object with data (the platform's form)"
)


BASE = {"platform_url": "https://p.example/api", "name": "n", "url": "http://c:8080", "auth_type": "none"}


OVER_HTTP = (
    "would travel in clear over http://; use an https:// platformUrl, or set registration.sendAdminCredentialsOverHttp: "
    "true where the network itself is trusted (a mesh with mTLS)"
)


IN_CLUSTER_ONLY = "must be an in-cluster Service address (<service>.<namespace>.svc...) for route apiServerProxy"


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
    ("given", "expected"),
    [
        ({}, []),
        ({"platform_url": None}, [("platformUrl", "is required")]),
        ({"platform_url": "ftp://x"}, [("platformUrl", "must be an http:// or https:// URL")]),
        ({"auth_type": "password"}, [("authType", "must be one of none, basic, certificate, apiKey, jwt")]),
        ({"approve": "yes"}, [("approve", "must be true or false")]),
        ({"deadline_seconds": 0}, [("deadlineSeconds", "must be a number of seconds above 0 and at most 86400")]),
        ({"deadline_seconds": True}, [("deadlineSeconds", "must be a number of seconds above 0 and at most 86400")]),
        ({"adopt_uuid": "x"}, [("uuid", "must be a UUID (8-4-4-4-12 hexadecimal digits)")]),
        ({"custom_attributes": [{"content": 1}]}, [("customAttributes", ATTRIBUTES)]),
        ({"custom_attributes": [{"name": "d", "content": ["x"]}]}, [("customAttributes", ATTRIBUTES)]),
        ({"auth_attributes": [{"name": "p", "content": [{"reference": "r"}]}]}, [("authAttributes", ATTRIBUTES)]),
        ({"custom_attributes": [{"name": "d", "content": "x"}, {"name": "e", "content": [{"data": 1}]}]}, []),
        ({"admin_credentials": {"bearerToken": "t"}}, []),
        ({"admin_credentials": {"clientCertificate": "c", "clientKey": "k"}}, []),
        (
            {"admin_credentials": {"clientCertificate": "c"}},
            [("adminCredentials", "must be a map of bearerToken, or of clientCertificate and clientKey, as strings")],
        ),
        (
            {"admin_credentials": {"bearerToken": "a b"}},
            [
                (
                    "adminCredentials",
                    "bearerToken must be printable ASCII without spaces or line breaks (a value an HTTP header can carry)",
                )
            ],
        ),
        ({"name": 7}, [("name", "must be a string")]),
        ({"admin_credentials": {"bearerToken": "t"}, "platform_url": "http://p.example/api"}, [("adminCredentials", OVER_HTTP)]),
        ({"route": "apiServerProxy", "platform_url": "http://core.ilm.svc.cluster.local:8080/api"}, []),
        ({"route": "apiServerProxy"}, [("platformUrl", IN_CLUSTER_ONLY)]),
    ],
)
def test_problems(given, expected):
    assert problems({**BASE, **given}) == expected


def test_an_unknown_value_is_not_checked_yet():
    unknown = object()
    assert problems({**BASE, "name": unknown, "approve": unknown}, lambda v: v is unknown) == []
    later = {"platform_url": unknown, "admin_credentials": {"bearerToken": "t"}, "route": "apiServerProxy"}
    assert problems({**BASE, **later}, lambda v: v is unknown) == []
