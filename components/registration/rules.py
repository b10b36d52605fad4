"""What may travel to the platform: identifiers checked before any request is built with them,
header values that can be sent, administrator credentials only over TLS, and attributes in the
platform's shape. The argument models restate these as field rules (a problem at preview); the
provider applies them again to its own inputs, which also come from other languages and from
old state.

Attributes as the platform reads them: ``{name, content}``, ``content`` a list of content
items, each an object with ``data`` (and an optional ``reference``): the Core's
``RequestAttributeV2`` with ``BaseAttributeContentDtoV2`` items.

A user may also write an attribute as the operator's samples do, ``content`` a plain value (or
an object without ``data``): that is the item's ``data``. An object with ``data`` is one item;
a missing content is no item. The form the user wrote is what the registration keeps (in config
and state); the platform's form is made from it when a request is built, and inputs are
compared in it, so writing one form for the other changes nothing."""

from __future__ import annotations

import ipaddress
import re
from typing import Any
from urllib.parse import quote, urlsplit

from .errors import RegistrationError

UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
UUID_RULE = "must be a UUID (8-4-4-4-12 hexadecimal digits)"
HEADER_VALUE = re.compile(r"[\x21-\x7e]+")
HEADER_RULE = "must be printable ASCII without spaces or line breaks (a value an HTTP header can carry)"
OVER_HTTP_SETTING = "sendAdminCredentialsOverHttp"
PEM_MARK = "-----BEGIN"
"""What PEM text holds and a file's path does not."""


class IdentifierError(RegistrationError):
    """A uuid that is not one: no request was made with it."""


def is_uuid(value: object) -> bool:
    return isinstance(value, str) and UUID.fullmatch(value) is not None


def checked_uuid(value: object, source: str) -> str:
    """``value`` when it is a UUID; else an error saying where it came from (``source``, such as
    "the uuid in the stack's state"), never repeating it."""
    if not is_uuid(value):
        raise IdentifierError(f"{source} is not a UUID (8-4-4-4-12 hexadecimal digits); no request was made with it")
    return str(value)


def segment(uuid: object) -> str:
    """A uuid as one path segment: checked (callers check first, naming the source; this is
    the last line), then percent-escaped."""
    return quote(checked_uuid(uuid, "the connector's uuid"), safe="")


def header_value_problem(value: object) -> str | None:
    if not isinstance(value, str) or not HEADER_VALUE.fullmatch(value):
        return HEADER_RULE
    return None


def is_loopback(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def admin_over_http_problem(platform_url: str, allowed: bool) -> str | None:
    """Why administrator credentials must not go to ``platform_url``, or None: a plain
    ``http://`` URL is refused unless its host is a loopback address or the user allowed it."""
    parts = urlsplit(platform_url)
    if parts.scheme != "http" or allowed or is_loopback(parts.hostname or ""):
        return None
    return (
        "would travel in clear over http://; use an https:// platformUrl, or set "
        f"registration.{OVER_HTTP_SETTING}: true where the network itself is trusted (a mesh with mTLS)"
    )


CONTENT_RULE = (
    "must be a value or an object (the operator's form: sent as one content item's data), "
    "or a list of content items, each an object with data (the platform's form)"
)


def _is_item(value: Any) -> bool:
    return isinstance(value, dict) and "data" in value


def content_problem(content: Any) -> str | None:
    """Why ``content`` is neither form, or None (never the value)."""
    if isinstance(content, list) and not all(_is_item(item) for item in content):
        return CONTENT_RULE
    if not isinstance(content, (list, dict, str, int, float, bool)) and content is not None:
        return CONTENT_RULE
    return None


def platform_content(content: Any) -> list[Any]:
    """``content`` in the platform's form (``content_problem`` holds it to one of the forms)."""
    if content is None:
        return []
    if isinstance(content, list):
        return list(content)
    if _is_item(content):
        return [content]
    return [{"data": content}]


def is_attribute_list(value: Any) -> bool:
    """A list of ``{name, content}`` attributes, each content of either form."""
    return isinstance(value, list) and all(
        isinstance(a, dict) and isinstance(a.get("name"), str) and content_problem(a.get("content")) is None for a in value
    )


def platform_attributes(attributes: Any) -> list[dict[str, Any]]:
    """The attributes as the platform reads them."""
    return [{"name": a["name"], "content": platform_content(a.get("content"))} for a in attributes or []]
