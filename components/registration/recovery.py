"""The registration's use of the journal (``journal``): an outcome found there is returned
instead of posting again; an outcome the platform gives is written there before ``create``
returns; a record deleted, or found gone, leaves it."""

from __future__ import annotations

import sys
from typing import Any

from . import inputs, journal
from .errors import RegistrationError


def _key(props: dict[str, Any]) -> str:
    return journal.entry_key(str(props["platform_url"]), str(props["name"]))


def _matches(props: dict[str, Any]) -> str:
    return journal.digest(str(props["url"]), str(inputs.value(props, "connector_version")))


def recorded(props: dict[str, Any]) -> tuple[str, str] | None:
    """(uuid, status) of an earlier run that registered this connector but was stopped before
    its state was saved; None when there is none (or no journal). A journal that cannot be read
    stops the create before anything is sent."""
    try:
        book = journal.from_env()
        entry = book.get(_key(props)) if book is not None else None
    except journal.JournalError as error:
        raise RegistrationError(f"{error}; nothing was sent to the platform") from None
    return (entry.uuid, entry.status) if entry and entry.matches == _matches(props) else None


def record(props: dict[str, Any], uuid: str, status: str) -> None:
    """The platform's answer, in the journal before the engine hears of it. When the journal
    cannot take it the run goes on (its state, saved at its end, keeps the outcome) with a warning."""
    try:
        book = journal.from_env()
        if book is not None:
            book.put(_key(props), journal.Entry(uuid, str(status), _matches(props)))
    except journal.JournalError as error:
        _warn(f"{error}: the uuid is kept only when this run ends and saves its state")


def forget(props: dict[str, Any]) -> None:
    if not (props.get("platform_url") and props.get("name")):
        return
    try:
        book = journal.from_env()
        if book is not None:
            book.remove(_key(props))
    except journal.JournalError as error:
        _warn(str(error))


def _warn(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr, flush=True)
