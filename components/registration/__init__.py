"""A connector's registration with the platform: the ``Registration`` resource, its provider, its journal.
Imports the bounded HTTP client and the cluster's credentials (``kube.kube_access``), and patches nothing."""

from __future__ import annotations

from typing import Any

__all__ = ["contract", "errors", "journal", "resource", "route"]
"""The modules a program (the main command, a test) may use; each declares its public names."""


def __getattr__(name: str) -> Any:
    """``RegistrationProvider`` where state written before the package was split into modules finds it: the
    SDK pickles a provider by its class's module, then ``components.registration``."""
    if name == "RegistrationProvider":
        from components.registration.provider import RegistrationProvider

        return RegistrationProvider
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
