"""The fixtures of ``command``'s tests."""

from __future__ import annotations

import pathlib

import pytest

from components.app.automation.pulumi_cli import Cli
from components.app.command.change_detection import Place

STACK_FILE = "config:\n  connectors:renderDirectory: out\n  connectors:connectors: []\n"


@pytest.fixture
def place(tmp_path: pathlib.Path) -> Place:
    work = tmp_path / "project"
    (work / "stacks").mkdir(parents=True)
    (work / "Pulumi.yaml").write_text("name: connectors\nruntime: python\nstackConfigDir: stacks\n")
    (work / "stacks" / "Pulumi.dev.yaml").write_text(STACK_FILE)
    (tmp_path / "state").mkdir()
    # A CLI whose version is known: no ``pulumi version`` is run.
    return Place(
        work, f"file://{tmp_path / 'state'}", Cli(tmp_path / "bin", str(tmp_path / "home"), True, (3, 274, 1)), "connectors"
    )
