"""One operation on one stack through the real engine: skipped when nothing changed since the
stack's last good ``up`` (``change_detection``), else the stack opened (``workspace``), the
operation run, what it changed reported; a SIGTERM or Ctrl-C cancels the engine the graceful way
(``interrupts``)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

from pulumi import automation as auto

from components.app.automation.backend import SettingsError, clear_journal, journaled
from components.app.automation.engine_messages import Diagnostics, cli_error
from components.app.automation.pulumi_cli import ToolsUnavailable
from components.app.automation.workspace import locate, open_stack
from components.app.command import change_detection
from components.app.command.change_detection import Place
from components.app.command.interrupts import graceful_interrupts
from components.app.command.runs import UNCHANGED, RunOptions, RunReport
from components.registration import journal
from components.type_tokens import DYNAMIC_REGISTRATION as REGISTRATION


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
        started_from = change_detection.starting_inputs(self.place, self.options.stack)
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
        if not self.options.target and started_from is not None:  # a targeted up applied part of the stack
            change_detection.remember(self.place, self.options.stack, self.recorder, started_from)

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
        print(f"connectors: {error}", file=sys.stderr)
        return 3
    except SettingsError as error:
        print(f"connectors: {error}", file=sys.stderr)
        return 2
    except auto.CommandError as error:  # the CLI said why (a wrong passphrase, a backend down): that line, no traceback
        if options.operation == "cancel" and isinstance(error, auto.StackNotFoundError):
            print(f"stack {options.stack}: not created yet, no lock to release")  # a fleet member a killed run never reached
            report.result = "succeeded"
            return 0
        print(f"connectors: stack {options.stack}: {cli_error(error)}", file=sys.stderr)
        return 1
    operation = Run(stack, options, report, place, recorder)
    with graceful_interrupts() as interrupted:
        try:
            getattr(operation, options.operation)()
        except auto.CommandError:
            return interrupted.exit_code or 1
        except journal.JournalError as error:
            print(f"connectors: stack {options.stack}: {error}; nothing was run", file=sys.stderr)
            return 1
    report.result = "succeeded"
    return 0


def without_same(changes: dict[str, int] | None) -> dict[str, int]:
    return {op: n for op, n in (changes or {}).items() if op != "same" and n}
