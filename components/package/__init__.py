"""The component package: the connector and the proxy served to any Pulumi language.

``schema`` generates the package schema from the argument models; ``provider`` serves the two
components over Pulumi's provider protocol (``python -m components.package``, which the
executable plugin ``scripts/install-tools`` installs runs, or ``PulumiPlugin.yaml`` here for
``pulumi package add``).
"""

PACKAGE = "connectors"
VERSION = "0.1.0"
"""The package's version: the project's (pyproject.toml; a test keeps them equal)."""
