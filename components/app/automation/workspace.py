"""Where and with what the engine runs a stack: the Pulumi CLI (the user's, or the one
``scripts/install-tools`` builds), the engine's environment, and the inline workspace whose
program is ``components.app.program.connectors_program`` run in this process (no Python language
host needed)."""

from __future__ import annotations

import gc
import os
import pathlib
import sys
from collections.abc import Callable
from typing import Any

from pulumi import automation as auto

from components.app.automation.backend import (
    PROJECT,
    checkpoints,
    journal_stack,
    local_state,
    passphrase,
    project_folder,
    project_name,
    state_backend,
)
from components.app.automation.pulumi_cli import CLONE, find_cli
from components.app.automation.sdk_inline_server import record_source_positions_only, report_run_errors_once
from components.app.command import change_detection
from components.app.command.change_detection import Place
from components.app.command.runs import CREATING, RunOptions
from components.app.program import connectors_program
from components.app.stack_config import reference_reader, stack_settings
from components.registration import journal

TOOLS_HOME = "tools"


def engine_env(bin_dir: pathlib.Path, passphrase: str, pulumi_home: str | None = TOOLS_HOME) -> dict[str, str]:
    """PATH with the CLI's folder first and this virtualenv's python next (the program's
    dynamic-provider helper runs ``python -m pulumi.dynamic``), and ``components`` importable
    by that python. ``pulumi_home``: the built tools' (default), a folder, or None to leave the
    user's PULUMI_HOME as it is."""
    venv_bin = pathlib.Path(sys.executable).parent
    env = {
        "PATH": os.pathsep.join([str(bin_dir), str(venv_bin), os.environ.get("PATH", "")]),
        "PULUMI_CONFIG_PASSPHRASE": passphrase,
        "PULUMI_SKIP_UPDATE_CHECK": "true",
        "PYTHONPATH": os.pathsep.join(p for p in [str(CLONE or ""), os.environ.get("PYTHONPATH", "")] if p),
    }
    if pulumi_home is not None:
        env["PULUMI_HOME"] = str(bin_dir.parent / "pulumi-home") if pulumi_home == TOOLS_HOME else pulumi_home
    return env


def create_inline_stack(
    name: str, program: Callable[[], None], work_dir: pathlib.Path, env: dict[str, str], command: Any = None
) -> Any:
    """A new stack of the ``connectors`` project running ``program`` inline, in ``work_dir``,
    with ``env`` (its ``PULUMI_BACKEND_URL`` chooses the state) and passphrase secrets."""
    from pulumi import automation as auto

    return auto.create_stack(
        name,
        project_name=PROJECT,
        program=program,
        opts=auto.LocalWorkspaceOptions(
            work_dir=str(work_dir),
            pulumi_home=env.get("PULUMI_HOME"),
            pulumi_command=command,
            env_vars=env,
            project_settings=auto.ProjectSettings(name=PROJECT, runtime="python"),
            secrets_provider="passphrase",
        ),
    )


def locate(options: RunOptions) -> tuple[Place, str]:
    """Where the run happens (project folder, CLI, state backend), and how to say where its state is."""
    work_dir = project_folder(options)
    cli = find_cli()
    backend, where = state_backend(work_dir, cli)
    return Place(work_dir, backend, cli, project_name(work_dir)), where


def open_stack(
    options: RunOptions, located: tuple[Place, str] | None = None, recorder: change_detection.Recorder | None = None
) -> Any:
    """The stack, created or selected, with the engine's environment set on this process; the
    program records the referenced objects it reads into ``recorder``."""
    place, where = located or locate(options)
    recorder = recorder or change_detection.Recorder()
    work_dir, cli, backend = place.work_dir, place.cli, place.backend
    secret = passphrase(work_dir, options.stack, options.secrets_provider, backend)
    print(f"pulumi CLI: {cli.bin_dir / 'pulumi'}{' (built by scripts/install-tools)' if cli.built else ''}", flush=True)
    print(f"state: {where}", flush=True)
    env = engine_env(cli.bin_dir, secret or "", cli.pulumi_home)
    if secret is None:
        del env["PULUMI_CONFIG_PASSPHRASE"]
    if backend == f"file://{local_state(work_dir)}":
        local_state(work_dir).mkdir(exist_ok=True)
    env["PULUMI_BACKEND_URL"] = backend
    saving = checkpoints(options, backend)
    if saving.skipped:
        env["PULUMI_SKIP_CHECKPOINTS"] = "true"
    if saving.journal:
        env[journal.ENV] = journal_stack(options.stack)
    os.environ.update(env)
    os.chdir(work_dir)
    report_run_errors_once()
    collect_less_often()
    record_source_positions_only()
    root = str(cli.bin_dir.parent) if cli.bin_dir.name == "bin" else None  # else: the pulumi first on PATH, this one
    command = auto.PulumiCommand(root=root, skip_version_check=True)
    workspace = OutputsShownByTheCli(
        work_dir=str(work_dir),
        program=lambda: connectors_program(reader=recorder.wrap(reference_reader(stack_settings()))),
        pulumi_home=env.get("PULUMI_HOME"),
        pulumi_command=command,
        env_vars=env,
        secrets_provider=options.secrets_provider,
    )
    # Only what changes a stack creates one: a mistyped name for status, urns or cancel is an error.
    opening = auto.Stack.create_or_select if options.operation in CREATING else auto.Stack.select
    return opening(options.stack, workspace)


class OutputsShownByTheCli(auto.LocalWorkspace):
    """The workspace of this program's runs, which never reads a stack's outputs back: after an
    ``up`` the Automation API would read them with two ``pulumi stack output`` runs over the whole
    state (CPU in proportion to the stack's size, for every stack of a fleet), while the
    CLI's display of the ``up`` has shown them already (secrets masked)."""

    def stack_outputs(self, stack_name: str) -> auto.OutputMap:
        return {}


YOUNG_THRESHOLD = 50_000


def collect_less_often() -> None:
    """Python's cycle collector, tuned for a program that registers thousands of resources: the
    SDK makes many short-lived objects per resource (Outputs, futures, tasks), so at the default
    threshold (700 allocations) the collector ran thousands of times over the whole heap of the
    imported SDKs, a large part of the program's CPU in a no-op ``up`` of a large stack
    (docs/performance.md). The heap as imported is frozen (never scanned again) and the youngest
    generation is collected every 50,000 allocations; memory grows by what those hold at most."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, *gc.get_threshold()[1:])
