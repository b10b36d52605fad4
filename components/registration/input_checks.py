"""The registration's inputs checked against their table, as the provider receives them: from
the component, from other languages, from old state. A problem names the input, never its value."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .inputs import ADMIN_CREDENTIAL_SHAPES, TABLE, Input
from .routing import url_problem
from .rules import CONTENT_RULE, HEADER_RULE, UUID_RULE, header_value_problem, is_attribute_list, is_uuid


def _is_text(value: Any) -> bool:
    return isinstance(value, str)


def _problem(spec: Input, given: Any) -> str | None:
    """Why ``given`` cannot be this input, or None; never the value itself."""
    kind = spec.value_type
    if kind == "boolean" and not isinstance(given, bool):
        return "must be true or false"
    if kind == "seconds" and (isinstance(given, bool) or not isinstance(given, (int, float)) or not 0 < given <= 86400):
        return "must be a number of seconds above 0 and at most 86400"
    if kind == "choice" and given not in spec.choices:
        return f"must be one of {', '.join(spec.choices)}"
    if kind == "uuid" and not is_uuid(given):
        return UUID_RULE
    if kind == "attributes" and not is_attribute_list(given):
        return f"must be a list of {{name, content}} attributes, each content {CONTENT_RULE.removeprefix('must be ')}"
    if kind == "credentials":
        return _credentials_problem(given)
    if kind == "string" and not _is_text(given):
        return "must be a string"
    if spec.python == "platform_url":
        return url_problem(given)
    return None


CREDENTIALS = "must be a map of bearerToken, or of clientCertificate and clientKey, as strings"


def _credentials_problem(given: Any) -> str | None:
    if not isinstance(given, dict) or not all(_is_text(v) for v in given.values()):
        return CREDENTIALS
    if frozenset(given) not in ADMIN_CREDENTIAL_SHAPES:
        return CREDENTIALS
    if "bearerToken" in given and header_value_problem(given["bearerToken"]):
        return f"bearerToken {HEADER_RULE}"
    return None


def problems(props: Mapping[str, Any], unknown: Callable[[Any], bool] | None = None) -> list[tuple[str, str]]:
    """(camelCase input, what is wrong) for every input that is not what the table says;
    a value for which ``unknown`` holds is not known yet (at preview), never checked."""
    found = []
    for spec in TABLE:
        given = props.get(spec.python)
        if unknown is not None and unknown(given):
            continue
        if given is None:
            if spec.required:
                found.append((spec.config, "is required"))
            continue
        problem = _problem(spec, given)
        if problem:
            found.append((spec.config, problem))
    return found
