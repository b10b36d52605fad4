"""The registration and its journal (``recovery``): a create that registered writes its outcome
before returning; a create after a killed run returns that outcome and posts nothing; a record
deleted or found gone leaves the journal; a journal that cannot be read stops the create before
anything is sent; one that cannot be written warns and lets the run keep the outcome."""

from __future__ import annotations

import pathlib

import pytest

from components.registration import journal, recovery
from components.registration.errors import RegistrationError
from components.registration.provider import RegistrationProvider

from ..support.platform_double import ADMIN_TOKEN, PlatformDouble
from ..support.registration_props import registration_props

URL = "http://x509.ilm.svc.cluster.local:8080"
REGISTER = ("POST", "/v2/connector/register")


@pytest.fixture
def journaled(tmp_path, monkeypatch) -> pathlib.Path:
    monkeypatch.setenv(journal.BACKEND_ENV, f"file://{tmp_path}")
    monkeypatch.setenv(journal.ENV, "connectors/dev")
    return tmp_path / ".pulumi" / "connector-journal" / "connectors" / "dev"


def props(double: PlatformDouble, **extra: object) -> dict:
    return registration_props(double.url, **{"url": URL, **extra})


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
        assert recovery.earlier(props(double, **changed)) is None


def test_without_the_journal_nothing_is_written_and_every_create_posts(double, tmp_path, monkeypatch):
    monkeypatch.setenv(journal.BACKEND_ENV, f"file://{tmp_path}")
    monkeypatch.delenv(journal.ENV, raising=False)
    RegistrationProvider().create(props(double))
    assert not (tmp_path / ".pulumi").exists()
    assert recovery.earlier(props(double)) is None


def test_a_record_deregistered_or_found_gone_leaves_the_journal(double, journaled):
    admin = {"admin_credentials": {"bearerToken": ADMIN_TOKEN}, "deregister_on_destroy": True}
    created = RegistrationProvider().create(props(double, **admin))
    RegistrationProvider().delete(created.id, created.outs)
    assert recovery.earlier(props(double, **admin)) is None

    created = RegistrationProvider().create(props(double, **admin))
    double.records.clear()
    assert RegistrationProvider().read(created.id, created.outs).id == ""
    assert recovery.earlier(props(double, **admin)) is None
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
    from components.registration import api

    seen: list[journal.Entry | None] = []
    register = api.PlatformApi.register

    def watched(self: api.PlatformApi, body: dict) -> api.Registered:
        seen.append(journal.FileJournal(journaled).get(journal.entry_key(double.url, body["name"])))
        return register(self, body)

    monkeypatch.setattr(api.PlatformApi, "register", watched)
    created = RegistrationProvider().create(props(double))
    (intent,) = seen
    assert intent is not None and intent.is_intent and intent.uuid == "" and intent.at.endswith("Z")
    assert recovery.earlier(props(double)) == recovery.Earlier(created.id, created.outs["status"], interrupted=False)


def interrupted_post(double: PlatformDouble) -> dict:
    """The platform saved this stack's post; its answer never reached the journal (a kill)."""
    given = props(double)
    double.add(given["name"], given["url"], given["connector_version"])
    recovery.intend(given)
    return given


def test_a_409_after_this_stacks_interrupted_post_is_kept_without_a_uuid(double, journaled, capsys):
    from components.registration.provider import UUID_UNKNOWN

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
    recovery.intend({**given, "url": "http://elsewhere:8080"})
    with pytest.raises(RegistrationError) as raised:
        RegistrationProvider().create(given)
    assert str(raised.value).startswith("registration failed with status 409")


def test_a_refresh_with_admin_credentials_fills_the_unknown_uuid(double, journaled):
    from components.registration.provider import UUID_UNKNOWN

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
    recovery.intend(props(double, name="Other"))
    assert journal.FileJournal(journaled).clear() == 1


def test_a_refusal_that_saved_nothing_voids_the_intent(double, journaled):
    """The platform answered 409 for a record this stack never posted: the next run's 409 is no
    more its own than this one."""
    given = props(double)
    double.add(given["name"], "http://elsewhere:8080")
    for _ in range(2):
        with pytest.raises(RegistrationError, match="status 409"):
            RegistrationProvider().create(given)
        assert recovery.earlier(given) is None


def test_an_up_with_admin_credentials_fills_the_unknown_uuid_then_edits(double, journaled):
    from components.registration.provider import UUID_UNKNOWN

    created = RegistrationProvider().create(interrupted_post(double))
    (record,) = double.records.values()
    record.status = "connected"
    news = {**created.outs, "admin_credentials": {"bearerToken": ADMIN_TOKEN}, "url": "http://x509.ilm.svc.cluster.local:9090"}
    updated = RegistrationProvider().update(UUID_UNKNOWN, created.outs, news)
    assert (updated.outs["uuid"], updated.outs["status"]) == (record.uuid, "connected")
    assert record.url == news["url"], "edited once found"
    assert RegistrationProvider().read(UUID_UNKNOWN, updated.outs).id == record.uuid
