"""The registration's contract with the platform and with its callers: what each input and
output is, what may travel to the platform, and how a request reaches it. Everything here is
pure (no request is made): the provider checks its properties here before it sends anything.

- **Inputs and outputs**, in one table each (``TABLE``, ``OUTPUTS``): every input's name for
  each audience (``python``: the resource's keyword argument and state key; ``config``: a
  connector's ``registration`` block, messages; ``package``: the component package's
  ``Registration`` property), its default, its type, and what the platform does with it. The
  resource fills its inputs from here, the component maps the ``registration`` config onto them,
  the argument models and the package's schema take their defaults and properties from here.
- **Rules**: identifiers checked before any request is built with them, header values that can
  be sent, administrator credentials only over TLS, attributes in the platform's shape. The
  argument models restate them as field rules (a problem at preview); ``problems`` applies them
  again to the provider's properties, which also come from other languages and from old state.
  A problem names the input, never its value.
- **Routes**: directly, or through the Kubernetes API server's service proxy when the platform
  URL is an in-cluster name that does not resolve here.
- **Request bodies**, attributes in the platform's form.

Attributes as the platform reads them: ``{name, content}``, ``content`` a list of content
items, each an object with ``data`` (and an optional ``reference``): the Core's
``RequestAttributeV2`` with ``BaseAttributeContentDtoV2`` items. A user may also write an
attribute as the operator's samples do, ``content`` a plain value (or an object without
``data``): that is the item's ``data``. An object with ``data`` is one item; a missing content
is no item. The form the user wrote is what the registration keeps (in config and state); the
platform's form is made from it when a request is built, and inputs are compared in it, so
writing one form for the other changes nothing."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote, urlsplit

from components.registration.errors import RegistrationError
from components.registration.settings import DEFAULT as _RETRY

UUID_PATTERN = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
UUID_RULE = "must be a UUID (8-4-4-4-12 hexadecimal digits)"
HEADER_VALUE = re.compile(r"[\x21-\x7e]+")
HEADER_RULE = "must be printable ASCII without spaces or line breaks (a value an HTTP header can carry)"
OVER_HTTP_SETTING = "sendAdminCredentialsOverHttp"
PEM_MARK = "-----BEGIN"
"""What PEM text holds and a file's path does not."""


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


def _camel(snake: str) -> str:
    head, *rest = snake.split("_")
    return head + "".join(part.title() for part in rest)


@dataclass(frozen=True)
class Input:
    python: str
    """The resource's keyword argument, and its key in state."""
    config: str
    """Its key in a connector's ``registration`` block; how messages name it."""
    default: Any = None
    value_type: str = "string"
    """What it must be: string, boolean, seconds, attributes, credentials, uuid, or one of ``choices``."""
    choices: tuple[str, ...] = ()
    required: bool = False
    from_config: bool = True
    """Copied as is from the ``registration`` block; else the component decides it (the
    connector's endpoint, the resolved route, the cluster, credentials read from a Secret)."""
    compared: bool = True
    """A change of it is a change of the resource (not so for how messages name it)."""
    platform: bool = False
    """The platform holds it: a change must reach the platform's record (an edit)."""
    identity: bool = False
    """The platform's record cannot change it in place (editConnectorV2 has no such field)."""
    always_secret: bool = False
    """Kept secret in state whatever the config says (credentials by nature)."""
    follows_config: bool = False
    """Kept secret in state when the connector's ``registration`` config held a secret."""
    doc: str = ""
    """What it is, for the component package's schema."""
    package: str = field(default="")
    """Its property on the component package's ``Registration`` (default: ``python`` in camelCase)."""

    def __post_init__(self) -> None:
        if not self.package:
            object.__setattr__(self, "package", _camel(self.python))


@dataclass(frozen=True)
class Output:
    python: str
    """The resource's output, and its key in state."""
    doc: str

    @property
    def package(self) -> str:
        """Its property on the component package's ``Registration`` and components."""
        return _camel(self.python)


AUTH_TYPES = ("none", "basic", "certificate", "apiKey", "jwt")
TABLE: tuple[Input, ...] = (
    Input(
        "platform_url",
        "platformUrl",
        required=True,
        follows_config=True,
        doc="The platform Core's base URL, with its /api prefix.",
    ),
    Input("name", "name", required=True, identity=True, follows_config=True, doc="The connector's name on the platform."),
    Input(
        "url",
        "url",
        required=True,
        from_config=False,
        platform=True,
        doc="The connector's URL the platform calls (its Service's in-cluster address).",
    ),
    Input(
        "auth_type",
        "authType",
        value_type="choice",
        choices=AUTH_TYPES,
        required=True,
        platform=True,
        doc="How the platform authenticates to the connector.",
    ),
    Input(
        "auth_attributes",
        "authAttributes",
        (),
        value_type="attributes",
        platform=True,
        always_secret=True,
        doc="The authentication's attributes (always secret in state).",
    ),
    Input(
        "custom_attributes",
        "customAttributes",
        (),
        value_type="attributes",
        platform=True,
        follows_config=True,
        doc="Further attributes sent with the registration.",
    ),
    Input(
        "connector_version",
        "version",
        "v2",
        value_type="choice",
        choices=("v1", "v2"),
        identity=True,
        doc="The connector API version the connector implements (v1 or v2).",
    ),
    Input(
        "retry_initial_seconds",
        "retryInitialSeconds",
        _RETRY.initial_seconds,
        value_type="seconds",
        doc="The first wait between attempts.",
    ),
    Input(
        "retry_max_seconds", "retryMaxSeconds", _RETRY.max_seconds, value_type="seconds", doc="The longest wait between attempts."
    ),
    Input(
        "deadline_seconds",
        "deadlineSeconds",
        _RETRY.deadline_seconds,
        value_type="seconds",
        doc="How long a call to the platform may take in all, every retry included.",
    ),
    Input(
        "ca_bundle",
        "caBundle",
        follows_config=True,
        doc="The certificates to trust for the platform's URL: PEM text, or a file's path.",
    ),
    Input(
        "insecure_skip_tls_verify",
        "insecureSkipTlsVerify",
        False,
        value_type="boolean",
        doc="Skip verifying the platform's certificate (tests only).",
    ),
    Input(
        "send_admin_credentials_over_http",
        "sendAdminCredentialsOverHttp",
        False,
        value_type="boolean",
        doc="Allow adminCredentials over a plain http:// platformUrl that is not a loopback address.",
    ),
    Input(
        "route",
        "route",
        "direct",
        value_type="choice",
        choices=("direct", "apiServerProxy"),
        from_config=False,
        doc="How requests reach the platform: direct, or through the Kubernetes API server's service proxy.",
    ),
    Input(
        "kubeconfig", "kubeconfig", from_config=False, doc="The kubeconfig (a path or its content) of the API server proxy route."
    ),
    Input("kube_context", "kubeContext", from_config=False, doc="The kubeconfig context of the API server proxy route."),
    Input("adopt_uuid", "uuid", value_type="uuid", doc="A record already on the platform to adopt instead of registering."),
    Input(
        "admin_credentials",
        "adminCredentials",
        value_type="credentials",
        from_config=False,
        always_secret=True,
        doc="An administrator's bearerToken, or clientCertificate and clientKey (always secret in state).",
    ),
    Input(
        "approve",
        "approve",
        False,
        value_type="boolean",
        doc="Approve the connector after registering it (needs adminCredentials).",
    ),
    Input(
        "deregister_on_destroy",
        "deregisterOnDestroy",
        False,
        value_type="boolean",
        doc="Delete the platform's record when the resource is deleted (needs adminCredentials).",
    ),
    Input("connector_label", "connectorLabel", "", from_config=False, compared=False, doc="How messages name the connector."),
)
BY_PYTHON = {i.python: i for i in TABLE}
NAMES = tuple(BY_PYTHON)
COMPARED = tuple(i.python for i in TABLE if i.compared)
PLATFORM = tuple(i.python for i in TABLE if i.platform)
"""What the platform's record holds: a change of one is an edit."""
IDENTITY = tuple(i.python for i in TABLE if i.identity)
"""What the platform's record cannot change in place."""
ALWAYS_SECRET = tuple(i.python for i in TABLE if i.always_secret)
UUID, STATUS, REGISTERED_AT = "uuid", "status", "registered_at"
"""The registration's outputs, and their keys in state (written nowhere else: a test looks)."""
OUTPUTS: tuple[Output, ...] = (
    Output(UUID, "The uuid the platform gave the connector (kept in state: never registered twice)."),
    Output(STATUS, "The record's status as the platform last reported it."),
    Output(REGISTERED_AT, "When the connector was registered (ISO 8601)."),
)
OUTPUT_NAMES = tuple(o.python for o in OUTPUTS)

ADMIN_CREDENTIAL_KEYS = ("bearerToken", "clientCertificate", "clientKey")
"""The administrator's credentials as the ``admin_credentials`` input holds them."""
ADMIN_CREDENTIAL_SHAPES = (frozenset({"bearerToken"}), frozenset({"clientCertificate", "clientKey"}))
"""The sets of keys the ``admin_credentials`` input may hold: a bearer token, or a certificate and its key."""


def default(name: str) -> Any:
    """An input's default, as the models and the resource take it (lists, not tuples)."""
    value = BY_PYTHON[name].default
    return list(value) if isinstance(value, tuple) else value


def value(props: Mapping[str, Any], name: str) -> Any:
    """An input from the resource's properties, its default when missing or null."""
    given = props.get(name)
    return default(name) if given is None else given


def comparable(props: Mapping[str, Any], name: str) -> Any:
    """An input as it is compared: its default where missing, attributes in the platform's form
    (the operator's form and the platform's say the same)."""
    given = value(props, name)
    if BY_PYTHON[name].value_type == "attributes" and is_attribute_list(given):
        return platform_attributes(given)
    return given


def changed(olds: Mapping[str, Any], news: Mapping[str, Any], names: Iterable[str] = COMPARED) -> list[str]:
    """The inputs of ``names`` whose values differ (``comparable``): the one comparison of old
    and new inputs (a state written before an input existed holds none)."""
    return [name for name in names if comparable(olds, name) != comparable(news, name)]


def with_defaults(given: Mapping[str, Any]) -> dict[str, Any]:
    """Every input (unknown names refused), the defaults where not given."""
    unknown = sorted(set(given) - set(NAMES))
    if unknown:
        raise TypeError(f"Registration got unknown inputs: {', '.join(unknown)}")
    return {name: value(given, name) for name in NAMES}


def config_names(names: Iterable[str]) -> list[str]:
    """Inputs by the names a connector's ``registration`` block gives them."""
    return [BY_PYTHON[name].config for name in names]


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


def label(props: Mapping[str, Any]) -> str:
    """How messages name the connector: the component's label, never the registration's name."""
    return str(props.get("connector_label") or "the connector")


def checked(props: dict[str, Any]) -> dict[str, Any]:
    """The properties, once every input can work; else one error naming every problem."""
    found = problems(props)
    if found:
        listed = "; ".join(f"{name} {problem}" for name, problem in found)
        raise RegistrationError(f"registration of {label(props)} cannot work: {listed}")
    return props


def schedule(props: Mapping[str, Any]) -> tuple[float, float, float]:
    """The retry schedule the inputs ask for: first wait, longest wait, deadline (seconds)."""
    names = ("retry_initial_seconds", "retry_max_seconds", "deadline_seconds")
    first, longest, deadline = (float(value(props, name)) for name in names)
    return first, longest, deadline


def register_body(props: Mapping[str, Any]) -> dict[str, Any]:
    """The register request's body (registerConnectorV2), attributes in the platform's form."""
    return {"name": props["name"], "version": value(props, "connector_version"), **edit_body(props)}


def edit_body(props: Mapping[str, Any]) -> dict[str, Any]:
    """The fields the platform's record holds and an edit sends (editConnectorV2)."""
    return {
        "url": props["url"],
        "authType": props["auth_type"],
        "authAttributes": platform_attributes(props.get("auth_attributes")),
        "customAttributes": platform_attributes(props.get("custom_attributes")),
    }


def now_utc() -> str:
    """A time as ``registered_at`` holds it (ISO 8601, UTC, seconds)."""
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
