"""The registration journal: each registration's outcome (uuid, status) written into the state
backend the moment the platform answers, before the engine hears of it.

Why: a run that skips the engine's checkpoints (``connectors up``'s default) saves its state only
when it ends, so a run killed midway would leave the platform holding records the state does not
know; the next run would post them again and meet a 409 that needs a person. With the journal,
``create`` first looks for its outcome there (same stack, platform, name, url and version) and
returns it without posting; what the platform answered is in the journal before ``create``
returns. Before the register request leaves, an intent is written (``POSTING``): a later run that
finds it and meets a 409 for the same name, url and version knows the record is its own earlier
post whose answer was lost (a kill between the platform's save and the journal's write).
``delete``, and a ``refresh`` that finds the record gone, remove its entry; a run that ends
well clears its stack's journal (the state holds everything then).

It is switched on by ``CONNECTORS_REGISTRATION_JOURNAL`` (``<project>/<stack>``), in the backend
``PULUMI_BACKEND_URL`` names: a ``file://`` folder (``.pulumi/connector-journal/`` beside
``.pulumi/stacks/``) or a ``postgres://`` database (``journal_postgres``). The component
package's provider, started by a plain ``pulumi up``, names the stack from each request's URN
(``STACK``) and takes the backend the CLI was given or logged in to; there the engine's own
checkpoints keep each outcome, so the journal's part is the intent (and an answer heard just
before a kill), and nothing clears it but a delete. An entry holds the uuid, the status, and a
digest of the url and version: nothing that could be a secret.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import os
import pathlib
import tempfile
import urllib.parse
from dataclasses import asdict, dataclass
from typing import Protocol

from components.registration.errors import RegistrationError, warn

ENV = "CONNECTORS_REGISTRATION_JOURNAL"
BACKEND_ENV = "PULUMI_BACKEND_URL"


class JournalError(Exception):
    """The journal could not be read or written (the message names what failed, never the URL)."""


POSTING = "posting"
"""The status of an intent: the register request is about to leave, its answer not yet heard."""


@dataclass(frozen=True)
class Entry:
    """An outcome (the platform's uuid and status), or an intent (``POSTING``, no uuid yet)."""

    uuid: str
    status: str
    matches: str
    """``key_of(url, version)``: the registration this outcome is for."""
    at: str = ""
    """When it was written (UTC, ISO 8601)."""

    @property
    def is_intent(self) -> bool:
        return self.status == POSTING


def key_of(*parts: str) -> str:
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def entry_key(platform_url: str, name: str) -> str:
    """One record per name on one platform: the journal's key for it."""
    return key_of(platform_url.rstrip("/"), name)


class Journal(Protocol):
    def get(self, key: str) -> Entry | None: ...

    def put(self, key: str, entry: Entry) -> None: ...

    def remove(self, key: str) -> None: ...

    def clear(self) -> int:
        """Every entry of the stack removed; how many of them were outcomes (not intents)."""


def supports(backend_url: str) -> bool:
    return backend_url.startswith(("file://", "postgres://", "postgresql://"))


def open_journal(backend_url: str, stack: str) -> Journal:
    """The journal of ``stack`` (``<project>/<stack>``) in the backend at ``backend_url``."""
    if backend_url.startswith("file://"):
        return FileJournal(file_backend_root(backend_url) / ".pulumi" / "connector-journal" / stack)
    if supports(backend_url):
        from components.registration.journal_postgres import PostgresJournal

        return PostgresJournal(backend_url, stack)
    raise JournalError("the state backend keeps no registration journal (only file:// and postgres:// do)")


STACK: contextvars.ContextVar[str | None] = contextvars.ContextVar("connectors_journal_stack", default=None)
"""``<project>/<stack>`` of the request being served by the component package's provider."""


def from_env() -> Journal | None:
    """The journal this run writes, or None when it has only the engine's checkpoints."""
    if stack := os.environ.get(ENV):
        backend = os.environ.get(BACKEND_ENV)
        return open_journal(backend, stack) if backend else None
    stack, backend = STACK.get(), os.environ.get(BACKEND_ENV) or logged_in_backend()
    return open_journal(backend, stack) if stack and backend and supports(backend) else None


def stack_of(urn: str) -> str | None:
    """``<project>/<stack>`` of a resource's URN (``urn:pulumi:<stack>::<project>::<type>::<name>``)."""
    parts = urn.split("::")
    if len(parts) < 4 or not parts[0].startswith("urn:pulumi:"):
        return None
    return f"{parts[1]}/{parts[0][len('urn:pulumi:') :]}"


def logged_in_backend() -> str | None:
    """The backend of ``pulumi login``, as the CLI keeps it (``current`` in its credentials file)."""
    home = pathlib.Path(os.environ.get("PULUMI_HOME") or pathlib.Path.home() / ".pulumi")
    try:
        current = json.loads((home / "credentials.json").read_text()).get("current")
    except (OSError, ValueError, AttributeError):
        return None
    return current if isinstance(current, str) and current else None


def file_backend_root(backend_url: str) -> pathlib.Path:
    """The folder of a ``file://`` backend, as the CLI reads it (``~`` is the home folder)."""
    path = backend_url[len("file://") :].split("?", 1)[0]
    return pathlib.Path(os.path.expanduser(urllib.parse.unquote(path)))


class FileJournal:
    """One small JSON file per entry, written whole (a temporary file, fsync, rename, fsync of
    the folder): a kill at any moment leaves the old entry or the new one, never half of one."""

    def __init__(self, folder: pathlib.Path) -> None:
        self.folder = folder

    def get(self, key: str) -> Entry | None:
        try:
            return Entry(**json.loads((self.folder / f"{key}.json").read_text()))
        except FileNotFoundError:
            return None
        except (OSError, ValueError, TypeError) as error:
            raise JournalError(f"an entry of the registration journal is unreadable ({type(error).__name__})") from None

    def put(self, key: str, entry: Entry) -> None:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile("w", dir=self.folder, suffix=".tmp", delete=False) as file:
                json.dump(asdict(entry), file)
                file.flush()
                os.fsync(file.fileno())
            os.replace(file.name, self.folder / f"{key}.json")
            self._sync_folder()
        except OSError as error:
            raise JournalError(f"the registration journal could not be written ({type(error).__name__})") from None

    def remove(self, key: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            (self.folder / f"{key}.json").unlink()

    def clear(self) -> int:
        removed = 0
        for path in self.folder.glob("*.json"):
            with contextlib.suppress(OSError, ValueError):
                removed += json.loads(path.read_text()).get("status") != POSTING
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        with contextlib.suppress(OSError):
            self.folder.rmdir()
        return removed

    def _sync_folder(self) -> None:
        descriptor = os.open(self.folder, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


# The registration's use of the journal: an outcome found here is returned instead of posting
# again; an intent is written before the register request leaves, and the outcome the platform
# gives replaces it before ``create`` returns; a record deleted, or found gone, leaves it.


@dataclass(frozen=True)
class Subject:
    """The registration an entry is for: its key (the platform and the connector's name), and
    the url and version it was posted with (kept only as a digest)."""

    platform_url: str
    name: str
    url: str = ""
    version: str = ""

    @property
    def key(self) -> str:
        return entry_key(self.platform_url, self.name)

    @property
    def matches(self) -> str:
        return key_of(self.url, self.version)


@dataclass(frozen=True)
class Earlier:
    """What an earlier run of this stack left for this registration (same platform, name, url
    and version): its outcome, or only its intent (posted, its answer never journaled)."""

    uuid: str
    status: str
    interrupted: bool
    """Only the intent: the platform may hold a record this stack posted."""


def earlier(subject: Subject) -> Earlier | None:
    """What the journal holds for this registration; None when nothing (or no journal). A
    journal that cannot be read stops the create before anything is sent."""
    try:
        kept = from_env()
        entry = kept.get(subject.key) if kept is not None else None
    except JournalError as error:
        raise RegistrationError(f"{error}; nothing was sent to the platform") from None
    if entry is None or entry.matches != subject.matches:
        return None
    return Earlier(entry.uuid, entry.status, entry.is_intent)


def intend(subject: Subject, at: str) -> None:
    """The intent, in the journal before the register request leaves. When the journal cannot
    take it the run goes on with a warning: a lost answer is then a 409 as without a journal."""
    _put(subject, Entry("", POSTING, subject.matches, at), "a lost answer cannot be told from a duplicate")


def record(subject: Subject, uuid: str, status: str, at: str) -> None:
    """The platform's answer, in the journal before the engine hears of it. When the journal
    cannot take it the run goes on (its state, saved at its end, keeps the outcome) with a warning."""
    _put(subject, Entry(uuid, str(status), subject.matches, at), "the uuid is kept only when this run ends")


def _put(subject: Subject, entry: Entry, otherwise: str) -> None:
    try:
        kept = from_env()
        if kept is not None:
            kept.put(subject.key, entry)
    except JournalError as error:
        warn(f"{error}: {otherwise}")


def forget(subject: Subject) -> None:
    if not (subject.platform_url and subject.name):
        return
    try:
        kept = from_env()
        if kept is not None:
            kept.remove(subject.key)
    except JournalError as error:
        warn(str(error))
