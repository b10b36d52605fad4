"""The CI workflow of docs/ci/connectors.yml, its ``run:`` steps run as a runner would run them
(the CI system itself is not needed): a preview per shard, the output kept, a failed preview
failing its job; then ``up`` per shard. Every stack is previewed and deployed by exactly one
shard."""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess
from typing import Any

import yaml

from ..conftest import ROOT

WORKFLOW = ROOT / "docs" / "ci" / "connectors.yml"


def checkout(tmp_path: pathlib.Path, stacks: dict[str, dict[str, Any]]) -> pathlib.Path:
    """What actions/checkout gives the runner: the repository (with this one's virtualenv)."""
    repo = tmp_path / "repo"
    for name in ("components", "scripts"):
        shutil.copytree(ROOT / name, repo / name, ignore=shutil.ignore_patterns("__pycache__", "node_modules", "bin"))
    for name in ("Pulumi.yaml", "Makefile", "requirements.txt", "requirements-dev.txt", "pyproject.toml"):
        shutil.copy2(ROOT / name, repo / name)
    (repo / ".venv").symlink_to(ROOT / ".venv")
    (repo / "stacks").mkdir()
    for name, config in stacks.items():
        (repo / "stacks" / f"Pulumi.{name}.yaml").write_text(yaml.safe_dump({"config": config}))
    return repo


def run_steps(job: dict[str, Any], repo: pathlib.Path, env: dict[str, str], shard: int) -> list[subprocess.CompletedProcess[str]]:
    done = []
    for step in job["steps"]:
        if "run" not in step:
            continue  # actions/checkout, setup-python, pulumi/actions, upload-artifact: the runner's
        script = step["run"].replace("${{ matrix.shard }}", str(shard))
        assert "${{" not in script
        done.append(subprocess.run(["bash", "-e", "-c", script], cwd=repo, env=env, capture_output=True, text=True))
        if done[-1].returncode != 0:
            break
    return done


def stack(name: str) -> dict[str, Any]:
    entry = {"name": name, "namespace": "ilm", "spec": {"image": {"repository": "r.example/c", "tag": "1.0"}}}
    return {"connectors:renderDirectory": f"rendered/{name}", "connectors:connectors": [entry]}


def test_the_workflow_previews_and_deploys_every_stack_once(engine, tmp_path):
    workflow = yaml.safe_load(WORKFLOW.read_text())
    names = [f"prod-{i}" for i in range(5)]
    repo = checkout(tmp_path, {name: stack(name) for name in names})
    runner_temp = tmp_path / "runner"
    runner_temp.mkdir()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("PULUMI_")},
        **{k: str(v) for k, v in workflow["env"].items() if "${{" not in str(v)},
        "PULUMI_BACKEND_URL": f"file://{tmp_path / 'state'}",
        "PULUMI_CONFIG_PASSPHRASE": "team-passphrase",
        "RUNNER_TEMP": str(runner_temp),
    }
    (tmp_path / "state").mkdir()
    shards = workflow["jobs"]["preview"]["strategy"]["matrix"]["shard"]
    previewed = []
    for shard in shards:
        steps = run_steps(workflow["jobs"]["preview"], repo, env, shard)
        assert all(s.returncode == 0 for s in steps), steps[-1].stdout[-3000:] + steps[-1].stderr[-3000:]
        kept = (runner_temp / f"preview-{shard}.txt").read_text()
        previewed += re.findall(r"^(prod-\d)\s+succeeded", kept, re.M)
    assert sorted(previewed) == names

    deployed = []
    for shard in workflow["jobs"]["up"]["strategy"]["matrix"]["shard"]:
        steps = run_steps(workflow["jobs"]["up"], repo, env, shard)
        assert all(s.returncode == 0 for s in steps), steps[-1].stdout[-3000:]
        deployed += re.findall(r"^(prod-\d)\s+succeeded", steps[-1].stdout, re.M)
    assert sorted(deployed) == names
    assert sorted(p.name for p in (repo / "rendered").iterdir()) == names


def test_a_failed_preview_fails_its_job(engine, tmp_path):
    workflow = yaml.safe_load(WORKFLOW.read_text())
    broken = stack("prod-0")
    broken["connectors:connectors"][0]["spec"]["replicas"] = "three"
    repo = checkout(tmp_path, {"prod-0": broken})
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("PULUMI_")},
        "STACKS": "prod-*",
        "PULUMI_BACKEND_URL": f"file://{tmp_path / 'state'}",
        "PULUMI_CONFIG_PASSPHRASE": "team-passphrase",
        "RUNNER_TEMP": str(tmp_path),
    }
    (tmp_path / "state").mkdir()
    outcomes = [run_steps(workflow["jobs"]["preview"], repo, env, shard)[-1] for shard in (1, 2, 3)]
    assert [o.returncode != 0 for o in outcomes] == [True, False, False], "only the shard with the stack fails"
    assert "connectors[0].spec.replicas" in (tmp_path / "preview-1.txt").read_text()


def test_the_shards_of_up_never_cancel_each_other():
    """GitHub lets one job of a concurrency group run and one wait, cancelling any other
    waiting: the shards of one merge need a group each, and a running up is never cancelled."""
    concurrency = yaml.safe_load(WORKFLOW.read_text())["jobs"]["up"]["concurrency"]
    assert "${{ matrix.shard }}" in concurrency["group"]
    assert concurrency["cancel-in-progress"] is False


CHECK = ROOT / "docs" / "ci" / "connectors-check.yml"


def test_the_scheduled_check_fails_its_job_when_a_stack_has_nothing_live_to_check(engine, tmp_path):
    """Render-mode stacks have no cluster: each says so, and the job fails (the cluster test runs
    the same step against live stacks, passing and failing)."""
    workflow = yaml.safe_load(CHECK.read_text())
    assert workflow[True]["schedule"][0]["cron"] == "*/30 * * * *"  # YAML 1.1 reads the key `on` as true
    names = ["prod-0", "prod-1"]
    repo = checkout(tmp_path, {name: stack(name) for name in names})
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("PULUMI_")},
        **{k: str(v) for k, v in workflow["env"].items() if "${{" not in str(v)},
        "PULUMI_BACKEND_URL": f"file://{tmp_path / 'state'}",
        "PULUMI_CONFIG_PASSPHRASE": "team-passphrase",
        "RUNNER_TEMP": str(tmp_path),
    }
    (tmp_path / "state").mkdir()
    for shard in (1, 2, 3):
        up = run_steps(yaml.safe_load(WORKFLOW.read_text())["jobs"]["up"], repo, env, shard)
        assert all(s.returncode == 0 for s in up), up[-1].stdout[-3000:]
    (*_, check) = run_steps(workflow["jobs"]["check"], repo, env, 1)
    assert check.returncode != 0
    report = (tmp_path / "check.txt").read_text()
    for name in names:
        assert f"stack {name}: nothing live to check: it renders to a folder" in report
