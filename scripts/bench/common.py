"""What every benchmark shares: the connectors it deploys, stacks of inline programs, timing,
the engine's environment and where results go."""

from __future__ import annotations

import json
import os
import pathlib
import platform
import time
from collections.abc import Callable
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parents[2]
PASSPHRASE = "bench-passphrase"


def connectors(n: int) -> list[dict[str, Any]]:
    return [
        {
            "name": f"bench-{i:04d}",
            "namespace": "bench",
            "spec": {"image": {"repository": "r.example/bench", "tag": "1.0.0"}, "env": [{"name": "LOG_LEVEL", "value": "INFO"}]},
        }
        for i in range(n)
    ]


def component_program() -> None:
    from components.app.program import connectors_program

    connectors_program()


def timed(operation: Callable[[], Any]) -> float:
    start = time.perf_counter()
    operation()
    return time.perf_counter() - start


def inline_stack(name: str, program: Callable[[], None], folder: pathlib.Path, env: dict[str, str]) -> Any:
    """A new stack of an inline program, its work folder and ``file://`` state under ``folder``."""
    from components.app.automation.workspace import create_inline_stack

    work, state = folder / "work", folder / "state"
    for path in (work, state):
        path.mkdir(parents=True)
    return create_inline_stack(name, program, work, {**env, "PULUMI_BACKEND_URL": f"file://{state}"})


def registering(entries: list[dict[str, Any]], platform_url: str) -> list[dict[str, Any]]:
    """The entries, each registering under its own name at ``platform_url``."""
    for entry in entries:
        entry["spec"]["registration"] = {"platformUrl": platform_url, "name": entry["name"], "authType": "none"}
    return entries


def engine_environment() -> dict[str, str]:
    """The engine's environment (tools built or found), also set on this process."""
    from components.app.automation.pulumi_cli import tools_bin
    from components.app.automation.workspace import engine_env

    env = engine_env(tools_bin(), PASSPHRASE)
    os.environ.update(env)
    return env


def run_as_deployed() -> None:
    """This process's program runs as ``connectors`` runs it: the cycle collector tuned and each
    resource's stack trace cut to its source position (``components/app/automation/workspace``). Every variant a
    benchmark compares runs in this one process, so each gets them alike."""
    from components.app.automation.sdk_inline_server import record_source_positions_only
    from components.app.automation.workspace import collect_less_often

    collect_less_often()
    record_source_positions_only()


def machine() -> dict[str, Any]:
    return {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()}


def write_result(out: pathlib.Path, name: str, summary: dict[str, Any]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / name).write_text(json.dumps(summary, indent=2))


def preview_as_deployed(stack: Any) -> Any:
    """A preview as ``connectors preview`` runs it: without checkpoints (it saves no state)."""
    from components.app.automation.backend import checkpoints
    from components.app.command.runs import RunOptions

    env = stack.workspace.env_vars
    before = env.get("PULUMI_SKIP_CHECKPOINTS")
    env["PULUMI_SKIP_CHECKPOINTS"] = str(checkpoints(RunOptions("preview"), "").skipped).lower()
    try:
        return stack.preview()
    finally:
        if before is None:
            del env["PULUMI_SKIP_CHECKPOINTS"]
        else:
            env["PULUMI_SKIP_CHECKPOINTS"] = before
