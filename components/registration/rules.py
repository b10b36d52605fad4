"""The rules an input's value must meet before any request is built with it: identifiers
checked, header values that can be sent, administrator credentials only over TLS, attributes in
one of their two forms, URLs that can be used. The argument models restate them as field rules
(a problem at preview); ``problems`` applies them again to the provider's properties, which also
come from other languages and from old state. A problem names the input, never its value."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote, urlsplit

from components.bounded_http.header_rules import HEADER_RULE, header_value_problem, is_loopback
from components.registration.attributes import CONTENT_RULE, is_attribute_list
from components.registration.contract import ADMIN_CREDENTIAL_SHAPES, BEARER_TOKEN, MAX_SECONDS, TABLE, Input, label
from components.registration.errors import RegistrationError

UUID_PATTERN = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
UUID_RULE = "must be a UUID (8-4-4-4-12 hexadecimal digits)"
OVER_HTTP_SETTING = "sendAdminCredentialsOverHttp"


class IdentifierError(RegistrationError):
    """A uuid that is not one: no request was made with it."""


def is_uuid(value: object) -> bool:
    return isinstance(value, str) and UUID_PATTERN.fullmatch(value) is not None


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


DNS_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
IN_CLUSTER_HOST = re.compile(rf"^(?P<service>{DNS_LABEL})\.(?P<namespace>{DNS_LABEL})\.svc(\.[a-z0-9.-]+)?$")
"""A Service's in-cluster host name: ``<service>.<namespace>.svc[.<cluster domain>]``."""


def url_problem(url: str) -> str | None:
    """Why ``url`` is not a usable http(s) URL, or None."""
    if len(url) > 2048:
        return "must be at most 2048 characters"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises on a port that is not a number in 0..65535
    except ValueError:
        return "must be an http:// or https:// URL with a valid host and a port between 1 and 65535"
    if parts.scheme not in ("http", "https") or not parts.hostname or re.search(r"\s", url):
        return "must be an http:// or https:// URL"
    if parts.port == 0:
        return "must have a port between 1 and 65535"
    return None


def _is_text(value: Any) -> bool:
    return isinstance(value, str)


def _problem(spec: Input, given: Any) -> str | None:
    """Why ``given`` cannot be this input, or None; never the value itself."""
    kind = spec.value_type
    if kind == "boolean" and not isinstance(given, bool):
        return "must be true or false"
    if kind == "seconds" and (isinstance(given, bool) or not isinstance(given, (int, float)) or not 0 < given <= MAX_SECONDS):
        return f"must be a number of seconds above 0 and at most {MAX_SECONDS}"
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
    if frozenset(given) not in {frozenset(shape) for shape in ADMIN_CREDENTIAL_SHAPES}:
        return CREDENTIALS
    if BEARER_TOKEN in given and header_value_problem(given[BEARER_TOKEN]):
        return f"bearerToken {HEADER_RULE}"
    return None


def _table_problems(props: Mapping[str, Any], unknown: Callable[[Any], bool] | None) -> list[tuple[str, str]]:
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


def _admin_over_http(props: Mapping[str, Any], unknown: Callable[[Any], bool] | None) -> list[tuple[str, str]]:
    """Admin credentials that would travel in clear; nothing while a value is not yet known."""
    url, allowed, admin = (props.get(k) for k in ("platform_url", "send_admin_credentials_over_http", "admin_credentials"))
    if not admin or not isinstance(url, str):
        return []
    if unknown is not None and (unknown(url) or unknown(allowed) or (not isinstance(admin, dict) and unknown(admin))):
        return []
    problem = admin_over_http_problem(url, allowed is True)
    return [("adminCredentials", problem)] if problem else []


def _proxy_route(props: Mapping[str, Any], unknown: Callable[[Any], bool] | None) -> list[tuple[str, str]]:
    """The API server's route to a platform URL that names no Service in the cluster."""
    url = props.get("platform_url")
    if props.get("route") != "apiServerProxy" or not isinstance(url, str) or (unknown is not None and unknown(url)):
        return []
    if IN_CLUSTER_HOST.match(urlsplit(url).hostname or ""):
        return []
    return [("platformUrl", "must be an in-cluster Service address (<service>.<namespace>.svc...) for route apiServerProxy")]


def problems(props: Mapping[str, Any], unknown: Callable[[Any], bool] | None = None) -> list[tuple[str, str]]:
    """(camelCase input, what is wrong) for every input that cannot work: not what the table
    says, admin credentials that would travel in clear, the API server's route to a URL outside
    the cluster. A value for which ``unknown`` holds is not known yet (at preview), never checked."""
    return _table_problems(props, unknown) or [*_admin_over_http(props, unknown), *_proxy_route(props, unknown)]


def checked(props: dict[str, Any]) -> dict[str, Any]:
    """The properties, once every input can work; else one error naming every problem."""
    found = problems(props)
    if found:
        listed = "; ".join(f"{name} {problem}" for name, problem in found)
        raise RegistrationError(f"registration of {label(props)} cannot work: {listed}")
    return props
