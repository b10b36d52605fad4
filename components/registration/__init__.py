"""What talks to the platform (contract, settings, client, route, journal, provider, the
``Registration`` resource); it imports nothing else of ``components``, and patches nothing."""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    """``RegistrationProvider`` where state written before the package was split into modules finds it: the
    SDK pickles a provider by its class's module, then ``components.registration``."""
    if name == "RegistrationProvider":
        from components.registration.provider import RegistrationProvider

        return RegistrationProvider
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
