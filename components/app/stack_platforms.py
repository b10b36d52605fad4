"""The platform of a stack a connector's registration names.

A connector's ``registration.platform`` names a platform of the same stack file: it registers
with that platform's core by its in-cluster address, once that core is ready (the program makes
the connector wait for the platform's component).
"""

from __future__ import annotations

from collections.abc import Sequence

from components.args.connector_spec import ConnectorArgs, ConnectorEntry
from components.args.platform_spec import PlatformEntry
from components.args.problems import InvalidArgumentsError
from components.platform_component import platform_api_endpoint

__all__ = ["platform_to_register_with", "with_platform_url"]


def platform_to_register_with(label: str, entry: ConnectorEntry, platforms: Sequence[PlatformEntry]) -> int | None:
    """The platform of the stack a connector's registration names (by name; the one in its own
    namespace first), or None when it names none; ``InvalidArgumentsError`` (``label``: how the
    program names the connector) when none or several fit."""
    registration = entry.spec.registration
    if registration is None or registration.platform is None:
        return None
    named = [i for i, p in enumerate(platforms) if p.name == registration.platform]
    here = [i for i in named if platforms[i].namespace == entry.namespace]
    if len(here) == 1 or len(named) == 1:
        return (here or named)[0]
    label = f"{label}: registration.platform"
    if not named:
        raise InvalidArgumentsError([f"{label}: no platform of this stack has that name"])
    where = ", ".join(sorted(platforms[i].namespace for i in named))
    raise InvalidArgumentsError([f"{label}: platforms of that name are in namespaces {where}, none in {entry.namespace}"])


def with_platform_url(args: ConnectorArgs, platform: PlatformEntry) -> ConnectorArgs:
    """``args`` registering with ``platform``'s core, by its in-cluster API address."""
    assert args.registration is not None
    url = platform_api_endpoint(platform.namespace)
    return args.model_copy(update={"registration": args.registration.model_copy(update={"platform_url": url})})
