"""The main command: the program run on a stack through the real Pulumi engine (Automation API,
inline mode). ``connectors`` once the library is installed, ``python -m components.app.command`` in
a clone (``make up`` runs it).

The Automation API runs the program (``components.app.program.connectors_program``) in this
process (no Python language host needed), with the pulumi CLI on PATH when it is v3.274.0 or
newer (the user's own PULUMI_HOME, login and plugins), else the one ``scripts/install-tools``
builds; with the operations and flags of the ``pulumi`` command:

    connectors preview [--diff] [--refresh] [--target URN ...] [--stack dev]
    connectors up      [--diff] [--refresh] [--target URN ...] [--replace URN ...]
    connectors refresh [--target URN ...] [--clear-pending-creates]
    connectors destroy [--target URN ...]
    connectors render  --out DIR   (the manifests alone: no state, no cluster, as ``helm template``)
    connectors status              (namespace, image, ready replicas, uuid, platform status; read-only)
    connectors urns    (every resource's URN, as ``pulumi stack --show-urns``)
    connectors cancel  (after a run was killed: release the stack's lock)

    connectors up --stacks 'prod-*' --parallel 4 [--shard K/N]   (many stacks: fleet.py)
    connectors up --engine-parallel 32             (more operations at once: slow registrations)

Every operation also takes ``--work-dir`` (the project folder), ``--secrets-provider`` (a new
stack's), ``--skip-checkpoints`` (see docs/performance.md) and ``--report FILE`` (the result as
JSON, ``runs.RunReport``); ``--help`` lists them all.

State goes to ``PULUMI_BACKEND_URL`` when set (any backend Pulumi supports), else to
``.pulumi-state/`` in the project (ignored by git) once it holds state, else to the backend the
user's own CLI is logged in to (the built CLI has no login), else to ``.pulumi-state/``.
Secrets are encrypted with the passphrase ``PULUMI_CONFIG_PASSPHRASE`` if set, else, for local
state only, the documented local one, ``local-dev-only``.
Stack config is read from ``<work-dir>/stacks/Pulumi.<stack>.yaml``.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
import time

from components.app.command.runs import OPERATIONS, RunOptions, RunReport
from components.app.stack_files import PROJECT_FILE


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="connectors", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
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
        help="save state once at the end, not after every step (up does so by default on file:// and postgres:// backends)",
    )
    parser.add_argument(
        "--checkpoints",
        action="store_true",
        help="up: save state after every step (the slower way before the registration journal, which it keeps too)",
    )
    parser.add_argument(
        "--all",
        dest="run_all",
        action="store_true",
        help="up/preview: run every stack, also those unchanged since their last good up (which are skipped otherwise)",
    )
    parser.add_argument("--report", metavar="FILE", help="write the run's result, changes, duration and registrations as JSON")
    add_review_flags(parser)
    options = parser.parse_args(argv)
    refuse_what_does_not_go_together(parser, options)
    if options.report:  # the run changes into the project's folder: the file is named from here
        options.report = str(pathlib.Path(options.report).resolve())
    return options


def add_review_flags(parser: argparse.ArgumentParser) -> None:
    """The flags of reviewing and selecting: diff, refresh, render's folder, status's check, targets."""
    parser.add_argument("--diff", action="store_true", help="show the detailed diff of every change")
    parser.add_argument(
        "--refresh", action="store_true", help="preview/up: read the live objects first, so the diff is against the cluster"
    )
    parser.add_argument("--out", metavar="DIR", help="render: the folder the manifests are written to")
    parser.add_argument(
        "--check", action="store_true", help="status: list every problem (not Ready, not Healthy, drift...), exit non-zero on any"
    )
    parser.add_argument("--json", action="store_true", help="status --check: the problems as JSON")
    parser.add_argument(
        "--shard", metavar="K/N", help="with --stacks: only the K-th of N equal shares of the stacks (CI runners)"
    )
    parser.add_argument("--target", action="append", default=[], metavar="URN", help="operate on this resource only")
    parser.add_argument("--replace", action="append", default=[], metavar="URN", help="up: replace this resource")
    parser.add_argument(
        "--clear-pending-creates", action="store_true", help="refresh: drop creates a killed run left pending from state"
    )
    parser.add_argument(
        "--work-dir", default=project_here(), help="the project folder (Pulumi.yaml and stacks/; default: the one here or above)"
    )


def project_here() -> str:
    """The project a command started in it (or in a folder under it) means: the nearest folder up
    from here with a ``Pulumi.yaml``, as the ``pulumi`` command finds it; else here."""
    here = pathlib.Path.cwd()
    return str(next((folder for folder in (here, *here.parents) if (folder / PROJECT_FILE).is_file()), here))


def refuse_what_does_not_go_together(parser: argparse.ArgumentParser, options: argparse.Namespace) -> None:
    """Flags that do not go together are refused, naming them."""
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
    if options.refresh and options.operation not in ("up", "preview"):
        parser.error("--refresh applies to up and preview only")
    if options.operation == "render" and not options.out:
        parser.error("render needs --out DIR")
    if (options.check or options.json) and options.operation != "status":
        parser.error("--check and --json apply to status only")
    if options.json and not options.check:
        parser.error("--json applies to status --check")
    if options.checkpoints and (options.skip_checkpoints or options.operation != "up"):
        parser.error("--checkpoints applies to up only, without --skip-checkpoints")
    if options.run_all and options.operation not in ("up", "preview"):
        parser.error("--all applies to up and preview only")
    if options.stacks and options.operation in ("render", "status"):
        parser.error(f"{options.operation} takes one --stack")
    if options.shard is not None:
        options.shard = shard_of(parser, options.shard)


def shard_of(parser: argparse.ArgumentParser, text: str) -> tuple[int, int]:
    parts = text.split("/")
    if len(parts) != 2 or not all(p.isdigit() for p in parts) or not 1 <= int(parts[0]) <= int(parts[1]):
        parser.error("--shard must be K/N with 1 <= K <= N, e.g. 2/4")
    return int(parts[0]), int(parts[1])


def run_options(parsed: argparse.Namespace) -> RunOptions:
    """What one stack's run is asked, from the flags (the fleet's own flags left out)."""
    fields = {name: getattr(parsed, name) for name in RunOptions.__dataclass_fields__}
    return RunOptions(**{**fields, "target": tuple(parsed.target), "replace": tuple(parsed.replace)})


def run_stack(options: RunOptions) -> tuple[int, RunReport]:
    """One operation on one stack, in this process: its exit code and its report."""
    started = time.monotonic()
    report = RunReport(options.stack, options.operation)
    try:
        if options.operation in ("render", "status"):
            from components.app.automation.backend import SettingsError
            from components.app.command.render_stack import render
            from components.app.command.stack_check import check
            from components.app.command.stack_status import status

            try:
                code = (render if options.operation == "render" else check if options.check else status)(options)
            except SettingsError as error:  # as a run says it: what to set, no traceback
                print(f"connectors: {error}", file=sys.stderr)
                code = 2
            report.result = "succeeded" if code == 0 else "failed"
        else:
            from components.app.command.stack_run import run

            code = run(options, report)
    finally:
        report.duration = round(time.monotonic() - started, 3)
    return code, report


def main(argv: list[str] | None = None) -> int:
    parsed = arguments(argv)
    options = run_options(parsed)
    if parsed.stacks:
        from components.app.command.fleet import run_matching

        return run_matching(options, parsed.stacks, parsed.parallel, parsed.shard)
    code, report = 1, RunReport(options.stack, options.operation)
    try:
        code, report = run_stack(options)
    finally:
        if parsed.report:
            report.write(parsed.report)
    return code
