"""Run the program on a stack through the real Pulumi engine (Automation API, inline mode).

The Automation API runs the program (``components.program.connectors_program``) in this
process (no Python language host needed), with the pulumi CLI on PATH when it is v3.274.0 or
newer (the user's own PULUMI_HOME, login and plugins), else the one ``scripts/install-tools``
builds; with the operations and flags of the ``pulumi`` command:

    python scripts/deploy.py preview [--diff] [--target URN ...] [--stack dev]
    python scripts/deploy.py up      [--diff] [--target URN ...] [--replace URN ...]
    python scripts/deploy.py refresh [--target URN ...] [--clear-pending-creates]
    python scripts/deploy.py destroy [--target URN ...]
    python scripts/deploy.py urns    (every resource's URN, as ``pulumi stack --show-urns``)
    python scripts/deploy.py cancel  (after a run was killed: release the stack's lock)

    python scripts/deploy.py up --stacks 'prod-*' --parallel 4   (many stacks at once: scripts/fleet.py)
    python scripts/deploy.py up --engine-parallel 32             (more operations at once: slow registrations)

State goes to ``PULUMI_BACKEND_URL`` when set (any backend Pulumi supports), else to
``.pulumi-state/`` in the project (ignored by git). Secrets are encrypted with the passphrase
``PULUMI_CONFIG_PASSPHRASE`` if set, else the documented local one, ``local-dev-only``.
Stack config is read from ``<work-dir>/stacks/Pulumi.<stack>.yaml``.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import time
from dataclasses import dataclass
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

LOCAL_PASSPHRASE = "local-dev-only"
OPERATIONS = ["preview", "up", "refresh", "destroy", "urns", "cancel"]
REGISTRATION_TYPE = "pulumi-python:dynamic/connectors:Registration"


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("operation", choices=OPERATIONS)
    parser.add_argument("--stack", default="dev")
    parser.add_argument("--stacks", metavar="PATTERN", help="every stack whose name matches (e.g. 'prod-*'), at once")
    parser.add_argument("--parallel", type=int, default=os.cpu_count() or 2, help="with --stacks: how many run at once")
    parser.add_argument(
        "--engine-parallel",
        type=int,
        metavar="N",
        help="preview/up/destroy: resource operations the engine runs at once (pulumi's --parallel; default 8 here)",
    )
    parser.add_argument(
        "--secrets-provider",
        default=os.environ.get("PULUMI_SECRETS_PROVIDER"),
        help="for a new stack: passphrase (default) or a KMS URL (awskms://, azurekeyvault://, gcpkms://, hashivault://)",
    )
    parser.add_argument(
        "--skip-checkpoints",
        action="store_true",
        help="save state once at the end, not after every step (much faster for large stacks; see the README for the cost)",
    )
    parser.add_argument("--report", metavar="FILE", help="write the run's result, changes, duration and registrations as JSON")
    parser.add_argument("--diff", action="store_true", help="show the detailed diff of every change")
    parser.add_argument("--target", action="append", default=[], metavar="URN", help="operate on this resource only")
    parser.add_argument("--replace", action="append", default=[], metavar="URN", help="up: replace this resource")
    parser.add_argument(
        "--clear-pending-creates", action="store_true", help="refresh: drop creates a killed run left pending from state"
    )
    parser.add_argument("--work-dir", default=str(ROOT), help="the project folder (Pulumi.yaml and stacks/)")
    options = parser.parse_args(argv)
    if options.parallel < 1:
        parser.error("--parallel must be at least 1")
    if options.engine_parallel is not None and options.engine_parallel < 1:
        parser.error("--engine-parallel must be at least 1")
    if options.replace and options.operation not in ("up", "preview"):
        parser.error("--replace applies to up and preview only")
    if options.clear_pending_creates and options.operation != "refresh":
        parser.error("--clear-pending-creates applies to refresh only")
    if options.diff and options.operation not in ("up", "preview"):
        parser.error("--diff applies to up and preview only")
    return options


def main(argv: list[str] | None = None) -> int:
    options = arguments(argv)
    if options.stacks:
        from scripts.fleet import matching_stacks, run_fleet

        work_dir = pathlib.Path(options.work_dir).resolve()
        stacks = matching_stacks(work_dir, options.stacks)
        if not stacks:
            print(f"no stack in {work_dir / 'stacks'} matches {options.stacks!r}", file=sys.stderr)
            return 2
        extra = ["--diff"] * options.diff + [f"--target={t}" for t in options.target]
        extra += [f"--replace={r}" for r in options.replace]
        extra += [f"--secrets-provider={options.secrets_provider}"] if options.secrets_provider else []
        extra += ["--skip-checkpoints"] if options.skip_checkpoints else []
        extra += [f"--engine-parallel={options.engine_parallel}"] if options.engine_parallel else []
        return run_fleet(options.operation, stacks, options.parallel, work_dir, extra)
    started = time.monotonic()
    report: dict[str, Any] = {"stack": options.stack, "operation": options.operation, "result": "failed", "changes": {}}
    registrations: list[str] = []
    try:
        code = run(options, report, registrations)
    finally:
        report.update(duration=round(time.monotonic() - started, 3), registrations=len(registrations))
        if options.report:
            pathlib.Path(options.report).write_text(json.dumps(report))
    return code


def skips_checkpoints(operation: str, asked: bool) -> bool:
    """Whether the engine runs without intermediate checkpoints. A preview saves no state (its
    checkpoints are serialized and thrown away: two thirds of a 200-connector preview's time), so
    it never takes them; the other operations skip them only when asked (see the README's cost)."""
    return asked or operation == "preview"


def open_stack(options: argparse.Namespace) -> Any:
    """The stack, created or selected, with the engine's environment set on this process."""
    from pulumi import automation as auto

    from components.program import connectors_program
    from scripts.engine_tools import engine_env
    from scripts.pulumi_cli import find_cli
    from scripts.sdk_inline_server import report_run_errors_once

    work_dir = pathlib.Path(options.work_dir).resolve()
    cli = find_cli()
    print(f"pulumi CLI: {cli.bin_dir / 'pulumi'}{' (built by scripts/install-tools)' if cli.built else ''}", flush=True)
    env = engine_env(cli.bin_dir, os.environ.get("PULUMI_CONFIG_PASSPHRASE", LOCAL_PASSPHRASE), cli.pulumi_home)
    if not os.environ.get("PULUMI_BACKEND_URL"):
        state = work_dir / ".pulumi-state"
        state.mkdir(exist_ok=True)
        env["PULUMI_BACKEND_URL"] = f"file://{state}"
    if skips_checkpoints(options.operation, options.skip_checkpoints):
        env["PULUMI_SKIP_CHECKPOINTS"] = "true"
    os.environ.update(env)
    os.chdir(work_dir)
    report_run_errors_once()
    root = str(cli.bin_dir.parent) if cli.bin_dir.name == "bin" else None  # else: the pulumi first on PATH, this one
    command = auto.PulumiCommand(root=root, skip_version_check=True)
    return auto.create_or_select_stack(
        options.stack,
        project_name="connectors",
        program=connectors_program,
        opts=auto.LocalWorkspaceOptions(
            work_dir=str(work_dir),
            pulumi_home=env.get("PULUMI_HOME"),
            pulumi_command=command,
            env_vars=env,
            secrets_provider=options.secrets_provider,
        ),
    )


@dataclass
class Run:
    """One operation on one stack: what it was asked, and what it reports."""

    stack: Any
    options: argparse.Namespace
    report: dict[str, Any]
    registrations: list[str]

    def engine_options(self) -> dict[str, Any]:
        given = {"target": self.options.target or None, "on_output": print, "on_error": print}
        return given | ({"parallel": self.options.engine_parallel} if self.options.engine_parallel else {})

    def count_registrations(self, event: Any) -> None:
        """A registration created in this run (created, or created anew by a replace)."""
        from pulumi import automation as auto

        outputs = event.res_outputs_event
        if outputs is not None and outputs.metadata.type == REGISTRATION_TYPE:
            if outputs.metadata.op in (auto.OpType.CREATE, auto.OpType.CREATE_REPLACEMENT):
                self.registrations.append(outputs.metadata.urn)

    def preview(self) -> None:
        preview = self.stack.preview(diff=self.options.diff, replace=self.options.replace or None, **self.engine_options())
        self.report["changes"] = without_same(preview.change_summary)

    def up(self) -> None:
        result = self.stack.up(
            on_event=self.count_registrations,
            diff=self.options.diff,
            replace=self.options.replace or None,
            **self.engine_options(),
        )
        self.report["changes"] = without_same(result.summary.resource_changes)
        for key, value in result.outputs.items():
            print(f"{key}: {'[secret]' if value.secret else value.value}")

    def refresh(self) -> None:
        options = {k: v for k, v in self.engine_options().items() if k != "parallel"}
        self.stack.refresh(clear_pending_creates=self.options.clear_pending_creates or None, **options)

    def destroy(self) -> None:
        self.stack.destroy(**self.engine_options())

    def cancel(self) -> None:
        self.stack.cancel()
        print(f"stack {self.options.stack}: lock released")

    def urns(self) -> None:
        for resource in self.stack.export_stack().deployment.get("resources", []):
            print(resource["urn"])


def run(options: argparse.Namespace, report: dict[str, Any], registrations: list[str]) -> int:
    from pulumi import automation as auto

    from scripts.engine_tools import ToolsUnavailable

    try:
        stack = open_stack(options)
    except ToolsUnavailable as error:
        print(f"deploy.py: {error}", file=sys.stderr)
        return 3
    except auto.CommandError as error:  # the CLI said why (a wrong passphrase, a backend down): that line, no traceback
        print(f"deploy.py: stack {options.stack}: {cli_error(error)}", file=sys.stderr)
        return 1
    operation = Run(stack, options, report, registrations)
    try:
        getattr(operation, options.operation)()
    except auto.CommandError:
        return 1
    report["result"] = "succeeded"
    return 0


def cli_error(error: Exception) -> str:
    """The CLI's own error lines of a failed command, without the Automation API's framing."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip().startswith("error:")]
    return "; ".join(lines) or "the pulumi CLI failed"


def without_same(changes: dict[str, int] | None) -> dict[str, int]:
    return {op: n for op, n in (changes or {}).items() if op != "same" and n}


if __name__ == "__main__":
    sys.exit(main())
