"""The platform's API (``PlatformApi``, one per provider operation, whose calls share their
connections: a listing's pages, a register then an approve): register a connector, and with an
administrator's credentials read, edit, approve, list and delete connector records. Each call's
path, body, answer and messages stand together here; the HTTP client (``bounded_http``) sends
them. Every uuid an answer carries is checked before anything is built with it, and goes into a
path only percent-escaped; the register call carries no administrator credentials."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from components.bounded_http.destination import Destination
from components.bounded_http.failures import RequestError
from components.bounded_http.sender import Answer, Operation, Sender
from components.bounded_http.settings import DEFAULT, RetryPolicy
from components.bounded_http.transport import Deadline, open_client
from components.registration import contract
from components.registration.attributes import platform_attributes
from components.registration.errors import RegistrationError
from components.registration.rules import IdentifierError, checked_uuid, segment

MAX_PAGES = 100
"""Pages of a listing read at most."""
MAX_RECORDS = 10_000
"""Records of a listing read at most."""
PAGE_SIZE = 100
"""Records asked for per page of a listing."""
PLATFORM_STATUSES = ("waitingForApproval", "connected", "failed", "offline")
UNKNOWN_STATUS = "unknown"
REGISTER_PATH = "/v2/connector/register"
CONNECTORS_PATH = "/v2/connectors"
"""The connector records (getConnectorV2, editConnectorV2, deleteConnectorV2; ``/list``, ``/<uuid>/approve``)."""
REGISTER_UNANSWERED = (
    "; an attempt got no answer and may have registered the connector: the next run meets status 409 and adopts "
    "the record with registration.adminCredentials (or set registration.uuid to its uuid)"
)
NOT_FOUND_ON_REGISTER = (
    "registration failed with status 404: either platformUrl lacks its /api prefix, or an attribute names no "
    "attribute definition on the platform, which then keeps the record (waitingForApproval): create the attribute "
    "definition on the platform, then adopt the record with registration.adminCredentials (or set registration.uuid "
    "to its uuid)"
)
EDIT_REFUSED = (
    "updating the connector failed with status 422: the platform edits only approved connectors, and this one is not "
    "approved (it waits for approval): approve it (registration.approve: true, or in the platform's UI), or register "
    "it anew: pulumi up --replace <urn of the registration>"
)
ANSWERED = "the uuid in the platform's answer"
REGISTER_ANSWER = "registration failed: the uuid in the platform's answer"


# The request bodies.


def register_body(props: Mapping[str, Any]) -> dict[str, Any]:
    """The register request's body (registerConnectorV2), attributes in the platform's form."""
    return {"name": props["name"], "version": contract.value(props, "connector_version"), **edit_body(props)}


def edit_body(props: Mapping[str, Any]) -> dict[str, Any]:
    """The fields the platform's record holds and an edit sends (editConnectorV2)."""
    return {
        "url": props["url"],
        "authType": props["auth_type"],
        "authAttributes": platform_attributes(props.get("auth_attributes")),
        "customAttributes": platform_attributes(props.get("custom_attributes")),
    }


def record_path(uuid: str) -> str:
    """A connector record's path, its uuid checked and percent-escaped."""
    return f"{CONNECTORS_PATH}/{segment(uuid)}"


class Duplicate(RegistrationError):
    """409 on register: a connector with this name, or with this url and version, exists."""

    def __init__(self, message: str, after_unanswered: bool = False) -> None:
        super().__init__(message, 409)
        self.after_unanswered = after_unanswered


@dataclass(frozen=True)
class Registered:
    uuid: str
    status: str
    unexpected: tuple[str, ...] = ()
    """Fields of the answer outside the documented shape (the record is kept all the same)."""


@dataclass(frozen=True)
class ConnectorRecord:
    """What the platform holds for a connector (getConnectorV2 / listConnectorsV2)."""

    uuid: str
    name: str
    url: str
    version: str
    status: str

    @staticmethod
    def of(payload: Any, source: str) -> ConnectorRecord:
        if not isinstance(payload, dict):
            raise RegistrationError(f"{source.removeprefix('the uuid in ')}: a connector record that is not an object")
        name, url, version = (value if isinstance(value := payload.get(key), str) else "" for key in ("name", "url", "version"))
        status = payload.get("status")
        known = status if status in PLATFORM_STATUSES else UNKNOWN_STATUS
        return ConnectorRecord(checked_uuid(payload.get("uuid"), source), name, url, version, known)


def registered(payload: Any) -> Registered:
    """The record the register answer describes: kept whenever its uuid is one, unexpected status or not."""
    uuid = payload.get("uuid") if isinstance(payload, dict) else None
    if uuid is None:
        raise RegistrationError("registration failed: the platform answered without a uuid")
    try:
        checked_uuid(uuid, REGISTER_ANSWER)
    except IdentifierError as error:
        raise IdentifierError(
            f"{error}. The platform may hold a record for this connector now: find its uuid on the platform and set "
            "registration.uuid to adopt it, or give registration.adminCredentials so that the next run finds it"
        ) from None
    status = payload.get("status")
    if status in PLATFORM_STATUSES:
        return Registered(uuid, status)
    return Registered(uuid, UNKNOWN_STATUS, unexpected=("status",))


class PlatformApi:
    """The connector operations on one destination. ``register`` goes without the
    administrator's credentials; every other operation is an administrator's."""

    def __init__(
        self,
        destination: Destination,
        retry: RetryPolicy = DEFAULT,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.destination = destination
        self.retry, self.sleep, self.clock = retry, sleep, clock
        self.deadline = Deadline(retry.deadline_seconds, clock)
        """One deadline for every call this client makes (a provider builds one per operation)."""
        self._clients: dict[bool, httpx.Client] = {}
        self._opened: contextlib.ExitStack | None = None

    def __enter__(self) -> PlatformApi:
        """Within ``with``, the calls of one operation share a connection per destination (with
        and without admin credentials): a listing's pages, a register then an approve."""
        self._opened = contextlib.ExitStack()
        return self

    def __exit__(self, *_: object) -> None:
        opened, self._opened = self._opened, None
        self._clients.clear()
        if opened is not None:
            opened.close()

    def _client(self, destination: Destination, admin: bool) -> httpx.Client | None:
        """The operation's client for this destination, opened on first use; None outside ``with``."""
        if self._opened is None:
            return None
        if admin not in self._clients:
            self._clients[admin] = self._opened.enter_context(open_client(destination, self.deadline))
        return self._clients[admin]

    @property
    def is_admin(self) -> bool:
        return self.destination.admin is not None

    def _send(self, operation: Operation, admin: bool = True) -> Answer:
        if admin and not self.is_admin:
            raise RegistrationError(f"{operation.what} needs administrator credentials")
        destination = self.destination if admin else self.destination.with_admin(None)
        sender = Sender(destination, self.retry, self.sleep, self.clock, self.deadline)
        try:
            return sender.send(operation, self._client(destination, admin))
        except RegistrationError:
            raise
        except RequestError as failure:
            raise RegistrationError(str(failure), failure.status) from None

    def register(self, body: dict[str, Any]) -> Registered:
        """POST the registration. A 409 raises ``Duplicate``; a 404 says what it may have left
        on the platform (the Core saves the record before it looks the attributes' definitions up)."""
        operation = Operation("POST", REGISTER_PATH, body, passed_through=(404, 409), unanswered=REGISTER_UNANSWERED)
        answer = self._send(operation, admin=False)
        if answer.status == 404:
            raise RegistrationError(NOT_FOUND_ON_REGISTER, 404)
        if answer.status == 409:
            raise Duplicate("registration failed with status 409", answer.after_unanswered)
        return registered(answer.payload)

    def get(self, uuid: str) -> ConnectorRecord | None:
        """The record, or None when the platform has no connector with that uuid (404)."""
        answer = self._send(Operation("GET", record_path(uuid), what="reading the connector", passed_through=(404,)))
        return None if answer.status == 404 else ConnectorRecord.of(answer.payload, f"{ANSWERED} to reading it")

    def edit(self, uuid: str, body: dict[str, Any]) -> ConnectorRecord | None:
        """editConnectorV2: url, authType, authAttributes, customAttributes; None on 404."""
        operation = Operation("PUT", record_path(uuid), body, what="updating the connector", passed_through=(404, 422))
        answer = self._send(operation)
        if answer.status == 422:
            raise RegistrationError(EDIT_REFUSED, 422)
        return None if answer.status == 404 else ConnectorRecord.of(answer.payload, f"{ANSWERED} to updating it")

    def approve(self, uuid: str) -> bool:
        """True when approved; False when the platform refused (422: the record does not wait
        for approval, say approved already)."""
        path = f"{record_path(uuid)}/approve"
        return (
            self._send(Operation("PATCH", path, what="approving the connector", ok=(200, 204), passed_through=(422,))).status
            != 422
        )

    def delete(self, uuid: str) -> bool:
        """True when deleted, False when it was already gone (404)."""
        what = "de-registering the connector"
        operation = Operation("DELETE", record_path(uuid), what=what, ok=(200, 204), passed_through=(404,))
        return self._send(operation).status != 404

    def find(self, predicate: Callable[[ConnectorRecord], bool]) -> list[ConnectorRecord]:
        """Every record that matches, reading listConnectorsV2 page by page: until the last
        page, a page that adds no record not seen before, or ``MAX_PAGES``."""
        found: dict[str, ConnectorRecord] = {}
        seen: set[str] = set()
        for page in range(1, MAX_PAGES + 1):
            body = {"pageNumber": page, "itemsPerPage": PAGE_SIZE, "filters": []}
            payload = self._send(Operation("POST", f"{CONNECTORS_PATH}/list", body, what="listing connectors")).payload
            items, pages = _page(payload)
            records = [ConnectorRecord.of(item, "a uuid in the platform's list answer") for item in items]
            new = [r for r in records if r.uuid not in seen]
            seen.update(r.uuid for r in records)
            if len(seen) > MAX_RECORDS:
                raise RegistrationError(f"listing connectors stopped after {MAX_RECORDS} records")
            found.update((r.uuid, r) for r in new if predicate(r))
            if page >= pages or not new:
                return list(found.values())
        raise RegistrationError(f"listing connectors stopped after {MAX_PAGES} pages without reaching the last")


def _page(payload: Any) -> tuple[list[Any], int]:
    """A list answer's items and page count; an answer of another shape is refused."""
    if not isinstance(payload, dict):
        raise RegistrationError("listing connectors failed: the platform's answer was not a page of connectors")
    items, pages = payload.get("items") or [], payload.get("totalPages")
    pages = 1 if pages is None else pages
    if not isinstance(items, list) or isinstance(pages, bool) or not isinstance(pages, int) or pages < 0:
        raise RegistrationError("listing connectors failed: the platform's answer was not a page of connectors")
    return items, pages
