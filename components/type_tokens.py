"""The type tokens of the package's resources (``pkg:module:Type``), for every module that names them."""

from __future__ import annotations

__all__ = [
    "COMPONENTS",
    "CONNECTOR",
    "DYNAMIC_REGISTRATION",
    "LEGACY_DYNAMIC_REGISTRATION",
    "PACKAGE",
    "PLATFORM",
    "PROXY",
    "REGISTRATION",
    "dynamic_type_token",
]

PACKAGE = "connectors"
CONNECTOR = f"{PACKAGE}:index:Connector"
PROXY = f"{PACKAGE}:index:Proxy"
PLATFORM = f"{PACKAGE}:index:Platform"
REGISTRATION = f"{PACKAGE}:index:Registration"
"""The component package's own registration resource (the Python program's is a dynamic resource:
``DYNAMIC_REGISTRATION``)."""


def dynamic_type_token(module: str, name: str) -> str:
    """The type the SDK gives a ``pulumi.dynamic.Resource`` subclass of this module and name."""
    return f"pulumi-python:dynamic{'/' + module if module else ''}:{name}"


DYNAMIC_REGISTRATION = dynamic_type_token(PACKAGE, "Registration")
"""The Python program's ``Registration`` (a dynamic resource of module ``PACKAGE``)."""
LEGACY_DYNAMIC_REGISTRATION = dynamic_type_token("", "Resource")
"""The shared type every dynamic resource had before: registrations created under it are aliased."""
COMPONENTS = {CONNECTOR: "connector", PROXY: "proxy", PLATFORM: "platform"}
"""Each component's type, and how a person calls it."""
