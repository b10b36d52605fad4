"""One readable message for every invalid argument, instead of a traceback."""

from __future__ import annotations

from collections.abc import Sequence

import pulumi
from pydantic import ValidationError


class InvalidArgumentsError(pulumi.RunError, ValueError):
    """Raised before any resource is registered; its message lists every offending field.

    A ``pulumi.RunError``, so the engine prints the message alone, without a traceback."""

    def __init__(self, problems: Sequence[str], heading: str = "invalid connector arguments") -> None:
        self.problems = list(problems)
        super().__init__(f"{heading}:\n" + "\n".join(f"  - {p}" for p in self.problems))


def field_path(prefix: str, loc: Sequence[int | str]) -> str:
    path = prefix
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path += f".{part}" if path else str(part)
    return path


def may_hold_a_secret(path: str) -> bool:
    """Paths whose values are never echoed back in an error."""
    return any(word in path.lower() for word in ("secret", "attribute", "kubeconfig"))


def describe(error: ValidationError, prefix: str = "") -> list[str]:
    """Turn pydantic's errors into ``path: what is wrong`` lines, naming unknown fields."""
    problems = []
    for item in error.errors(include_url=False):
        path = field_path(prefix, item["loc"]) or "(top level)"
        if item["type"] == "extra_forbidden":
            message = "unknown field (check its spelling)"
        elif item["type"] == "missing":
            message = "required field is missing"
        else:
            message = item["msg"].removeprefix("Value error, ")
            value = item.get("input")
            if isinstance(value, (str, int, float, bool)) and not may_hold_a_secret(path):
                message += f" (got {value!r})"
        problems.append(f"{path}: {message}")
    return problems
