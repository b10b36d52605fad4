"""Nothing lost by accident, through the main command on a shared backend (``PULUMI_BACKEND_URL``):
a missing stack file, a work dir without one, or settings holding no entries run nothing and
delete nothing; one connector's failed registration stops only itself."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
from typing import Any

import yaml

from tests.support.main_command_project import MAIN_COMMAND

from ..conftest import ROOT
from ..support.platform_double import platform_double

DEPLOY = MAIN_COMMAND


def connector(name: str, platform_url: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"image": {"repository": "r.example/x509", "tag": "1.0.0"}}
    if platform_url:
        spec["registration"] = {"platformUrl": platform_url, "name": name, "authType": "none", "deadlineSeconds": 20}
    return {"name": name, "namespace": "ilm", "spec": spec}


class Team:
    """A project folder and a shared state backend, as a team has them."""

    def __init__(self, tmp_path: pathlib.Path) -> None:
        self.work, self.state = tmp_path / "project", tmp_path / "state"
        (self.work / "stacks").mkdir(parents=True)
        self.state.mkdir()
        shutil.copy(ROOT / "Pulumi.yaml", self.work)
        self.rendered = tmp_path / "rendered"

    def write(self, config: dict[str, Any], stack: str = "dev") -> pathlib.Path:
        path = self.work / "stacks" / f"Pulumi.{stack}.yaml"
        path.write_text(yaml.safe_dump({"config": {"connectors:renderDirectory": str(self.rendered), **config}}))
        return path

    def deploy(self, *args: str, work: pathlib.Path | None = None) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "PULUMI_BACKEND_URL": f"file://{self.state}", "PULUMI_CONFIG_PASSPHRASE": "team-secret"}
        command = [*DEPLOY, *args, "--stack", "dev", "--work-dir", str(work or self.work)]
        return subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)

    def resources(self) -> list[dict[str, Any]]:
        """The stack's resources as its checkpoint holds them."""
        (checkpoint,) = (self.state / ".pulumi" / "stacks").rglob("dev.json")
        return json.loads(checkpoint.read_text())["checkpoint"]["latest"]["resources"]

    def objects(self) -> list[str]:
        return sorted(str(p.relative_to(self.rendered)) for p in self.rendered.rglob("*.yaml"))


def test_a_missing_stack_file_or_entries_deletes_nothing(tmp_path):
    team = Team(tmp_path)
    settings = team.write({"connectors:connectors": [connector("x509"), connector("tsa")]})
    done = team.deploy("up")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    objects, resources = team.objects(), team.resources()
    assert len(objects) >= 6

    settings.rename(settings.with_suffix(".moved"))  # a rename, a wrong checkout
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.copy(ROOT / "Pulumi.yaml", elsewhere)
    bare = tmp_path / "bare"
    bare.mkdir()
    for args, work, said in (
        (("up",), None, f"no stack file {settings}"),
        (("preview",), None, f"no stack file {settings}"),
        (("up",), elsewhere, f"no stack file {elsewhere / 'stacks' / 'Pulumi.dev.yaml'}"),
        (("up",), bare, f"no Pulumi.yaml in {bare}"),
    ):
        refused = team.deploy(*args, work=work)
        assert refused.returncode != 0 and said in refused.stderr, refused.stdout[-2000:] + refused.stderr[-2000:]
        assert "Traceback" not in refused.stdout + refused.stderr

    settings.with_suffix(".moved").rename(settings)
    team.write({"connectors:kubeconfig": "~/.kube/none"})  # neither connectors nor proxies
    refused = team.deploy("up")
    said = refused.stdout + refused.stderr
    assert refused.returncode != 0 and "neither connectors:connectors nor connectors:proxies is set" in said
    assert str(settings) in said and "Traceback" not in said
    assert team.objects() == objects and team.resources() == resources

    team.write({"connectors:connectors": []})  # emptied on purpose
    done = team.deploy("up")
    assert done.returncode == 0 and team.objects() == []


def test_a_malformed_stack_or_project_file_is_named_and_nothing_runs(tmp_path):
    """A stack file or ``Pulumi.yaml`` that is not YAML, or not a mapping of settings, stops
    every operation before anything runs, naming the file and the line, never a line of it
    (it may hold a secret), and never a traceback; with no passphrase given too (read first)."""
    team = Team(tmp_path)
    settings = team.write({"connectors:connectors": [connector("x509")]})
    done = team.deploy("up")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    resources = team.resources()
    secret = "hunter2-not-for-logs"
    project = team.work / "Pulumi.yaml"
    good_project = project.read_text()
    every_command = (("up",), ("preview",), ("status",), ("status", "--check"), ("render", "--out", str(tmp_path / "out")))
    # Each file is read by one loader whatever the command: every command meets each file's
    # first fault, one command each of the stack file's other faults.
    cases = (
        (
            settings,
            f"config:\n  connectors:token: {secret}\n  connectors:connectors: [\n",
            "is not valid YAML (line 4, column 1)",
            every_command,
        ),
        (settings, f"- {secret}\n", "must be a mapping of settings", every_command[1:2]),
        (settings, f"config: {secret}\n", "must be a mapping of settings", every_command[3:4]),
        (project, f"name: {secret}\nruntime: [\n", "is not valid YAML (line 3, column 1)", every_command),
    )
    for path, text, said, commands in cases:
        path.write_text(text)
        for args in commands:
            for refused in (team.deploy(*args), run_without_passphrase(team, *args)):
                out = refused.stdout + refused.stderr
                assert refused.returncode != 0 and f"{path} {said}" in out, (args, out[-2000:])
                assert secret not in out and "Traceback" not in out, (args, out[-2000:])
        path.write_text(good_project if path == project else "")
    settings.write_text(
        yaml.safe_dump(
            {"config": {"connectors:renderDirectory": str(team.rendered), "connectors:connectors": [connector("x509")]}}
        )
    )
    assert team.resources() == resources


def run_without_passphrase(team: Team, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PULUMI_CONFIG_PASSPHRASE")}
    env["PULUMI_BACKEND_URL"] = f"file://{team.state}"
    command = [*DEPLOY, *args, "--stack", "dev", "--work-dir", str(team.work)]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)


def test_one_failed_registration_stops_only_its_entry(tmp_path):
    """The platform refuses one name (a 409 for a record the stack never posted); every other
    connector is applied, registered and saved, the run fails naming the entry, and the next
    run registers nothing twice."""
    team = Team(tmp_path)
    with platform_double() as double:
        names = [f"c{i}" for i in range(6)]
        double.add("c2", "http://elsewhere:8080")
        team.write({"connectors:connectors": [connector(name, double.url) for name in names]})
        failed = team.deploy("up")
        said = failed.stdout + failed.stderr
        assert failed.returncode != 0
        assert "stack dev: failed: c2 (every other entry was applied)" in said, said[-3000:]
        assert sorted(r.name for r in double.records.values()) == names
        assert double.count("POST", "/v2/connector/register") == 6
        deployments = {p.rsplit("-", 1)[-1].removesuffix(".yaml") for p in team.objects() if "deployment" in p}
        assert deployments == set(names), "every connector's objects were applied"
        saved = [r for r in team.resources() if r["type"].endswith("connectors:Registration")]
        assert sorted(r["outputs"]["name"] for r in saved) == ["c0", "c1", "c3", "c4", "c5"]

        again = team.deploy("up")
        assert again.returncode != 0 and "failed: c2" in again.stdout + again.stderr
        assert double.count("POST", "/v2/connector/register") == 7, "only c2 is posted again"
