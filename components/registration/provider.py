"""The registration's provider: a connector's record on the platform, for its whole life.

``create`` registers (or adopts a known record); the uuid is kept in state, so reruns never
register again. With an administrator's credentials it goes further: a change the platform
must know edits the record in place, ``approve`` approves it, ``deregisterOnDestroy`` deletes
it, and ``refresh`` reads it (a record deleted on the platform leaves the state, so the next
``up`` registers again, once). Without them, it does what the operator does: register once,
and nothing else.

The provider instance holds no client or credential (it is pickled into state): each method
builds what it needs from the resource's properties, checked first (``inputs.problems``): they
also come from other languages and from old state.
"""

from __future__ import annotations

import sys
from typing import Any

from pulumi.dynamic import (
    CheckFailure,
    CheckResult,
    ConfigureRequest,
    CreateResult,
    DiffResult,
    ReadResult,
    ResourceProvider,
    UpdateResult,
)

from . import input_checks, inputs, provider_host, recovery
from .api import UNKNOWN_STATUS, Duplicate, PlatformApi, edit_body, now_utc, request_body
from .cluster_access import NoClusterCredentials, load_access
from .destination import AdminCredentials, Destination, TlsSettings, direct, through_api_server
from .errors import RegistrationError
from .rules import admin_over_http_problem, checked_uuid
from .schedule import RetryPolicy

REPLACE_HINT = "To register anew: pulumi up --replace <urn of the registration>"
STATE = "the uuid in the stack's state"


def _warn(message: str) -> None:
    """A line the engine shows with the run's diagnostics (a dynamic provider's stderr)."""
    print(f"warning: {message}", file=sys.stderr, flush=True)


def label(props: dict[str, Any]) -> str:
    """How messages name the connector: the component's label, never the registration's name."""
    return str(props.get("connector_label") or "the connector")


def admin_over_http(props: dict[str, Any]) -> list[tuple[str, str]]:
    """Admin credentials that would travel in clear; nothing while a value is not yet known."""
    url, allowed, admin = (props.get(k) for k in ("platform_url", "send_admin_credentials_over_http", "admin_credentials"))
    if (
        not admin
        or not isinstance(url, str)
        or provider_host.holds_unknown([url, allowed])
        or (not isinstance(admin, dict) and provider_host.holds_unknown(admin))
    ):
        return []
    problem = admin_over_http_problem(url, allowed is True)
    return [("adminCredentials", problem)] if problem else []


def problems(props: dict[str, Any], unknown: Any = None) -> list[tuple[str, str]]:
    """(input, what is wrong) for every input that cannot work; ``unknown`` as ``input_checks.problems``."""
    return input_checks.problems(props, unknown) or admin_over_http(props)


def checked(props: dict[str, Any]) -> dict[str, Any]:
    """The properties, once every input is what the table says; else one error naming them."""
    found = problems(props)
    if found:
        listed = "; ".join(f"{name} {problem}" for name, problem in found)
        raise RegistrationError(f"registration of {label(props)} cannot work: {listed}")
    return props


def destination(props: dict[str, Any]) -> Destination:
    if props.get("route") == "apiServerProxy":
        try:
            access = load_access(props.get("kubeconfig"), props.get("kube_context"))
        except NoClusterCredentials as error:
            raise RegistrationError(str(error)) from None
        target = through_api_server(props["platform_url"], access)
    else:
        tls = TlsSettings(props.get("ca_bundle"), props.get("insecure_skip_tls_verify") is True)
        target = direct(props["platform_url"], tls)
    return target.with_admin(AdminCredentials.from_props(props.get("admin_credentials")))


def platform_api(props: dict[str, Any]) -> PlatformApi:
    schedule = ("retry_initial_seconds", "retry_max_seconds", "deadline_seconds")
    return PlatformApi(destination(checked(props)), RetryPolicy(*(float(inputs.value(props, k)) for k in schedule)))


def approved_if_asked(api: PlatformApi, props: dict[str, Any], uuid: str, status: Any) -> Any:
    """The status once the record is approved, when ``approve`` asks and it waits for it."""
    if props.get("approve") is True and api.is_admin and status == "waitingForApproval":
        api.approve(uuid)
        return "connected"
    return status


class RegistrationProvider(ResourceProvider):
    def configure(self, req: ConfigureRequest) -> None:
        """Called by the dynamic-provider host once it has loaded this provider."""
        provider_host.adapt()

    def check(self, _olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        """Inputs that cannot work fail at preview, before anything is sent."""
        failures = [CheckFailure(name, problem) for name, problem in problems(news, provider_host.holds_unknown)]
        return CheckResult(news, failures)

    def create(self, props: dict[str, Any]) -> CreateResult:
        api = platform_api(props)
        adopt = props.get("adopt_uuid")
        if adopt:
            uuid, status = checked_uuid(adopt, "registration.uuid (config)"), self._adopted_status(api, adopt)
        else:
            uuid, status = recovery.recorded(props) or self._registered(api, props)
        status = approved_if_asked(api, props, uuid, status)
        outs = {**props, "uuid": uuid, "status": status, "registered_at": now_utc()}
        return CreateResult(id_=uuid, outs=outs)

    @staticmethod
    def _adopted_status(api: PlatformApi, uuid: str) -> str:
        if not api.is_admin:
            return UNKNOWN_STATUS
        record = api.get(uuid)
        if record is None:
            raise RegistrationError("the uuid set in registration.uuid is not a connector on the platform (status 404)")
        return record.status

    def _registered(self, api: PlatformApi, props: dict[str, Any]) -> tuple[str, str]:
        """Registered (or adopted), the outcome in the journal before the engine hears of it."""
        uuid, status = self._register(api, props)
        recovery.record(props, uuid, status)
        return uuid, status

    def _register(self, api: PlatformApi, props: dict[str, Any]) -> tuple[str, str]:
        version = inputs.value(props, "connector_version")
        attributes = (props.get("auth_attributes"), props.get("custom_attributes"))
        body = request_body(props["name"], version, props["url"], props["auth_type"], *attributes)
        try:
            registered = api.register(body)
        except Duplicate as duplicate:
            if not api.is_admin:
                raise RegistrationError(self._duplicate_message(duplicate.after_unanswered)) from None
            return self._adopt_duplicate(api, props["name"], props["url"], version)
        if registered.odd:
            _warn(f"registration of {label(props)}: the platform answered a {', '.join(registered.odd)} outside the API's; kept")
        return registered.uuid, registered.status

    @staticmethod
    def _duplicate_message(after_unanswered: bool) -> str:
        first = (
            "an earlier attempt of this run got no answer and may have registered it. "
            if after_unanswered
            else "the platform already has a connector with this name, or with this url and version (a registration "
            "answered 404 for an attribute that names no definition on the platform keeps its record too). "
        )
        return (
            f"registration failed with status 409: {first}Adopt it: set registration.uuid to its uuid, or give "
            "registration.adminCredentials so that it is found and adopted"
        )

    @staticmethod
    def _adopt_duplicate(api: PlatformApi, name: str, url: str, version: str) -> tuple[str, str]:
        """The existing record with this name, when it is this connector (same url and version)."""
        records = api.find(lambda r: r.name == name or (r.url == url and r.version == version))
        same_name = [r for r in records if r.name == name]
        for record in same_name:
            if record.url == url and record.version == version:
                return record.uuid, record.status
        if same_name:
            raise RegistrationError(
                "registration failed with status 409: a connector of the same name is registered with another url or "
                "version; rename this one, or adopt that one with registration.uuid (its uuid is on the platform)"
            )
        raise RegistrationError(
            "registration failed with status 409: another connector is registered with this url and version "
            "(its record is on the platform)"
        )

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        """An update (never a replacement) when any input changed; a change the platform must
        know is sent on update with admin credentials, else announced as kept on the platform."""
        changed = inputs.changed(olds, news)
        adopt = news.get("adopt_uuid")
        replaces = ["adopt_uuid"] if adopt and adopt != _id else []
        platform = inputs.config_names([k for k in (*inputs.PLATFORM, *inputs.IDENTITY) if k in changed])
        identity = inputs.config_names([k for k in inputs.IDENTITY if k in changed])
        if platform and not replaces and not news.get("admin_credentials"):
            _warn(
                f"registration of {label(news)}: {', '.join(platform)} changed; the platform keeps the old values "
                f"(no adminCredentials to edit the record). {REPLACE_HINT}"
            )
        elif platform and not replaces and identity:
            _warn(
                f"registration of {label(news)}: the platform cannot rename a connector or change its version in "
                f"place; it keeps the old name and version. {REPLACE_HINT}"
            )
        return DiffResult(
            changes=bool(changed), replaces=replaces, stables=["uuid", "registered_at"], delete_before_replace=False
        )

    def update(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> UpdateResult:
        """New inputs; with admin credentials, changed platform fields edit the record (one PUT,
        same uuid) and a newly asked approval approves; the register endpoint is never called."""
        status = olds.get("status")
        api = platform_api(news)
        if api.is_admin:
            uuid = checked_uuid(_id, STATE)
            if inputs.changed(olds, news, inputs.PLATFORM):
                body = edit_body(news["url"], news["auth_type"], news.get("auth_attributes"), news.get("custom_attributes"))
                record = api.edit(uuid, body)
                if record is None:
                    raise RegistrationError(
                        "updating the connector failed with status 404: its record is no longer on the platform; "
                        "refresh to forget it, then up registers it again"
                    )
                status = record.status
            status = approved_if_asked(api, news, uuid, status)
        return UpdateResult(outs={**news, "uuid": _id, "status": status, "registered_at": olds.get("registered_at")})

    def delete(self, _id: str, props: dict[str, Any]) -> None:
        """De-registers only when asked (``deregisterOnDestroy``) and able (admin credentials);
        a record already gone counts as done. Otherwise, like the operator, leaves it."""
        if props.get("deregister_on_destroy") is not True:
            return
        api = platform_api(props)
        if api.is_admin:
            api.delete(checked_uuid(_id, STATE))
            recovery.forget(props)

    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        """Refresh: with admin credentials, the platform's status; a record gone from the
        platform is gone from the state too (an empty id), so the next ``up`` registers again."""
        api = platform_api(props)
        if not api.is_admin:
            return ReadResult(id_=id_, outs=props)
        record = api.get(checked_uuid(id_, STATE))
        if record is None:
            recovery.forget(props)
            return ReadResult(id_="", outs={})
        return ReadResult(id_=id_, outs={**props, "status": record.status})
