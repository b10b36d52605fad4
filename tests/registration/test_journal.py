"""The registration journal in a file:// backend: entries written whole, read back, removed,
cleared; where the folder is; which backends keep one. And the registration's use of it: a
create that registered writes its outcome before returning; a create after a killed run returns
that outcome and posts nothing; a record deleted or found gone leaves the journal; a journal
that cannot be read stops the create before anything is sent; one that cannot be written warns
and lets the run keep the outcome."""

from __future__ import annotations

import json
import os
import pathlib

import pytest

from components.registration import journal
from components.registration.errors import RegistrationError
from components.registration.journal import Entry, FileJournal, JournalError
from components.registration.provider import RegistrationProvider, subject

from ..support.platform_double import ADMIN_TOKEN, PlatformDouble
from ..support.registration_props import registration_props


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
    entry = Entry("0b6c8a6e-7d2e-4a37-9b61-4f3c2a1d9e01", "waitingForApproval", journal.key_of("https://c", "v2"))
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


# The registration's use of the journal (the provider's create, read, delete).
URL = "http://x509.ilm.svc.cluster.local:8080"
REGISTER = ("POST", "/v2/connector/register")


@pytest.fixture
def journaled(tmp_path, monkeypatch) -> pathlib.Path:
    monkeypatch.setenv(journal.BACKEND_ENV, f"file://{tmp_path}")
    monkeypatch.setenv(journal.ENV, "connectors/dev")
    return tmp_path / ".pulumi" / "connector-journal" / "connectors" / "dev"


def props(double: PlatformDouble, **extra: object) -> dict:
    return registration_props(double.url, **{"url": URL, **extra})


def earlier(given: dict) -> journal.Earlier | None:
    return journal.earlier(subject(given))


def intend(given: dict) -> None:
    journal.intend(subject(given), "2026-12-04T00:00:00Z")


def test_a_create_after_a_killed_run_returns_the_journaled_outcome_and_posts_nothing(double, journaled):
    first = RegistrationProvider().create(props(double))
    assert [p.suffix for p in journaled.iterdir()] == [".json"]
    entry = journal.FileJournal(journaled).get(journaled.iterdir().__next__().stem)
    assert entry is not None and entry.uuid == first.id and entry.status == first.outs["status"]
    assert URL not in (journaled / f"{journal.entry_key(double.url, props(double)['name'])}.json").read_text()

    again = RegistrationProvider().create(props(double))  # the engine never saved the first one
    assert again.id == first.id and again.outs["status"] == first.outs["status"]
    assert double.count(*REGISTER) == 1 and len(double.records) == 1


def test_an_entry_for_another_url_or_version_is_not_this_registration(double, journaled):
    RegistrationProvider().create(props(double))
    for changed in ({"url": "http://elsewhere:8080"}, {"connector_version": "v1"}):
        assert earlier(props(double, **changed)) is None


def test_without_the_journal_nothing_is_written_and_every_create_posts(double, tmp_path, monkeypatch):
    monkeypatch.setenv(journal.BACKEND_ENV, f"file://{tmp_path}")
    monkeypatch.delenv(journal.ENV, raising=False)
    RegistrationProvider().create(props(double))
    assert not (tmp_path / ".pulumi").exists()
    assert earlier(props(double)) is None


def test_a_record_deregistered_or_found_gone_leaves_the_journal(double, journaled):
    admin = {"admin_credentials": {"bearerToken": ADMIN_TOKEN}, "deregister_on_destroy": True}
    created = RegistrationProvider().create(props(double, **admin))
    RegistrationProvider().delete(created.id, created.outs)
    assert earlier(props(double, **admin)) is None

    created = RegistrationProvider().create(props(double, **admin))
    double.records.clear()
    assert RegistrationProvider().read(created.id, created.outs).id == ""
    assert earlier(props(double, **admin)) is None
    assert double.count(*REGISTER) == 2


def test_an_unreadable_journal_stops_the_create_before_anything_is_sent(double, journaled):
    journaled.mkdir(parents=True)
    key = journal.entry_key(double.url, props(double)["name"])
    (journaled / f"{key}.json").write_text("{not json")
    with pytest.raises(RegistrationError) as raised:
        RegistrationProvider().create(props(double))
    assert "unreadable" in str(raised.value) and "nothing was sent to the platform" in str(raised.value)
    assert double.calls == []


def test_an_unwritable_journal_warns_and_the_outcome_is_still_returned(double, journaled, monkeypatch, capsys):
    def disk_full(*_: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(journal.os, "replace", disk_full)
    created = RegistrationProvider().create(props(double))
    assert created.id in double.records
    warning = capsys.readouterr().err
    assert "could not be written" in warning and "kept only when this run ends" in warning
    assert str(journaled) not in warning


def test_the_intent_is_in_the_journal_before_the_register_request_leaves(double, journaled, monkeypatch):
    from components.registration import platform_api

    seen: list[journal.Entry | None] = []
    register = platform_api.PlatformApi.register

    def watched(self: platform_api.PlatformApi, body: dict) -> platform_api.Registered:
        seen.append(journal.FileJournal(journaled).get(journal.entry_key(double.url, body["name"])))
        return register(self, body)

    monkeypatch.setattr(platform_api.PlatformApi, "register", watched)
    created = RegistrationProvider().create(props(double))
    (intent,) = seen
    assert intent is not None and intent.is_intent and intent.uuid == "" and intent.at.endswith("Z")
    assert earlier(props(double)) == journal.Earlier(created.id, created.outs["status"], interrupted=False)


def interrupted_post(double: PlatformDouble) -> dict:
    """The platform saved this stack's post; its answer never reached the journal (a kill)."""
    given = props(double)
    double.add(given["name"], given["url"], given["connector_version"])
    intend(given)
    return given


def test_a_409_after_this_stacks_interrupted_post_is_kept_without_a_uuid(double, journaled, capsys):
    from components.registration.contract import UUID_UNKNOWN

    created = RegistrationProvider().create(interrupted_post(double))
    assert (created.id, created.outs["uuid"], created.outs["status"]) == (UUID_UNKNOWN, "", "unknown")
    warning = capsys.readouterr().err
    assert "posted when its run was interrupted" in warning and "registration.adminCredentials" in warning
    assert double.url not in warning and URL not in warning

    again = RegistrationProvider().create(props(double))  # killed again before the state was saved
    assert again.id == UUID_UNKNOWN and double.count(*REGISTER) == 1


def test_a_409_after_an_interrupted_post_is_adopted_with_admin_credentials(double, journaled):
    given = interrupted_post(double)
    (record,) = double.records.values()
    created = RegistrationProvider().create({**given, "admin_credentials": {"bearerToken": ADMIN_TOKEN}})
    assert created.id == record.uuid and double.count(*REGISTER) == 1


def test_a_409_with_no_intent_or_an_intent_for_another_url_stays_an_error(double, journaled):
    given = props(double)
    double.add(given["name"], given["url"], given["connector_version"])
    intend({**given, "url": "http://elsewhere:8080"})
    with pytest.raises(RegistrationError) as raised:
        RegistrationProvider().create(given)
    assert str(raised.value).startswith("registration failed with status 409")


def test_a_refresh_with_admin_credentials_fills_the_unknown_uuid(double, journaled):
    from components.registration.contract import UUID_UNKNOWN

    created = RegistrationProvider().create(interrupted_post(double))
    (record,) = double.records.values()
    record.status = "connected"
    unchanged = RegistrationProvider().read(created.id, created.outs)
    assert unchanged.id == UUID_UNKNOWN
    admin = {**created.outs, "admin_credentials": {"bearerToken": ADMIN_TOKEN}}
    filled = RegistrationProvider().read(created.id, admin)
    assert (filled.id, filled.outs["uuid"], filled.outs["status"]) == (record.uuid, record.uuid, "connected")


def test_a_run_that_ends_well_counts_outcomes_not_intents(double, journaled):
    RegistrationProvider().create(props(double))
    intend(props(double, name="Other"))
    assert journal.FileJournal(journaled).clear() == 1


def test_a_refusal_that_saved_nothing_voids_the_intent(double, journaled):
    """The platform answered 409 for a record this stack never posted: the next run's 409 is no
    more its own than this one."""
    given = props(double)
    double.add(given["name"], "http://elsewhere:8080")
    for _ in range(2):
        with pytest.raises(RegistrationError, match="status 409"):
            RegistrationProvider().create(given)
        assert earlier(given) is None


def test_an_up_with_admin_credentials_fills_the_unknown_uuid_then_edits(double, journaled):
    from components.registration.contract import UUID_UNKNOWN

    created = RegistrationProvider().create(interrupted_post(double))
    (record,) = double.records.values()
    record.status = "connected"
    news = {**created.outs, "admin_credentials": {"bearerToken": ADMIN_TOKEN}, "url": "http://x509.ilm.svc.cluster.local:9090"}
    updated = RegistrationProvider().update(UUID_UNKNOWN, created.outs, news)
    assert (updated.outs["uuid"], updated.outs["status"]) == (record.uuid, "connected")
    assert record.url == news["url"], "edited once found"
    assert RegistrationProvider().read(UUID_UNKNOWN, updated.outs).id == record.uuid


def test_a_kubeconfig_that_cannot_be_read_stops_the_create_before_anything_is_journaled(double, journaled, tmp_path):
    given = registration_props(
        "http://core.ilm.svc.cluster.local:8080/api", route="apiServerProxy", kubeconfig=str(tmp_path / "missing")
    )
    with pytest.raises(RegistrationError):
        RegistrationProvider().create(given)
    assert not journaled.exists() or list(journaled.iterdir()) == []
