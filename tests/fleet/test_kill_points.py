"""Exactly once, whatever stops the run: ``up`` (its default: checkpoints skipped, every
registration's outcome journaled in the backend) killed outright at several points, with no
admin credentials; then ``cancel`` and a rerun: every connector is registered once, no
registration is posted twice, no 409 is met, and the journal is empty again. One stack on a
``file://`` backend, and a fleet on PostgreSQL.

The platform stand-in holds register calls once it has a given number of records
(``hold_after``): unsaved and unanswered while the run is killed, as requests still travelling."""

from __future__ import annotations

import pathlib
from collections import Counter
from typing import Any

import pytest

from components.app.command.change_detection import KEY as FINGERPRINT_KEY
from components.registration.journal import POSTING

from ..support.fleet_project import Project, connector, kill_when, names_registered, registrations_in

CONNECTORS = 6


def file_journal(project: Project) -> int:
    """The registrations' outcomes in the journal (intents, written before each request, and
    the stacks' fingerprints, written after an up that ended well, left out)."""
    state = pathlib.Path(project.env["PULUMI_BACKEND_URL"].removeprefix("file://"))
    entries = (state / ".pulumi" / "connector-journal").glob("*/*/*.json")
    return sum(POSTING not in path.read_text() and path.stem != FINGERPRINT_KEY for path in entries)


def postgres_journal(postgres: Any, stacks: list[str]) -> int:
    """As ``file_journal``, for this test's stacks only: the server is shared by the session's
    tests, and a test that failed leaves its entries behind."""
    names = ", ".join(f"'{name}'" for name in stacks)
    done = postgres.psql(
        "SELECT count(*) FROM connector_registration_journal WHERE "
        f"status <> '{POSTING}' AND key <> '{FINGERPRINT_KEY}' AND split_part(stack, '/', 2) IN ({names})"
    )
    assert done.returncode == 0 or "does not exist" in done.stderr, done.stderr
    return int(done.stdout.strip()) if done.returncode == 0 else 0


@pytest.mark.parametrize("registered", [0, 3, CONNECTORS], ids=["before-any", "mid-registration", "after-all"])
def test_a_stack_killed_at_any_point_registers_each_connector_once(file_project, double, registered):
    stack = "solo"
    file_project.add_stack(stack, [connector(stack, i, double.url) for i in range(CONNECTORS)])
    double.hold_after = registered if registered < CONNECTORS else None
    run = file_project.start("up", "--stack", stack)

    def ready() -> bool:
        travelling = double.held >= 1 or registered == CONNECTORS
        return travelling and file_journal(file_project) == registered

    kill_when(run, ready)
    double.hold_after = None
    double.released.set()
    assert len(double.records) == registered
    if run.returncode != 0:
        assert all("uuid" not in (r.get("outputs") or {}) for r in registrations_in(file_project.export(stack)))
        cancelled = file_project.run("cancel", "--stack", stack)
        assert cancelled.returncode == 0, cancelled.stdout + cancelled.stderr

    rerun = file_project.run("up", "--stack", stack)
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert names_registered(double) == Counter({f"{stack}-c{i}": 1 for i in range(CONNECTORS)})
    assert len(double.requests) == CONNECTORS, "no registration was posted twice"
    uuids = sorted(r["outputs"]["uuid"] for r in registrations_in(file_project.export(stack)))
    assert uuids == sorted(double.records)
    assert file_journal(file_project) == 0, "the run that ended well cleared the journal"


def test_a_fleet_killed_mid_registration_registers_each_connector_once(project, double, postgres):
    stacks = [f"lost-{i}" for i in range(4)]
    for stack in stacks:
        project.add_stack(stack, [connector(stack, c, double.url) for c in range(5)])
    double.hold_after = 7
    run = project.start("up", "--stacks", "lost-*", "--parallel", "2")

    def saved() -> int:
        """Registrations in the stacks' state; a stack whose run has not begun has none."""
        return sum(len(registrations_in(project.export(s, missing_ok=True))) for s in stacks)

    def ready() -> bool:
        if double.held < 1:
            return False
        rows = postgres_journal(postgres, stacks)
        return rows == 7 or (rows < 7 and rows + saved() == 7)

    kill_when(run, ready)
    assert run.returncode != 0
    double.hold_after = None
    double.released.set()
    assert len(double.records) == 7

    cancelled = project.run("cancel", "--stacks", "lost-*", "--parallel", "2")
    assert cancelled.returncode == 0, cancelled.stdout + cancelled.stderr
    rerun = project.run("up", "--stacks", "lost-*", "--parallel", "2")
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert names_registered(double) == Counter({f"{s}-c{c}": 1 for s in stacks for c in range(5)})
    assert len(double.requests) == 20, "no registration was posted twice"
    for stack in stacks:
        registered = registrations_in(project.export(stack))
        assert sorted(r["outputs"]["uuid"] for r in registered) == sorted(
            u for u, r in double.records.items() if r.name.startswith(stack)
        )
    assert postgres_journal(postgres, stacks) == 0


# A record the platform saved whose answer never arrived (``lose_answers_after``): the journal's
# intent makes its 409 on the next run this stack's own, kept with its uuid unknown.
def rerun_after_lost_answers(project: Project, double: Any, *args: str) -> str:
    """``cancel``, an ``up`` that succeeds, and a no-op ``up`` that sends nothing; what the ``up`` said."""
    double.lose_answers_after = None
    double.released.set()
    cancelled = project.run("cancel", *args)
    assert cancelled.returncode == 0, cancelled.stdout + cancelled.stderr
    rerun = project.run("up", *args)
    assert rerun.returncode == 0, rerun.stdout[-3000:] + rerun.stderr[-3000:]
    sent = len(double.requests)
    noop = project.run("up", *args)
    assert noop.returncode == 0 and len(double.requests) == sent, "a no-op rerun sends nothing"
    return rerun.stdout + rerun.stderr


def uuids_known(export: dict[str, Any]) -> list[str]:
    return [r["outputs"]["uuid"] for r in registrations_in(export) if r["outputs"]["uuid"]]


def test_a_stack_killed_while_answers_are_lost_registers_each_connector_once(file_project, double):
    stack = "lost"
    file_project.add_stack(stack, [connector(stack, i, double.url) for i in range(CONNECTORS)])
    double.lose_answers_after = 2
    run = file_project.start("up", "--stack", stack)
    kill_when(run, lambda: double.held >= 1)
    lost = double.held
    said = rerun_after_lost_answers(file_project, double, "--stack", stack)
    assert said.count("posted when its run was interrupted") >= lost  # each warning, also in the summary
    assert names_registered(double) == Counter({f"{stack}-c{i}": 1 for i in range(CONNECTORS)})
    export = file_project.export(stack)
    assert len(registrations_in(export)) == CONNECTORS and len(uuids_known(export)) == CONNECTORS - lost
    assert set(uuids_known(export)) < set(double.records)
    status = file_project.run("status", "--stack", stack)
    assert status.stdout.count(" uuid-unknown ") == lost, status.stdout


def test_a_fleet_killed_while_answers_are_lost_registers_each_connector_once(project, double, postgres):
    stacks = [f"gone-{i}" for i in range(4)]
    for stack in stacks:
        project.add_stack(stack, [connector(stack, c, double.url) for c in range(5)])
    double.lose_answers_after = 7
    run = project.start("up", "--stacks", "gone-*", "--parallel", "2")
    kill_when(run, lambda: double.held >= 2)
    assert run.returncode != 0
    rerun_after_lost_answers(project, double, "--stacks", "gone-*", "--parallel", "2")
    assert names_registered(double) == Counter({f"{s}-c{c}": 1 for s in stacks for c in range(5)})
    assert postgres_journal(postgres, stacks) == 0
