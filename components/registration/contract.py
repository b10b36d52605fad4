"""The registration's contract with its callers: what each input and output is, in one table
each (``TABLE``, ``OUTPUTS``): every input's name for each audience (``python``: the resource's
keyword argument and state key; ``config``: a connector's ``registration`` block, messages;
``package``: the component package's ``Registration`` property), its default, its type, and what
the platform does with it. The resource fills its inputs from here, the component maps the
``registration`` config onto them, the argument models and the package's schema take their
defaults, types and texts from here. The rules each value must meet are in ``rules``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from components.bounded_http.settings import DEFAULT as _RETRY
from components.registration.attributes import is_attribute_list, platform_attributes

__all__ = ["FILL_THE_UUID", "OUTPUTS", "REGISTERED_AT", "STATUS", "TABLE", "UUID", "UUID_UNKNOWN"]


def camel_case(snake: str) -> str:
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
            object.__setattr__(self, "package", camel_case(self.python))


@dataclass(frozen=True)
class Output:
    python: str
    """The resource's output, and its key in state."""
    doc: str

    @property
    def package(self) -> str:
        """Its property on the component package's ``Registration`` and components."""
        return camel_case(self.python)


AuthType = Literal["none", "basic", "certificate", "apiKey", "jwt"]
AUTH_TYPES: tuple[str, ...] = get_args(AuthType)
ConnectorVersion = Literal["v1", "v2"]
"""The connector API versions a connector may implement."""
Route = Literal["direct", "apiServerProxy"]
"""How requests reach the platform: directly, or through the Kubernetes API server's service proxy."""
RouteSetting = Literal["auto", Route]
"""The route asked for: one of ``Route``, or ``auto`` (chosen by the platform URL)."""
MAX_SECONDS = 86400
"""The longest a wait, or the registration's deadline, may be (a day)."""
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
        choices=get_args(ConnectorVersion),
        identity=True,
        doc="The connector API version the connector implements (v1 or v2).",
    ),
    Input(
        "retry_initial_seconds",
        "retryInitialSeconds",
        _RETRY.initial_seconds,
        value_type="seconds",
        doc="The first wait between attempts while the platform is unreachable.",
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
        doc="The certificates to trust for the platform's URL instead of Mozilla's: PEM text, or the path of a file of them.",
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
        doc="Allow adminCredentials over a plain http:// platformUrl not on a loopback host (a trusted network: mTLS mesh).",
    ),
    Input(
        "route",
        "route",
        "direct",
        value_type="choice",
        choices=get_args(Route),
        from_config=False,
        doc="How requests reach the platform: direct, or through the Kubernetes API server's service proxy.",
    ),
    Input(
        "kubeconfig", "kubeconfig", from_config=False, doc="The kubeconfig (a path or its content) of the API server proxy route."
    ),
    Input("kube_context", "kubeContext", from_config=False, doc="The kubeconfig context of the API server proxy route."),
    Input("adopt_uuid", "uuid", value_type="uuid", doc="A connector already registered (by the operator, or before): adopted."),
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
        doc="Delete the platform's record when the connector is destroyed (needs adminCredentials).",
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
UUID_UNKNOWN = "uuid-unknown"
"""The id of a registration whose record the platform saved from this stack's interrupted post
(its answer lost), kept without admin credentials to find its uuid: a ``refresh`` with them
fills it (the id becomes the uuid; an ``up`` with them fills the ``uuid`` output), as does
``registration.uuid``."""
FILL_THE_UUID = "give registration.adminCredentials (the next up or refresh finds it), or set registration.uuid to its uuid"

BEARER_TOKEN = "bearerToken"
ADMIN_CREDENTIAL_SHAPES = ((BEARER_TOKEN,), ("clientCertificate", "clientKey"))
"""The administrator's credentials: a bearer token, or a client certificate with its key. The first
key of a shape says the shape is given."""
ADMIN_CREDENTIAL_KEYS = tuple(key for shape in ADMIN_CREDENTIAL_SHAPES for key in shape)
"""The keys of ``adminCredentials`` (and of a Secret holding them)."""
"""The sets of keys the ``admin_credentials`` input may hold: a bearer token, or a certificate and its key."""


def doc(config: str) -> str:
    """The description of the input a ``registration`` block calls ``config``, for every audience."""
    return next(i.doc for i in TABLE if i.config == config)


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


def label(props: Mapping[str, Any]) -> str:
    """How messages name the connector: the component's label, never the registration's name."""
    return str(props.get("connector_label") or "the connector")


def schedule(props: Mapping[str, Any]) -> tuple[float, float, float]:
    """The retry schedule the inputs ask for: first wait, longest wait, deadline (seconds)."""
    names = ("retry_initial_seconds", "retry_max_seconds", "deadline_seconds")
    first, longest, deadline = (float(value(props, name)) for name in names)
    return first, longest, deadline
