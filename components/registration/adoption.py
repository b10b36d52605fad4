"""Finding a connector's own record on the platform with an administrator's credentials: the
record a 409 points at (adopted when it is this connector: same name, url and version), the
status of a record named by ``registration.uuid``, and the record of a registration kept with
its uuid unknown. The platform lists only the records the caller may see, so "not found" is
said as "not visible"."""

from __future__ import annotations

from typing import Any

from components.registration import contract
from components.registration.errors import RegistrationError
from components.registration.platform_api import UNKNOWN_STATUS, ConnectorRecord, PlatformApi


def adopted_status(api: PlatformApi, uuid: str) -> str:
    if not api.is_admin:
        return UNKNOWN_STATUS
    record = api.get(uuid)
    if record is None:
        raise RegistrationError("the uuid set in registration.uuid is not a connector on the platform (status 404)")
    return record.status


def duplicate_message(after_unanswered: bool) -> str:
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


def adopt_duplicate(api: PlatformApi, name: str, url: str, version: str) -> tuple[str, str]:
    """The existing record with this name, when it is this connector (same url and version)."""
    records = api.find(lambda r: r.name == name or (r.url == url and r.version == version))
    same_name = [r for r in records if r.name == name]
    for record in same_name:
        if record.url == url and record.version == version:
            return record.uuid, record.status
    if same_name:
        raise RegistrationError(
            "registration failed with status 409: a connector of the same name is registered with another url or "
            "version; rename this one, or adopt that one with registration.uuid (its uuid is on the platform)",
            409,
        )
    if records:
        raise RegistrationError(
            "registration failed with status 409: another connector is registered with this url and version "
            "(its record is on the platform)",
            409,
        )
    raise RegistrationError(
        "registration failed with status 409: no record visible to the admin credentials has this name, or this "
        "url and version; the platform shows a caller only the connectors it may see, so these credentials may not "
        "see every connector: adopt the record with registration.uuid, or use credentials that can see it",
        409,
    )


def own_record(api: PlatformApi, props: dict[str, Any]) -> ConnectorRecord | None:
    """The record of this name, url and version the admin credentials can see, or None."""
    version = contract.value(props, "connector_version")
    found = api.find(lambda r: r.name == props["name"] and r.url == props["url"] and r.version == version)
    return found[0] if found else None
