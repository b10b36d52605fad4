"""The registration's inputs, in one table: each input's name on the resource, its camelCase
name (in a connector's ``registration`` config, in messages, in other languages), its default,
its type, and what the platform does with it.

The resource fills its inputs from here, the provider reads them with these defaults and
checks them against these types (``input_checks``) (they also come from other languages and from old state), the component
maps the ``registration`` config onto them by camelCase name, and the argument models take
their defaults from here.
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
    doc: str = ""
    """What it is, for the component package's schema."""

    @property
    def wire(self) -> str:
        """Its name as a property of the component package's ``Registration`` resource."""
        head, *rest = self.name.split("_")
        return head + "".join(part.title() for part in rest)


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
        kind="choice",
        choices=AUTH_TYPES,
        required=True,
        platform=True,
        doc="How the platform authenticates to the connector.",
    ),
    Input(
        "auth_attributes",
        "authAttributes",
        (),
        kind="attributes",
        platform=True,
        always_secret=True,
        doc="The authentication's attributes (always secret in state).",
    ),
    Input(
        "custom_attributes",
        "customAttributes",
        (),
        kind="attributes",
        platform=True,
        follows_config=True,
        doc="Further attributes sent with the registration.",
    ),
    Input(
        "connector_version",
        "version",
        "v2",
        kind="choice",
        choices=("v1", "v2"),
        identity=True,
        doc="The connector API version the connector implements (v1 or v2).",
    ),
    Input(
        "retry_initial_seconds",
        "retryInitialSeconds",
        _RETRY.initial_seconds,
        kind="seconds",
        doc="The first wait between attempts.",
    ),
    Input("retry_max_seconds", "retryMaxSeconds", _RETRY.max_seconds, kind="seconds", doc="The longest wait between attempts."),
    Input(
        "deadline_seconds",
        "deadlineSeconds",
        _RETRY.deadline_seconds,
        kind="seconds",
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
        kind="boolean",
        doc="Skip verifying the platform's certificate (tests only).",
    ),
    Input(
        "send_admin_credentials_over_http",
        "sendAdminCredentialsOverHttp",
        False,
        kind="boolean",
        doc="Allow adminCredentials over a plain http:// platformUrl that is not a loopback address.",
    ),
    Input(
        "route",
        "route",
        "direct",
        kind="choice",
        choices=("direct", "apiServerProxy"),
        from_config=False,
        doc="How requests reach the platform: direct, or through the Kubernetes API server's service proxy.",
    ),
    Input(
        "kubeconfig", "kubeconfig", from_config=False, doc="The kubeconfig (a path or its content) of the API server proxy route."
    ),
    Input("kube_context", "kubeContext", from_config=False, doc="The kubeconfig context of the API server proxy route."),
    Input("adopt_uuid", "uuid", kind="uuid", doc="A record already on the platform to adopt instead of registering."),
    Input(
        "admin_credentials",
        "adminCredentials",
        kind="credentials",
        from_config=False,
        always_secret=True,
        doc="An administrator's bearerToken, or clientCertificate and clientKey (always secret in state).",
    ),
    Input(
        "approve", "approve", False, kind="boolean", doc="Approve the connector after registering it (needs adminCredentials)."
    ),
    Input(
        "deregister_on_destroy",
        "deregisterOnDestroy",
        False,
        kind="boolean",
        doc="Delete the platform's record when the resource is deleted (needs adminCredentials).",
    ),
    Input("connector_label", "connectorLabel", "", from_config=False, compared=False, doc="How messages name the connector."),
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
