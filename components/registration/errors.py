"""The registration's one error type and its warnings. A failed call to the platform (the HTTP
client's ``RequestError``) reaches the provider as a ``RegistrationError`` with the same message."""

from __future__ import annotations

import contextvars
import sys
from collections.abc import Callable

from components.bounded_http.failures import RequestError

__all__ = ["RegistrationError"]


class RegistrationError(RequestError):
    """A failed call to the platform, or a setting that cannot work; its message holds a status
    code or a fixed phrase, never a value from config or from the platform's answer."""


WARNINGS: contextvars.ContextVar[Callable[[str], None] | None] = contextvars.ContextVar("connectors_warnings", default=None)
"""Where the operation being served sends its warnings: the component package's provider sends
them to the engine under the resource's URN (the engine hides a resource plugin's stderr); a
dynamic provider's stderr is shown, so by default they are printed there."""


def warn(message: str) -> None:
    """A warning the engine shows with the run's diagnostics (same rules as an error's message)."""
    send = WARNINGS.get()
    if send is not None:
        send(message)
    else:
        print(f"warning: {message}", file=sys.stderr, flush=True)
