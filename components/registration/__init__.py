"""What talks to the platform: the route, cluster access, the HTTP transport, the platform's API
as one client, and the ``Registration`` dynamic resource; it imports nothing else of ``components``.

Importing it patches nothing and loads neither pydantic nor the renderer: the registrations'
provider process loads this wing alone."""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    """``RegistrationProvider`` where state written before the wing had its rooms finds it: the
    SDK pickles a provider by its class's module, then ``components.registration``."""
    if name == "RegistrationProvider":
        from .provider import RegistrationProvider

        return RegistrationProvider
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
