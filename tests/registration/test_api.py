"""``registration.api``: the bodies sent, and the answers' records checked before use."""

from __future__ import annotations

import pytest

from components.registration.api import ConnectorRecord, Registered, _page, edit_body, registered, request_body
from components.registration.errors import RegistrationError
from components.registration.rules import IdentifierError

GOOD = "6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b"


def test_request_body():
    assert request_body("n", "v1", "http://c", "none", None, [{"name": "a", "content": [{"data": "x"}]}]) == {
        "name": "n",
        "version": "v1",
        "url": "http://c",
        "authType": "none",
        "authAttributes": [],
        "customAttributes": [{"name": "a", "content": [{"data": "x"}]}],
    }
    assert set(edit_body("http://c", "none", [], [])) == {"url", "authType", "authAttributes", "customAttributes"}


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        ({"uuid": GOOD, "status": "waitingForApproval"}, Registered(GOOD, "waitingForApproval")),
        ({"uuid": GOOD, "status": "connected"}, Registered(GOOD, "connected")),
        ({"uuid": GOOD, "status": "sleeping"}, Registered(GOOD, "unknown", odd=("status",))),
        ({"uuid": GOOD}, Registered(GOOD, "unknown", odd=("status",))),
    ],
)
def test_registered_keeps_any_valid_uuid(payload, expected):
    assert registered(payload) == expected


@pytest.mark.parametrize(
    ("payload", "error", "phrase"),
    [
        (None, RegistrationError, "answered without a uuid"),
        ({"status": "connected"}, RegistrationError, "answered without a uuid"),
        ({"uuid": "../x"}, IdentifierError, "may hold a record for this connector now"),
    ],
)
def test_registered_refuses(payload, error, phrase):
    with pytest.raises(error, match=phrase):
        registered(payload)


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        (
            {"uuid": GOOD, "name": "n", "url": "u", "version": "v2", "status": "offline"},
            ConnectorRecord(GOOD, "n", "u", "v2", "offline"),
        ),
        ({"uuid": GOOD, "name": 7, "status": "odd"}, ConnectorRecord(GOOD, "", "", "", "unknown")),
    ],
)
def test_a_record_of_the_answer(payload, expected):
    assert ConnectorRecord.of(payload, "the uuid in the answer") == expected


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        ({"items": [1], "totalPages": 3}, ([1], 3)),
        ({"items": None}, ([], 1)),
        ({}, ([], 1)),
    ],
)
def test_a_page(payload, expected):
    assert _page(payload) == expected


@pytest.mark.parametrize("payload", [[], {"items": "x"}, {"totalPages": "2"}, {"totalPages": True}, {"totalPages": -1}])
def test_a_page_of_another_shape_is_refused(payload):
    with pytest.raises(RegistrationError, match="not a page of connectors"):
        _page(payload)
