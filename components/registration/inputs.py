"""The registration's inputs, in one table: each input's name on the resource, its camelCase
name (in a connector's ``registration`` config, in messages, in other languages), its default,
and what the platform does with it.

The resource fills its inputs from here, the provider reads them with these defaults, the
component maps the ``registration`` config onto them by camelCase name, and the argument
models take their defaults from here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .client import RetryPolicy

_RETRY = RetryPolicy()


@dataclass(frozen=True)
class Input:
    name: str
    """The resource's input (and state) key."""
    camel: str
    """Its camelCase name: how messages, a connector's ``registration`` block and other languages name it."""
    default: Any = None
    from_config: bool = True
    """Copied as is from the ``registration`` block; else the component decides it (the
    connector's endpoint, the resolved route, the cluster, credentials read from a Secret)."""
    platform: bool = False
    """The platform holds it: a change must reach the platform's record (an edit)."""
    identity: bool = False
    """The platform's record cannot change it in place (editConnectorV2 has no such field)."""
    always_secret: bool = False
    """Kept secret in state whatever the config says (credentials by nature)."""
    follows_config: bool = False
    """Kept secret in state when the connector's ``registration`` config held a secret."""


TABLE: tuple[Input, ...] = (
    Input("platform_url", "platformUrl", follows_config=True),
    Input("name", "name", identity=True, follows_config=True),
    Input("url", "url", from_config=False, platform=True),
    Input("auth_type", "authType", platform=True),
    Input("auth_attributes", "authAttributes", (), platform=True, always_secret=True),
    Input("custom_attributes", "customAttributes", (), platform=True, follows_config=True),
    Input("connector_version", "version", "v2", identity=True),
    Input("retry_initial_seconds", "retryInitialSeconds", _RETRY.initial_seconds),
    Input("retry_max_seconds", "retryMaxSeconds", _RETRY.max_seconds),
    Input("deadline_seconds", "deadlineSeconds", _RETRY.deadline_seconds),
    Input("ca_bundle", "caBundle", follows_config=True),
    Input("insecure_skip_tls_verify", "insecureSkipTlsVerify", False),
    Input("route", "route", "direct", from_config=False),
    Input("kubeconfig", "kubeconfig", from_config=False),
    Input("kube_context", "kubeContext", from_config=False),
    Input("adopt_uuid", "uuid"),
    Input("admin_credentials", "adminCredentials", from_config=False, always_secret=True),
    Input("approve", "approve", False),
    Input("deregister_on_destroy", "deregisterOnDestroy", False),
)
BY_NAME = {i.name: i for i in TABLE}
NAMES = tuple(BY_NAME)
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
