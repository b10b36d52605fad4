"""The type tokens of the package's resources (``pkg:module:Type``), for every module that names them."""

from __future__ import annotations

__all__ = ["COMPONENTS", "CONNECTOR", "PACKAGE", "PROXY", "REGISTRATION"]

PACKAGE = "connectors"
CONNECTOR = f"{PACKAGE}:index:Connector"
PROXY = f"{PACKAGE}:index:Proxy"
REGISTRATION = f"{PACKAGE}:index:Registration"
"""The component package's own registration resource (the Python program's is a dynamic resource:
``registration.resource.TYPE_TOKEN``)."""
COMPONENTS = {CONNECTOR: "connector", PROXY: "proxy"}
"""Each component's type, and how a person calls it."""
