"""Connectors on Kubernetes as a Pulumi component library.

The public names load on first use: the registration's provider process imports
``components.registration`` alone, and must not pay for the models and the renderer (about a
second, on the path from a Ready Deployment to its registration)."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .args import ConnectorArgs, ConnectorEntry, ConnectorSpec
    from .component import ConnectorComponent, validate_args
    from .errors import InvalidArgumentsError

_WHERE = {
    "ConnectorArgs": ".args",
    "ConnectorEntry": ".args",
    "ConnectorSpec": ".args",
    "ConnectorComponent": ".component",
    "validate_args": ".component",
    "InvalidArgumentsError": ".errors",
}

__all__ = [
    "ConnectorArgs",
    "ConnectorComponent",
    "ConnectorEntry",
    "ConnectorSpec",
    "InvalidArgumentsError",
    "validate_args",
]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(_WHERE[name], __name__), name)
