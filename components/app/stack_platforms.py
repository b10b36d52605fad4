"""The platforms of a stack: one per namespace, and the one a connector's registration names.

A connector's ``registration.platform`` names a platform of the same stack file: it registers
with that platform's core by its in-cluster address, once that core is ready (the program makes
the connector wait for the platform's component).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from components.args.connector_spec import ConnectorArgs, ConnectorEntry
from components.args.platform_spec import PlatformEntry
from components.args.problems import InvalidArgumentsError
from components.platform_component import platform_api_endpoint

__all__ = ["one_per_namespace", "platform_to_register_with", "with_platform_url"]


def _label(index: int, entry: Any, key: str) -> str:
    """As the program names an entry: its place in its list and its name."""
    return f"{key}[{index}] ({entry.name})"


def one_per_namespace(platforms: list[PlatformEntry]) -> list[PlatformEntry]:
    """The platforms, refused when two share a namespace (the operator's rule: its components' names are fixed)."""
    first_of: dict[str, int] = {}
    problems = []
    for index, platform in enumerate(platforms):
        if platform.namespace in first_of:
            other = first_of[platform.namespace]
            problems.append(
                f"{_label(index, platform, 'platforms')}: namespace {platform.namespace} already has a platform, "
                f"{_label(other, platforms[other], 'platforms')}: one platform per namespace"
            )
        first_of.setdefault(platform.namespace, index)
    if problems:
        raise InvalidArgumentsError(problems)
    return platforms


def platform_to_register_with(index: int, entry: ConnectorEntry, platforms: Sequence[PlatformEntry]) -> int | None:
    """The platform of the stack a connector's registration names (by name; the one in its own
    namespace first), or None when it names none; ``InvalidArgumentsError`` when none or several fit."""
    registration = entry.spec.registration
    if registration is None or registration.platform is None:
        return None
    named = [i for i, p in enumerate(platforms) if p.name == registration.platform]
    here = [i for i in named if platforms[i].namespace == entry.namespace]
    if len(here) == 1 or len(named) == 1:
        return (here or named)[0]
    label = f"{_label(index, entry, 'connectors')}: registration.platform"
    if not named:
        raise InvalidArgumentsError([f"{label}: no platform of this stack has that name"])
    where = ", ".join(sorted(platforms[i].namespace for i in named))
    raise InvalidArgumentsError([f"{label}: platforms of that name are in namespaces {where}, none in {entry.namespace}"])


def with_platform_url(args: ConnectorArgs, platform: PlatformEntry) -> ConnectorArgs:
    """``args`` registering with ``platform``'s core, by its in-cluster API address."""
    assert args.registration is not None
    url = platform_api_endpoint(platform.namespace)
    return args.model_copy(update={"registration": args.registration.model_copy(update={"platform_url": url})})
