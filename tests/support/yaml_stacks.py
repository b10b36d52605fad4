"""Pulumi YAML programs using the component package (the fixtures ``yaml_engine`` and
``yaml_stack`` are in ``conftest.py``), run by the real CLI (``pulumi up`` with the
YAML language host) as on a user's machine: the package installed by ``scripts/install-package``
into a PULUMI_HOME of its own, PATH the CLI's folder and the system's, no PYTHONPATH."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import yaml
from pulumi import automation as auto

from .skipping import ROOT, unavailable

EXAMPLE = ROOT / "components" / "package" / "examples" / "yaml" / "Pulumi.yaml"


def example_program() -> dict[str, Any]:
    """The README's YAML example, as data (tests derive variants of it)."""
    return yaml.safe_load(EXAMPLE.read_text())


KUBERNETES = "4.25.0"


def user_install(folder: pathlib.Path, tools_bin: pathlib.Path, tools_home: pathlib.Path) -> dict[str, str]:
    """A user's machine in ``folder``: the CLI's folder (as a release unpacks it) and the
    system's on PATH, no PYTHONPATH or virtualenv, plugins in the user's own PULUMI_HOME: the
    Kubernetes plugin, and the package installed by ``scripts/install-package``."""
    cli = folder / "pulumi" / "bin"
    shutil.copytree(tools_bin, cli)
    env = {
        "PATH": f"{cli}:/usr/bin:/bin",
        "HOME": str(folder / "home"),
        "PULUMI_HOME": str(folder / "home" / ".pulumi"),
        "PULUMI_SKIP_UPDATE_CHECK": "true",
        "PYTHONPATH": "",
        "TOOLS_BIN": str(cli),
    }
    kubernetes = tools_home / "plugins" / f"resource-kubernetes-v{KUBERNETES}" / "pulumi-resource-kubernetes"
    steps = [
        ["pulumi", "plugin", "install", "resource", "kubernetes", f"v{KUBERNETES}", "-f", str(kubernetes)],
        ["bash", str(ROOT / "scripts" / "install-package"), str(ROOT / ".venv" / "bin" / "python")],
    ]
    for step in steps:
        done = subprocess.run(step, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            unavailable("multi-language tests", f"{' '.join(step[:3])} failed: {done.stderr[-2000:]}")
    return env


def yaml_environment(engine: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of every YAML program here: a user's install (``user_install``), with
    the YAML language host in the CLI's folder."""
    bin_dir = pathlib.Path(engine["TOOLS_BIN"])
    if not (bin_dir / "pulumi-language-yaml").exists():
        unavailable("multi-language tests", "scripts/install-tools did not install the YAML language host")
    return user_install(tmp_path_factory.mktemp("user"), bin_dir, pathlib.Path(engine["PULUMI_HOME"]))


@dataclass
class YamlStack:
    stack: auto.Stack
    project_dir: pathlib.Path
    state_dir: pathlib.Path
    output: list[str]

    def log(self, line: str) -> None:
        self.output.append(line)

    def text(self) -> str:
        return "\n".join(self.output)

    def preview(self, **options: Any) -> auto.PreviewResult:
        return self.stack.preview(on_output=self.log, on_error=self.log, **options)

    def up(self, **options: Any) -> auto.UpResult:
        return self.stack.up(on_output=self.log, on_error=self.log, **options)

    def destroy(self) -> auto.DestroyResult:
        return self.stack.destroy(on_output=self.log, on_error=self.log)

    def set(self, key: str, value: str, secret: bool = False) -> None:
        self.stack.set_config(key, auto.ConfigValue(value, secret=secret))

    def state_file(self) -> str:
        (path,) = (self.state_dir / ".pulumi" / "stacks").rglob(f"{self.stack.name}.json")
        return path.read_text()

    def resources(self) -> list[dict[str, Any]]:
        return list(self.stack.export_stack().deployment["resources"])


PYTHON_VARIABLES = ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE", "CONDA_PREFIX")


def scrub_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process's environment, which the Automation API passes to the CLI under the
    stack's own variables, without what a user's machine would not have: virtualenv and
    Python variables, Pulumi settings, and any value naming this repository."""
    for key, value in list(os.environ.items()):
        if key in PYTHON_VARIABLES or key.startswith("PULUMI_") or str(ROOT) in value:
            monkeypatch.delenv(key)


def yaml_stack_maker(
    yaml_engine: dict[str, str], tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[..., YamlStack]]:
    made: list[YamlStack] = []
    scrub_environment(monkeypatch)

    def make(program: dict[str, Any], name: str = "test", **config: str) -> YamlStack:
        project_dir, state_dir = tmp_path / f"project-{name}", tmp_path / f"state-{name}"
        project_dir.mkdir()
        state_dir.mkdir()
        (project_dir / "Pulumi.yaml").write_text(yaml.safe_dump(program, sort_keys=False))
        env = {k: v for k, v in yaml_engine.items() if k != "TOOLS_BIN"}
        env["PULUMI_BACKEND_URL"] = f"file://{state_dir}"
        env["PULUMI_CONFIG_PASSPHRASE"] = "user-passphrase"
        seen = {**os.environ, **env}
        assert not [k for k, v in seen.items() if str(ROOT) in v], "the CLI would see this repository"
        command = auto.PulumiCommand(root=str(pathlib.Path(yaml_engine["TOOLS_BIN"]).parent), skip_version_check=True)
        stack = auto.create_stack(
            name,
            work_dir=str(project_dir),
            opts=auto.LocalWorkspaceOptions(
                pulumi_home=env["PULUMI_HOME"], pulumi_command=command, env_vars=env, secrets_provider="passphrase"
            ),
        )
        made.append(YamlStack(stack, project_dir, state_dir, []))
        for key, value in config.items():
            made[-1].set(key, value)
        return made[-1]

    yield make
    for s in made:
        shutil.rmtree(s.project_dir, ignore_errors=True)


def objects_in(folder: pathlib.Path) -> dict[tuple[str, str, str], dict[str, Any]]:
    """Every rendered object, by kind, namespace and name (file names differ between programs)."""
    found = {}
    for path in folder.rglob("*.yaml"):
        for doc in yaml.safe_load_all(path.read_text()):
            if doc:
                found[(doc["kind"], doc["metadata"].get("namespace", ""), doc["metadata"]["name"])] = doc
    return found
