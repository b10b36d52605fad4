"""Teams and fleets on a real PostgreSQL state backend: the main command's backend choice, two
runs colliding on one stack, a run killed after the platform answered, and many stacks at once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter

import pytest

from ..conftest import ROOT
from ..support.fleet_project import REGISTER, connector, kill_tree, names_registered, registrations_in
from ..support.platform_double import ADMIN_TOKEN


def test_the_main_command_keeps_state_in_postgres(project, double, postgres):
    project.add_stack("team-a", [connector("team-a", 1, double.url)])
    first = project.run("up", "--stack", "team-a")
    assert first.returncode == 0, first.stdout + first.stderr
    export = project.export("team-a")
    (registration,) = registrations_in(export)
    assert registration["outputs"]["uuid"] in double.records
    assert not list((project.folder).glob(".pulumi-state")), "nothing in the local folder: the state is in PostgreSQL"
    keys = postgres.psql("SELECT key FROM pulumi_state").stdout
    assert ".pulumi/stacks/connectors/team-a.json" in keys


def test_two_runs_on_one_stack_at_once_one_is_refused_by_the_lock(project, double):
    project.add_stack("team-b", [connector("team-b", i, double.url) for i in range(3)])
    double.register_gate = threading.Event()  # the first run stays busy until the second is done
    first = project.start("up", "--stack", "team-b")
    deadline = time.monotonic() + 300
    while REGISTER not in double.calls:
        assert first.poll() is None, first.stdout.read() if first.stdout else ""
        assert time.monotonic() < deadline
        time.sleep(0.1)
    second = project.run("up", "--stack", "team-b")
    double.register_gate.set()
    out, _ = first.communicate(timeout=600)
    assert first.returncode == 0, out
    assert second.returncode != 0
    assert "the stack is currently locked" in second.stdout + second.stderr
    assert "Traceback" not in second.stdout + second.stderr
    assert names_registered(double) == Counter({f"team-b-c{i}": 1 for i in range(3)})
    assert len(double.requests) == 3

    rerun = project.run("up", "--stack", "team-b")
    assert rerun.returncode == 0 and len(double.requests) == 3
    assert sorted(r["outputs"]["uuid"] for r in registrations_in(project.export("team-b"))) == sorted(double.records)


@pytest.mark.parametrize("journal", [False, True], ids=["checkpoints", "journal"])
def test_a_run_killed_after_the_platform_answered_recovers_without_a_duplicate(project, double, journal):
    """The moment no journal can cover: the platform saved a record and the run died as its
    answer came back (journaled or not, by a hair). With admin credentials a record the journal
    missed is found and adopted (the stand-in's list call); either way it is registered once."""
    admin = {"adminCredentials": {"bearerToken": ADMIN_TOKEN}}
    stack = "team-d" if journal else "team-c"
    project.add_stack(stack, [connector(stack, i, double.url, **admin) for i in range(2)])
    way = [] if journal else ["--checkpoints"]
    run = project.start("up", "--stack", stack, *way)

    def kill_the_run() -> None:
        double.after_register = None
        kill_tree(run.pid)  # the run, the engine and its plugins, at once: before it saves a uuid

    double.after_register = kill_the_run
    run.wait(timeout=600)
    assert run.returncode == -signal.SIGKILL, run.stdout.read() if run.stdout else ""
    assert len(double.records) >= 1
    state = project.export(stack)
    assert all("uuid" not in (r.get("outputs") or {}) for r in registrations_in(state)), "killed before Pulumi saved a uuid"

    locked = project.run("up", "--stack", stack, *way)
    assert locked.returncode != 0 and "the stack is currently locked" in locked.stdout + locked.stderr
    cancelled = project.run("cancel", "--stack", stack)
    assert cancelled.returncode == 0, cancelled.stdout + cancelled.stderr

    recovered = project.run("up", "--stack", stack, *way)
    assert recovered.returncode == 0, recovered.stdout + recovered.stderr
    assert names_registered(double) == Counter({f"{stack}-c0": 1, f"{stack}-c1": 1}), "no duplicate on the platform"
    if journal:
        assert "pending operations" not in recovered.stdout, "nothing of the killed run was saved"
    else:
        assert "pending operations from previous deployment" in recovered.stdout
        registration_urns = [r["urn"] for r in registrations_in(project.export(stack))]
        targets = [f"--target={urn}" for urn in registration_urns]
        cleared = project.run("refresh", "--stack", stack, "--clear-pending-creates", *targets)
        assert cleared.returncode == 0, cleared.stdout + cleared.stderr
    export = project.export(stack)
    assert not export["deployment"].get("pending_operations"), "the interrupted creates are cleared"
    uuids = sorted(r["outputs"]["uuid"] for r in registrations_in(export))
    assert uuids == sorted(double.records)
    again = project.run("up", "--stack", stack, *way)
    assert again.returncode == 0 and sorted(double.records) == uuids


def test_a_fleet_of_12_stacks_registers_every_connector_once(project, double):
    stacks = [f"fleet-{i:02d}" for i in range(12)]
    for stack in stacks:
        project.add_stack(stack, [connector(stack, c, double.url) for c in range(5)])
    project.add_stack("other", [connector("other", 0, double.url)])

    first = project.run("up", "--stacks", "fleet-*", "--parallel", "4")
    assert first.returncode == 0, first.stdout + first.stderr
    assert "12 stacks: 12 succeeded, 0 unchanged (not run), 0 failed" in first.stdout
    assert names_registered(double) == Counter({f"{s}-c{c}": 1 for s in stacks for c in range(5)})
    table = {line.split()[0]: line.split() for line in first.stdout.splitlines() if line.startswith("fleet-")}
    assert set(table) == set(stacks)
    assert all(row[1] == "succeeded" and row[-1] == "5" for row in table.values()), "5 registrations each"

    rerun = project.run("up", "--stacks", "fleet-*", "--parallel", "4", "--all")
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert len(double.requests) == 60, "a rerun of the fleet sends nothing"
    rows = [line.split() for line in rerun.stdout.splitlines() if line.startswith("fleet-")]
    assert all(row[1] == "succeeded" and row[2] == "none" and row[-1] == "0" for row in rows if len(row) > 3)
    unchanged = project.run("up", "--stacks", "fleet-*", "--parallel", "4")
    assert "12 stacks: 0 succeeded, 12 unchanged (not run), 0 failed" in unchanged.stdout, unchanged.stdout
    assert len(double.requests) == 60

    for stack in stacks:
        export = project.export(stack)
        registered = registrations_in(export)
        assert len(registered) == 5 and all(r["outputs"]["uuid"] in double.records for r in registered)
        assert sum(r["type"] == "connectors:index:Connector" for r in export["deployment"]["resources"]) == 5
        assert not export["deployment"].get("pending_operations")


def test_one_failing_stack_does_not_stop_the_others(project, double):
    for stack in ("batch-a", "batch-c"):
        project.add_stack(stack, [connector(stack, 0, double.url)])
    broken = connector("batch-b", 0, double.url)
    broken["spec"]["replicas"] = -1
    project.add_stack("batch-b", [broken])
    result = project.run("up", "--stacks", "batch-*", "--parallel", "2")
    assert result.returncode == 1
    assert "3 stacks: 2 succeeded, 0 unchanged (not run), 1 failed" in result.stdout
    assert "batch-b | " in result.stdout and "replicas" in result.stdout, "the failed stack's own message is shown"
    assert names_registered(double) == Counter({"batch-a-c0": 1, "batch-c-c0": 1})


def test_a_pattern_matching_no_stack_is_an_error(project):
    result = project.run("up", "--stacks", "nothing-*")
    assert result.returncode == 2 and "matches 'nothing-*'" in result.stderr


def test_the_engine_tests_take_the_backend_from_the_environment(postgres):
    chosen = [
        f"tests/engine/test_engine.py::{test}"
        for test in ("test_registration_lifecycle", "test_secret_attribute_never_in_plain_text")
    ]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *chosen],
        env={**os.environ, "PULUMI_BACKEND_URL": postgres.backend_url}, cwd=ROOT, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0 and "2 passed" in done.stdout, done.stdout[-3000:]
    keys = postgres.psql("SELECT key FROM pulumi_state").stdout
    assert ".pulumi/backups/connectors/test-" in keys, "the tests' stacks were kept in PostgreSQL"
    left = [k for k in keys.splitlines() if k.endswith(".json") and "/stacks/connectors/test-" in k]
    assert not left, "and removed after"
