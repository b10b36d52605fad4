"""The registration journal in a postgres:// backend, against a real PostgreSQL server."""

from __future__ import annotations

import threading

import pytest

from components.registration.journal import Entry, JournalError
from components.registration.journal_postgres import PostgresJournal, libpq_url


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("postgres://u:p@h:5432/db?sslmode=disable", "postgresql://u:p@h:5432/db?sslmode=disable"),
        ("postgres://u:p@h/db?table=pulumi_state&sslmode=require", "postgresql://u:p@h/db?sslmode=require"),
        ("postgresql://h/db", "postgresql://h/db"),
    ],
)
def test_the_url_libpq_is_given(url, expected):
    assert libpq_url(url) == expected


def test_entries_per_stack_in_their_own_table(postgres):
    dev, prod = PostgresJournal(postgres.backend_url, "connectors/dev"), PostgresJournal(postgres.backend_url, "connectors/prod")
    assert dev.get("k") is None
    dev.put("k", Entry("u1", "waitingForApproval", "m"))
    prod.put("k", Entry("u2", "connected", "m"))
    dev.put("k", Entry("u1", "connected", "m"))
    assert dev.get("k") == Entry("u1", "connected", "m")
    assert prod.get("k") == Entry("u2", "connected", "m")
    dev.remove("k")
    assert dev.get("k") is None and prod.get("k") is not None
    prod.put("other", Entry("u3", "s", "m"))
    assert prod.clear() == 2
    assert prod.get("k") is None and prod.get("other") is None
    rows = postgres.psql(
        "SELECT count(*) FROM connector_registration_journal WHERE stack IN ('connectors/dev', 'connectors/prod')"
    )
    assert rows.stdout.strip() == "0"


def test_many_writers_at_once(postgres):
    book = PostgresJournal(postgres.backend_url, "connectors/many")
    threads = [threading.Thread(target=book.put, args=(f"k{i}", Entry(f"u{i}", "s", "m"))) for i in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [book.get(f"k{i}").uuid for i in range(16)] == [f"u{i}" for i in range(16)]
    book.clear()


def test_a_server_that_cannot_be_reached_is_an_error_without_the_url(postgres):
    url = f"postgres://journal:hunter2-password@127.0.0.1:{postgres.port + 1}/db?connect_timeout=2"
    with pytest.raises(JournalError) as raised:
        PostgresJournal(url, "connectors/dev").get("k")
    assert "hunter2" not in str(raised.value) and "PostgreSQL" in str(raised.value)


def test_intents_keep_their_time_a_table_of_the_first_version_gains_it_and_clear_counts_outcomes(postgres):
    from components.registration import journal_postgres

    postgres.psql("DROP TABLE IF EXISTS connector_registration_journal")
    postgres.psql(
        "CREATE TABLE connector_registration_journal (stack text NOT NULL, key text NOT NULL, uuid text NOT NULL, "
        "status text NOT NULL, matches text NOT NULL, PRIMARY KEY (stack, key))"
    )
    postgres.psql("INSERT INTO connector_registration_journal VALUES ('connectors/old', 'k', 'u1', 'connected', 'm')")
    journal_postgres._made.clear()
    book = PostgresJournal(postgres.backend_url, "connectors/old")
    assert book.get("k") == Entry("u1", "connected", "m", "")
    book.put("i", Entry("", "posting", "m", "2026-12-03T10:00:00Z"))
    assert book.get("i") == Entry("", "posting", "m", "2026-12-03T10:00:00Z") and book.get("i").is_intent
    assert book.clear() == 1
