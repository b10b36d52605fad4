"""The component package: the connector, the proxy and the registration served to any Pulumi
language (``schema`` from the models, ``provider`` over Pulumi's protocol); glue, it imports any package of ``components``."""

from components.type_tokens import PACKAGE

__all__ = ["PACKAGE", "VERSION"]
VERSION = "0.1.0"
"""The package's version: the project's (pyproject.toml; a test keeps them equal)."""
