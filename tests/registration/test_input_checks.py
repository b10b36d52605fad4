"""``registration.input_checks``: the provider's inputs against their table, never a value in a message."""

from __future__ import annotations

import pytest

from components.registration.input_checks import problems

ATTRIBUTES = (
    "must be a list of {name, content} attributes, each content a value or an object (the operator's form: sent as "
    "one content item's data), or a list of content items, each an object with data (the platform's form)"
)
BASE = {"platform_url": "https://p.example/api", "name": "n", "url": "http://c:8080", "auth_type": "none"}


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
    ],
)
def test_problems(given, expected):
    assert problems({**BASE, **given}) == expected


def test_an_unknown_value_is_not_checked_yet():
    unknown = object()
    assert problems({**BASE, "name": unknown, "approve": unknown}, lambda v: v is unknown) == []
