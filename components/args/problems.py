"""One readable message for every invalid argument, instead of a traceback.

No message repeats a value from the config: any of it may be a secret (the README recommends
setting the whole ``connectors`` config as one). A problem names the field by its path, the
rule it breaks, and the kind of value received (``a string of 12 characters``), never the value.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from components.args.sdk_values import engine_error_class, is_output

__all__ = ["InvalidArgumentsError", "describe", "kind_of"]

MAX_KEY_IN_PATH = 63
PLAIN_KEY = re.compile(r"^[A-Za-z0-9][-A-Za-z0-9_./]*$")


class InvalidArgumentsError(ValueError):
    """Raised before any resource is registered; its message lists every offending field.

    Where the Pulumi SDK is loaded, also a ``pulumi.RunError``, so the engine prints the
    message alone, without a traceback (``sdk_values.engine_error_class``)."""

    def __new__(cls, *args: Any, **kwargs: Any) -> InvalidArgumentsError:
        return super().__new__(engine_error_class(cls), *args, **kwargs)  # type: ignore[arg-type, return-value]

    def __init__(self, problems: Sequence[str], heading: str = "invalid connector arguments") -> None:
        self.problems = list(problems)
        self.heading = heading
        super().__init__(f"{heading}:\n" + "\n".join(f"  - {p}" for p in self.problems))

    def about(self, entry: str) -> InvalidArgumentsError:
        """The same problems, each prefixed by the entry they belong to (``connectors[3] (name)``)."""
        return InvalidArgumentsError([f"{entry}: {p}" for p in self.problems], self.heading)


@dataclass(frozen=True)
class Problem:
    """One problem found inside a value: ``path`` is relative to the field that holds the value."""

    path: str
    message: str


class NestedProblems(ValueError):
    """Raised by a validator that checks a whole free-form block; ``describe`` lists each problem
    under the field's own path."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(f"{p.path}: {p.message}" if p.path else p.message for p in self.problems))


def key_in_path(key: str) -> str:
    """A map key as a path segment: shown when it is a plain, short key; else its length only."""
    if len(key) <= MAX_KEY_IN_PATH and PLAIN_KEY.fullmatch(key):
        return key
    return f"<a key of {len(key)} characters>"


def field_path(prefix: str, loc: Sequence[int | str]) -> str:
    path = prefix
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            segment = key_in_path(part)
            path += f".{segment}" if path else segment
    return path


def counted(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")


def kind_of(value: object) -> str:
    """What a value is, without the value: its type and size."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "an empty string" if not value else f"a string of {counted(len(value), 'character')}"
    if isinstance(value, dict):
        return f"a map of {counted(len(value), 'key')}"
    if isinstance(value, (list, tuple)):
        return f"a list of {counted(len(value), 'item')}"
    if is_output(value):
        return "an Output"
    return f"a {type(value).__name__}"


# pydantic's messages that already say what kind of value was expected; the rest get ``(got …)``.
UNION_TAG = re.compile(r"^(str|int|float|bool|list\[.*\]|dict\[.*\]|[a-z-]+\[.*\])$")


def string_hint(item: Any, path: str) -> str:
    """How to give a string from the CLI, for a number or boolean where a string is wanted: a
    new key set by ``pulumi config set --path`` takes the type the value looks like."""
    wanted_string = item["type"] == "string_type" or "must be a string" in item["msg"]
    from_config = path.startswith(("connectors[", "proxies["))
    if not (wanted_string and from_config and isinstance(item.get("input"), (bool, int, float))):
        return ""
    return f"; quote it in YAML, or from the CLI: pulumi config set --path --type string '{path}' <value>"


def describe(error: ValidationError, prefix: str = "") -> list[str]:
    """Turn pydantic's errors into ``path: what is wrong (got <kind>)`` lines, naming unknown fields."""
    problems: list[str] = []
    for item in error.errors(include_url=False):
        loc = [part for part in item["loc"] if not (isinstance(part, str) and UNION_TAG.match(part))]
        if loc and loc[-1] == "[key]":  # a map key that breaks a rule: the map's path, not the key
            loc = loc[:-2]
        path = field_path(prefix, loc) or "(top level)"
        nested = (item.get("ctx") or {}).get("error")
        if isinstance(nested, NestedProblems):
            for problem in nested.problems:
                line = f"{path}{problem.path}: {problem.message}"
                if line not in problems:
                    problems.append(line)
            continue
        if item["type"] == "extra_forbidden":
            message = "unknown field (check its spelling)"
        elif item["type"] == "missing":
            message = "required field is missing"
        else:
            message = f"{item['msg'].removeprefix('Value error, ')} (got {kind_of(item.get('input'))})"
            message += string_hint(item, path)
        line = f"{path}: {message}"
        if line not in problems:
            problems.append(line)
    return problems
