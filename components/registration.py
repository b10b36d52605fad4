"""The registration resource: a connector's record on the platform, for its whole life.

A ``pulumi.dynamic`` resource. ``create`` registers (or adopts a known record); the uuid is
kept in state, so reruns never register again. With an administrator's credentials it goes
further: a change the platform must know edits the record in place, ``approve`` approves it,
``deregisterOnDestroy`` deletes it, and ``refresh`` reads it (a record deleted on the platform
leaves the state, so the next ``up`` registers again, once). Without them, it does what the
operator does: register once, and nothing else.

The provider instance holds no client or credential (it is pickled into state): each method
builds what it needs.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any

import pulumi
from pulumi.dynamic import CreateResult, DiffResult, ReadResult, Resource, ResourceProvider, UpdateResult

OUTPUTS = ("uuid", "status", "registered_at")
# What the platform holds of the connector: a change of these must reach it.
PLATFORM_FIELDS = ("url", "auth_type", "auth_attributes", "custom_attributes")
# The edit API (editConnectorV2) cannot change these: a new record is needed (``--replace``).
IDENTITY_FIELDS = ("name", "connector_version")
INPUTS = (
    "platform_url",
    "name",
    "url",
    "auth_type",
    "auth_attributes",
    "custom_attributes",
    "connector_version",
    "retry_initial_seconds",
    "retry_max_seconds",
    "deadline_seconds",
    "ca_bundle",
    "insecure_skip_tls_verify",
    "route",
    "kubeconfig",
    "kube_context",
    "adopt_uuid",
    "admin_credentials",
    "approve",
    "deregister_on_destroy",
)
CAMEL = {
    "url": "url",
    "name": "name",
    "auth_type": "authType",
    "auth_attributes": "authAttributes",
    "custom_attributes": "customAttributes",
    "connector_version": "version",
}


def _provider_host() -> Any:
    """The dynamic provider's process (``python -m pulumi.dynamic``) this module is loaded in, if so."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if main is None or spec is None or spec.name != "pulumi.dynamic.__main__":
        return None
    return main


PROVIDER_HOST_WORKERS = 32


def _register_more_than_four_at_once() -> None:
    """The SDK's dynamic-provider host serves the engine's calls on a pool of 4 threads, so at
    most 4 registrations were in flight however wide the engine's ``--parallel`` (each waits on
    the platform's answer: 50 connectors against a platform answering in 1 s took 16 s). The
    pool starts a thread per call as calls arrive, up to its ``_max_workers``: raised here, in
    that process only, once this module is loaded (on the engine's first call, a check)."""
    import gc
    from concurrent.futures import ThreadPoolExecutor

    if _provider_host() is None:
        return
    for pool in (o for o in gc.get_objects() if isinstance(o, ThreadPoolExecutor)):
        pool._max_workers = max(pool._max_workers, PROVIDER_HOST_WORKERS)


def _report_platform_errors_without_tracebacks() -> None:
    """In the dynamic provider's process, a provider error is sent to the engine as
    ``traceback.format_exc()``: for a ``RegistrationError`` (a status, a uuid, what to do) send
    its message alone, as the engine prints a program's errors. Any other exception keeps its
    traceback: that is a bug to report."""
    import traceback

    main = _provider_host()
    if main is None or not hasattr(main, "traceback"):
        return

    class _Formatter:
        def __getattr__(self, name: str) -> Any:
            return getattr(traceback, name)

        @staticmethod
        def format_exc(*args: Any, **kwargs: Any) -> str:
            from components.platform_client import RegistrationError

            error = sys.exc_info()[1]
            if isinstance(error, RegistrationError):
                return str(error)
            return traceback.format_exc(*args, **kwargs)

    main.traceback = _Formatter()  # type: ignore[attr-defined]


_report_platform_errors_without_tracebacks()
_register_more_than_four_at_once()


def _warn(message: str) -> None:
    """A line the engine shows with the run's diagnostics (a dynamic provider's stderr)."""
    print(f"warning: {message}", file=sys.stderr, flush=True)


class RegistrationProvider(ResourceProvider):
    @staticmethod
    def _destination(props: dict[str, Any]) -> Any:
        from components.cluster_access import NoClusterCredentials, load_access
        from components.platform_client import AdminCredentials, RegistrationError, TlsSettings, direct, through_api_server

        if props.get("route") == "apiServerProxy":
            try:
                access = load_access(props.get("kubeconfig"), props.get("kube_context"))
            except NoClusterCredentials as error:
                raise RegistrationError(str(error)) from None
            destination = through_api_server(props["platform_url"], access)
        else:
            tls = TlsSettings(props.get("ca_bundle"), bool(props.get("insecure_skip_tls_verify")))
            destination = direct(props["platform_url"], tls)
        return destination.with_admin(AdminCredentials.from_props(props.get("admin_credentials")))

    @staticmethod
    def _retry(props: dict[str, Any]) -> Any:
        from components.platform_client import RetryPolicy

        return RetryPolicy(
            float(props.get("retry_initial_seconds") or 5),
            float(props.get("retry_max_seconds") or 300),
            float(props.get("deadline_seconds") or 600),
        )

    def _admin(self, props: dict[str, Any], destination: Any = None) -> Any:
        """The administrator's client for ``destination`` (built from ``props`` when not given),
        or None without admin credentials."""
        from components.platform_client import PlatformAdmin

        destination = destination or self._destination(props)
        return PlatformAdmin(destination, self._retry(props)) if destination.admin is not None else None

    def create(self, props: dict[str, Any]) -> CreateResult:
        from components.platform_client import Duplicate, RegistrationError, register, request_body

        destination = self._destination(props)
        admin = self._admin(props, destination)
        version = props.get("connector_version") or "v2"
        adopt = props.get("adopt_uuid")
        if adopt:
            uuid, status = adopt, "unknown"
            if admin is not None:
                record = admin.get(adopt)
                if record is None:
                    raise RegistrationError(f"registration.uuid {adopt} is not a connector on the platform (status 404)")
                status = record.status
        else:
            attributes = (props.get("auth_attributes"), props.get("custom_attributes"))
            body = request_body(props["name"], version, props["url"], props["auth_type"], *attributes)
            try:
                registered = register(destination, body, self._retry(props))
                uuid, status = registered.uuid, registered.status
            except Duplicate:
                if admin is None:
                    raise RegistrationError(
                        "registration failed with status 409: the platform already has a connector with this name, or with "
                        "this url and version. Adopt it: set registration.uuid to its uuid, or give registration."
                        "adminCredentials so that it is found and adopted"
                    ) from None
                uuid, status = self._adopt_duplicate(admin, props["name"], props["url"], version)
        if props.get("approve") and admin is not None and status == "waitingForApproval":
            admin.approve(uuid)
            status = "connected"
        from components.platform_client import now_utc

        outs = {**props, "uuid": uuid, "status": status, "registered_at": now_utc()}
        return CreateResult(id_=uuid, outs=outs)

    @staticmethod
    def _adopt_duplicate(admin: Any, name: str, url: str, version: str) -> tuple[str, str]:
        """The existing record with this name, when it is this connector (same url and version)."""
        from components.platform_client import RegistrationError

        records = admin.find(lambda r: r.name == name or (r.url == url and r.version == version))
        same_name = [r for r in records if r.name == name]
        for record in same_name:
            if record.url == url and record.version == version:
                return record.uuid, record.status
        if same_name:
            raise RegistrationError(
                "registration failed with status 409: a connector of the same name is registered with another url or "
                f"version (uuid {same_name[0].uuid}); rename this one, or adopt that one with registration.uuid"
            )
        holders = [r for r in records if r.url == url and r.version == version]
        holder = f" (uuid {holders[0].uuid})" if holders else ""
        raise RegistrationError(
            f"registration failed with status 409: another connector{holder} is registered with this url and version"
        )

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        """An update (never a replacement) when any input changed; a change the platform must
        know is sent on update with admin credentials, else announced as kept on the platform."""
        changed = [key for key in INPUTS if olds.get(key) != news.get(key)]
        adopt = news.get("adopt_uuid")
        replaces = ["adopt_uuid"] if adopt and adopt != _id else []
        platform = [CAMEL[k] for k in (*PLATFORM_FIELDS, *IDENTITY_FIELDS) if k in changed]
        if platform and not replaces and not news.get("admin_credentials"):
            _warn(
                f"registration {news.get('name')!r}: {', '.join(platform)} changed; the platform keeps the old values "
                "(no adminCredentials to edit the record). To register anew: pulumi up --replace <urn of the registration>"
            )
        elif platform and not replaces and any(CAMEL[k] in platform for k in IDENTITY_FIELDS):
            _warn(
                f"registration {news.get('name')!r}: the platform cannot rename a connector or change its version in "
                "place; it keeps the old name and version. To register anew: pulumi up --replace <urn of the registration>"
            )
        return DiffResult(
            changes=bool(changed), replaces=replaces, stables=["uuid", "registered_at"], delete_before_replace=False
        )

    def update(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> UpdateResult:
        """New inputs; with admin credentials, changed platform fields edit the record (one PUT,
        same uuid) and a newly asked approval approves; the register endpoint is never called."""
        from components.platform_client import RegistrationError, edit_body

        status = olds.get("status")
        admin = self._admin(news)
        if admin is not None:
            if any(olds.get(k) != news.get(k) for k in PLATFORM_FIELDS):
                body = edit_body(news["url"], news["auth_type"], news.get("auth_attributes"), news.get("custom_attributes"))
                record = admin.edit(_id, body)
                if record is None:
                    raise RegistrationError(
                        f"updating the connector failed with status 404: uuid {_id} is no longer on the platform; "
                        "refresh to forget it, then up registers it again"
                    )
                status = record.status
            if news.get("approve") and status == "waitingForApproval":
                admin.approve(_id)
                status = "connected"
        return UpdateResult(outs={**news, "uuid": _id, "status": status, "registered_at": olds.get("registered_at")})

    def delete(self, _id: str, props: dict[str, Any]) -> None:
        """De-registers only when asked (``deregisterOnDestroy``) and able (admin credentials);
        a record already gone counts as done. Otherwise, like the operator, leaves it."""
        if not props.get("deregister_on_destroy"):
            return
        admin = self._admin(props)
        if admin is not None:
            admin.delete(_id)

    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        """Refresh: with admin credentials, the platform's status; a record gone from the
        platform is gone from the state too (an empty id), so the next ``up`` registers again."""
        admin = self._admin(props)
        if admin is None:
            return ReadResult(id_=id_, outs=props)
        record = admin.get(id_)
        if record is None:
            return ReadResult(id_="", outs={})
        return ReadResult(id_=id_, outs={**props, "status": record.status})


TYPE_TOKEN = "pulumi-python:dynamic/connectors:Registration"
LEGACY_TYPE_TOKEN = "pulumi-python:dynamic:Resource"
"""The type every dynamic resource shared before the registration had its own: stacks created
then keep their registration (and its uuid) through an alias."""


class Registration(Resource, module="connectors", name="Registration"):
    """Registers ``url`` as connector ``name`` with the platform at ``platform_url``, once.

    Its type is ``pulumi-python:dynamic/connectors:Registration``, so that preview and
    ``pulumi stack --show-urns`` name it; ``aliases`` carries registrations created under the
    shared dynamic type over without calling the platform.

    ``route`` is the resolved route, ``direct`` or ``apiServerProxy`` (see ``routing``); for the
    proxy, ``kubeconfig`` (a path, or content given as a secret) and ``kube_context`` say which
    cluster configuration to load credentials from, inside ``create``. ``admin_credentials``
    (``{bearerToken}`` or ``{clientCertificate, clientKey}``) are always kept secret."""

    uuid: pulumi.Output[str]
    status: pulumi.Output[str]
    registered_at: pulumi.Output[str]

    def __init__(
        self,
        resource_name: str,
        *,
        platform_url: pulumi.Input[str],
        name: pulumi.Input[str],
        url: pulumi.Input[str],
        auth_type: pulumi.Input[str],
        auth_attributes: pulumi.Input[list[Any]] | None = None,
        custom_attributes: pulumi.Input[list[Any]] | None = None,
        connector_version: pulumi.Input[str] = "v2",
        retry_initial_seconds: float = 5,
        retry_max_seconds: float = 300,
        deadline_seconds: float = 600,
        ca_bundle: str | None = None,
        insecure_skip_tls_verify: bool = False,
        route: pulumi.Input[str] = "direct",
        kubeconfig: pulumi.Input[str] | None = None,
        kube_context: str | None = None,
        adopt_uuid: str | None = None,
        admin_credentials: pulumi.Input[dict[str, Any]] | None = None,
        approve: bool = False,
        deregister_on_destroy: bool = False,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        props = {
            "platform_url": platform_url,
            "name": name,
            "url": url,
            "auth_type": auth_type,
            "auth_attributes": auth_attributes or [],
            "custom_attributes": custom_attributes or [],
            "connector_version": connector_version,
            "retry_initial_seconds": retry_initial_seconds,
            "retry_max_seconds": retry_max_seconds,
            "deadline_seconds": deadline_seconds,
            "ca_bundle": ca_bundle,
            "insecure_skip_tls_verify": insecure_skip_tls_verify,
            "route": route,
            "kubeconfig": kubeconfig,
            "kube_context": kube_context,
            "adopt_uuid": adopt_uuid,
            "admin_credentials": pulumi.Output.secret(admin_credentials) if admin_credentials is not None else None,
            "approve": approve,
            "deregister_on_destroy": deregister_on_destroy,
            **{key: None for key in OUTPUTS},
        }
        opts = pulumi.ResourceOptions.merge(
            opts,
            pulumi.ResourceOptions(
                aliases=self.aliases(),
                additional_secret_outputs=["admin_credentials"],
                # The platform holds one record per name and url+version: the old one must go
                # (when de-registering is allowed) before its replacement registers.
                delete_before_replace=True,
            ),
        )
        super().__init__(RegistrationProvider(), resource_name, props, opts)

    @classmethod
    def aliases(cls) -> list[pulumi.Alias]:
        own = f"pulumi-python:{cls._resource_type_name}"
        return [] if own == LEGACY_TYPE_TOKEN else [pulumi.Alias(type_=LEGACY_TYPE_TOKEN)]


START_CALL = "pulumi-python:dynamic:startRegistrationProvider"
"""A function the registrations' provider does not implement: calling it starts the provider."""


def start_provider_early() -> pulumi.Output[None]:
    """Starts the registrations' provider process at the start of the program.

    The engine starts a provider when a resource or a call first needs it. A registration is
    sent once its Deployment is Ready, so the provider's process (a Python interpreter loading
    the SDK: about a second on 2 cores) used to start on the path from Ready to the registration
    request, for the first connectors (README, Performance, P4). A call to a function makes the
    engine start the provider now; the dynamic provider implements none, so its refusal is the
    expected answer, and any other failure is left for the registrations themselves to report.
    The returned Output is awaited by the SDK before the program ends."""

    async def start() -> None:
        with contextlib.suppress(Exception):  # the refusal is the expected answer
            await pulumi.runtime.invoke_async(START_CALL, {})

    return pulumi.Output.from_input(start())
