"""The registration's provider: a connector's record on the platform, for its whole life.

``create`` registers (or adopts a known record); the uuid is kept in state, so reruns never
register again. With an administrator's credentials it goes further: a change the platform
must know edits the record in place, ``approve`` approves it, ``deregisterOnDestroy`` deletes
it, and ``refresh`` reads it (a record deleted on the platform leaves the state, so the next
``up`` registers again, once). Without them, it does what the operator does: register once,
and nothing else.

The provider instance holds no client or credential (it is pickled into state): each method
builds what it needs from the resource's properties, checked first (``rules.problems``): they
also come from other languages and from old state.
"""

from __future__ import annotations

from datetime import UTC, datetime
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

from components.bounded_http.settings import RetryPolicy
from components.registration import adoption, contract, journal, provider_host, rules
from components.registration.contract import FILL_THE_UUID, REGISTERED_AT, STATUS, UUID, UUID_UNKNOWN, label
from components.registration.errors import RegistrationError, warn
from components.registration.platform_api import UNKNOWN_STATUS, Duplicate, PlatformApi, Registered, edit_body, register_body
from components.registration.route import cluster_access, destination, platform_api_for
from components.registration.rules import checked_uuid

REPLACE_HINT = "To register anew: pulumi up --replace <urn of the registration>"
STATE = "the uuid in the stack's state"


def subject(props: dict[str, Any]) -> journal.Subject:
    """Which registration the journal's entry is for."""
    platform_url, name, url = (str(props.get(k) or "") for k in ("platform_url", "name", "url"))
    return journal.Subject(platform_url, name, url, str(contract.value(props, "connector_version")))


GONE = "status 404: its record is no longer on the platform; refresh to forget it, then up registers it again"


def current_status(api: PlatformApi, uuid: str, what: str) -> str:
    """The record's status as the platform has it now (the state's may be stale)."""
    record = api.get(uuid)
    if record is None:
        raise RegistrationError(f"{what} failed with {GONE}", 404)
    return record.status


def approved_if_asked(api: PlatformApi, props: dict[str, Any], uuid: str, status: Any) -> Any:
    """The status once the record is approved, when ``approve`` asks and it waits for it. The
    platform approves only a record that waits (else 422): one approved meanwhile (in its UI,
    by another stack) is read back, not an error."""
    if props.get("approve") is not True or not api.is_admin or status != "waitingForApproval":
        return status
    if api.approve(uuid):
        return "connected"
    status = current_status(api, uuid, "approving the connector")
    if status == "waitingForApproval":
        raise RegistrationError("approving the connector failed with status 422", 422)
    return status


def known_uuid(id_: str, props: dict[str, Any]) -> str:
    """The record's uuid: the id, or for a registration kept with it unknown, what an update
    with admin credentials found since (empty while still unknown)."""
    return str(props.get(UUID) or "") if id_ == UUID_UNKNOWN else id_


def refused_unsaved(error: RegistrationError) -> bool:
    """The platform answered the register call with a refusal that saved nothing (a 4xx other
    than 404, after which the Core keeps the record), with no attempt left unanswered before it:
    the intent is void, and a later 409 is not this stack's own."""
    status = error.status or 0
    return 400 <= status < 500 and status != 404 and not getattr(error, "after_unanswered", False)


class RegistrationProvider(ResourceProvider):
    def configure(self, req: ConfigureRequest) -> None:
        """Called by the dynamic-provider host once it has loaded this provider."""
        provider_host.adapt()

    def check(self, _olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        """Inputs that cannot work fail at preview, before anything is sent."""
        failures = [CheckFailure(name, problem) for name, problem in rules.problems(news, provider_host.holds_unknown)]
        return CheckResult(news, failures)

    def create(self, props: dict[str, Any]) -> CreateResult:
        """Registered once: the inputs checked, an earlier run's outcome taken from the journal,
        else the intent journaled, the request posted, the outcome journaled before the engine
        hears of it. The API server's credentials (its route) are read before the journal is
        written: a kubeconfig that cannot be read journals nothing."""
        props = rules.checked(props)
        body, posting_at = register_body(props), now_utc()
        retry, access = RetryPolicy(*contract.schedule(props)), cluster_access(props)
        if props.get("adopt_uuid"):
            return self._adopted(props, PlatformApi(destination(props, access), retry))
        entry = journal.Subject(props["platform_url"], props["name"], props["url"], body["version"])
        found = journal.earlier(entry)
        posting = found is None or found.interrupted
        if posting:
            journal.intend(entry, posting_at)
        with PlatformApi(destination(props, access), retry) as api:
            try:
                answer = api.register(body) if posting else None
            except RegistrationError as error:
                uuid, status = self._refused(api, props, entry, error, interrupted=found is not None)
            else:
                uuid, status = self._outcome(props, answer, found)
            if posting:
                journal.record(entry, uuid, status, now_utc())
            if uuid:
                status = approved_if_asked(api, props, uuid, status)
        outs = {**props, UUID: uuid, STATUS: status, REGISTERED_AT: now_utc()}
        return CreateResult(id_=uuid or UUID_UNKNOWN, outs=outs)

    @staticmethod
    def _outcome(props: dict[str, Any], answer: Registered | None, found: journal.Earlier | None) -> tuple[str, str]:
        """The register answer's uuid and status (a field outside the API's warned of, kept), or
        the outcome an earlier run journaled."""
        if answer is None:
            return (found.uuid, found.status) if found is not None else ("", UNKNOWN_STATUS)
        if answer.unexpected:
            outside = ", ".join(answer.unexpected)
            warn(f"registration of {label(props)}: the platform answered a {outside} outside the API's; kept")
        return answer.uuid, answer.status

    def _adopted(self, props: dict[str, Any], client: PlatformApi) -> CreateResult:
        """``registration.uuid``: the record named there, its status read with admin credentials."""
        with client as api:
            uuid = checked_uuid(props["adopt_uuid"], "registration.uuid (config)")
            status = approved_if_asked(api, props, uuid, adoption.adopted_status(api, uuid))
        return CreateResult(id_=uuid, outs={**props, UUID: uuid, STATUS: status, REGISTERED_AT: now_utc()})

    def _refused(
        self, api: PlatformApi, props: dict[str, Any], entry: journal.Subject, error: RegistrationError, interrupted: bool
    ) -> tuple[str, str]:
        """After the register call failed: the outcome it still gives, or the error; a refusal
        that saved nothing (``refused_unsaved``) voids the journal's intent."""
        try:
            return self._after_refusal(api, props, error, interrupted)
        except RegistrationError as final:
            if refused_unsaved(final):
                journal.forget(entry)
            raise

    @staticmethod
    def _after_refusal(api: PlatformApi, props: dict[str, Any], error: RegistrationError, interrupted: bool) -> tuple[str, str]:
        """A 409 adopted (admin credentials) or, when it answers this stack's own interrupted
        post, kept with its uuid unknown (empty); anything else raised again."""
        if not isinstance(error, Duplicate):
            raise error
        if api.is_admin:
            return adoption.adopt_duplicate(api, props["name"], props["url"], contract.value(props, "connector_version"))
        if not interrupted:
            raise Duplicate(adoption.duplicate_message(error.after_unanswered), error.after_unanswered) from None
        warn(
            f"registration of {label(props)}: the platform holds a record this stack posted when its run was "
            f"interrupted (status 409 now); kept as registered, its uuid unknown. To fill it: {FILL_THE_UUID}"
        )
        return "", UNKNOWN_STATUS

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        """An update (never a replacement) when any input changed; a change the platform must
        know is sent on update with admin credentials, else announced as kept on the platform."""
        changed = contract.changed(olds, news)
        adopt = news.get("adopt_uuid")
        replaces = ["adopt_uuid"] if adopt and adopt != _id else []
        platform = contract.config_names([k for k in (*contract.PLATFORM, *contract.IDENTITY) if k in changed])
        identity = contract.config_names([k for k in contract.IDENTITY if k in changed])
        if platform and not replaces and not news.get("admin_credentials"):
            warn(
                f"registration of {label(news)}: {', '.join(platform)} changed; the platform keeps the old values "
                f"(no adminCredentials to edit the record). {REPLACE_HINT}"
            )
        elif platform and not replaces and identity:
            warn(
                f"registration of {label(news)}: the platform cannot rename a connector or change its version in "
                f"place; it keeps the old name and version. {REPLACE_HINT}"
            )
        return DiffResult(changes=bool(changed), replaces=replaces, stables=[UUID, REGISTERED_AT], delete_before_replace=False)

    def update(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> UpdateResult:
        """New inputs; with admin credentials, changed platform fields edit the record (one PUT,
        same uuid) and a newly asked approval approves; the register endpoint is never called."""
        with platform_api_for(news) as api:
            return self._update(api, _id, olds, news)

    def _update(self, api: PlatformApi, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> UpdateResult:
        uuid, status = known_uuid(_id, olds), olds.get(STATUS)
        if api.is_admin and not uuid:
            uuid, status = self._found(api, olds, status)  # the record as registered: the old url
        if api.is_admin and uuid:
            uuid = checked_uuid(uuid, STATE)
            if news.get("approve") is True:  # first: the platform edits only approved records
                status = approved_if_asked(api, news, uuid, current_status(api, uuid, "reading the connector"))
            if contract.changed(olds, news, contract.PLATFORM):
                record = api.edit(uuid, edit_body(news))
                if record is None:
                    raise RegistrationError(f"updating the connector failed with {GONE}", 404)
                status = record.status
        return UpdateResult(outs={**news, UUID: uuid, STATUS: status, REGISTERED_AT: olds.get(REGISTERED_AT)})

    def delete(self, _id: str, props: dict[str, Any]) -> None:
        """De-registers only when asked (``deregisterOnDestroy``) and able (admin credentials);
        a record already gone counts as done. Otherwise, like the operator, leaves it."""
        if props.get("deregister_on_destroy") is not True:
            return
        with platform_api_for(props) as api:
            self._deregister(api, _id, props)

    def _deregister(self, api: PlatformApi, _id: str, props: dict[str, Any]) -> None:
        if api.is_admin:
            uuid = known_uuid(_id, props) or ((own := adoption.own_record(api, props)) and own.uuid)
            if uuid:
                api.delete(checked_uuid(uuid, STATE))
            journal.forget(subject(props))

    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        """Refresh: with admin credentials, the platform's status; a record gone from the
        platform is gone from the state too (an empty id), so the next ``up`` registers again."""
        with platform_api_for(props) as api:
            return self._read(api, id_, props)

    def _read(self, api: PlatformApi, id_: str, props: dict[str, Any]) -> ReadResult:
        if not api.is_admin:
            return ReadResult(id_=id_, outs=props)
        if id_ == UUID_UNKNOWN:
            return self._filled(api, props)
        record = api.get(checked_uuid(id_, STATE))
        if record is None:
            journal.forget(subject(props))
            return ReadResult(id_="", outs={})
        return ReadResult(id_=id_, outs={**props, STATUS: record.status})

    def _filled(self, api: PlatformApi, props: dict[str, Any]) -> ReadResult:
        """A registration kept with its uuid unknown, its uuid found (the id becomes it)."""
        uuid, status = self._found(api, props, props.get(STATUS))
        return ReadResult(id_=uuid or UUID_UNKNOWN, outs={**props, UUID: uuid, STATUS: status})

    @staticmethod
    def _found(api: PlatformApi, props: dict[str, Any], status: Any) -> tuple[str, Any]:
        """The uuid and status of this registration's record, found by an admin; ("", status) with
        a warning when no visible record has its name, url and version."""
        record = adoption.own_record(api, props)
        if record is None:
            warn(
                f"registration of {label(props)}: no record of its name, url and version is visible to the admin "
                "credentials; its uuid stays unknown"
            )
            return "", status
        return record.uuid, record.status


def now_utc() -> str:
    """A time as ``registered_at`` holds it (ISO 8601, UTC, seconds)."""
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")
