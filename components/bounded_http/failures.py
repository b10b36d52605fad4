"""The HTTP client's one error type and the fixed phrases its messages are made of: a status
code or a fixed phrase, never a value from the caller's settings or from an answer."""

from __future__ import annotations

__all__ = ["NoAnswer", "RequestError", "TlsRefused"]

TRANSPORT_FAILURE = "the platform could not be reached"
TLS_FAILURE = "TLS verification failed (check registration.caBundle, or the platform's certificate and host name)"


def certificate_refused(alert: str) -> str:
    """The platform's gateway refused the client certificate, with this TLS alert."""
    return (
        f"the platform refused the client certificate (TLS alert {alert}): check that "
        "registration.adminCredentials holds a certificate the platform's gateway trusts, unexpired, with its key"
    )


class RequestError(Exception):
    """A failed call, or a setting that cannot work; its message holds a status code or a fixed
    phrase, never a value from config or from the answer."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class TlsRefused(RequestError):
    """The TLS handshake failed verification (``TLS_FAILURE``)."""


class NoAnswer(RequestError):
    """The deadline passed before any attempt got a complete answer."""


def no_answer(what: str, deadline_seconds: float, hint: str = "") -> str:
    """The deadline passed before any attempt got a complete answer."""
    return f"{what} failed: no complete answer within {deadline_seconds:g} s{hint}"


def gave_up(what: str, reason: str, attempts: int, deadline_seconds: float, hint: str = "") -> str:
    """Attempts failed (``reason``: a status, or a fixed phrase) until the schedule ran out."""
    detail = f"with {reason}" if reason.startswith("status") else f"({reason})"
    return f"{what} failed {detail} after {attempts} attempts within the {deadline_seconds:g} s deadline{hint}"
