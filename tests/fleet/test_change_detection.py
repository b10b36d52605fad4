"""Change detection through the main command (``components/app/command/change_detection.py``): a stack whose
inputs did not change since its last good ``up`` is not run, and each input alone forces a run."""

from __future__ import annotations

import pathlib
import shutil
import subprocess

import pytest
import yaml

from ..conftest import ROOT
from ..support.fleet_project import Project, connector

SKIPPED = "not run (--all runs it)"


def state_bytes(project: Project, stack: str) -> bytes:
    root = pathlib.Path(project.env["PULUMI_BACKEND_URL"].removeprefix("file://"))
    return (root / ".pulumi" / "stacks" / "connectors" / f"{stack}.json").read_bytes()


def up(project: Project, *args: str) -> str:
    done = project.run("up", *args)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


def test_an_unchanged_stack_is_not_run_sends_nothing_and_leaves_its_state_as_it_was(file_project, double):
    file_project.add_stack("calm", [connector("calm", i, double.url) for i in range(3)])
    first = up(file_project, "--stack", "calm")
    assert "runs: no up of it has ended well since it last changed" in first
    state, sent = state_bytes(file_project, "calm"), len(double.calls)

    again = up(file_project, "--stack", "calm")
    assert f"stack calm: unchanged since its last good up (settings, code, tools, referenced objects, state): {SKIPPED}" in again
    assert "Updating" not in again and "pulumi CLI:" not in again, "the engine never started"
    preview = file_project.run("preview", "--stack", "calm")
    assert preview.returncode == 0 and SKIPPED in preview.stdout
    assert len(double.calls) == sent, "a stack not run sends nothing to the platform"
    assert state_bytes(file_project, "calm") == state, "its state is byte for byte as it was"

    forced = up(file_project, "--stack", "calm", "--all")
    assert SKIPPED not in forced and "Updating" in forced
    urn = next(line for line in file_project.run("urns", "--stack", "calm").stdout.splitlines() if "Registration" in line)
    assert SKIPPED not in up(file_project, "--stack", "calm", "--target", urn)
    after_target = up(file_project, "--stack", "calm")
    assert "runs: no up of it has ended well since it last changed" in after_target, "a targeted up applied only part"
    from components.app.command.change_detection import always_runs
    from components.app.command.runs import RunOptions

    assert always_runs(RunOptions("up", refresh=True)) and always_runs(RunOptions("preview", replace=(urn,)))


def test_an_edit_of_the_stack_file_and_a_run_from_another_checkout_force_a_run(file_project, double, tmp_path):
    file_project.add_stack("edit", [connector("edit", 0, double.url)])
    up(file_project, "--stack", "edit")
    file_project.add_stack("edit", [connector("edit", 0, double.url), connector("edit", 1, double.url)])
    assert "runs: its stack file or Pulumi.yaml changed" in up(file_project, "--stack", "edit")
    assert SKIPPED in up(file_project, "--stack", "edit")

    # Another checkout of the project, its entries written otherwise, on the same backend: its up
    # rewrites the state and the fingerprint; this checkout's next up runs and puts its own back.
    other = Project(tmp_path / "other", file_project.env["PULUMI_BACKEND_URL"])
    other.env = file_project.env
    entries = [connector("edit", i, double.url) for i in range(2)]
    other.add_stack(
        "edit",
        [{**e, "spec": {**e["spec"], "image": {"repository": "registry.example.com/fleet", "tag": "2.0"}}} for e in entries],
    )
    up(other, "--stack", "edit")
    back = up(file_project, "--stack", "edit")
    assert "runs: its stack file or Pulumi.yaml changed" in back and "replaced" in back, back[-2000:]


def test_an_import_of_the_state_by_the_cli_and_a_refresh_force_a_run(file_project, double):
    """The backend's record of the stack is an input: ``pulumi stack import`` (as a repair, or a
    run from another tool, would) rewrites it without the main command."""
    file_project.add_stack("fresh", [connector("fresh", 0, double.url)])
    up(file_project, "--stack", "fresh")
    from components.app.automation.pulumi_cli import tools_bin
    from components.app.automation.workspace import engine_env

    bin_dir = tools_bin()
    env = {**file_project.env, **engine_env(bin_dir, "fleet-tests"), "PULUMI_BACKEND_URL": file_project.env["PULUMI_BACKEND_URL"]}
    exported = file_project.folder / "exported.json"
    for command in (["stack", "export", "--file", str(exported)], ["stack", "import", "--file", str(exported)]):
        done = subprocess.run(
            [str(bin_dir / "pulumi"), *command, "--stack", "fresh", "--cwd", str(file_project.folder)],
            env=env, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
    assert "runs: its state changed since" in up(file_project, "--stack", "fresh")
    assert SKIPPED in up(file_project, "--stack", "fresh")
    file_project.run("refresh", "--stack", "fresh")  # fails in render mode (no live objects), after forgetting
    assert "runs: no up of it has ended well since it last changed" in up(file_project, "--stack", "fresh")


def test_a_failed_run_forces_the_next_and_a_change_of_the_code_forces_a_run(file_project, double, tmp_path):
    file_project.add_stack("code", [connector("code", 0, double.url)])
    up(file_project, "--stack", "code")
    file_project.add_stack(
        "code", [connector("code", 0, double.url), connector("code", 1, "http://127.0.0.1:9", deadlineSeconds=3)]
    )
    failed = file_project.run("up", "--stack", "code")
    assert failed.returncode != 0
    file_project.add_stack("code", [connector("code", 0, double.url)])
    assert "runs: no up of it has ended well since it last changed" in up(file_project, "--stack", "code")

    copy = tmp_path / "program"
    for name in ("components", "scripts"):
        shutil.copytree(ROOT / name, copy / name, ignore=shutil.ignore_patterns("sdk", "__pycache__"))
    for name in ("__main__.py", "requirements.txt", "Pulumi.yaml", "pyproject.toml"):
        shutil.copy(ROOT / name, copy / name)
    command = [str(ROOT / ".venv" / "bin" / "python"), "-m", "components.app.command", "up", "--stack", "code"]

    def run() -> subprocess.CompletedProcess[str]:
        work = ["--work-dir", str(file_project.folder)]
        return subprocess.run([*command, *work], cwd=copy, env=file_project.env, capture_output=True, text=True, timeout=600)

    assert SKIPPED in run().stdout, "the same code elsewhere is the same program"
    with open(copy / "components" / "render" / "common.py", "a") as file:
        file.write("\n# an edit\n")
    edited = run()
    assert edited.returncode == 0 and "runs: the program's code changed" in edited.stdout, edited.stdout[-2000:]


def test_on_postgres_an_unchanged_stack_is_not_run_and_the_fingerprint_lives_beside_it(project, double, postgres):
    project.add_stack("pg", [connector("pg", 0, double.url)])
    up(project, "--stack", "pg")
    sent = len(double.calls)
    record = postgres.psql(
        "SELECT md5(data::text), updated_at FROM pulumi_state WHERE key = 'pulumi_state/.pulumi/stacks/connectors/pg.json'"
    ).stdout
    assert SKIPPED in up(project, "--stack", "pg") and len(double.calls) == sent
    assert (
        postgres.psql(
            "SELECT md5(data::text), updated_at FROM pulumi_state WHERE key = 'pulumi_state/.pulumi/stacks/connectors/pg.json'"
        ).stdout
        == record
    )
    assert (
        "fingerprint" in postgres.psql("SELECT status FROM connector_registration_journal WHERE stack = 'connectors/pg'").stdout
    )
    up(project, "--stack", "pg", "--all")
    assert SKIPPED in up(project, "--stack", "pg"), "an up with --all that ended well is the last good up"
    # The stack's record written anew, as another checkout's or tool's run would write it.
    project_key = "pulumi_state/.pulumi/stacks/connectors/pg.json"
    updated = postgres.psql(f"UPDATE pulumi_state SET updated_at = now() WHERE key = '{project_key}'")
    assert updated.stdout.strip() == "UPDATE 1", postgres.psql("SELECT key FROM pulumi_state").stdout
    assert "runs: its state changed since" in up(project, "--stack", "pg")


@pytest.mark.parametrize(
    ("part", "reason"),
    [
        ("cli", "the pulumi CLI changed version"),
        ("plugins", "the plugins installed changed"),
        ("packages", "a Python package of the program changed version"),
    ],
)
def test_each_tool_alone_forces_a_run(file_project, double, monkeypatch, part, reason):
    """A tool's version, changed alone (as an upgrade would), is a reason to run."""
    from components.app.automation.workspace import locate
    from components.app.command import change_detection
    from components.app.command.runs import RunOptions

    file_project.add_stack("tools", [connector("tools", 0, double.url)])
    up(file_project, "--stack", "tools")
    monkeypatch.setenv("PULUMI_BACKEND_URL", file_project.env["PULUMI_BACKEND_URL"])
    options = RunOptions("up", stack="tools", work_dir=str(file_project.folder))
    place, _ = locate(options)
    assert change_detection.reason_to_run(place, options) is None
    fingerprint = change_detection.fingerprint
    monkeypatch.setattr(change_detection, "fingerprint", lambda *a: {**fingerprint(*a), part: "upgraded"})
    assert change_detection.reason_to_run(place, options) == reason


def test_the_fleet_runs_only_the_stacks_that_changed(file_project, double):
    stacks = [f"fl-{i}" for i in range(3)]
    for stack in stacks:
        file_project.add_stack(stack, [connector(stack, 0, double.url)])
    first = file_project.run("up", "--stacks", "fl-*", "--parallel", "2")
    assert "3 stacks: 3 succeeded, 0 unchanged (not run), 0 failed" in first.stdout, first.stdout
    settings = yaml.safe_load((file_project.folder / "stacks" / "Pulumi.fl-1.yaml").read_text())
    file_project.add_stack("fl-1", [*settings["config"]["connectors:connectors"], connector("fl-1", 1, double.url)])
    second = file_project.run("up", "--stacks", "fl-*", "--parallel", "2")
    assert "3 stacks: 1 succeeded, 2 unchanged (not run), 0 failed" in second.stdout, second.stdout
    assert second.returncode == 0


def test_the_cluster_a_stack_deploys_to_is_an_input(tmp_path, monkeypatch):
    """Another kubeconfig, another context, or the ambient kubeconfig rewritten: another cluster,
    as the Kubernetes provider would find it; render mode has none."""
    from components.app.command.stack_inputs import cluster_digest

    config = tmp_path / "kubeconfig"
    config.write_text("clusters: [{name: a, cluster: {server: https://a.example:6443}}]\n")
    given = {"connectors:kubeconfig": str(config)}
    first = cluster_digest(given)
    assert cluster_digest(given) == first
    assert cluster_digest({**given, "connectors:context": "other"}) != first
    config.write_text("clusters: [{name: b, cluster: {server: https://b.example:6443}}]\n")
    assert cluster_digest(given) != first
    assert cluster_digest({**given, "connectors:renderDirectory": "out"}) == "render"
    assert cluster_digest({"kubernetes:kubeconfig": {"secure": "v1:abc"}}) != cluster_digest(
        {"kubernetes:kubeconfig": {"secure": "v1:abd"}}
    )
    relative = {"connectors:kubeconfig": "kubeconfig"}
    assert cluster_digest(relative, tmp_path) == cluster_digest(given), "a relative path is the project folder's"
    monkeypatch.setenv("KUBECONFIG", str(config))
    ambient = cluster_digest({})
    config.write_text("clusters: [{name: c, cluster: {server: https://c.example:6443}}]\n")
    assert cluster_digest({}) != ambient
