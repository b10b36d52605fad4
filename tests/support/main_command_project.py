"""A project folder of the main command's own (``MAIN_COMMAND`` as ``make up`` runs it), its
stack files, and a run of it."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
from typing import Any

import yaml

from .engine_stacks import PASSPHRASE
from .skipping import ROOT

MAIN_COMMAND = [sys.executable, "-m", "components.app.command"]
"""The main command as ``make up`` runs it (``connectors`` once the library is installed)."""


# The main command, as a user runs it: every operation the README tells users to run.
def deploy(project: pathlib.Path, state: pathlib.Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PULUMI_BACKEND_URL": f"file://{state}",
        "PULUMI_CONFIG_PASSPHRASE": PASSPHRASE,
    }
    return subprocess.run(
        [*MAIN_COMMAND, *args, "--stack", "review", "--work-dir", str(project)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def write_stack(project: pathlib.Path, render: pathlib.Path, connectors: list[dict[str, Any]]) -> None:
    config = {"config": {"connectors:renderDirectory": str(render), "connectors:connectors": connectors}}
    (project / "stacks" / "Pulumi.review.yaml").write_text(yaml.safe_dump(config))


def main_command_project(tmp_path: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path, pathlib.Path]:
    """A project folder (``Pulumi.yaml``, ``stacks/``), a state folder and a render folder."""
    project, state, render = tmp_path / "project", tmp_path / "state", tmp_path / "rendered"
    (project / "stacks").mkdir(parents=True)
    state.mkdir()
    shutil.copy(ROOT / "Pulumi.yaml", project / "Pulumi.yaml")
    return project, state, render
