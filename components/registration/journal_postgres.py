"""The registration journal in a ``postgres://`` state backend: a table of its own
(``connector_registration_journal``) in the database Pulumi keeps the stacks' state in.

Each call opens its own connection (psycopg 3, imported only here): the provider serves many
registrations on threads at once, and an entry is written in its own committed transaction
before ``create`` returns.
"""

from __future__ import annotations

import threading
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from components.registration.journal import POSTING, Entry, JournalError

__all__ = ["state_record"]

TABLE = "connector_registration_journal"
LIBPQ_PARAMETERS = {"sslmode", "sslrootcert", "sslcert", "sslkey", "connect_timeout", "application_name", "options"}
"""Query parameters libpq reads; others in Pulumi's URL (its own table name) are not for it."""
_made: set[str] = set()
_making = threading.Lock()
CREATE = (
    f"CREATE TABLE IF NOT EXISTS {TABLE} (stack text NOT NULL, key text NOT NULL, "
    "uuid text NOT NULL, status text NOT NULL, matches text NOT NULL, PRIMARY KEY (stack, key))"
)
ADD_TIME = f"ALTER TABLE {TABLE} ADD COLUMN IF NOT EXISTS at text NOT NULL DEFAULT ''"
"""The entry's time, added after the table's first version (a table made by it gains the column)."""


def libpq_url(backend_url: str) -> str:
    parts = urllib.parse.urlsplit(backend_url)
    kept = [(k, v) for k, v in urllib.parse.parse_qsl(parts.query) if k in LIBPQ_PARAMETERS]
    return urllib.parse.urlunsplit(("postgresql", parts.netloc, parts.path, urllib.parse.urlencode(kept), ""))


class PostgresJournal:
    def __init__(self, backend_url: str, stack: str) -> None:
        self.url = libpq_url(backend_url)
        self.stack = stack

    @contextmanager
    def _cursor(self) -> Iterator[Any]:
        try:
            import psycopg
        except ImportError:
            raise JournalError("the registration journal in PostgreSQL needs psycopg (pip install 'psycopg[binary]')") from None
        try:
            with psycopg.connect(self.url, autocommit=True, connect_timeout=30) as connection:
                cursor = connection.cursor()
                self._make_table(cursor, psycopg.errors.UniqueViolation)
                yield cursor
        except psycopg.Error as error:
            raise JournalError(f"the registration journal in PostgreSQL failed ({type(error).__name__})") from None

    def _make_table(self, cursor: Any, raced: type[Exception]) -> None:
        """Once per process and database; two processes creating it at once: one wins, both go on."""
        with _making:
            if self.url in _made:
                return
            for statement in (CREATE, ADD_TIME):
                try:
                    cursor.execute(statement)
                except raced:
                    pass
            _made.add(self.url)

    def get(self, key: str) -> Entry | None:
        with self._cursor() as cursor:
            cursor.execute(f"SELECT uuid, status, matches, at FROM {TABLE} WHERE stack = %s AND key = %s", (self.stack, key))
            row = cursor.fetchone()
        return Entry(*row) if row else None

    def put(self, key: str, entry: Entry) -> None:
        with self._cursor() as cursor:
            cursor.execute(
                f"INSERT INTO {TABLE} (stack, key, uuid, status, matches, at) VALUES (%s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (stack, key) DO UPDATE SET uuid = EXCLUDED.uuid, status = EXCLUDED.status, "
                "matches = EXCLUDED.matches, at = EXCLUDED.at",
                (self.stack, key, entry.uuid, entry.status, entry.matches, entry.at),
            )

    def remove(self, key: str) -> None:
        with self._cursor() as cursor:
            cursor.execute(f"DELETE FROM {TABLE} WHERE stack = %s AND key = %s", (self.stack, key))

    def clear(self) -> int:
        with self._cursor() as cursor:
            cursor.execute(f"DELETE FROM {TABLE} WHERE stack = %s RETURNING status", (self.stack,))
            return sum(status != POSTING for (status,) in cursor.fetchall())


def state_record(backend_url: str, key: str) -> str:
    """The digest and time of the state Pulumi keeps under ``key`` in its own table (``?table=``,
    else ``pulumi_state``); "" when it holds none."""
    import psycopg
    from psycopg import sql

    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(backend_url).query))
    table = query.get("table") or "pulumi_state"
    try:
        with psycopg.connect(libpq_url(backend_url), autocommit=True, connect_timeout=30) as connection:
            found = connection.execute(
                sql.SQL("SELECT md5(data::text), updated_at::text FROM {} WHERE key = %s").format(sql.Identifier(table)),
                (f"{table}/{key}",),  # Pulumi files every key under its table's name
            ).fetchone()
    except psycopg.Error as error:
        raise JournalError(f"the state backend's record of the stack could not be read ({type(error).__name__})") from None
    return " ".join(found) if found else ""
