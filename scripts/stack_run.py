"""One operation on one stack through the real engine: the stack opened with the CLI and the
secrets it needs, the operation run, what it changed reported; a SIGTERM or Ctrl-C cancels the
engine the graceful way (``interrupts``)."""

from __future__ import annotations

import gc
import os
import pathlib
import sys
from dataclasses import dataclass
from typing import Any

import yaml
from pulumi import automation as auto

from components.program import connectors_program
from components.registration import journal
from components.registration.resource import TYPE_TOKEN as REGISTRATION
from components.stack_config import reference_reader, stack_settings
from components.stack_files import PROJECT_FILE
from scripts import change_detection
from scripts.change_detection import Place
from scripts.engine_messages import Diagnostics, cli_error
from scripts.engine_tools import ToolsUnavailable, engine_env
from scripts.interrupts import graceful_interrupts
from scripts.pulumi_cli import find_cli
from scripts.runs import CREATING, UNCHANGED, RunOptions, RunReport
from scripts.sdk_inline_server import record_source_positions_only, report_run_errors_once
from scripts.stack_backend import SettingsError, local_state, passphrase, project_folder, state_backend

PROJECT = "connectors"


@dataclass(frozen=True)
class Checkpoints:
    """How a run saves its state: after every step (the engine's checkpoints), or once at its
    end with every registration's outcome journaled as it comes (``registration.journal``)."""

    skipped: bool
    journal: bool


def checkpoints(options: RunOptions, backend: str) -> Checkpoints:
    """A preview saves no state (its checkpoints are serialized and thrown away: two thirds of a
    200-connector preview's time), so it never takes them. Where the backend keeps the
    registration journal (file://, postgres://), every run that changes the stack keeps it (an
    ``up`` after a killed one finds the outcomes there whatever its flags; a ``destroy`` that
    de-registers removes them), and an ``up`` skips the engine's checkpoints unless
    ``--checkpoints`` asks for them (their cost grows with the square of a stack's size; see
    docs/performance.md). Elsewhere checkpoints are skipped only when asked (``--skip-checkpoints``)."""
    if options.operation == "preview":
        return Checkpoints(skipped=True, journal=False)
    journaled = options.operation in ("up", "refresh", "destroy") and journal.supports(backend)
    by_default = options.operation == "up" and journaled and not options.checkpoints
    return Checkpoints(skipped=options.skip_checkpoints or by_default, journal=journaled)


def locate(options: RunOptions) -> tuple[Place, str]:
    """Where the run happens (project folder, CLI, state backend), and how to say where its state is."""
    work_dir = project_folder(options)
    cli = find_cli()
    backend, where = state_backend(work_dir, cli)
    return Place(work_dir, backend, cli, project_name(work_dir)), where


def unchanged(place: Place, options: RunOptions) -> bool:
    """Whether this ``up`` or ``preview`` is not run: its inputs are those of its last good
    ``up`` (``change_detection``); one line says so, or why it runs."""
    if options.operation not in ("up", "preview") or change_detection.always_runs(options):
        return False
    why = change_detection.reason_to_run(place, options)
    if why is None:
        print(
            f"stack {options.stack}: unchanged since its last good up (settings, code, tools, referenced objects, "
            "state): not run (--all runs it)",
            flush=True,
        )
        return True
    print(f"stack {options.stack}: runs: {why}", flush=True)
    return False


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
    state (about 1 s of CPU for a stack of 250 connectors, every stack of a fleet), while the
    CLI's display of the ``up`` has shown them already (secrets masked)."""

    def stack_outputs(self, stack_name: str) -> auto.OutputMap:
        return {}


YOUNG_THRESHOLD = 50_000


def collect_less_often() -> None:
    """Python's cycle collector, tuned for a program that registers thousands of resources: the
    SDK makes many short-lived objects per resource (Outputs, futures, tasks), so at the default
    threshold (700 allocations) the collector ran thousands of times over the whole heap of the
    imported SDKs, a third of the program's CPU in a no-op ``up`` of 250 connectors (16-19 s
    against 11-12 s). The heap as imported is frozen (never scanned again) and the youngest
    generation is collected every 50,000 allocations; memory grows by what those hold at most."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, *gc.get_threshold()[1:])


def journal_stack(stack: str) -> str:
    return f"{PROJECT}/{stack}"


def project_name(work_dir: pathlib.Path) -> str:
    """The project's name in its ``Pulumi.yaml`` (the state backend files its stacks under it)."""
    settings = yaml.safe_load((work_dir / PROJECT_FILE).read_text()) or {}
    return str(settings.get("name") or PROJECT) if isinstance(settings, dict) else PROJECT


def journaled(options: RunOptions) -> bool:
    return os.environ.get(journal.ENV) == journal_stack(options.stack)


def clear_journal(options: RunOptions) -> int:
    """After an ``up`` that ended well: its state holds every outcome the journal kept, one per
    registration this run created (or took over from a killed run); how many."""
    try:
        return journal.open_journal(os.environ["PULUMI_BACKEND_URL"], journal_stack(options.stack)).clear()
    except journal.JournalError as error:
        print(f"warning: {error}", file=sys.stderr)
        return 0


@dataclass
class Run:
    """One operation on one stack: what it was asked, and what it reports."""

    stack: Any
    options: RunOptions
    report: RunReport
    place: Place
    recorder: change_detection.Recorder

    def engine_options(self) -> dict[str, Any]:
        given = {"target": list(self.options.target) or None, "on_output": print, "on_error": print}
        return given | ({"parallel": self.options.engine_parallel} if self.options.engine_parallel else {})

    def count_registrations(self, event: Any) -> None:
        """A registration created in this run (created, or created anew by a replace)."""
        outputs = event.res_outputs_event
        if outputs is not None and outputs.metadata.type == REGISTRATION:
            if outputs.metadata.op in (auto.OpType.CREATE, auto.OpType.CREATE_REPLACEMENT):
                self.report.registrations += 1

    def preview(self) -> None:
        options = {
            "diff": self.options.diff,
            "replace": list(self.options.replace) or None,
            "refresh": self.options.refresh or None,
        }
        preview = self.stack.preview(**options, **self.engine_options())
        self.report.changes = without_same(preview.change_summary)

    def up(self) -> None:
        """Past a failed step the engine goes on with every step that does not depend on it
        (``--continue-on-error``): one connector's failure leaves the others applied, registered
        and saved; the run still fails, naming the failed entries last. With the journal, the
        registrations it created are its entries: the engine's event stream (every step's whole
        state, as JSON, parsed here) is not asked for."""
        with_journal = journaled(self.options)
        diagnostics = Diagnostics()
        change_detection.forget(self.place, self.options.stack)
        try:
            result = self.stack.up(
                on_event=None if with_journal else self.count_registrations,
                diff=self.options.diff,
                replace=list(self.options.replace) or None,
                refresh=self.options.refresh or None,
                continue_on_error=True,
                **{**self.engine_options(), "on_output": diagnostics.read},
            )
        except auto.CommandError:
            if diagnostics.failed:
                print(f"stack {self.options.stack}: failed: {', '.join(diagnostics.failed)} (every other entry was applied)")
            raise
        self.report.changes = without_same(result.summary.resource_changes)
        if with_journal:
            self.report.registrations = clear_journal(self.options)
        if not self.options.target:  # a targeted up applied only part of the stack: the next up runs
            change_detection.remember(self.place, self.options.stack, self.recorder)

    def refresh(self) -> None:
        change_detection.forget(self.place, self.options.stack)
        options = {k: v for k, v in self.engine_options().items() if k != "parallel"}
        self.stack.refresh(clear_pending_creates=self.options.clear_pending_creates or None, **options)

    def destroy(self) -> None:
        change_detection.forget(self.place, self.options.stack)
        self.stack.destroy(**self.engine_options())

    def cancel(self) -> None:
        self.stack.cancel()
        print(f"stack {self.options.stack}: lock released")

    def urns(self) -> None:
        for resource in self.stack.export_stack().deployment.get("resources", []):
            print(resource["urn"])


def run(options: RunOptions, report: RunReport) -> int:
    """The operation through the engine; what it did goes into ``report``."""
    recorder = change_detection.Recorder()
    try:
        place, where = locate(options)
        if unchanged(place, options):
            report.result = UNCHANGED
            return 0
        stack = open_stack(options, (place, where), recorder)
    except ToolsUnavailable as error:
        print(f"deploy.py: {error}", file=sys.stderr)
        return 3
    except SettingsError as error:
        print(f"deploy.py: {error}", file=sys.stderr)
        return 2
    except auto.CommandError as error:  # the CLI said why (a wrong passphrase, a backend down): that line, no traceback
        if options.operation == "cancel" and isinstance(error, auto.StackNotFoundError):
            print(f"stack {options.stack}: not created yet, no lock to release")  # a fleet member a killed run never reached
            report.result = "succeeded"
            return 0
        print(f"deploy.py: stack {options.stack}: {cli_error(error)}", file=sys.stderr)
        return 1
    operation = Run(stack, options, report, place, recorder)
    with graceful_interrupts() as interrupted:
        try:
            getattr(operation, options.operation)()
        except auto.CommandError:
            return interrupted.exit_code or 1
        except journal.JournalError as error:
            print(f"deploy.py: stack {options.stack}: {error}; nothing was run", file=sys.stderr)
            return 1
    report.result = "succeeded"
    return 0


def without_same(changes: dict[str, int] | None) -> dict[str, int]:
    return {op: n for op, n in (changes or {}).items() if op != "same" and n}
