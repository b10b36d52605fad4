"""The real Pulumi engine for the tests: CLI, Kubernetes plugin (render mode) and the
dynamic-provider helper (the fixtures ``engine`` and ``make_stack`` are in ``conftest.py``).

Stacks run as Automation API inline programs built from ``connectors_program``, with the
passphrase secrets provider and the state backend of ``PULUMI_BACKEND_URL`` when it is set
(each test's stack then gets a unique name and is removed at the end), else a ``file://``
backend in a temporary folder."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import yaml
from pulumi import automation as auto

from components.app.automation.pulumi_cli import ToolsUnavailable, tools_bin
from components.app.automation.sdk_inline_server import report_run_errors_once
from components.app.automation.workspace import create_inline_stack, engine_env
from components.app.program import connectors_program
from components.app.stack_files import file_name

from .skipping import unavailable

PASSPHRASE = "engine-tests-passphrase"


def changes(summary: dict[str, int] | None) -> dict[str, int]:
    """The operations of an update other than ``same``: empty when nothing changed."""
    return {op: n for op, n in (summary or {}).items() if op != "same" and n}


def engine_environment() -> dict[str, str]:
    try:
        bin_dir = tools_bin()
    except ToolsUnavailable as error:
        unavailable("engine tests", error)
    report_run_errors_once()
    return {**engine_env(bin_dir, PASSPHRASE), "TOOLS_BIN": str(bin_dir)}


@dataclass
class EngineStack:
    stack: auto.Stack
    render_dir: pathlib.Path
    work_dir: pathlib.Path
    state_dir: pathlib.Path
    output: list[str]
    env: dict[str, str]

    def log(self, line: str) -> None:
        self.output.append(line)

    def preview(self, **options: Any) -> auto.PreviewResult:
        return self.stack.preview(on_output=self.log, on_error=self.log, **options)

    def up(self, **options: Any) -> auto.UpResult:
        return self.stack.up(on_output=self.log, on_error=self.log, **options)

    def refresh(self, *targets: str) -> auto.RefreshResult:
        return self.stack.refresh(on_output=self.log, target=list(targets) or None)

    def destroy(self) -> auto.DestroyResult:
        return self.stack.destroy(on_output=self.log)

    def state_file(self) -> str:
        """The checkpoint as the backend stores it: the file of a ``file://`` backend, else the
        export (secrets stay ciphertext in both)."""
        found = list((self.state_dir / ".pulumi" / "stacks").rglob(f"{self.stack.name}.json"))
        if found:
            return found[0].read_text()
        pulumi = pathlib.Path(self.env["TOOLS_BIN"]) / "pulumi"
        exported = subprocess.run(
            [str(pulumi), "stack", "export", "--stack", self.stack.name],
            cwd=self.work_dir,
            env={**os.environ, **self.env},
            capture_output=True,
            text=True,
            check=True,
        )  # fmt: skip  (the Automation API's export_stack would show the secrets)
        return exported.stdout

    def set_connectors(self, connectors: list[dict[str, Any]], secret: bool = False) -> None:
        self.stack.set_config("connectors:connectors", auto.ConfigValue(json.dumps(connectors), secret=secret))

    def set_connectors_yaml(self, connectors: list[dict[str, Any]]) -> None:
        """The ``connectors`` as YAML structure in the stack's settings file, as a user writes
        it (``set_connectors`` stores one JSON string, which ``--path`` cannot address)."""
        settings = self.work_dir / file_name(self.stack.name)
        document = yaml.safe_load(settings.read_text())
        document["config"]["connectors:connectors"] = connectors
        settings.write_text(yaml.safe_dump(document))

    def rendered(self) -> dict[str, str]:
        return {p.name: p.read_text() for p in sorted(self.render_dir.rglob("*.yaml"))}

    def urn(self, type_: str) -> str:
        for resource in self.stack.export_stack().deployment["resources"]:
            if resource["type"] == type_:
                return resource["urn"]
        raise AssertionError(f"no {type_} in state")

    def registration_state(self) -> dict[str, Any]:
        for resource in self.stack.export_stack().deployment["resources"]:
            if resource["type"] == "pulumi-python:dynamic/connectors:Registration":
                return resource
        raise AssertionError("no registration in state")


def stack_maker(engine: dict[str, str], tmp_path: pathlib.Path) -> Iterator[Callable[..., EngineStack]]:
    made: list[EngineStack] = []

    def make(
        connectors: list[dict[str, Any]],
        name: str = "test",
        program: Callable[[], None] = connectors_program,
        kubeconfig: str | None = None,
    ) -> EngineStack:
        """Render mode, unless ``kubeconfig`` (a path) points the program at a cluster."""
        work_dir = tmp_path / f"work-{name}"
        state = tmp_path / f"state-{name}"
        render_dir = tmp_path / f"rendered-{name}"
        for d in (work_dir, state):
            d.mkdir()
        env = {k: v for k, v in engine.items() if k != "TOOLS_BIN"}
        shared_backend = os.environ.get("PULUMI_BACKEND_URL")
        env["PULUMI_BACKEND_URL"] = shared_backend or f"file://{state}"
        if shared_backend:
            name = f"{name}-{uuid.uuid4().hex[:8]}"
        command = auto.PulumiCommand(root=str(pathlib.Path(engine["TOOLS_BIN"]).parent), skip_version_check=True)
        stack = create_inline_stack(name, program, work_dir, env, command)
        if kubeconfig is None:
            stack.set_config("connectors:renderDirectory", auto.ConfigValue(str(render_dir)))
        else:
            stack.set_config("connectors:kubeconfig", auto.ConfigValue(kubeconfig))
        made.append(EngineStack(stack, render_dir, work_dir, state, [], env | {"TOOLS_BIN": engine["TOOLS_BIN"]}))
        made[-1].set_connectors(connectors)
        return made[-1]

    yield make
    for s in made:
        if os.environ.get("PULUMI_BACKEND_URL"):
            s.stack.workspace.remove_stack(s.stack.name, force=True)
        shutil.rmtree(s.work_dir, ignore_errors=True)


def import_saved_stack(
    engine: dict[str, str], tmp_path: pathlib.Path, saved: pathlib.Path, name: str, passphrase: str, platform_url: str
) -> auto.Stack:
    """A state saved in ``saved`` (``state.json``, ``Pulumi.<name>.yaml`` with the secrets' salt,
    ``platform-url``) imported into a new stack of the same name, the saved platform URL
    replaced by ``platform_url``."""
    old_url = (saved / "platform-url").read_text().strip()
    work, state = tmp_path / "work", tmp_path / "state"
    work.mkdir()
    state.mkdir()
    env = {k: v for k, v in engine.items() if k != "TOOLS_BIN"} | {"PULUMI_BACKEND_URL": f"file://{state}"}
    env["PULUMI_CONFIG_PASSPHRASE"] = passphrase
    command = auto.PulumiCommand(root=str(pathlib.Path(engine["TOOLS_BIN"]).parent), skip_version_check=True)
    stack = create_inline_stack(name, connectors_program, work, env, command)
    settings = (saved / file_name(name)).read_text().replace(old_url, platform_url)
    (work / file_name(name)).write_text(settings)
    exported = tmp_path / "state.json"
    exported.write_text((saved / "state.json").read_text().replace(old_url, platform_url))
    pulumi = pathlib.Path(engine["TOOLS_BIN"]) / "pulumi"
    subprocess.run([str(pulumi), "stack", "import", "--stack", name, "--file", str(exported)], cwd=work, env=env, check=True)
    return stack


def connector(platform_url: str, **registration: Any) -> dict[str, Any]:
    """A connector entry registering at ``platform_url`` (``registration`` over its defaults)."""
    return {
        "name": "x509",
        "namespace": "ilm",
        "spec": {
            "image": {"repository": "r.example/x509", "tag": "1.0.0"},
            "env": [{"name": "LOG_LEVEL", "value": "INFO"}],
            "registration": {
                "platformUrl": platform_url,
                "name": "X.509",
                "authType": "none",
                "customAttributes": [{"name": "description", "content": "x"}],
                "retryInitialSeconds": 0.05,
                "retryMaxSeconds": 0.1,
                "deadlineSeconds": 5,
                **registration,
            },
        },
    }
