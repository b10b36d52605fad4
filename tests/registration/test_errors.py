"""``registration.errors``: the registration's error and where its warnings go."""

from __future__ import annotations

from components.bounded_http.failures import RequestError
from components.registration.errors import WARNINGS, RegistrationError, warn


def test_a_registration_error_is_a_request_error_with_its_status():
    error = RegistrationError("registration failed with status 409", 409)
    assert isinstance(error, RequestError) and error.status == 409


def test_warnings_go_where_the_operation_sends_them(capsys):
    sent: list[str] = []
    token = WARNINGS.set(sent.append)
    try:
        warn("the platform kept the record")
    finally:
        WARNINGS.reset(token)
    warn("printed")
    assert sent == ["the platform kept the record"]
    assert capsys.readouterr().err == "warning: printed\n"
