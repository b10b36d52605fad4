"""Attributes as the platform reads them: ``{name, content}``, ``content`` a list of content
items, each an object with ``data`` (and an optional ``reference``): the Core's
``RequestAttributeV2`` with ``BaseAttributeContentDtoV2`` items. A user may also write an
attribute as the operator's samples do, ``content`` a plain value (or an object without
``data``): that is the item's ``data``. An object with ``data`` is one item; a missing content
is no item. The form the user wrote is what the registration keeps (in config and state); the
platform's form is made from it when a request is built (``platform_api``), and inputs are
compared in it, so writing one form for the other changes nothing."""

from __future__ import annotations

from typing import Any

CONTENT_RULE = (
    "must be a value or an object (the operator's form: sent as one content item's data), "
    "or a list of content items, each an object with data (the platform's form)"
)


def is_content_item(value: Any) -> bool:
    return isinstance(value, dict) and "data" in value


def content_problem(content: Any) -> str | None:
    """Why ``content`` is neither form, or None (never the value)."""
    if isinstance(content, list) and not all(is_content_item(item) for item in content):
        return CONTENT_RULE
    if not isinstance(content, (list, dict, str, int, float, bool)) and content is not None:
        return CONTENT_RULE
    return None


def is_attribute_list(value: Any) -> bool:
    """A list of ``{name, content}`` attributes, each content of either form."""
    return isinstance(value, list) and all(
        isinstance(a, dict) and isinstance(a.get("name"), str) and content_problem(a.get("content")) is None for a in value
    )


def platform_content(content: Any) -> list[Any]:
    """``content`` in the platform's form (``content_problem`` holds it to one of the forms)."""
    if content is None:
        return []
    if isinstance(content, list):
        return list(content)
    if is_content_item(content):
        return [content]
    return [{"data": content}]


def platform_attributes(attributes: Any) -> list[dict[str, Any]]:
    """The attributes as the platform reads them."""
    return [{"name": a["name"], "content": platform_content(a.get("content"))} for a in attributes or []]
