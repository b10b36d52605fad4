"""A project folder as a team keeps it, run by the main command, for the fleet tests; and what
they read back (the stack's export, the registrations in it, a killed run's processes)."""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import shutil
import signal
import subprocess
import time
from collections import Counter
from typing import Any

import yaml

from components.app.command.interrupts import descendants

from .main_command_project import MAIN_COMMAND
from .platform_double import PlatformDouble
from .skipping import ROOT

DEPLOY = MAIN_COMMAND
REGISTRATION = "pulumi-python:dynamic/connectors:Registration"
REGISTER = ("POST", "/v2/connector/register")


def connector(stack: str, index: int, platform_url: str, **registration: Any) -> dict[str, Any]:
    name = f"{stack}-c{index}"
    return {
        "name": name,
        "namespace": "team",
        "spec": {
            "image": {"repository": "registry.example.com/fleet", "tag": "1.0"},
            "registration": {"platformUrl": platform_url, "name": name, "authType": "none", **registration},
        },
    }


class Project:
    """A project folder as a team has it: Pulumi.yaml and stacks/Pulumi.<stack>.yaml."""

    def __init__(self, folder: pathlib.Path, backend_url: str) -> None:
        self.folder = folder
        (folder / "stacks").mkdir(parents=True)
        shutil.copy(ROOT / "Pulumi.yaml", folder / "Pulumi.yaml")
        self.env = {**os.environ, "PULUMI_BACKEND_URL": backend_url, "PULUMI_CONFIG_PASSPHRASE": "fleet-tests"}

    def add_stack(self, stack: str, connectors: list[dict[str, Any]]) -> None:
        config = {"connectors:renderDirectory": str(self.folder / "rendered" / stack), "connectors:connectors": connectors}
        (self.folder / "stacks" / f"Pulumi.{stack}.yaml").write_text(yaml.safe_dump({"config": config}))

    def command(self, *args: str) -> list[str]:
        return [*DEPLOY, *args, "--work-dir", str(self.folder)]

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(self.command(*args), env=self.env, capture_output=True, text=True, timeout=1200)

    def start(self, *args: str) -> subprocess.Popen[str]:
        return subprocess.Popen(
            self.command(*args), env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
        )

    def export(self, stack: str, missing_ok: bool = False) -> dict[str, Any]:
        """``pulumi stack export`` of a stack, as the CLI gives it (with ``missing_ok``, a stack
        not made yet exports as one without resources)."""
        from components.app.automation.pulumi_cli import tools_bin
        from components.app.automation.workspace import engine_env

        bin_dir = tools_bin()
        env = {**self.env, **engine_env(bin_dir, "fleet-tests"), "PULUMI_BACKEND_URL": self.env["PULUMI_BACKEND_URL"]}
        done = subprocess.run(
            [str(bin_dir / "pulumi"), "stack", "export", "--stack", stack, "--cwd", str(self.folder)],
            env=env, capture_output=True, text=True,
        )  # fmt: skip
        if missing_ok and done.returncode != 0 and f"no stack named '{stack}' found" in done.stderr:
            return {"deployment": {}}
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)


def kill_tree(root: int) -> None:
    """SIGKILL ``root`` and every process under it, as a machine lost at that moment. The
    fleet's stack workers run in sessions of their own (a terminal's Ctrl-C reaches the fleet
    alone), so neither the run's process group nor its session holds them: the tree is frozen
    first (SIGSTOP: a stopped process starts no other, and none is re-parented away from the
    tree while its parent lives), looked at again until no new process shows, then killed."""
    frozen: set[int] = set()
    while True:
        tree = {root, *descendants(root)}
        if tree <= frozen:
            break
        for pid in tree - frozen:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGSTOP)
        frozen |= tree
    for pid in frozen:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def registrations_in(export: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in export["deployment"].get("resources", []) if r["type"] == REGISTRATION]


def names_registered(double: PlatformDouble) -> Counter[str]:
    return Counter(r.name for r in double.records.values())


def kill_when(run: subprocess.Popen[str], ready: Any, timeout: float = 600) -> None:
    """SIGKILL the run and every process it started, at once, as soon as ``ready()`` (unless it
    ended first), as a machine lost at that moment."""
    deadline = time.monotonic() + timeout
    while not ready() and run.poll() is None:
        assert time.monotonic() < deadline, "the kill point was never reached"
        time.sleep(0.05)
    kill_tree(run.pid)
    run.wait(timeout=60)
