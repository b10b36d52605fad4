"""The registration's inputs, in one table: each input's name on the resource, its camelCase
name (in a connector's ``registration`` config, in messages, in other languages), its default,
its type, and what the platform does with it.

The resource fills its inputs from here, the provider reads and checks them with these
defaults and types (they also come from other languages and from old state), the component
maps the ``registration`` config onto them by camelCase name, and the argument models take
their defaults from here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .client import RetryPolicy
from .rules import HEADER_RULE, UUID_RULE, header_value_problem, is_uuid

_RETRY = RetryPolicy()


@dataclass(frozen=True)
class Input:
    name: str
    """The resource's input (and state) key."""
    camel: str
    """Its camelCase name: how messages, a connector's ``registration`` block and other languages name it."""
    default: Any = None
    kind: str = "string"
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


AUTH_TYPES = ("none", "basic", "certificate", "apiKey", "jwt")
TABLE: tuple[Input, ...] = (
    Input("platform_url", "platformUrl", required=True, follows_config=True),
    Input("name", "name", required=True, identity=True, follows_config=True),
    Input("url", "url", required=True, from_config=False, platform=True),
    Input("auth_type", "authType", kind="choice", choices=AUTH_TYPES, required=True, platform=True),
    Input("auth_attributes", "authAttributes", (), kind="attributes", platform=True, always_secret=True),
    Input("custom_attributes", "customAttributes", (), kind="attributes", platform=True, follows_config=True),
    Input("connector_version", "version", "v2", kind="choice", choices=("v1", "v2"), identity=True),
    Input("retry_initial_seconds", "retryInitialSeconds", _RETRY.initial_seconds, kind="seconds"),
    Input("retry_max_seconds", "retryMaxSeconds", _RETRY.max_seconds, kind="seconds"),
    Input("deadline_seconds", "deadlineSeconds", _RETRY.deadline_seconds, kind="seconds"),
    Input("ca_bundle", "caBundle", follows_config=True),
    Input("insecure_skip_tls_verify", "insecureSkipTlsVerify", False, kind="boolean"),
    Input("send_admin_credentials_over_http", "sendAdminCredentialsOverHttp", False, kind="boolean"),
    Input("route", "route", "direct", kind="choice", choices=("direct", "apiServerProxy"), from_config=False),
    Input("kubeconfig", "kubeconfig", from_config=False),
    Input("kube_context", "kubeContext", from_config=False),
    Input("adopt_uuid", "uuid", kind="uuid"),
    Input("admin_credentials", "adminCredentials", kind="credentials", from_config=False, always_secret=True),
    Input("approve", "approve", False, kind="boolean"),
    Input("deregister_on_destroy", "deregisterOnDestroy", False, kind="boolean"),
    Input("connector_label", "connectorLabel", "", from_config=False, compared=False),
)
BY_NAME = {i.name: i for i in TABLE}
NAMES = tuple(BY_NAME)
COMPARED = tuple(i.name for i in TABLE if i.compared)
OUTPUTS = ("uuid", "status", "registered_at")


def default(name: str) -> Any:
    """An input's default, as the models and the resource take it (lists, not tuples)."""
    value = BY_NAME[name].default
    return list(value) if isinstance(value, tuple) else value


def value(props: Mapping[str, Any], name: str) -> Any:
    """An input from the resource's properties, its default when missing or null."""
    given = props.get(name)
    return default(name) if given is None else given


def with_defaults(given: Mapping[str, Any]) -> dict[str, Any]:
    """Every input (unknown names refused), the defaults where not given."""
    unknown = sorted(set(given) - set(NAMES))
    if unknown:
        raise TypeError(f"Registration got unknown inputs: {', '.join(unknown)}")
    return {name: value(given, name) for name in NAMES}


def camel_names(names: list[str]) -> list[str]:
    """Inputs by their camelCase names."""
    return [BY_NAME[name].camel for name in names]


def _is_text(value: Any) -> bool:
    return isinstance(value, str)


def _attributes(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(a, dict) and isinstance(a.get("name"), str) for a in value)


def _problem(spec: Input, given: Any) -> str | None:
    """Why ``given`` cannot be this input, or None; never the value itself."""
    kind = spec.kind
    if kind == "boolean" and not isinstance(given, bool):
        return "must be true or false"
    if kind == "seconds" and (isinstance(given, bool) or not isinstance(given, (int, float)) or not 0 < given <= 86400):
        return "must be a number of seconds above 0 and at most 86400"
    if kind == "choice" and given not in spec.choices:
        return f"must be one of {', '.join(spec.choices)}"
    if kind == "uuid" and not is_uuid(given):
        return UUID_RULE
    if kind == "attributes" and not _attributes(given):
        return "must be a list of {name, content} attributes"
    if kind == "credentials":
        return _credentials_problem(given)
    if kind == "string" and not _is_text(given):
        return "must be a string"
    return None


def _credentials_problem(given: Any) -> str | None:
    if not isinstance(given, dict) or not all(_is_text(v) for v in given.values()):
        return "must be a map of bearerToken, or clientCertificate and clientKey, as strings"
    if "bearerToken" in given and header_value_problem(given["bearerToken"]):
        return f"bearerToken {HEADER_RULE}"
    return None


def problems(props: Mapping[str, Any], unknown: str | None = None) -> list[tuple[str, str]]:
    """(camelCase input, what is wrong) for every input that is not what the table says;
    ``unknown`` is the placeholder of a value not known yet (at preview), never checked."""
    found = []
    for spec in TABLE:
        given = props.get(spec.name)
        if unknown is not None and given == unknown:
            continue
        if given is None:
            if spec.required:
                found.append((spec.camel, "is required"))
            continue
        problem = _problem(spec, given)
        if problem:
            found.append((spec.camel, problem))
    return found
