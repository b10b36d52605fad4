"""The registration's use of the journal (``journal``): an outcome found there is returned
instead of posting again; an intent is written before the register request leaves, and the
outcome the platform gives replaces it before ``create`` returns; a record deleted, or found
gone, leaves it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import inputs, journal
from .api import now_utc
from .errors import RegistrationError, warn


def _key(props: dict[str, Any]) -> str:
    return journal.entry_key(str(props["platform_url"]), str(props["name"]))


def _matches(props: dict[str, Any]) -> str:
    return journal.digest(str(props["url"]), str(inputs.value(props, "connector_version")))


@dataclass(frozen=True)
class Earlier:
    """What an earlier run of this stack left for this registration (same platform, name, url
    and version): its outcome, or only its intent (posted, its answer never journaled)."""

    uuid: str
    status: str
    interrupted: bool
    """Only the intent: the platform may hold a record this stack posted."""


def earlier(props: dict[str, Any]) -> Earlier | None:
    """What the journal holds for this registration; None when nothing (or no journal). A
    journal that cannot be read stops the create before anything is sent."""
    try:
        book = journal.from_env()
        entry = book.get(_key(props)) if book is not None else None
    except journal.JournalError as error:
        raise RegistrationError(f"{error}; nothing was sent to the platform") from None
    if entry is None or entry.matches != _matches(props):
        return None
    return Earlier(entry.uuid, entry.status, entry.is_intent)


def intend(props: dict[str, Any]) -> None:
    """The intent, in the journal before the register request leaves. When the journal cannot
    take it the run goes on with a warning: a lost answer is then a 409 as without a journal."""
    _put(props, journal.Entry("", journal.POSTING, _matches(props), now_utc()), "a lost answer cannot be told from a duplicate")


def record(props: dict[str, Any], uuid: str, status: str) -> None:
    """The platform's answer, in the journal before the engine hears of it. When the journal
    cannot take it the run goes on (its state, saved at its end, keeps the outcome) with a warning."""
    _put(props, journal.Entry(uuid, str(status), _matches(props), now_utc()), "the uuid is kept only when this run ends")


def _put(props: dict[str, Any], entry: journal.Entry, otherwise: str) -> None:
    try:
        book = journal.from_env()
        if book is not None:
            book.put(_key(props), entry)
    except journal.JournalError as error:
        warn(f"{error}: {otherwise}")


def forget(props: dict[str, Any]) -> None:
    if not (props.get("platform_url") and props.get("name")):
        return
    try:
        book = journal.from_env()
        if book is not None:
            book.remove(_key(props))
    except journal.JournalError as error:
        warn(str(error))
