"""The platform's connector API, as one client: register a connector, and with an
administrator's credentials read, edit, approve, list and delete connector records."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from .client import Answer, Destination, Operation, RegistrationError, RetryPolicy, Transport

PLATFORM_STATUSES = ("waitingForApproval", "connected", "failed", "offline")
REGISTER_PATH = "/v2/connector/register"
DEFAULT_RETRY = RetryPolicy()


class Duplicate(RegistrationError):
    """409 on register: a connector with this name, or with this url and version, exists."""


@dataclass(frozen=True)
class Registered:
    uuid: str
    status: str
    registered_at: str


@dataclass(frozen=True)
class ConnectorRecord:
    """What the platform holds for a connector (getConnectorV2 / listConnectorsV2)."""

    uuid: str
    name: str
    url: str
    version: str
    status: str

    @staticmethod
    def of(payload: Any) -> ConnectorRecord:
        if not isinstance(payload, dict) or not isinstance(payload.get("uuid"), str):
            raise RegistrationError("the platform answered a connector without a uuid")
        return ConnectorRecord(
            payload["uuid"],
            str(payload.get("name") or ""),
            str(payload.get("url") or ""),
            str(payload.get("version") or ""),
            str(payload.get("status") or "unknown"),
        )


def now_utc() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def register_url(platform_url: str) -> str:
    """The register endpoint of a platform URL, joined, never rewritten."""
    return Destination(platform_url).at(REGISTER_PATH)


def request_body(
    name: str,
    version: str,
    url: str,
    auth_type: str,
    auth_attributes: list[dict[str, Any]] | None,
    custom_attributes: list[dict[str, Any]] | None,
) -> dict[str, Any]:
    return {"name": name, "version": version, **edit_body(url, auth_type, auth_attributes, custom_attributes)}


def edit_body(url: str, auth_type: str, auth_attributes: Any, custom_attributes: Any) -> dict[str, Any]:
    return {
        "url": url,
        "authType": auth_type,
        "authAttributes": list(auth_attributes or []),
        "customAttributes": list(custom_attributes or []),
    }


def _registered(payload: Any, what: str) -> Registered:
    uuid = payload.get("uuid") if isinstance(payload, dict) else None
    if not isinstance(uuid, str) or not uuid.strip():
        raise RegistrationError(f"{what} failed: the platform answered without a uuid")
    status = payload.get("status")
    if status not in PLATFORM_STATUSES:
        raise RegistrationError(
            f"{what} failed: the platform answered an unknown status (expected one of {', '.join(PLATFORM_STATUSES)})"
        )
    return Registered(uuid=uuid, status=status, registered_at=now_utc())


class PlatformApi:
    """The connector operations on one destination. ``register`` needs no credentials; every
    other operation is an administrator's and needs ``destination.admin``."""

    def __init__(
        self,
        destination: Destination,
        retry: RetryPolicy = DEFAULT_RETRY,
        timeout_seconds: float = 30,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.destination = destination
        self.transport = Transport(destination, retry, timeout_seconds, sleep)

    @property
    def is_admin(self) -> bool:
        return self.destination.admin is not None

    def _send(self, operation: Operation) -> Answer:
        return self.transport.send(operation)

    def _admin(self, operation: Operation) -> Answer:
        if not self.is_admin:
            raise RegistrationError(f"{operation.what} needs administrator credentials")
        return self._send(operation)

    def register(self, body: dict[str, Any]) -> Registered:
        """POST the registration. A 409 raises ``Duplicate``."""
        answer = self._send(Operation("POST", REGISTER_PATH, body, passed_through=(409,)))
        if answer.status == 409:
            raise Duplicate("registration failed with status 409", 409)
        return _registered(answer.payload, "registration")

    def get(self, uuid: str) -> ConnectorRecord | None:
        """The record, or None when the platform has no connector with that uuid (404)."""
        answer = self._admin(Operation("GET", f"/v2/connectors/{uuid}", what="reading the connector", passed_through=(404,)))
        return None if answer.status == 404 else ConnectorRecord.of(answer.payload)

    def edit(self, uuid: str, body: dict[str, Any]) -> ConnectorRecord | None:
        """editConnectorV2: url, authType, authAttributes, customAttributes; None on 404."""
        operation = Operation("PUT", f"/v2/connectors/{uuid}", body, what="updating the connector", passed_through=(404,))
        answer = self._admin(operation)
        return None if answer.status == 404 else ConnectorRecord.of(answer.payload)

    def approve(self, uuid: str) -> None:
        self._admin(Operation("PATCH", f"/v2/connectors/{uuid}/approve", what="approving the connector", ok=(200, 204)))

    def delete(self, uuid: str) -> bool:
        """True when deleted, False when it was already gone (404)."""
        operation = Operation(
            "DELETE", f"/v2/connectors/{uuid}", what="de-registering the connector", ok=(200, 204), passed_through=(404,)
        )
        return self._admin(operation).status != 404

    def find(self, predicate: Callable[[ConnectorRecord], bool], page_size: int = 100) -> list[ConnectorRecord]:
        """Every record that matches, reading listConnectorsV2 page by page."""
        found: list[ConnectorRecord] = []
        page = 1
        while True:
            body = {"pageNumber": page, "itemsPerPage": page_size, "filters": []}
            answer = self._admin(Operation("POST", "/v2/connectors/list", body, what="listing connectors"))
            payload = answer.payload if isinstance(answer.payload, dict) else {}
            items = payload.get("items") or []
            found += [r for r in map(ConnectorRecord.of, items) if predicate(r)]
            if page >= int(payload.get("totalPages") or 1) or not items:
                return found
            page += 1
