"""The registration journal in a file:// backend: entries written whole, read back, removed,
cleared; where the folder is; which backends keep one."""

from __future__ import annotations

import json
import os
import pathlib

import pytest

from components.registration import journal
from components.registration.journal import Entry, FileJournal, JournalError


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("file:///var/state", "/var/state"),
        ("file:///var/state?no_tmp_dir=true", "/var/state"),
        ("file://~/state", os.path.expanduser("~/state")),
        ("file:///var/with%20space", "/var/with space"),
    ],
)
def test_the_folder_of_a_file_backend(url, expected):
    assert journal.file_backend_root(url) == pathlib.Path(expected)


@pytest.mark.parametrize(
    ("url", "kept"),
    [
        ("file:///s", True),
        ("postgres://u:p@h/db", True),
        ("postgresql://h/db", True),
        ("s3://bucket", False),
        ("https://api.pulumi.com", False),
    ],
)
def test_which_backends_keep_a_journal(url, kept):
    assert journal.supports(url) is kept


def test_a_backend_without_a_journal_is_refused_without_its_url():
    with pytest.raises(JournalError) as raised:
        journal.open_journal("s3://secret-bucket-name", "connectors/dev")
    assert "secret-bucket-name" not in str(raised.value)


def test_one_key_per_name_on_one_platform():
    key = journal.entry_key("https://core/api", "c1")
    assert key == journal.entry_key("https://core/api/", "c1"), "a trailing slash names the same platform"
    assert key != journal.entry_key("https://core/api", "c2")
    assert key != journal.entry_key("https://other/api", "c1")


def test_an_entry_is_written_whole_read_back_and_removed(tmp_path):
    book = journal.open_journal(f"file://{tmp_path}", "connectors/dev")
    assert isinstance(book, FileJournal)
    assert book.folder == tmp_path / ".pulumi" / "connector-journal" / "connectors" / "dev"
    assert book.get("k") is None
    entry = Entry("0b6c8a6e-7d2e-4a37-9b61-4f3c2a1d9e01", "waitingForApproval", journal.digest("https://c", "v2"))
    book.put("k", entry)
    assert book.get("k") == entry
    assert [p.name for p in book.folder.iterdir()] == ["k.json"], "no temporary file left"
    book.put("k", Entry(entry.uuid, "connected", entry.matches))
    assert book.get("k").status == "connected"
    book.remove("k")
    book.remove("k")
    assert book.get("k") is None


def test_clear_empties_the_stack_and_leaves_the_others(tmp_path):
    dev, prod = (journal.open_journal(f"file://{tmp_path}", f"connectors/{s}") for s in ("dev", "prod"))
    for book in (dev, prod):
        book.put("a", Entry("u", "s", "m"))
    assert dev.clear() == 1
    assert dev.get("a") is None and not dev.folder.exists()
    assert dev.clear() == 0
    assert prod.get("a") == Entry("u", "s", "m")


def test_an_unreadable_entry_is_an_error_that_repeats_nothing_of_it(tmp_path):
    book = FileJournal(tmp_path)
    (tmp_path / "k.json").write_text('{"uuid": "secret-looking-value"')
    with pytest.raises(JournalError) as raised:
        book.get("k")
    assert "secret-looking-value" not in str(raised.value) and "unreadable" in str(raised.value)


def test_an_unwritable_journal_is_an_error(tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(JournalError, match="could not be written"):
        FileJournal(tmp_path / "file" / "below").put("k", Entry("u", "s", "m"))


def test_the_journal_is_on_only_when_the_run_asks(tmp_path, monkeypatch):
    monkeypatch.setenv(journal.BACKEND_ENV, f"file://{tmp_path}")
    monkeypatch.delenv(journal.ENV, raising=False)
    assert journal.from_env() is None
    monkeypatch.setenv(journal.ENV, "connectors/dev")
    book = journal.from_env()
    assert isinstance(book, FileJournal) and book.folder.parts[-2:] == ("connectors", "dev")


def test_the_package_names_its_journal_from_the_requests_urn():
    assert journal.stack_of("urn:pulumi:dev::connectors-yaml::connectors:index:Registration::a") == "connectors-yaml/dev"
    assert journal.stack_of("urn:pulumi:org/dev::p::t$connectors:index:Registration::a") == "p/org/dev"
    assert journal.stack_of("not-a-urn") is None


def test_the_package_journals_in_the_backend_the_cli_was_given_or_logged_in_to(monkeypatch, tmp_path):
    monkeypatch.delenv(journal.ENV, raising=False)
    monkeypatch.delenv(journal.BACKEND_ENV, raising=False)
    monkeypatch.setenv("PULUMI_HOME", str(tmp_path / "home"))
    token = journal.STACK.set("p/dev")
    try:
        assert journal.from_env() is None, "no backend known: the engine's checkpoints alone"
        (tmp_path / "home").mkdir()
        (tmp_path / "home" / "credentials.json").write_text(json.dumps({"current": f"file://{tmp_path}/state"}))
        book = journal.from_env()
        assert isinstance(book, FileJournal) and book.folder == tmp_path / "state" / ".pulumi" / "connector-journal" / "p" / "dev"
        monkeypatch.setenv(journal.BACKEND_ENV, "https://api.pulumi.com")
        assert journal.from_env() is None, "a backend that keeps no journal: the engine's checkpoints alone"
    finally:
        journal.STACK.reset(token)
    monkeypatch.setenv(journal.BACKEND_ENV, f"file://{tmp_path}/state")
    assert journal.from_env() is None, "no stack named: no journal"
