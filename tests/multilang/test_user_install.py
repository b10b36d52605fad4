"""The README's YAML example as a user's machine runs it: the CLI's folder and the system's on
PATH, no PYTHONPATH, no virtualenv, plugins in the user's own PULUMI_HOME, the package
installed by ``scripts/install-package`` (a launcher carrying its interpreter). The
registration is the package's own resource: no Python dynamic provider takes part."""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
from typing import Any

import yaml

from ..support.platform_double import platform_double
from ..support.skipping import ROOT
from ..support.yaml_stacks import EXAMPLE, KUBERNETES, user_install


def run(env: dict[str, str], *args: str, cwd: pathlib.Path | None = None) -> str:
    done = subprocess.run(list(args), env=env, cwd=cwd, capture_output=True, text=True)
    assert done.returncode == 0, f"{args}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def users_cli(engine: dict[str, str], tmp_path: pathlib.Path) -> dict[str, str]:
    """The environment the user's CLI runs in (``user_install``), with a ``file://`` backend of
    its own in ``tmp_path / "state"`` and the user's passphrase."""
    env = user_install(tmp_path, pathlib.Path(engine["TOOLS_BIN"]), pathlib.Path(engine["PULUMI_HOME"]))
    env = {k: v for k, v in env.items() if k not in ("TOOLS_BIN", "PYTHONPATH")}
    (tmp_path / "state").mkdir()
    return env | {"PULUMI_BACKEND_URL": f"file://{tmp_path / 'state'}", "PULUMI_CONFIG_PASSPHRASE": "user-passphrase"}


def test_the_yaml_example_registers_once_on_a_users_machine(engine, tmp_path):
    """Run with the CLI itself (not the Automation API, which passes its own process's
    environment on), in exactly the environment of ``user_install``."""
    env = users_cli(engine, tmp_path)
    plugins = sorted(p.name for p in (pathlib.Path(env["PULUMI_HOME"]) / "plugins").iterdir() if p.is_dir())
    assert plugins == ["resource-connectors-v0.1.0", f"resource-kubernetes-v{KUBERNETES}"]
    assert env["PATH"].split(":")[1:] == ["/usr/bin", "/bin"]

    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(EXAMPLE, project / "Pulumi.yaml")
    with platform_double() as double:
        run(env, "pulumi", "stack", "init", "dev", "--secrets-provider", "passphrase", cwd=project)
        run(env, "pulumi", "config", "set", "platformUrl", double.url, cwd=project)
        run(env, "pulumi", "config", "set", "renderDirectory", str(tmp_path / "rendered"), cwd=project)
        run(env, "pulumi", "up", "--yes", cwd=project)
        assert sorted(body["name"] for body in double.requests) == ["Payments", "Timestamps"]
        rerun = run(env, "pulumi", "up", "--yes", cwd=project)
        assert len(double.requests) == 2 and "pulumi-python" not in rerun
        outputs: dict[str, Any] = json.loads(run(env, "pulumi", "stack", "output", "--json", cwd=project))
    assert {outputs["paymentsUuid"], outputs["timestampsUuid"]} == set(double.records)
    state = json.loads(run(env, "pulumi", "stack", "export", cwd=project))
    types = {r["type"] for r in state["deployment"]["resources"]}
    assert "connectors:index:Registration" in types and not any(t.startswith("pulumi-python") for t in types)
    assert yaml.safe_load(EXAMPLE.read_text())["runtime"] == "yaml"
    assert os.path.exists(tmp_path / "rendered")


def test_a_yaml_project_adds_the_installed_package_and_runs_it(engine, tmp_path):
    """The path a YAML user takes with a package the CLI links: ``pulumi package add`` of the
    installed plugin (``make package``), which writes the project's ``packages:`` entry and asks
    the YAML language host to link it, then ``pulumi install`` in a fresh checkout of that
    project and ``pulumi up``. The host must implement ``Link`` (v1.25.0 stops at "method Link
    not implemented")."""
    env = users_cli(engine, tmp_path)
    version = re.search(r'^version = "(.+)"$', (ROOT / "pyproject.toml").read_text(), re.M)
    assert version is not None
    added = tmp_path / "added"
    added.mkdir()
    shutil.copy(EXAMPLE, added / "Pulumi.yaml")
    run(env, "pulumi", "package", "add", f"connectors@{version[1]}", cwd=added)
    project = yaml.safe_load((added / "Pulumi.yaml").read_text())
    assert project["packages"] == {"connectors": f"connectors@{version[1]}"}
    assert [p.name for p in (added / "sdks" / "connectors").iterdir()] == [f"connectors-{version[1]}.yaml"]

    checkout = tmp_path / "checkout"  # the project as a teammate clones it: Pulumi.yaml alone
    checkout.mkdir()
    shutil.copy(added / "Pulumi.yaml", checkout / "Pulumi.yaml")
    run(env, "pulumi", "install", cwd=checkout)
    with platform_double() as double:
        run(env, "pulumi", "stack", "init", "dev", "--secrets-provider", "passphrase", cwd=checkout)
        run(env, "pulumi", "config", "set", "platformUrl", double.url, cwd=checkout)
        run(env, "pulumi", "config", "set", "renderDirectory", str(tmp_path / "rendered"), cwd=checkout)
        run(env, "pulumi", "up", "--yes", cwd=checkout)
        assert sorted(body["name"] for body in double.requests) == ["Payments", "Timestamps"]
